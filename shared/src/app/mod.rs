//! Use cases: one function per operation, taking the ports explicitly.

/// Accounts and their issuer details, plans and payment terms (the admin side).
pub mod accounts;
/// Running an analysis, and listing and reading the stored ones.
pub mod analyses;
/// The VAT each payment of an invoice under the cash-accounting regime made accrue.
pub mod collections;
/// The customer address book of an account and mode, one customer per tax id.
pub mod customers;
pub mod dated_items;
/// What happens after a commit: jobs to the jobs queue, events to webhook
/// deliveries, chains to the VERI*FACTU submission queue.
pub mod dispatch;
/// Reading an account's events of the last 30 days.
pub mod events;
/// The book of expenses (received invoices): add, list, correct, delete, history, document.
pub mod expenses;
/// The extraction use case, in two phases (`prepare` before the quota charge, `finish`).
pub mod extraction;
/// `fiscal.deadline` reminders, 7 days and 1 day before each tax deadline.
pub mod fiscal_deadlines;
/// Idempotency records: begun with a lease, completed in the request's transaction.
pub mod idempotency;
/// Invoices: issue, read, list, cancel, rectify, payments, status changes, email sends.
pub mod invoices;
/// Async jobs: queuing an extraction or analysis, the worker's run, its end.
pub mod jobs;
/// How many keys an account holds unrevoked, for the limit on them.
pub mod key_count;
/// API keys: creation, revocation, and resolving a request's key to a `Caller`.
pub mod keys;
/// The ledger of live issued invoices that the tax tools read.
pub mod ledger;
/// Which account owns a live issuer NIF (and so its VERI*FACTU chain).
pub mod nif_claims;
/// Events, written in the same transaction as the change that causes them.
pub mod outbox;
/// The application's people: sign-up, sign-in, sessions, resets, members.
pub mod people;
/// The daily quota per plan, charged in the request's transaction.
pub mod quota;
/// The pause before a write that lost a race runs again.
pub mod race;
/// Requests per minute per key, counted in the table.
pub mod rate_limit;
/// Commit receipts: whether a commit whose answer was lost landed.
pub mod receipts;
/// Numbering series of an account and mode, and the choice of one for an invoice.
pub mod series;
/// The tax tools (NIF, VAT, IRPF, Modelo 130, quarter, calendar) as use cases.
pub mod tax_tools;
/// Uploads: files too large for a request body, put through a presigned URL.
pub mod uploads;
/// The caller's quota for today.
pub mod usage;
/// VERI*FACTU submission to the AEAT, record corrections and certificates.
pub mod verifactu;
/// Webhooks: management, fan-out to deliveries, delivery with retries, the log.
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
    let ports = crate::adapters::ports(Arc::new(table), clock.clone());
    (ports, clock, dir)
}

#[cfg(test)]
pub(crate) fn test_ports() -> (crate::ports::Ports, tempfile::TempDir) {
    let (ports, _clock, dir) = test_ports_at("2026-11-21T10:00:00Z");
    (ports, dir)
}
