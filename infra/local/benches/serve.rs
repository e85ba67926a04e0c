//! Benchmark: `svc serve` under load, rate limit raised. Spawns the release
//! `svc` binary on a fresh data directory, then measures requests/s and
//! p50/p99 latency of `GET /api/v1/usage` at 64 concurrent connections and of
//! each tax endpoint at 16.
//!
//! Run: `cargo bench -p svc --bench serve` (env BENCH_SECONDS per endpoint, default 5).

mod support;

use std::time::Duration;

use support::{Target, load, serve};

fn target(name: &str, path: &str, body: Option<fn(u64) -> String>, connections: usize) -> Target {
    Target {
        name: name.into(),
        path: path.into(),
        body,
        idempotent: false,
        connections,
        headers: &[],
    }
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&["--data".into(), dir.path().display().to_string()]);
    let targets = [
        target("GET  /api/v1/usage", "/api/v1/usage", None, 64),
        target(
            "GET  /api/v1/tax/nif",
            "/api/v1/tax/nif?value=B64717838",
            None,
            16,
        ),
        target(
            "POST /api/v1/tax/vat",
            "/api/v1/tax/vat",
            Some(|_| r#"{"amount": "218.00", "vat_rate": 21, "includes_vat": true}"#.into()),
            16,
        ),
        target(
            "POST /api/v1/tax/withholding",
            "/api/v1/tax/withholding",
            Some(|_| r#"{"base": 1000, "type": "professional"}"#.into()),
            16,
        ),
        target(
            "POST /api/v1/tax/model-130",
            "/api/v1/tax/model-130",
            Some(|_| {
                r#"{"year": 2026, "quarter": 2, "income": 20000, "expenses": 7000, "withholdings": 1200, "previous_quarters": [{"income": 12000, "expenses": 3000, "withholdings": 720}]}"#.into()
            }),
            16,
        ),
        target(
            "GET  /api/v1/tax/quarter",
            "/api/v1/tax/quarter?year=2026&quarter=4",
            None,
            16,
        ),
        target(
            "GET  /api/v1/tax/calendar",
            "/api/v1/tax/calendar?from=2026-01-01&to=2026-12-31",
            None,
            16,
        ),
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        for t in &targets {
            load(&server, t, Duration::from_secs(seconds), None).await;
        }
    });
}
