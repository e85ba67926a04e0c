//! The VERI*FACTU submitter of `svc serve`: every `EVERY` (and at start) it
//! submits what waits in each chain, as the scheduled `verifactu` function
//! does on AWS. The chains' leases keep it from racing a submitter in
//! another process; a failed round is logged and the next one goes on.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{MissedTickBehavior, interval};

use crate::app::verifactu::{Outcome, submit_pending};
use crate::ports::Ports;

pub const EVERY: Duration = Duration::from_secs(5);

/// Starts the submitter on the current tokio runtime; it runs until aborted.
pub fn spawn(ports: Ports) -> JoinHandle<()> {
    tokio::spawn(run(ports))
}

pub async fn run(ports: Ports) {
    let mut ticks = interval(EVERY);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match submit_pending(&ports).await {
            Ok(outcomes) => {
                for (chain, outcome) in outcomes {
                    if let Outcome::Sent { records, state } = outcome {
                        tracing::info!(chain, records, ?state, "VERI*FACTU message answered");
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "VERI*FACTU submission failed; next round retries")
            }
        }
    }
}
