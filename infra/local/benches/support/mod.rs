//! Shared by the benchmarks: start the release `svc serve` and load it.

// Each bench binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

pub struct Server {
    child: Child,
    pub base: String,
    pub key: String,
    pub test_key: String,
}

impl Server {
    /// The server's peak resident memory so far (VmHWM), in bytes (Linux).
    pub fn peak_rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `svc <storage> serve` on a free port with the rate limit raised; the live
/// key comes from the demo account it creates on an empty store. The binary is
/// this build's, or `SVC_BENCH_BIN` (e.g. an earlier build, for a before figure).
pub fn serve(storage: &[String]) -> Server {
    serve_with(storage, &[])
}

/// `serve` with more environment variables (configuration) for the server.
pub fn serve_with(storage: &[String], env: &[(&str, &str)]) -> Server {
    serve_binary(&this_build(), storage, env)
}

/// The `svc` binary benchmarked: this build's, or `SVC_BENCH_BIN`.
pub fn this_build() -> String {
    std::env::var("SVC_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_svc").into())
}

/// `serve_with` of the `svc` binary at `binary`.
pub fn serve_binary(binary: &str, storage: &[String], env: &[(&str, &str)]) -> Server {
    let mut child = Command::new(binary)
        .args(storage)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("SVC_RATE_LIMIT_PER_MINUTE", "100000000")
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .spawn()
        .expect("svc serve starts");
    let (mut key, mut test_key, mut base) = (String::new(), String::new(), String::new());
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(k) = line.trim().strip_prefix("live key: ") {
            key = k.to_string();
        }
        if let Some(k) = line.trim().strip_prefix("test key: ") {
            test_key = k.to_string();
        }
        if let Some(addr) = line.strip_prefix("svc listening on ") {
            base = addr.to_string();
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    Server {
        child,
        base,
        key,
        test_key,
    }
}

/// One kind of request: path, and a body made from a sequence number (POSTs).
pub struct Target {
    pub name: String,
    pub path: String,
    pub body: Option<fn(u64) -> String>,
    pub idempotent: bool,
    pub connections: usize,
    /// More request headers (e.g. the MCP ones).
    pub headers: &'static [(&'static str, &'static str)],
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// One keep-alive HTTP/1.1 connection to the server: a lean client, so that
/// the load generator, which shares the machine's cores with the server,
/// takes as little of them as it can.
async fn connect(base: &str) -> hyper::client::conn::http1::SendRequest<Full<Bytes>> {
    let address = base.trim_start_matches("http://");
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    sender
}

/// Runs `target` for `duration` (or `count` requests in total), prints req/s, p50 and p99, and
/// returns the req/s.
pub async fn load(server: &Server, target: &Target, duration: Duration, count: Option<u64>) -> f64 {
    let host = server.base.trim_start_matches("http://").to_string();
    let authorization = format!("Bearer {}", server.key);
    let sequence = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..target.connections {
        let mut sender = connect(&server.base).await;
        let (path, host, authorization, sequence) = (
            target.path.clone(),
            host.clone(),
            authorization.clone(),
            sequence.clone(),
        );
        let (body, idempotent, headers) = (target.body, target.idempotent, target.headers);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            loop {
                let n = sequence.fetch_add(1, Ordering::Relaxed);
                if count.is_some_and(|c| n >= c) || (count.is_none() && Instant::now() >= deadline)
                {
                    return latencies;
                }
                let mut request = hyper::Request::builder()
                    .uri(path.as_str())
                    .header("host", host.as_str())
                    .header("authorization", authorization.as_str());
                for (name, value) in headers {
                    request = request.header(*name, *value);
                }
                if idempotent {
                    request = request.header(
                        "idempotency-key",
                        format!("bench-{}-{n}", std::process::id()),
                    );
                }
                let request = match body {
                    Some(make) => request
                        .method("POST")
                        .header("content-type", "application/json")
                        .body(Full::new(Bytes::from(make(n)))),
                    None => request.body(Full::new(Bytes::new())),
                }
                .unwrap();
                let t = Instant::now();
                sender.ready().await.unwrap();
                let response = sender.send_request(request).await.unwrap();
                let status = response.status();
                let bytes = response.into_body().collect().await.unwrap().to_bytes();
                let text = String::from_utf8_lossy(&bytes);
                assert!(status.is_success(), "{status}: {text}");
                assert!(!text.contains(r#""isError":true"#), "{text}");
                latencies.push(t.elapsed());
            }
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let rate = all.len() as f64 / started.elapsed().as_secs_f64();
    all.sort();
    println!(
        "{:<34} {:>2} conns: {:>6.0} req/s, p50 {:>6.2} ms, p99 {:>6.2} ms ({} requests)",
        target.name,
        target.connections,
        rate,
        percentile(&all, 0.50).as_secs_f64() * 1000.0,
        percentile(&all, 0.99).as_secs_f64() * 1000.0,
        all.len()
    );
    rate
}
