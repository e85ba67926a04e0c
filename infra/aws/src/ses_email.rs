//! The SES engine of the `Email` port: SES v2 `SendEmail` with the message
//! as raw MIME (built by `shared::ports::email::mime`, so attachments go as
//! they do over SMTP), from the verified identity the function's role may
//! send as, optionally through a configuration set (whose event
//! destinations see bounces and complaints). The answer's `MessageId` is
//! the provider's id.

use async_trait::async_trait;
use aws_sdk_sesv2::Client;
use aws_sdk_sesv2::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_sesv2::primitives::Blob;
use aws_sdk_sesv2::types::{Destination, EmailContent, RawMessage};
use shared::ports::email::{Email, EmailError, OutgoingEmail, mime};

pub struct SesEmail {
    client: Client,
    configuration_set: Option<String>,
}

impl SesEmail {
    /// SES in the environment's region, reached through the SDK's standard
    /// configuration (`AWS_ENDPOINT_URL[_SESV2]` for an emulator).
    pub async fn from_env(configuration_set: Option<String>) -> SesEmail {
        let config = crate::sdk::config().await;
        SesEmail::new(Client::new(&config), configuration_set)
    }

    pub fn new(client: Client, configuration_set: Option<String>) -> SesEmail {
        SesEmail {
            client,
            configuration_set,
        }
    }
}

/// SES's answers that refuse this message for good; any other failure
/// (throttling, a paused account, the network) may pass later.
const REJECTIONS: [&str; 3] = [
    "MessageRejected",
    "MailFromDomainNotVerifiedException",
    "BadRequestException",
];

fn ses_error<E: ProvideErrorMetadata + std::error::Error + 'static>(
    err: SdkError<E>,
) -> EmailError {
    let rejected = err.code().is_some_and(|code| REJECTIONS.contains(&code));
    let text = DisplayErrorContext(&err).to_string();
    if rejected {
        EmailError::Rejected(text)
    } else {
        EmailError::Unavailable(text)
    }
}

#[async_trait]
impl Email for SesEmail {
    async fn send(&self, message: &OutgoingEmail) -> Result<String, EmailError> {
        let raw = RawMessage::builder()
            .data(Blob::new(mime(message)?.formatted()))
            .build()
            .map_err(|e| EmailError::Rejected(e.to_string()))?;
        let destination = Destination::builder()
            .set_to_addresses(Some(message.to.clone()))
            .set_cc_addresses(Some(message.cc.clone()).filter(|cc| !cc.is_empty()))
            .build();
        let sent = self
            .client
            .send_email()
            .from_email_address(&message.from)
            .destination(destination)
            .content(EmailContent::builder().raw(raw).build())
            .set_configuration_set_name(self.configuration_set.clone())
            .send()
            .await
            .map_err(ses_error)?;
        sent.message_id()
            .map(str::to_string)
            .ok_or_else(|| EmailError::Unavailable("SES answered no message id".into()))
    }
}
