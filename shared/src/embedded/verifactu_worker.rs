//! The VERI*FACTU submitter of `svc serve`: every `EVERY` (and at start) a
//! sweep submits what waits in each chain, and on the embedded engine the
//! submission queue's messages (a chain that just got its first pending
//! record) submit their chain at once, as the `verifactu` function does on
//! AWS. The chains' leases
//! keep it from racing a submitter in another process; a failed round is
//! logged and the next one goes on.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{MissedTickBehavior, interval};

use super::queue_worker;
use crate::app::verifactu::queue;
use crate::ports::Ports;

pub const EVERY: Duration = Duration::from_secs(5);

/// Starts the sweeps on the current tokio runtime; they run until aborted.
pub fn spawn(ports: Ports) -> JoinHandle<()> {
    tokio::spawn(sweeps(ports))
}

/// Works on the submission queue until the task is dropped.
pub async fn on_messages(ports: Ports) {
    let messages = ports.submissions.clone();
    queue_worker::run(messages, "submissions", move |body| {
        let ports = ports.clone();
        async move { queue::work(&ports, &body).await }
    })
    .await
}

async fn sweeps(ports: Ports) {
    let mut ticks = interval(EVERY);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(e) = queue::sweep(&ports).await {
            tracing::warn!(error = %e, "VERI*FACTU submission failed; next round retries");
        }
    }
}
