//! Benchmark: invoices issued per second through `svc serve` (release), one
//! client after another and with 4 and 32 concurrent clients, with p50/p99 latency
//! of `POST /api/v1/invoices`; on the embedded engine, and on DynamoDB too
//! when `AWS_ENDPOINT_URL_DYNAMODB` points at an emulator.
//!
//! Run: `cargo bench -p svc --bench invoices` (env BENCH_SECONDS, default 5;
//! for the emulator also set AWS_ENDPOINT_URL_DYNAMODB and credentials).
//!
//! Before and after: `SVC_BENCH_BEFORE=<an earlier svc binary>` runs paired
//! rounds on the embedded engine instead (BENCH_ROUNDS, default 10; try
//! BENCH_SECONDS=2). Each round starts a fresh server of the earlier build and
//! of this one in turn (which goes first alternates from round to round), and
//! issues with each client count; then, per count,
//! the two means, the mean difference and its standard error, and how many
//! rounds the later build won. This machine's speed drifts by ±10 % within
//! minutes: only rounds paired this closely tell a change of a few percent
//! from the drift.

mod support;

use std::process::Command;
use std::time::Duration;

use support::{Server, Target, load, serve, serve_binary, this_build};

fn invoice(n: u64) -> String {
    format!(
        r#"{{"customer": {{"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"}},
            "irpf_rate": 15, "lines": [{{"description": "Servicio {n}", "quantity": 2, "unit_price": 125.5, "vat_rate": 21}},
            {{"description": "Material", "quantity": 1, "unit_price": 40, "vat_rate": 10}}]}}"#
    )
}

fn issue(connections: usize, label: &str) -> Target {
    Target {
        name: format!("POST /api/v1/invoices ({label})"),
        path: "/api/v1/invoices".into(),
        body: Some(invoice),
        idempotent: true,
        connections,
        headers: &[],
    }
}

const CLIENTS: [(usize, &str); 3] = [(1, "sequential"), (4, "4 clients"), (32, "32 clients")];

/// Issues with each client count in turn; the rates, in `CLIENTS` order.
async fn run(server: &Server, engine: &str, seconds: u64) -> Vec<f64> {
    let mut rates = Vec::new();
    for (clients, label) in CLIENTS {
        let target = issue(clients, &format!("{engine}, {label}"));
        rates.push(load(server, &target, Duration::from_secs(seconds), None).await);
    }
    rates
}

/// Issues with each client count against a fresh embedded store served by
/// the build at `binary`; the rates.
fn round(runtime: &tokio::runtime::Runtime, binary: &str, label: &str, seconds: u64) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let server = serve_binary(
        binary,
        &["--data".into(), dir.path().display().to_string()],
        &[],
    );
    runtime.block_on(run(&server, label, seconds))
}

fn compare(runtime: &tokio::runtime::Runtime, before: &str, seconds: u64) {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10)
        .max(2);
    let after = this_build();
    let (mut befores, mut afters) = (Vec::new(), Vec::new());
    // Every other round runs the later build first: a round's rates depend
    // on what ran just before it (an A/A run favoured the second of a pair).
    for i in 0..rounds {
        if i % 2 == 0 {
            befores.push(round(runtime, before, "before", seconds));
            afters.push(round(runtime, &after, "after", seconds));
        } else {
            afters.push(round(runtime, &after, "after", seconds));
            befores.push(round(runtime, before, "before", seconds));
        }
    }
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    for (i, (_, label)) in CLIENTS.iter().enumerate() {
        let b: Vec<f64> = befores.iter().map(|r| r[i]).collect();
        let a: Vec<f64> = afters.iter().map(|r| r[i]).collect();
        let d: Vec<f64> = a.iter().zip(&b).map(|(a, b)| a - b).collect();
        let gain = mean(&d);
        let spread =
            (d.iter().map(|x| (x - gain).powi(2)).sum::<f64>() / (rounds - 1) as f64).sqrt();
        println!(
            "{label:<11} before {:>6.0} req/s, after {:>6.0} req/s: {gain:+.0} ({:+.1} %), standard error {:.0}, after faster in {} of {rounds}",
            mean(&b),
            mean(&a),
            100.0 * gain / mean(&b),
            spread / (rounds as f64).sqrt(),
            d.iter().filter(|x| **x > 0.0).count(),
        );
    }
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if let Ok(before) = std::env::var("SVC_BENCH_BEFORE") {
        compare(&runtime, &before, seconds);
        return;
    }
    round(&runtime, &this_build(), "embedded", seconds);
    if std::env::var_os("AWS_ENDPOINT_URL_DYNAMODB").is_some() {
        let table = format!("svc-bench-{}", std::process::id());
        let created = Command::new(env!("CARGO_BIN_EXE_svc"))
            .args(["--table", &table, "table", "create"])
            .status()
            .unwrap();
        assert!(created.success(), "svc table create");
        let dynamodb = serve(&["--table".into(), table]);
        runtime.block_on(run(&dynamodb, "DynamoDB emulator", seconds));
    } else {
        println!("DynamoDB run skipped: set AWS_ENDPOINT_URL_DYNAMODB to an emulator");
    }
}
