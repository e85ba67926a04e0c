//! The jobs worker of `svc serve`: `app::jobs::work` on each message of the
//! jobs queue, which is then deleted (done) or made visible again when the
//! job asks for a retry. A message whose worker dies is received again after
//! the queue's visibility timeout, and the job's lease decides who runs it.

use std::time::Duration;

use super::queue_worker;
use crate::app::jobs::work;
use crate::ports::Ports;
use crate::ports::queue::{Disposition, QueueError};

/// Works on the jobs queue until the task is dropped.
pub async fn run(ports: Ports) {
    let queue = ports.jobs.clone();
    queue_worker::run(queue, "jobs", move |body| handle(ports.clone(), body)).await
}

/// Receives one batch (waiting up to `wait` for a first message) and works
/// on all of it; the number of messages received.
pub async fn poll(ports: &Ports, wait: Duration) -> Result<usize, QueueError> {
    let owned = ports.clone();
    queue_worker::poll(&ports.jobs, wait, move |body| handle(owned.clone(), body)).await
}

async fn handle(ports: Ports, body: String) -> Disposition {
    work(&ports, &body).await
}
