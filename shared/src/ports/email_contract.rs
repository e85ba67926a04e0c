//! The one contract suite of the `Email` port. Every adapter runs it: SMTP
//! against a local receiver (`.ci/smtp_sink.py`) in this crate's tests, SES
//! in `infra-aws` against moto. Each run sends to fresh addresses, so a
//! receiver may be shared.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use mail_parser::{MessageParser, MimeHeaders};

use super::email::{Attachment, Email, EmailError, OutgoingEmail};
use crate::ids::random_token;

/// A message as a recipient reads it: the fields it was sent with.
pub type Received = OutgoingEmail;

impl Received {
    /// A raw MIME message read.
    pub fn parse(raw: &[u8]) -> Received {
        let message = MessageParser::default().parse(raw).expect("a MIME message");
        let addresses = |list: Option<&mail_parser::Address>| -> Vec<String> {
            list.map(|a| {
                a.iter()
                    .filter_map(|addr| addr.address().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
        };
        Received {
            from: addresses(message.from()).join(","),
            to: addresses(message.to()),
            cc: addresses(message.cc()),
            subject: message.subject().unwrap_or_default().to_string(),
            text: message
                .body_text(0)
                .map(|t| t.to_string())
                .unwrap_or_default(),
            html: message
                .html_part(0)
                .filter(|part| part.is_text_html())
                .and_then(|part| part.text_contents())
                .map(str::to_string),
            attachments: message
                .attachments()
                .map(|part| Attachment {
                    filename: part.attachment_name().unwrap_or_default().to_string(),
                    content_type: part
                        .content_type()
                        .map(|c| match c.subtype() {
                            Some(sub) => format!("{}/{sub}", c.ctype()),
                            None => c.ctype().to_string(),
                        })
                        .unwrap_or_default(),
                    bytes: part.contents().to_vec(),
                })
                .collect(),
        }
    }
}

/// Where a test reads what an adapter's provider accepted.
#[async_trait]
pub trait Inbox: Send + Sync {
    /// The raw messages the provider accepted for `address` (as To or Cc),
    /// oldest first.
    async fn raw_for(&self, address: &str) -> Vec<Vec<u8>>;
}

/// The messages for `address`, waiting up to 5 s for at least `count`.
pub async fn received(inbox: &dyn Inbox, address: &str, count: usize) -> Vec<Received> {
    for _ in 0..50 {
        let raw = inbox.raw_for(address).await;
        if raw.len() >= count {
            return raw.iter().map(|r| Received::parse(r)).collect();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    inbox
        .raw_for(address)
        .await
        .iter()
        .map(|r| Received::parse(r))
        .collect()
}

/// How a provider is made to refuse a message for good: the change to a
/// good message that it refuses (a recipient an SMTP server answers 550,
/// an unverified sender on SES).
pub type Refusal = fn(OutgoingEmail) -> OutgoingEmail;

/// Checks an adapter: a message with text, HTML and two attachments
/// arrives whole to its To and Cc recipients, with the id it answered
/// unique per message; a message the provider refuses is `Rejected`;
/// `unreachable` (the same adapter pointed where nothing answers) is
/// `Unavailable`.
pub async fn run(
    email: Arc<dyn Email>,
    inbox: &dyn Inbox,
    from: &str,
    refusal: Refusal,
    unreachable: Arc<dyn Email>,
) {
    let run = random_token(6).to_ascii_lowercase();
    let to = format!("to-{run}@example.com");
    let cc = format!("cc-{run}@example.org");
    let pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n".to_vec();
    let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Invoice>ñ</Invoice>".as_bytes();
    let message = OutgoingEmail {
        from: from.to_string(),
        to: vec![to.clone()],
        cc: vec![cc.clone()],
        subject: "Factura F2026-000001 de Taller Ñandú, S.L.".into(),
        text: "Hola:\n\nAdjuntamos la factura F2026-000001 por 1.210,00 €.\n".into(),
        html: Some("<p>Adjuntamos la factura <b>F2026-000001</b>.</p>".into()),
        attachments: vec![
            Attachment {
                filename: "F2026-000001.pdf".into(),
                content_type: "application/pdf".into(),
                bytes: pdf.clone(),
            },
            Attachment {
                filename: "F2026-000001-facturae.xml".into(),
                content_type: "application/xml".into(),
                bytes: xml.to_vec(),
            },
        ],
    };
    let first = email.send(&message).await.expect("the message is accepted");
    assert!(!first.is_empty());
    let second = email.send(&message).await.expect("sent again");
    assert_ne!(first, second, "each message has its own id");

    for address in [&to, &cc] {
        let got = received(inbox, address, 2).await;
        assert_eq!(got.len(), 2, "two messages for {address}");
        let m = &got[0];
        assert_eq!(m.to, vec![to.clone()]);
        assert_eq!(m.cc, vec![cc.clone()]);
        assert!(from.contains(&m.from), "{} from {from}", m.from);
        assert_eq!(m.subject, message.subject);
        assert_eq!(
            m.text.replace("\r\n", "\n").trim_end(),
            message.text.trim_end()
        );
        assert!(
            m.html
                .as_deref()
                .is_some_and(|h| h.contains("<b>F2026-000001</b>"))
        );
        let names: Vec<&str> = m.attachments.iter().map(|a| a.filename.as_str()).collect();
        assert_eq!(names, ["F2026-000001.pdf", "F2026-000001-facturae.xml"]);
        assert_eq!(m.attachments[0].content_type, "application/pdf");
        assert_eq!(m.attachments[0].bytes, pdf, "the PDF arrives byte for byte");
        assert_eq!(m.attachments[1].bytes, xml);
    }

    let refused = refusal(OutgoingEmail {
        to: vec![format!("refused-{run}@example.com")],
        cc: vec![],
        ..message.clone()
    });
    match email.send(&refused).await {
        Err(EmailError::Rejected(reason)) => assert!(!reason.is_empty()),
        other => panic!("a refused message is a rejection, not {other:?}"),
    }
    match unreachable.send(&message).await {
        Err(EmailError::Unavailable(reason)) => assert!(!reason.is_empty()),
        other => panic!("an unreachable provider is unavailable, not {other:?}"),
    }
}
