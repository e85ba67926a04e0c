//! The deliveries worker of `svc serve`: `app::webhooks::deliver` on each
//! message of the deliveries queue, deleted once handled. A message whose
//! handling failed (or whose delivery is busy elsewhere) stays, and comes back
//! after the queue's visibility timeout; an attempt cut short by stopping the
//! worker is made again then.

use std::time::Duration;

use super::queue_worker;
use crate::app::webhooks::{WebhookError, deliver};
use crate::ports::Ports;
use crate::ports::queue::{Disposition, QueueError};

pub async fn run(ports: Ports) {
    let queue = ports.deliveries.clone();
    queue_worker::run(queue, "deliveries", move |body| handle(ports.clone(), body)).await
}

/// Receives a batch (waiting up to `wait` for its first message), handles it
/// and returns how many messages it had.
pub async fn process(ports: &Ports, wait: Duration) -> Result<usize, QueueError> {
    let owned = ports.clone();
    queue_worker::poll(&ports.deliveries, wait, move |body| {
        handle(owned.clone(), body)
    })
    .await
}

async fn handle(ports: Ports, body: String) -> Disposition {
    match deliver(&ports, &body).await {
        Ok(()) => Disposition::Ack,
        Err(e @ WebhookError::Busy(_)) => {
            tracing::debug!(error = %e, "delivery busy; the message comes back later");
            Disposition::Leave
        }
        Err(e) => {
            tracing::warn!(error = %e, "delivery message not handled; it comes back after the visibility timeout");
            Disposition::Leave
        }
    }
}
