//! The `Queue` port: at-least-once messages that carry ids only (a job id, a
//! delivery id), never the work itself. Two adapters: SQS on AWS and a queue
//! in the embedded SQLite file. A received message stays invisible for the
//! queue's visibility timeout; not deleted by then, it is received again, and
//! after the queue's maximum number of receives it moves to the queue's
//! dead-letter queue.

use std::time::Duration;

use async_trait::async_trait;

/// The longest delay a message can be sent with (SQS's `DelaySeconds` limit);
/// longer waits are made by sending again when the message arrives.
pub const MAX_DELAY: Duration = Duration::from_secs(15 * 60);
/// The most messages one `receive` returns (SQS's limit).
pub const MAX_BATCH: usize = 10;
/// The longest a `receive` waits for a first message (SQS's long-poll limit).
pub const MAX_WAIT: Duration = Duration::from_secs(20);

/// A received message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub id: String,
    pub body: String,
    /// What `delete` and `change_visibility` take: valid for this receive only.
    pub receipt: String,
    /// How many times this message has been received, this time included.
    pub receive_count: u32,
}

/// What a worker does with a message it handled.
#[derive(Debug, PartialEq, Eq)]
pub enum Disposition {
    /// Nothing more to do (done now, done before, or nothing to do): delete it.
    Ack,
    /// Keep it: it should be received again after this long (a retry, or a
    /// run of another worker to wait for).
    Retry(Duration),
    /// Not handled: keep it as it is, to be received again after the queue's
    /// visibility timeout.
    Leave,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum QueueError {
    /// A request the queue cannot take (a delay over `MAX_DELAY`, a batch over
    /// `MAX_BATCH`, an unknown or expired receipt).
    #[error("invalid queue request: {0}")]
    Invalid(String),
    /// The queue cannot be reached or is not configured on this host.
    #[error("the queue is unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait Queue: Send + Sync {
    /// Sends a message that becomes visible after `delay` (at most `MAX_DELAY`).
    async fn send(&self, body: &str, delay: Duration) -> Result<(), QueueError>;
    /// Up to `max` (1..=`MAX_BATCH`) visible messages, waiting up to `wait`
    /// (at most `MAX_WAIT`) for the first one; an empty list when none came.
    async fn receive(&self, max: usize, wait: Duration) -> Result<Vec<Message>, QueueError>;
    /// Removes a received message for good. A receipt of an earlier receive
    /// of a message received again since may be refused (`Invalid`) or taken.
    async fn delete(&self, receipt: &str) -> Result<(), QueueError>;
    /// Makes a received message visible again after `timeout` (zero: at once).
    async fn change_visibility(&self, receipt: &str, timeout: Duration) -> Result<(), QueueError>;
}

/// Checks a `send`'s delay against `MAX_DELAY`.
pub fn validate_send(delay: Duration) -> Result<(), QueueError> {
    if delay > MAX_DELAY {
        return Err(QueueError::Invalid(format!(
            "a delay of {delay:?} is over the {MAX_DELAY:?} limit"
        )));
    }
    Ok(())
}

/// Checks a `receive`'s batch size (1..=`MAX_BATCH`) and wait (at most `MAX_WAIT`).
pub fn validate_receive(max: usize, wait: Duration) -> Result<(), QueueError> {
    if !(1..=MAX_BATCH).contains(&max) {
        return Err(QueueError::Invalid(format!(
            "a batch of {max} messages is outside 1..={MAX_BATCH}"
        )));
    }
    if wait > MAX_WAIT {
        return Err(QueueError::Invalid(format!(
            "a wait of {wait:?} is over the {MAX_WAIT:?} limit"
        )));
    }
    Ok(())
}

/// The adapter of a host without a queue: every call is `Unavailable`.
pub struct NoQueue;

#[async_trait]
impl Queue for NoQueue {
    async fn send(&self, _: &str, _: Duration) -> Result<(), QueueError> {
        Err(unconfigured())
    }
    async fn receive(&self, _: usize, _: Duration) -> Result<Vec<Message>, QueueError> {
        Err(unconfigured())
    }
    async fn delete(&self, _: &str) -> Result<(), QueueError> {
        Err(unconfigured())
    }
    async fn change_visibility(&self, _: &str, _: Duration) -> Result<(), QueueError> {
        Err(unconfigured())
    }
}

fn unconfigured() -> QueueError {
    QueueError::Unavailable("this host has no queue configured".into())
}
