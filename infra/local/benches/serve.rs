//! Benchmark: `svc serve` under load, rate limit raised. Spawns the release
//! `svc` binary on a fresh data directory, then measures requests/s and
//! p50/p99 latency of `GET /api/v1/usage` at 64 concurrent connections and of
//! each tax endpoint at 16.
//!
//! Run: `cargo bench -p svc --bench serve` (env BENCH_SECONDS per endpoint, default 5).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Target {
    name: &'static str,
    path: &'static str,
    body: Option<&'static str>,
    connections: usize,
}

const TARGETS: [Target; 7] = [
    Target {
        name: "GET  /api/v1/usage",
        path: "/api/v1/usage",
        body: None,
        connections: 64,
    },
    Target {
        name: "GET  /api/v1/tax/nif",
        path: "/api/v1/tax/nif?value=B64717838",
        body: None,
        connections: 16,
    },
    Target {
        name: "POST /api/v1/tax/vat",
        path: "/api/v1/tax/vat",
        body: Some(r#"{"amount": "218.00", "vat_rate": 21, "includes_vat": true}"#),
        connections: 16,
    },
    Target {
        name: "POST /api/v1/tax/withholding",
        path: "/api/v1/tax/withholding",
        body: Some(r#"{"base": 1000, "type": "professional"}"#),
        connections: 16,
    },
    Target {
        name: "POST /api/v1/tax/model-130",
        path: "/api/v1/tax/model-130",
        body: Some(
            r#"{"year": 2026, "quarter": 2, "income": 20000, "expenses": 7000, "withholdings": 1200, "previous_quarters": [{"income": 12000, "expenses": 3000, "withholdings": 720}]}"#,
        ),
        connections: 16,
    },
    Target {
        name: "GET  /api/v1/tax/quarter",
        path: "/api/v1/tax/quarter?year=2026&quarter=4",
        body: None,
        connections: 16,
    },
    Target {
        name: "GET  /api/v1/tax/calendar",
        path: "/api/v1/tax/calendar?from=2026-01-01&to=2026-12-31",
        body: None,
        connections: 16,
    },
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn load(client: &reqwest::Client, base: &str, key: &str, target: &Target, seconds: u64) {
    let url = Arc::new(format!("{base}{}", target.path));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let tasks: Vec<_> = (0..target.connections)
        .map(|_| {
            let (client, url, key, body) =
                (client.clone(), url.clone(), key.to_string(), target.body);
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while Instant::now() < deadline {
                    let t = Instant::now();
                    let request = match body {
                        Some(b) => client
                            .post(url.as_str())
                            .header("content-type", "application/json")
                            .body(b),
                        None => client.get(url.as_str()),
                    };
                    let response = request.bearer_auth(&key).send().await.unwrap();
                    assert_eq!(response.status(), 200, "{}", url);
                    response.bytes().await.unwrap();
                    latencies.push(t.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort();
    println!(
        "{:<30} {:>2} conns: {:>6.0} req/s, p50 {:>6.2} ms, p99 {:>6.2} ms ({} requests)",
        target.name,
        target.connections,
        all.len() as f64 / elapsed,
        percentile(&all, 0.50).as_secs_f64() * 1000.0,
        percentile(&all, 0.99).as_secs_f64() * 1000.0,
        all.len()
    );
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_svc"))
        .arg("--data")
        .arg(dir.path())
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("SVC_RATE_LIMIT_PER_MINUTE", "100000000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .expect("svc serve starts");
    let (mut key, mut base) = (String::new(), String::new());
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(k) = line.trim().strip_prefix("live key: ") {
            key = k.to_string();
        }
        if let Some(addr) = line.strip_prefix("svc listening on ") {
            base = addr.to_string();
            break;
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .build()
            .unwrap();
        for target in &TARGETS {
            load(&client, &base, &key, target, seconds).await;
        }
    });
    let _ = child.kill();
    let _ = child.wait();
}
