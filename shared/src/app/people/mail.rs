//! The emails people get from the application: a link to confirm the
//! address, to reset the password or to accept an invitation, and the notice
//! that an address signing up already has an account. Sent through the
//! `Email` port; a host without one (`svc serve` without `SVC_SMTP_URL`)
//! writes the link to its log instead, which is for development only.

use crate::domain::lang::Lang;
use crate::domain::person::Email;
use crate::ports::Ports;
use crate::ports::email::{EmailError, OutgoingEmail};

use super::links::Purpose;

/// What the email is about.
pub enum Notice<'a> {
    /// A link of `purpose` at `url`; `account` names the inviting account.
    Link {
        purpose: Purpose,
        url: &'a str,
        account: &'a str,
    },
    /// Someone signed up with an address that has an account: where to sign
    /// in or reset the password instead.
    AlreadyRegistered { sign_in_url: &'a str },
}

fn subject_and_text(notice: &Notice, lang: Lang) -> (String, String) {
    match notice {
        Notice::Link {
            purpose: Purpose::Verify,
            url,
            ..
        } => (
            lang.pick("Confirma tu correo", "Confirm your email").into(),
            format!(
                "{}\n\n{url}\n\n{}",
                lang.pick(
                    "Abre este enlace para confirmar tu dirección y empezar a usar el servicio:",
                    "Open this link to confirm your address and start using the service:"
                ),
                lang.pick(
                    "El enlace sirve una vez durante 24 horas. Si no te diste de alta, ignora este mensaje.",
                    "The link works once for 24 hours. If you did not sign up, ignore this message."
                )
            ),
        ),
        Notice::Link {
            purpose: Purpose::Reset,
            url,
            ..
        } => (
            lang.pick("Cambia tu contraseña", "Reset your password").into(),
            format!(
                "{}\n\n{url}\n\n{}",
                lang.pick(
                    "Abre este enlace para elegir una contraseña nueva:",
                    "Open this link to choose a new password:"
                ),
                lang.pick(
                    "El enlace sirve una vez durante una hora. Si no lo pediste, ignora este mensaje: tu contraseña no cambia.",
                    "The link works once for one hour. If you did not ask for it, ignore this message: your password stays as it is."
                )
            ),
        ),
        Notice::Link {
            purpose: Purpose::Invite,
            url,
            account,
        } => (
            format!("{} {account}", lang.pick("Te invitan a", "You are invited to")),
            format!(
                "{} {account}. {}\n\n{url}\n\n{}",
                lang.pick("Te han invitado a la cuenta", "You have been invited to the account"),
                lang.pick(
                    "Abre este enlace para elegir tu contraseña:",
                    "Open this link to choose your password:"
                ),
                lang.pick(
                    "El enlace sirve una vez durante 7 días.",
                    "The link works once for 7 days."
                )
            ),
        ),
        Notice::AlreadyRegistered { sign_in_url } => (
            lang.pick("Ya tienes una cuenta", "You already have an account").into(),
            format!(
                "{}\n\n{sign_in_url}",
                lang.pick(
                    "Alguien (quizá tú) intentó darse de alta con esta dirección, que ya tiene una cuenta. Entra o, si no recuerdas la contraseña, pide otra desde aquí:",
                    "Someone (perhaps you) tried to sign up with this address, which already has an account. Sign in or, if you forgot your password, ask for a new one here:"
                )
            ),
        ),
    }
}

/// Sends `notice` to `to`. Without a mailer the link goes to the log.
pub async fn send(
    ports: &Ports,
    to: &Email,
    lang: Lang,
    notice: &Notice<'_>,
) -> Result<(), EmailError> {
    let (subject, text) = subject_and_text(notice, lang);
    let Some(mailer) = &ports.mailer else {
        tracing::warn!(
            to = %crate::redact::short_hash(to.as_str()),
            %subject,
            message = %text,
            "no email transport (SVC_SMTP_URL): the message is only logged; for development only"
        );
        return Ok(());
    };
    let message = OutgoingEmail {
        from: mailer.from.clone(),
        to: vec![to.to_string()],
        cc: Vec::new(),
        subject,
        text,
        html: None,
        attachments: Vec::new(),
    };
    mailer.email.send(&message).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_notice_carries_its_link_in_both_languages() {
        for purpose in [Purpose::Verify, Purpose::Reset, Purpose::Invite] {
            for lang in [Lang::Es, Lang::En] {
                let notice = Notice::Link {
                    purpose,
                    url: "https://app.test/x?token=abc",
                    account: "Taller Ana",
                };
                let (subject, text) = subject_and_text(&notice, lang);
                assert!(!subject.is_empty());
                assert!(text.contains("https://app.test/x?token=abc"), "{text}");
            }
        }
        let (_, text) = subject_and_text(
            &Notice::AlreadyRegistered {
                sign_in_url: "https://app.test/sign-in",
            },
            Lang::En,
        );
        assert!(text.contains("https://app.test/sign-in"));
    }
}
