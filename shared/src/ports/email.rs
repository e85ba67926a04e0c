//! The `Email` port: sends one message and answers the provider's id for it.
//! Two adapters: SMTP (`smtp_email`, for `svc serve`) and Amazon SES
//! (`infra_aws::ses_email`); a host with neither has no mailer
//! (`Ports::mailer` is `None`) and every send says so. Both speak MIME built
//! once here (`mime`), so what a recipient receives does not depend on the
//! host.

use std::sync::Arc;

use async_trait::async_trait;
use lettre::message::header::ContentType;
use lettre::message::{Attachment as MimeAttachment, Mailbox, MultiPart, SinglePart};

/// A file sent with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub filename: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// One message. Addresses are plain (`ana@example.com`) or with a display
/// name (`Ana <ana@example.com>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutgoingEmail {
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    pub attachments: Vec<Attachment>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmailError {
    /// The provider refused the message for good (an SMTP 5xx, SES
    /// `MessageRejected`, an address it will not take): sending it again
    /// fails the same way.
    #[error("the message was rejected: {0}")]
    Rejected(String),
    /// The provider could not be reached or asked to retry later (an SMTP
    /// 4xx, a timeout, throttling): nothing was delivered as far as it said.
    #[error("the email provider is unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait Email: Send + Sync {
    /// Sends `message`; the provider's id of the accepted message.
    async fn send(&self, message: &OutgoingEmail) -> Result<String, EmailError>;
}

/// A host's way of sending email: the adapter and the sender address every
/// message goes out from (`SVC_EMAIL_FROM`).
#[derive(Clone)]
pub struct Mailer {
    pub email: Arc<dyn Email>,
    pub from: String,
}

fn mailbox(field: &str, address: &str) -> Result<Mailbox, EmailError> {
    address
        .parse()
        .map_err(|e| EmailError::Rejected(format!("{field} {address:?} is not an address: {e}")))
}

/// `message` as a MIME message: the text (and HTML, as an alternative) then
/// the attachments, in a `multipart/mixed`.
pub fn mime(message: &OutgoingEmail) -> Result<lettre::Message, EmailError> {
    let mut builder = lettre::Message::builder()
        .from(mailbox("from", &message.from)?)
        .subject(message.subject.clone())
        .message_id(None);
    for to in &message.to {
        builder = builder.to(mailbox("to", to)?);
    }
    for cc in &message.cc {
        builder = builder.cc(mailbox("cc", cc)?);
    }
    let text = SinglePart::plain(message.text.clone());
    let body = match &message.html {
        Some(html) => MultiPart::alternative()
            .singlepart(text)
            .singlepart(SinglePart::html(html.clone())),
        None => MultiPart::mixed().singlepart(text),
    };
    let mut mixed = match message.html {
        Some(_) => MultiPart::mixed().multipart(body),
        None => body,
    };
    for attachment in &message.attachments {
        let content_type = ContentType::parse(&attachment.content_type).map_err(|e| {
            EmailError::Rejected(format!(
                "attachment {:?}: content type {:?}: {e}",
                attachment.filename, attachment.content_type
            ))
        })?;
        mixed = mixed.singlepart(
            MimeAttachment::new(attachment.filename.clone())
                .body(attachment.bytes.clone(), content_type),
        );
    }
    builder
        .multipart(mixed)
        .map_err(|e| EmailError::Rejected(format!("the message cannot be built: {e}")))
}

/// The `Message-ID` header of a built message.
pub fn message_id(message: &lettre::Message) -> String {
    message
        .headers()
        .get_raw("Message-ID")
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message() -> OutgoingEmail {
        OutgoingEmail {
            from: "Taller Ana <facturas@example.com>".into(),
            to: vec!["cliente@example.org".into()],
            cc: vec!["copia@example.org".into()],
            subject: "Factura F2026-000001 de Taller Ana".into(),
            text: "Adjuntamos la factura.".into(),
            html: None,
            attachments: vec![Attachment {
                filename: "F2026-000001.pdf".into(),
                content_type: "application/pdf".into(),
                bytes: b"%PDF-1.7".to_vec(),
            }],
        }
    }

    #[test]
    fn a_message_is_multipart_with_its_attachments() {
        let built = mime(&message()).unwrap();
        let raw = String::from_utf8(built.formatted()).unwrap();
        assert!(raw.contains("To: cliente@example.org"), "{raw}");
        assert!(raw.contains("Cc: copia@example.org"), "{raw}");
        assert!(raw.contains("multipart/mixed"), "{raw}");
        assert!(raw.contains("filename=\"F2026-000001.pdf\""), "{raw}");
        assert!(message_id(&built).starts_with('<'), "{raw}");
        let html = OutgoingEmail {
            html: Some("<p>Adjuntamos la factura.</p>".into()),
            ..message()
        };
        let raw = String::from_utf8(mime(&html).unwrap().formatted()).unwrap();
        assert!(raw.contains("multipart/alternative"), "{raw}");
    }

    #[test]
    fn a_bad_address_is_a_rejection() {
        let bad = OutgoingEmail {
            to: vec!["not an address".into()],
            ..message()
        };
        assert!(matches!(mime(&bad), Err(EmailError::Rejected(m)) if m.contains("to")));
    }
}
