//! The emails people get from the application: a link to confirm the
//! address, to reset the password or to accept an invitation, and the notice
//! that an address signing up already has an account. Written by
//! `postbox::deliver`, sent through the `Email` port; a host without one
//! (`svc serve` without `SVC_SMTP_URL`) writes the link to its log instead,
//! which is for development only. Plain text only: a name someone else
//! chose is quoted on one line.

use crate::domain::lang::Lang;
use crate::domain::person::Email;
use crate::ports::Ports;
use crate::ports::email::{EmailError, OutgoingEmail};

/// What the letter says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The link that confirms the address.
    Confirm { url: String },
    /// The link that sets a new password.
    Reset { url: String },
    /// An invitation to `account` from `inviter`, and its link.
    Invitation {
        url: String,
        account: String,
        inviter: String,
    },
    /// Someone signed up with an address that has an account: where to sign
    /// in or reset the password instead.
    AlreadyRegistered { sign_in_url: String },
}

/// The longest name a letter quotes.
const MAX_QUOTED_CHARS: usize = 120;

/// A name chosen by someone else (an account's name) as one plain line:
/// control characters and runs of spaces become one space, at most 120
/// characters, so it cannot add lines or headers to the letter.
fn quoted(name: &str) -> String {
    let line = name
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut chars = line.chars();
    let cut: String = chars.by_ref().take(MAX_QUOTED_CHARS).collect();
    if chars.next().is_some() {
        format!("«{cut}…»")
    } else {
        format!("«{cut}»")
    }
}

fn subject_and_text(notice: &Notice, lang: Lang) -> (String, String) {
    match notice {
        Notice::Confirm { url } => (
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
        Notice::Reset { url } => (
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
        Notice::Invitation {
            url,
            account,
            inviter,
        } => {
            let account = quoted(account);
            let inviter = quoted(inviter);
            (
                format!("{} {account}", lang.pick("Invitación a la cuenta", "Invitation to the account")),
                format!(
                    "{} {account} ({} {inviter}). {}\n\n{url}\n\n{}",
                    lang.pick("Te han invitado a la cuenta", "You have been invited to the account"),
                    lang.pick("propietario:", "owner:"),
                    lang.pick(
                        "Para unirte, entra (o date de alta) con esta dirección de correo y abre este enlace; antes de unirte verás la cuenta y confirmarás:",
                        "To join, sign in (or sign up) with this email address and open this link; you will see the account and confirm before joining:"
                    ),
                    lang.pick(
                        "El enlace sirve durante 7 días. Si no conoces esta cuenta, ignora este mensaje: no se crea nada.",
                        "The link works for 7 days. If you do not know this account, ignore this message: nothing is created."
                    )
                ),
            )
        }
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
    notice: &Notice,
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
        let url = "https://app.test/x?token=abc".to_string();
        for notice in [
            Notice::Confirm { url: url.clone() },
            Notice::Reset { url: url.clone() },
            Notice::Invitation {
                url: url.clone(),
                account: "Taller Ana".into(),
                inviter: "ana@example.com".into(),
            },
            Notice::AlreadyRegistered {
                sign_in_url: url.clone(),
            },
        ] {
            for lang in [Lang::Es, Lang::En] {
                let (subject, text) = subject_and_text(&notice, lang);
                assert!(!subject.is_empty());
                assert!(text.contains(&url), "{text}");
            }
        }
    }

    #[test]
    fn a_name_chosen_by_someone_else_stays_on_one_line() {
        let notice = Notice::Invitation {
            url: "https://app.test/invitation?token=abc".into(),
            account: "Taller\r\nBcc: victim@example.com\r\n\r\n<a href=\"https://evil.example\">Premio</a>".into(),
            inviter: "ana@example.com".into(),
        };
        let (subject, text) = subject_and_text(&notice, Lang::Es);
        assert!(!subject.contains(['\r', '\n']), "{subject:?}");
        assert_eq!(text.lines().next().unwrap().matches("Bcc:").count(), 1);
        assert!(
            text.starts_with("Te han invitado a la cuenta «Taller Bcc: victim@example.com <a"),
            "{text}"
        );
        let long = quoted(&"x".repeat(500));
        assert_eq!(long.chars().count(), MAX_QUOTED_CHARS + 3);
    }
}
