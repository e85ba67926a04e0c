//! In-memory stand-ins for the `Queue` and `Blobs` ports: a queue whose
//! delays and visibility timeout follow the clock port, and blobs in a map.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use shared::ports::Clock;
use shared::ports::blobs::{BlobError, Blobs};
use shared::ports::queue::{Message, Queue, QueueError};

struct Entry {
    id: String,
    body: String,
    visible_at: DateTime<Utc>,
    receipt: Option<String>,
    receives: u32,
}

pub struct MemoryQueue {
    clock: Arc<dyn Clock>,
    visibility: Duration,
    entries: Mutex<Vec<Entry>>,
    sent: Mutex<u32>,
}

impl MemoryQueue {
    pub fn new(clock: Arc<dyn Clock>, visibility: Duration) -> Self {
        MemoryQueue {
            clock,
            visibility,
            entries: Mutex::default(),
            sent: Mutex::default(),
        }
    }

    /// Messages not yet deleted, visible or not.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }

    fn after(&self, by: Duration) -> DateTime<Utc> {
        self.clock.now() + chrono::Duration::from_std(by).unwrap()
    }
}

#[async_trait]
impl Queue for MemoryQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<(), QueueError> {
        let mut sent = self.sent.lock().unwrap();
        *sent += 1;
        self.entries.lock().unwrap().push(Entry {
            id: format!("msg-{sent}"),
            body: body.to_string(),
            visible_at: self.after(delay),
            receipt: None,
            receives: 0,
        });
        Ok(())
    }

    async fn receive(&self, max: usize, _: Duration) -> Result<Vec<Message>, QueueError> {
        let now = self.clock.now();
        let hidden_until = self.after(self.visibility);
        let mut entries = self.entries.lock().unwrap();
        Ok(entries
            .iter_mut()
            .filter(|e| e.visible_at <= now)
            .take(max)
            .map(|e| {
                e.receives += 1;
                e.visible_at = hidden_until;
                let receipt = format!("{}#{}", e.id, e.receives);
                e.receipt = Some(receipt.clone());
                Message {
                    id: e.id.clone(),
                    body: e.body.clone(),
                    receipt,
                    receive_count: e.receives,
                }
            })
            .collect())
    }

    async fn delete(&self, receipt: &str) -> Result<(), QueueError> {
        let mut entries = self.entries.lock().unwrap();
        let before = entries.len();
        entries.retain(|e| e.receipt.as_deref() != Some(receipt));
        if entries.len() == before {
            return Err(QueueError::Invalid(format!("unknown receipt {receipt}")));
        }
        Ok(())
    }

    async fn change_visibility(&self, receipt: &str, timeout: Duration) -> Result<(), QueueError> {
        let visible_at = self.after(timeout);
        let mut entries = self.entries.lock().unwrap();
        let entry = entries
            .iter_mut()
            .find(|e| e.receipt.as_deref() == Some(receipt))
            .ok_or_else(|| QueueError::Invalid(format!("unknown receipt {receipt}")))?;
        entry.visible_at = visible_at;
        Ok(())
    }
}

#[derive(Default)]
pub struct MemoryBlobs(Mutex<HashMap<String, Vec<u8>>>);

impl MemoryBlobs {
    pub fn keys(&self) -> Vec<String> {
        self.0.lock().unwrap().keys().cloned().collect()
    }
}

#[async_trait]
impl Blobs for MemoryBlobs {
    async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError> {
        self.0.lock().unwrap().insert(key.to_string(), bytes);
        Ok(())
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Ok(self.0.lock().unwrap().get(key).cloned())
    }

    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.0.lock().unwrap().remove(key);
        Ok(())
    }
}
