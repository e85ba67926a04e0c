//! What drives the submitter. A chain that gets a record while idle (its
//! `VERIFACTU#PENDING` marker is created) reaches the submission queue
//! through the table's feed (the dispatcher), and that message submits the
//! chain at once, instead of at the next sweep. The sweep (every 5 s in `svc
//! serve`, every minute on AWS) sends what the flow control let wait and
//! retries failures. Both drain: after a full message (1,000 records) the
//! next goes at once, as the law allows when 1,000 records wait.

use serde::{Deserialize, Serialize};

use super::submit::{Outcome, backlog, submit_chain, submit_pending};
use crate::metrics::{self, Metric};
use crate::ports::Ports;
use crate::ports::queue::Disposition;
use crate::ports::table::TableError;
use crate::verifactu::aeat::MAX_RECORDS;

/// The `entity` of a chain's pending marker: what the feeds dispatch here.
pub const ENTITY: &str = "verifactu_chain";

/// After a storage failure, the message comes back this much later.
const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(30);

#[derive(Serialize, Deserialize)]
struct ChainMessage {
    chain: String,
}

/// The submission queue's message for `chain`.
pub fn message(chain: &str) -> String {
    serde_json::to_string(&ChainMessage {
        chain: chain.to_string(),
    })
    .expect("a chain message serialises")
}

fn full(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Sent { records, .. } if *records == MAX_RECORDS)
}

/// Submits `chain` now: its next message, and more while each went full.
pub async fn submit_now(ports: &Ports, chain: &str) -> Result<Vec<Outcome>, TableError> {
    let mut outcomes = Vec::new();
    loop {
        let outcome = submit_chain(ports, chain).await?;
        let again = full(&outcome);
        outcomes.push(outcome);
        if !again {
            return Ok(outcomes);
        }
    }
}

/// A sweep of every chain with pending records, draining as `submit_now`;
/// then, where metrics are written, what is left waiting.
pub async fn sweep(ports: &Ports) -> Result<Vec<(String, Outcome)>, TableError> {
    let mut done = Vec::new();
    loop {
        let round = submit_pending(ports).await?;
        let again = round.iter().any(|(_, o)| full(o));
        done.extend(round);
        if !again {
            break;
        }
    }
    if metrics::enabled() {
        report_backlog(ports).await;
    }
    Ok(done)
}

/// `Metric::VerifactuPendingRecords` and `VerifactuOldestPendingSeconds` (0
/// when nothing waits).
async fn report_backlog(ports: &Ports) {
    match backlog(ports).await {
        Ok(backlog) => {
            let waited = backlog.oldest.map_or(0, |oldest| {
                (ports.clock.now() - oldest).num_seconds().max(0)
            });
            metrics::emit(&[
                (Metric::VerifactuPendingRecords, backlog.records as f64),
                (Metric::VerifactuOldestPendingSeconds, waited as f64),
            ]);
        }
        Err(e) => tracing::warn!(error = %e, "the VERI*FACTU backlog was not measured"),
    }
}

/// Handles one message of the submission queue. An unreadable message is
/// dropped (the sweep covers its chain); a storage failure comes back.
pub async fn work(ports: &Ports, body: &str) -> Disposition {
    let Ok(ChainMessage { chain }) = serde_json::from_str(body) else {
        tracing::warn!(
            message = crate::redact::short_hash(body),
            "an unreadable submission message was dropped"
        );
        return Disposition::Ack;
    };
    match submit_now(ports, &chain).await {
        Ok(_) => Disposition::Ack,
        Err(e) => {
            tracing::warn!(chain = crate::redact::short_hash(&chain), error = %e, "VERI*FACTU submission failed; the message comes back");
            Disposition::Retry(RETRY_AFTER)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;

    #[tokio::test]
    async fn messages_name_their_chain_and_bad_ones_are_dropped() {
        let (ports, _dir) = test_ports();
        assert_eq!(message("CHAIN#live#B1"), r#"{"chain":"CHAIN#live#B1"}"#);
        assert!(matches!(work(&ports, "not json").await, Disposition::Ack));
        assert!(matches!(
            work(&ports, &message("CHAIN#test#acct_1#B1")).await,
            Disposition::Ack
        ));
    }
}
