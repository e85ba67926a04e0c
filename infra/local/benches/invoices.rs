//! Benchmark: invoices issued per second through `svc serve` (release), one
//! client after another and with 4 and 32 concurrent clients, with p50/p99 latency
//! of `POST /api/v1/invoices`; on the embedded engine, and on DynamoDB too
//! when `AWS_ENDPOINT_URL_DYNAMODB` points at an emulator.
//!
//! Run: `cargo bench -p svc --bench invoices` (env BENCH_SECONDS, default 5;
//! for the emulator also set AWS_ENDPOINT_URL_DYNAMODB and credentials).

mod support;

use std::process::Command;
use std::time::Duration;

use support::{Server, Target, load, serve};

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

async fn run(server: &Server, engine: &str, seconds: u64) {
    for (clients, label) in [(1, "sequential"), (4, "4 clients"), (32, "32 clients")] {
        let target = issue(clients, &format!("{engine}, {label}"));
        load(server, &target, Duration::from_secs(seconds), None).await;
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
    let dir = tempfile::tempdir().unwrap();
    let embedded = serve(&["--data".into(), dir.path().display().to_string()]);
    runtime.block_on(run(&embedded, "embedded", seconds));
    drop(embedded);
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
