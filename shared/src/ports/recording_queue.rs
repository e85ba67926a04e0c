//! A test double of the `Queue` port that records what is sent and can be
//! told to refuse sends, for tests of what reaches a queue.

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::queue::{Message, Queue, QueueError};

#[derive(Default)]
pub struct RecordingQueue {
    sent: Mutex<Vec<String>>,
    refusals: Mutex<usize>,
}

impl RecordingQueue {
    /// The bodies sent so far, in order.
    pub fn sent(&self) -> Vec<String> {
        self.sent.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The next `n` sends fail as `Unavailable`.
    pub fn refuse(&self, n: usize) {
        *self.refusals.lock().unwrap_or_else(|e| e.into_inner()) = n;
    }
}

#[async_trait]
impl Queue for RecordingQueue {
    async fn send(&self, body: &str, _delay: Duration) -> Result<(), QueueError> {
        let mut refusals = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
        if *refusals > 0 {
            *refusals -= 1;
            return Err(QueueError::Unavailable("refused by the test".into()));
        }
        self.sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(body.to_string());
        Ok(())
    }

    async fn receive(&self, _: usize, _: Duration) -> Result<Vec<Message>, QueueError> {
        Ok(Vec::new())
    }

    async fn delete(&self, receipt: &str) -> Result<(), QueueError> {
        Err(QueueError::Invalid(format!("unknown receipt {receipt}")))
    }

    async fn change_visibility(&self, receipt: &str, _: Duration) -> Result<(), QueueError> {
        Err(QueueError::Invalid(format!("unknown receipt {receipt}")))
    }
}
