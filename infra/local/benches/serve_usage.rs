//! Benchmark: `svc serve` answering `GET /api/v1/usage` at 64 concurrent
//! connections, rate limit raised. Spawns the release `svc` binary on a fresh
//! data directory and reports p50/p99 latency and requests per second.
//!
//! Run: `cargo bench -p svc --bench serve_usage` (env BENCH_SECONDS, default 10).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const CONNECTIONS: usize = 64;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
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
    let mut key = String::new();
    let mut base = String::new();
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
    let url = Arc::new(format!("{base}/api/v1/usage"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (latencies, elapsed) = runtime.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(CONNECTIONS)
            .build()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let started = Instant::now();
        let tasks: Vec<_> = (0..CONNECTIONS)
            .map(|_| {
                let client = client.clone();
                let url = url.clone();
                let key = key.clone();
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    while Instant::now() < deadline {
                        let t = Instant::now();
                        let response = client
                            .get(url.as_str())
                            .bearer_auth(&key)
                            .send()
                            .await
                            .unwrap();
                        assert_eq!(response.status(), 200);
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
        (all, started.elapsed())
    });
    let _ = child.kill();
    let _ = child.wait();
    let mut sorted = latencies;
    sorted.sort();
    println!(
        "svc serve GET /api/v1/usage, {CONNECTIONS} connections, {:.1} s: {} requests, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms",
        elapsed.as_secs_f64(),
        sorted.len(),
        sorted.len() as f64 / elapsed.as_secs_f64(),
        percentile(&sorted, 0.50).as_secs_f64() * 1000.0,
        percentile(&sorted, 0.99).as_secs_f64() * 1000.0,
    );
}
