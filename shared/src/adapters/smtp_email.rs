//! The `Email` port over SMTP (lettre, on tokio with rustls): the adapter of
//! `svc serve`, configured by `SVC_SMTP_URL` (`smtp://host:port` in the
//! clear, `smtp://host:587?tls=required` with STARTTLS, or
//! `smtps://user:password@host` over TLS). The message id is the message's
//! own `Message-ID`, which the receiving servers keep.

use std::time::Duration;

use async_trait::async_trait;
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use crate::ports::email::{Email, EmailError, OutgoingEmail, message_id, mime};
use crate::ports::with_causes;

/// How long one SMTP command may take before the send is given up.
const TIMEOUT: Duration = Duration::from_secs(20);

pub struct SmtpEmail {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl SmtpEmail {
    /// The transport `url` names; an error says what is wrong with it.
    /// Its connection pool runs on the tokio runtime this is called on.
    pub fn from_url(url: &str) -> Result<Self, String> {
        super::tls::install();
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("SVC_SMTP_URL is not a usable SMTP URL: {e}"))?
            .timeout(Some(TIMEOUT))
            .build();
        Ok(SmtpEmail { transport })
    }
}

#[async_trait]
impl Email for SmtpEmail {
    async fn send(&self, message: &OutgoingEmail) -> Result<String, EmailError> {
        let built = mime(message)?;
        let id = message_id(&built);
        match self.transport.send(built).await {
            Ok(_) => Ok(id),
            Err(e) if e.is_permanent() => Err(EmailError::Rejected(with_causes(&e))),
            Err(e) => Err(EmailError::Unavailable(with_causes(&e))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_smtp_urls_make_a_transport() {
        assert!(SmtpEmail::from_url("smtp://127.0.0.1:2525").is_ok());
        assert!(SmtpEmail::from_url("smtps://user:pass@smtp.example.com").is_ok());
        let refused = SmtpEmail::from_url("http://smtp.example.com")
            .err()
            .unwrap();
        assert!(refused.contains("SVC_SMTP_URL"), "{refused}");
    }

    #[tokio::test]
    async fn an_unreachable_server_is_unavailable_not_a_rejection() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let email = SmtpEmail::from_url(&format!("smtp://127.0.0.1:{port}")).unwrap();
        let message = OutgoingEmail {
            from: "a@example.com".into(),
            to: vec!["b@example.com".into()],
            cc: vec![],
            subject: "s".into(),
            text: "t".into(),
            html: None,
            attachments: vec![],
        };
        assert!(matches!(
            email.send(&message).await,
            Err(EmailError::Unavailable(_))
        ));
    }
}
