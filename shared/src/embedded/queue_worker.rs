//! The loop both workers of `svc serve` run on their queue: receive a batch,
//! handle its messages concurrently (one slow message does not hold up the
//! others), settle each as its handler says. A message left unsettled, or
//! whose handler died, is received again after the queue's visibility timeout.
//! Stop a worker by aborting its task.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;

use crate::ports::Queue;
use crate::ports::queue::{Disposition, MAX_BATCH, MAX_WAIT, QueueError};

/// The pause after the queue failed, before receiving again.
const PAUSE_AFTER_ERROR: Duration = Duration::from_secs(1);

/// Works on `queue` until the task is dropped; `name` names it in the logs.
pub async fn run<H, F>(queue: Arc<dyn Queue>, name: &'static str, handle: H)
where
    H: Fn(String) -> F + Clone + Send + 'static,
    F: Future<Output = Disposition> + Send + 'static,
{
    loop {
        if let Err(e) = poll(&queue, MAX_WAIT, handle.clone()).await {
            tracing::warn!(queue = name, error = %e, "queue unavailable; receiving again shortly");
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
        }
    }
}

/// Receives one batch (waiting up to `wait` for a first message) and handles
/// all of it; the number of messages received.
pub async fn poll<H, F>(
    queue: &Arc<dyn Queue>,
    wait: Duration,
    handle: H,
) -> Result<usize, QueueError>
where
    H: Fn(String) -> F + Send + 'static,
    F: Future<Output = Disposition> + Send + 'static,
{
    let messages = queue.receive(MAX_BATCH, wait).await?;
    let count = messages.len();
    let mut running = JoinSet::new();
    for message in messages {
        let (queue, settling) = (queue.clone(), handle(message.body.clone()));
        running.spawn(async move {
            let settled = match settling.await {
                Disposition::Ack => queue.delete(&message.receipt).await,
                Disposition::Retry(after) => queue.change_visibility(&message.receipt, after).await,
                Disposition::Leave => Ok(()),
            };
            if let Err(e) = settled {
                tracing::warn!(message = %message.id, error = %e, "message not settled; it comes back, handled again without effect");
            }
        });
    }
    while let Some(done) = running.join_next().await {
        if let Err(e) = done {
            tracing::error!(error = %e, "a message's handler panicked; the message comes back");
        }
    }
    Ok(count)
}
