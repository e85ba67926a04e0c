//! The SQS engine of the `Queue` port. The visibility timeout and the redrive
//! policy (dead-letter queue, maximum receives) are the queue's own
//! attributes, set where it is declared (`template.yaml`). SQS counts delays,
//! waits and timeouts in whole seconds: fractions are rounded up.

use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_sqs::types::MessageSystemAttributeName;
use shared::ports::queue::{Message, Queue, QueueError, validate_receive, validate_send};

/// The error codes of requests SQS refuses for what they ask, not for the
/// state of the service: an unknown, malformed or expired receipt, a value out
/// of range.
const INVALID_REQUESTS: [&str; 4] = [
    "ReceiptHandleIsInvalid",
    "MessageNotInflight",
    "InvalidIdFormat",
    "InvalidParameterValue",
];

pub struct SqsQueue {
    client: Client,
    url: String,
}

impl SqsQueue {
    /// The queue at `queue_url`, reached through the SDK's standard
    /// configuration (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL[_SQS]`; see
    /// `sdk::require_region`).
    pub async fn from_env(queue_url: &str) -> SqsQueue {
        let config = crate::sdk::config().await;
        SqsQueue::new(Client::new(&config), queue_url)
    }

    pub fn new(client: Client, queue_url: impl Into<String>) -> SqsQueue {
        SqsQueue {
            client,
            url: queue_url.into(),
        }
    }
}

fn seconds(d: Duration) -> i32 {
    let rounded_up = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    i32::try_from(rounded_up).unwrap_or(i32::MAX)
}

fn queue_error<E, R>(err: SdkError<E, R>) -> QueueError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    let text = DisplayErrorContext(&err).to_string();
    match err.as_service_error().and_then(|e| e.code()) {
        Some(code) if INVALID_REQUESTS.contains(&code) => QueueError::Invalid(text),
        _ => QueueError::Unavailable(text),
    }
}

fn message(m: aws_sdk_sqs::types::Message) -> Result<Message, QueueError> {
    let missing =
        |what: &str| QueueError::Unavailable(format!("SQS sent a message without {what}"));
    let receive_count = m
        .attributes()
        .and_then(|a| a.get(&MessageSystemAttributeName::ApproximateReceiveCount))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| missing("ApproximateReceiveCount"))?;
    Ok(Message {
        id: m.message_id.ok_or_else(|| missing("an id"))?,
        body: m.body.unwrap_or_default(),
        receipt: m
            .receipt_handle
            .ok_or_else(|| missing("a receipt handle"))?,
        receive_count,
    })
}

#[async_trait]
impl Queue for SqsQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<(), QueueError> {
        validate_send(delay)?;
        self.client
            .send_message()
            .queue_url(&self.url)
            .message_body(body)
            .delay_seconds(seconds(delay))
            .send()
            .await
            .map_err(queue_error)?;
        Ok(())
    }

    async fn receive(&self, max: usize, wait: Duration) -> Result<Vec<Message>, QueueError> {
        validate_receive(max, wait)?;
        let received = self
            .client
            .receive_message()
            .queue_url(&self.url)
            .max_number_of_messages(max as i32)
            .wait_time_seconds(seconds(wait))
            .message_system_attribute_names(MessageSystemAttributeName::ApproximateReceiveCount)
            .send()
            .await
            .map_err(queue_error)?;
        received
            .messages
            .unwrap_or_default()
            .into_iter()
            .map(message)
            .collect()
    }

    async fn delete(&self, receipt: &str) -> Result<(), QueueError> {
        self.client
            .delete_message()
            .queue_url(&self.url)
            .receipt_handle(receipt)
            .send()
            .await
            .map_err(queue_error)?;
        Ok(())
    }

    async fn change_visibility(&self, receipt: &str, timeout: Duration) -> Result<(), QueueError> {
        self.client
            .change_message_visibility()
            .queue_url(&self.url)
            .receipt_handle(receipt)
            .visibility_timeout(seconds(timeout))
            .send()
            .await
            .map_err(queue_error)?;
        Ok(())
    }
}
