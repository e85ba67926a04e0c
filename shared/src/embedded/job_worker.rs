//! The jobs worker of `svc serve`: receives from the jobs queue and runs
//! `app::jobs::work` on each message of a batch at once, then deletes the
//! message (done) or makes it visible again when the job asks for a retry.
//! A message whose worker dies is received again after the queue's
//! visibility timeout, and the job's lease decides who runs it.

use std::time::Duration;

use tokio::task::JoinSet;

use crate::app::jobs::{Disposition, work};
use crate::ports::Ports;
use crate::ports::queue::{MAX_BATCH, MAX_WAIT, Message, QueueError};

/// The pause after the queue failed, before receiving again.
const PAUSE_AFTER_ERROR: Duration = Duration::from_secs(5);

/// Works on the jobs queue until the task is dropped.
pub async fn run(ports: Ports) {
    loop {
        if let Err(e) = poll(&ports, MAX_WAIT).await {
            tracing::warn!(error = %e, "jobs queue unavailable; receiving again shortly");
            tokio::time::sleep(PAUSE_AFTER_ERROR).await;
        }
    }
}

/// Receives one batch (waiting up to `wait` for a first message) and works
/// on all of it; the number of messages received.
pub async fn poll(ports: &Ports, wait: Duration) -> Result<usize, QueueError> {
    let messages = ports.jobs.receive(MAX_BATCH, wait).await?;
    let count = messages.len();
    let mut running = JoinSet::new();
    for message in messages {
        let ports = ports.clone();
        running.spawn(async move { handle(&ports, message).await });
    }
    while let Some(done) = running.join_next().await {
        if let Err(e) = done {
            tracing::error!(error = %e, "a job run panicked; its message comes back");
        }
    }
    Ok(count)
}

async fn handle(ports: &Ports, message: Message) {
    let outcome = match work(ports, &message.body).await {
        Disposition::Ack => ports.jobs.delete(&message.receipt).await,
        Disposition::Retry(after) => ports.jobs.change_visibility(&message.receipt, after).await,
    };
    if let Err(e) = outcome {
        tracing::warn!(message_id = message.id, error = %e, "jobs message not settled; it comes back");
    }
}
