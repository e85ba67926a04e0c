//! Benchmark: start-to-first-response of the `usage` function binary, from exec
//! until it has answered its first event, against a minimal Lambda Runtime API
//! served here on loopback (embedded engine, so no network service is needed);
//! and the size of each function binary (release profile, stripped).
//!
//! Run: `cargo build --release -p function-openapi && cargo bench -p function-usage --bench cold_start`

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use shared::app::{accounts, keys};
use shared::domain::account::{Mode, Plan};
use shared::embedded::SqliteTable;
use shared::ports::Ports;
use shared::ports::clock::SystemClock;
use tokio::sync::mpsc;

const RUNS: usize = 20;
const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

#[derive(Clone)]
struct RuntimeApi {
    event: Arc<String>,
    answered: mpsc::UnboundedSender<String>,
}

async fn next_event(State(api): State<RuntimeApi>) -> (HeaderMap, String) {
    let mut headers = HeaderMap::new();
    headers.insert(
        "lambda-runtime-aws-request-id",
        "bench-request".parse().unwrap(),
    );
    headers.insert(
        "lambda-runtime-deadline-ms",
        "9999999999999".parse().unwrap(),
    );
    headers.insert(
        "lambda-runtime-invoked-function-arn",
        "arn:aws:lambda:eu-west-1:123456789012:function:usage"
            .parse()
            .unwrap(),
    );
    (headers, api.event.as_str().to_string())
}

async fn response(State(api): State<RuntimeApi>, body: String) -> &'static str {
    let _ = api.answered.send(body);
    "{}"
}

async fn seeded_key(data: &Path) -> String {
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&data.join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Bench", Plan::Pro, None)
        .await
        .unwrap();
    keys::create(&ports, &account.id, Mode::Test)
        .await
        .unwrap()
        .1
        .reveal()
}

#[tokio::main]
async fn main() {
    let binary = Path::new(env!("CARGO_BIN_EXE_usage"));
    let dir = tempfile::tempdir().unwrap();
    let key = seeded_key(dir.path()).await;
    let event = include_str!("../../../events/usage-get.json").replace(PLACEHOLDER_KEY, &key);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let api = RuntimeApi {
        event: Arc::new(event),
        answered: tx,
    };
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next_event))
        .route(
            "/2018-06-01/runtime/invocation/{id}/response",
            post(response),
        )
        .with_state(api);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut child = tokio::process::Command::new(binary)
            .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", "usage")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_LOG_STREAM_NAME", "bench")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", "bench")
            .env("SVC_DATA_DIR", dir.path())
            .env("RUST_LOG", "warn")
            .kill_on_drop(true)
            .spawn()
            .expect("the function binary starts");
        let body = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("the function answers within 10 s")
            .unwrap();
        times.push(started.elapsed());
        assert!(
            body.contains("\"statusCode\":200"),
            "unexpected answer: {body}"
        );
        child.kill().await.unwrap();
    }
    times.sort();
    println!(
        "usage function start-to-first-response over {RUNS} runs: p50 {:.1} ms, min {:.1} ms, max {:.1} ms",
        times[RUNS / 2].as_secs_f64() * 1000.0,
        times[0].as_secs_f64() * 1000.0,
        times[RUNS - 1].as_secs_f64() * 1000.0,
    );
    for name in ["usage", "openapi"] {
        let path = binary.with_file_name(name);
        match std::fs::metadata(&path) {
            Ok(meta) => println!(
                "{name}: {:.2} MiB ({} bytes, stripped)",
                meta.len() as f64 / 1048576.0,
                meta.len()
            ),
            Err(_) => println!("{name}: not built (cargo build --release -p function-{name})"),
        }
    }
}
