//! The deliveries worker of `svc serve`: a loop on the deliveries queue, each
//! message handed to `app::webhooks::deliver` (a batch at a time, its messages
//! concurrently, so one slow endpoint does not hold up the others) and
//! deleted once handled. A message whose handling failed stays, and comes
//! back after the queue's visibility timeout. Stop the worker by aborting
//! its task: an attempt cut short is made again when its message returns.

use std::time::Duration;

use tokio::task::JoinSet;

use crate::app::webhooks::{WebhookError, deliver};
use crate::ports::Ports;
use crate::ports::queue::{MAX_BATCH, MAX_WAIT, Message, QueueError};

/// How long the loop pauses after the queue failed.
const BACKOFF: Duration = Duration::from_secs(1);

pub async fn run(ports: Ports) {
    loop {
        if let Err(e) = process(&ports, MAX_WAIT).await {
            tracing::warn!(error = %e, "deliveries queue");
            tokio::time::sleep(BACKOFF).await;
        }
    }
}

/// Receives a batch (waiting up to `wait` for its first message), handles it
/// and returns how many messages it had.
pub async fn process(ports: &Ports, wait: Duration) -> Result<usize, QueueError> {
    let messages = ports.deliveries.receive(MAX_BATCH, wait).await?;
    let count = messages.len();
    let mut running = JoinSet::new();
    for message in messages {
        let ports = ports.clone();
        running.spawn(async move { handle(&ports, message).await });
    }
    while running.join_next().await.is_some() {}
    Ok(count)
}

async fn handle(ports: &Ports, message: Message) {
    match deliver(ports, &message.body).await {
        Ok(()) => {
            if let Err(e) = ports.deliveries.delete(&message.receipt).await {
                tracing::warn!(error = %e, message = %message.id, "could not delete a handled delivery message; it will be handled again, without effect");
            }
        }
        Err(e @ WebhookError::Busy(_)) => {
            tracing::debug!(error = %e, message = %message.id, "delivery busy; the message comes back later");
        }
        Err(e) => {
            tracing::warn!(error = %e, message = %message.id, receives = message.receive_count, "delivery message not handled; it comes back after the visibility timeout");
        }
    }
}
