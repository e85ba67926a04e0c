//! The timer of `svc serve`: the scheduled work (fiscal deadline reminders,
//! overdue instalments) at
//! start and every `EVERY`, as the EventBridge schedule triggers
//! `functions/scheduler` on AWS. A failed round is logged; the next one
//! catches up, because the reminders are sent late rather than lost.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{MissedTickBehavior, interval};

use crate::app::fiscal_deadlines;
use crate::app::invoices::overdue;
use crate::ports::Ports;

pub const EVERY: Duration = Duration::from_secs(15 * 60);

/// Starts the timer on the current tokio runtime; it runs until aborted.
pub fn spawn(ports: Ports) -> JoinHandle<()> {
    tokio::spawn(run(ports))
}

pub async fn run(ports: Ports) {
    let mut ticks = interval(EVERY);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match fiscal_deadlines::run(&ports, ports.clock.now()).await {
            Ok(sent) => tracing::info!(sent, "fiscal deadline reminders"),
            Err(e) => {
                tracing::warn!(error = %e, "fiscal deadline reminders failed; next round retries")
            }
        }
        match overdue::run(&ports, ports.clock.now()).await {
            Ok(sent) => tracing::info!(sent, "overdue instalments"),
            Err(e) => tracing::warn!(error = %e, "overdue instalments failed; next round retries"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::events::{Filter, list};
    use crate::app::{accounts, test_ports_at};
    use crate::domain::account::{Mode, Plan};

    #[tokio::test]
    async fn the_first_round_runs_at_start() {
        let (ports, _clock, _dir) = test_ports_at("2026-01-29T10:00:00Z");
        let account = accounts::create(&ports, "Timer", Plan::Pro, None)
            .await
            .unwrap();
        let timer = spawn(ports.clone());
        let filter = Filter::default();
        let mut found = Vec::new();
        for _ in 0..1000 {
            (found, _) = list(&ports, &account.id, Mode::Live, 10, None, &filter)
                .await
                .unwrap();
            if found.len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        timer.abort();
        assert_eq!(found.len(), 2, "303 and 390, due tomorrow");
        assert!(found.iter().all(|e| e.kind == "fiscal.deadline"));
    }
}
