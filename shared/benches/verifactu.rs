//! Benchmark: VERI*FACTU submission of 1,000-record messages through the
//! submitter, in-process: the message built from the stored records, the
//! simulator's checks and answer (chain, fingerprints), and every record's
//! answer applied (record, invoice and event in one transaction each), on
//! the embedded engine. Goal: a 1,000-record message in ≤ 1 s on 2 cores,
//! so that the law's flow control (60 s between messages), not the
//! service, limits the rate.
//!
//! Run: `cargo bench -p shared --bench verifactu` (`BENCH_MESSAGES`, default 3).

use std::sync::Arc;
use std::time::Instant;

use chrono::Duration;
use serde_json::json;
use shared::app::invoices::issue;
use shared::app::keys::Caller;
use shared::app::verifactu::{Outcome, submit_pending};
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Issuer, Mode, Plan};
use shared::embedded::SqliteTable;
use shared::ports::clock::ManualClock;

#[tokio::main]
async fn main() {
    let messages: usize = std::env::var("BENCH_MESSAGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-11-24T10:00:00Z".parse().unwrap()));
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = shared::adapters::ports(Arc::new(table), clock.clone());
    let account = accounts::create(&ports, "Bench", Plan::Max, None)
        .await
        .unwrap();
    accounts::set_issuer(&ports, &account.id, &Issuer::demo())
        .await
        .unwrap();
    let (key_id, _) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let caller = Caller {
        account_id: account.id.clone(),
        plan: Plan::Max,
        mode: Mode::Test,
        key_id,
    };
    let system = Config::default().verifactu;
    let started = Instant::now();
    for _ in 0..messages * 1000 {
        let request = serde_json::from_value(json!({"lines": [
            {"description": "Café", "quantity": 2, "unit_price": 1.5, "vat_rate": 10},
            {"description": "Bollería", "quantity": 1, "unit_price": 2.2, "vat_rate": 10}]}))
        .unwrap();
        let draft = issue::draft(&ports, &caller, request).await.unwrap();
        let (_, writes) = issue::finalize(&ports, &caller, &system, draft)
            .await
            .unwrap();
        ports.table.transact(writes).await.unwrap();
    }
    println!(
        "{} test invoices issued in {:.1} s (setup)",
        messages * 1000,
        started.elapsed().as_secs_f64()
    );

    let mut times = Vec::new();
    for _ in 0..messages {
        let started = Instant::now();
        let outcomes = submit_pending(&ports).await.unwrap();
        let elapsed = started.elapsed();
        assert!(
            matches!(outcomes[0].1, Outcome::Sent { records: 1000, .. }),
            "{outcomes:?}"
        );
        times.push(elapsed.as_secs_f64());
        clock.advance(Duration::seconds(60));
    }
    times.sort_by(f64::total_cmp);
    println!(
        "1,000-record message built, answered by the simulator and applied: median {:.0} ms, max {:.0} ms ({} messages; {:.0} records/s)",
        times[times.len() / 2] * 1000.0,
        times[times.len() - 1] * 1000.0,
        times.len(),
        1000.0 / times[times.len() / 2]
    );
}
