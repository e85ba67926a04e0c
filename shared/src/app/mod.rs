//! Use cases: one function per operation, taking the ports explicitly.

pub mod accounts;
pub mod analyses;
pub mod customers;
pub mod dispatch;
pub mod events;
pub mod extraction;
pub mod fiscal_deadlines;
pub mod idempotency;
pub mod invoices;
pub mod jobs;
pub mod keys;
pub mod ledger;
pub mod nif_claims;
pub mod outbox;
pub mod quota;
pub mod race;
pub mod rate_limit;
pub mod receipts;
pub mod series;
pub mod tax_tools;
pub mod uploads;
pub mod usage;
pub mod verifactu;
pub mod webhooks;

#[cfg(test)]
pub(crate) fn test_ports_at(
    at: &str,
) -> (
    crate::ports::Ports,
    std::sync::Arc<crate::ports::clock::ManualClock>,
    tempfile::TempDir,
) {
    use std::sync::Arc;
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(crate::ports::clock::ManualClock::new(
        at.parse().expect("instant"),
    ));
    let table = crate::embedded::SqliteTable::open(&dir.path().join("svc.db"), clock.clone())
        .expect("table");
    let ports = crate::ports::Ports::new(Arc::new(table), clock.clone());
    (ports, clock, dir)
}

#[cfg(test)]
pub(crate) fn test_ports() -> (crate::ports::Ports, tempfile::TempDir) {
    let (ports, _clock, dir) = test_ports_at("2026-11-21T10:00:00Z");
    (ports, dir)
}
