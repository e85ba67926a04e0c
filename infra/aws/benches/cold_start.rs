//! Benchmark: the cold start of each Lambda function (exec → its first
//! answer) and the size of its binary. A minimal Lambda Runtime API on
//! loopback hands each function its sample event from `events/`, with a key
//! seeded in a fresh table on the emulator, as on AWS: DynamoDB, SQS and S3
//! (moto, as `bash .ci/run` starts it).
//!
//! Run: build the functions without the embedded engine, then point this at
//! the emulator:
//!
//! ```sh
//! cargo lambda build --release --x86-64 $(printf -- '-p function-%s ' usage tax customers invoices extraction analyses openapi events jobs webhooks mcp worker deliveries dispatcher scheduler verifactu uploads email-feedback web)
//! AWS_ENDPOINT_URL=http://127.0.0.1:5055 cargo bench -p infra-aws --bench cold_start
//! ```
//!
//! `LAMBDA_DIR` names the folder of `<function>/bootstrap` (default
//! `$CARGO_TARGET_DIR/lambda`, else `target/lambda`); `RUNS` the starts per
//! function (default 10); `LAMBDA_RUNNER` a command that runs the binary,
//! e.g. `qemu-aarch64 -L /usr/aarch64-linux-gnu` for the arm64 build on
//! another machine (an emulator's times are not the hardware's).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use infra_aws::{DynamoTable, S3Blobs};
use shared::app::{accounts, keys};
use shared::domain::account::{Issuer, Mode, Plan};
use shared::ports::clock::SystemClock;
use tokio::sync::mpsc;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

/// Each function and the sample event it starts on.
const FUNCTIONS: [(&str, &str); 19] = [
    ("usage", include_str!("../../../events/usage-get.json")),
    ("tax", include_str!("../../../events/tax-nif-get.json")),
    (
        "customers",
        include_str!("../../../events/customers-get.json"),
    ),
    (
        "invoices",
        include_str!("../../../events/invoices-post.json"),
    ),
    (
        "extraction",
        include_str!("../../../events/extraction-post.json"),
    ),
    (
        "analyses",
        include_str!("../../../events/analyses-post.json"),
    ),
    ("openapi", include_str!("../../../events/openapi-get.json")),
    ("events", include_str!("../../../events/events-get.json")),
    ("jobs", include_str!("../../../events/usage-get.json")),
    (
        "webhooks",
        include_str!("../../../events/webhooks-post.json"),
    ),
    ("mcp", include_str!("../../../events/mcp-post.json")),
    ("web", include_str!("../../../events/web-get.json")),
    ("worker", include_str!("../../../events/worker-sqs.json")),
    (
        "deliveries",
        include_str!("../../../events/deliveries-sqs.json"),
    ),
    (
        "dispatcher",
        include_str!("../../../events/dispatcher-stream.json"),
    ),
    ("scheduler", include_str!("../../../events/scheduler.json")),
    ("uploads", include_str!("../../../events/uploads-post.json")),
    (
        "verifactu",
        include_str!("../../../events/verifactu-sqs.json"),
    ),
    (
        "email-feedback",
        include_str!("../../../events/email-feedback-sqs.json"),
    ),
];

/// What the Runtime API saw of one invocation.
enum Answer {
    Response(String),
    Error(String),
}

#[derive(Clone)]
struct RuntimeApi {
    event: Arc<String>,
    answered: mpsc::UnboundedSender<Answer>,
}

async fn next_event(State(api): State<RuntimeApi>) -> (HeaderMap, String) {
    let mut headers = HeaderMap::new();
    for (name, value) in [
        ("lambda-runtime-aws-request-id", "bench-request"),
        ("lambda-runtime-deadline-ms", "9999999999999"),
        (
            "lambda-runtime-invoked-function-arn",
            "arn:aws:lambda:eu-west-1:123456789012:function:bench",
        ),
    ] {
        headers.insert(name, value.parse().unwrap());
    }
    (headers, api.event.as_str().to_string())
}

async fn response(State(api): State<RuntimeApi>, body: String) -> &'static str {
    let _ = api.answered.send(Answer::Response(body));
    "{}"
}

async fn error(State(api): State<RuntimeApi>, body: String) -> &'static str {
    let _ = api.answered.send(Answer::Error(body));
    "{}"
}

/// Serves the Runtime API for `event` on loopback; answers come on the
/// returned channel.
async fn runtime_api(event: String) -> (String, mpsc::UnboundedReceiver<Answer>) {
    let (tx, rx) = mpsc::unbounded_channel();
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
        .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
        .route("/2018-06-01/runtime/init/error", post(error))
        .with_state(api);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, rx)
}

/// A fresh table with a Pro account that can issue, and its test key; the
/// queues and the staging bucket: the environment every function gets.
async fn environment() -> (Vec<(&'static str, String)>, String) {
    let run = shared::ids::random_token(6);
    let table_name = format!("svc-cold-{run}");
    let clock = Arc::new(SystemClock);
    let table = DynamoTable::from_env(&table_name, clock.clone()).await;
    table.create_table().await.expect("the table is created");
    let ports = shared::adapters::ports(Arc::new(table), clock);
    let account = accounts::create(&ports, "Bench", Plan::Pro, None)
        .await
        .unwrap();
    accounts::set_issuer(&ports, &account.id, &Issuer::demo())
        .await
        .unwrap();
    let key = keys::create(&ports, &account.id, Mode::Test)
        .await
        .unwrap()
        .1
        .reveal();

    let config = infra_aws::sdk::config().await;
    let sqs = aws_sdk_sqs::Client::new(&config);
    // As `template.yaml` sets them; the rate limit raised, as every start
    // uses the one key.
    let mut env = vec![
        ("TABLE_NAME", table_name),
        ("SVC_RATE_LIMIT_PER_MINUTE", "100000".to_string()),
        (
            "SVC_PUBLIC_HOSTS",
            "*.execute-api.eu-west-1.amazonaws.com".to_string(),
        ),
    ];
    for (var, name) in [
        ("JOBS_QUEUE_URL", "jobs"),
        ("DELIVERIES_QUEUE_URL", "deliveries"),
        ("SUBMISSIONS_QUEUE_URL", "submissions"),
    ] {
        let url = sqs
            .create_queue()
            .queue_name(format!("svc-cold-{name}-{run}"))
            .send()
            .await
            .expect("the queue is created")
            .queue_url
            .unwrap();
        env.push((var, url));
    }
    let bucket = format!("svc-cold-{run}");
    S3Blobs::from_env(&bucket)
        .await
        .create_bucket()
        .await
        .expect("the bucket is created");
    env.push(("STAGING_BUCKET", bucket));
    (env, key)
}

fn lambda_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LAMBDA_DIR") {
        return dir.into();
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target")))
        .join("lambda")
}

/// The jobs group has no sample event: it gets the usage event's request
/// for an unknown job.
fn event_of(name: &str, sample: &str, key: &str) -> String {
    let event = sample.replace(PLACEHOLDER_KEY, key);
    match name {
        "jobs" => event
            .replace("GET /api/v1/usage", "GET /api/v1/jobs/{id}")
            .replace("/api/v1/usage", "/api/v1/jobs/job_000000000000000000000000"),
        _ => event,
    }
}

/// The HTTP status of an API Gateway answer, if it is one.
fn status_of(body: &str) -> Option<u64> {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()?
        .get("statusCode")?
        .as_u64()
}

#[tokio::main]
async fn main() {
    if std::env::var_os("AWS_ENDPOINT_URL").is_none() {
        eprintln!("set AWS_ENDPOINT_URL to the emulator (moto), e.g. http://127.0.0.1:5055");
        std::process::exit(2);
    }
    for (var, value) in [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "eu-west-1"),
    ] {
        if std::env::var_os(var).is_none() {
            // SAFETY: nothing else runs yet.
            unsafe { std::env::set_var(var, value) };
        }
    }
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    let dir = lambda_dir();
    let runner: Vec<String> = std::env::var("LAMBDA_RUNNER")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let (env, key) = environment().await;
    println!(
        "function     size (stripped)   cold start p50 / min / max over {runs} starts   answer"
    );
    for (name, sample) in FUNCTIONS {
        let binary = dir.join(name).join("bootstrap");
        let Ok(meta) = std::fs::metadata(&binary) else {
            println!("{name:<12} not built: {}", binary.display());
            continue;
        };
        let (addr, mut answers) = runtime_api(event_of(name, sample, &key)).await;
        let mut times = Vec::with_capacity(runs);
        let mut last = String::new();
        for _ in 0..runs {
            let started = Instant::now();
            let mut command = match runner.split_first() {
                Some((program, args)) => {
                    let mut command = tokio::process::Command::new(program);
                    command.args(args).arg(&binary);
                    command
                }
                None => tokio::process::Command::new(&binary),
            };
            let mut child = command
                .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
                .env("AWS_LAMBDA_RUNTIME_API", &addr)
                .env("AWS_LAMBDA_FUNCTION_NAME", name)
                .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
                .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
                .env("AWS_LAMBDA_LOG_STREAM_NAME", "bench")
                .env("AWS_LAMBDA_LOG_GROUP_NAME", "bench")
                .env("RUST_LOG", "warn")
                .kill_on_drop(true)
                .spawn()
                .expect("the function binary starts");
            let answer = tokio::time::timeout(Duration::from_secs(20), answers.recv())
                .await
                .unwrap_or_else(|_| panic!("{name} answers within 20 s"))
                .unwrap();
            times.push(started.elapsed());
            child.kill().await.unwrap();
            last = match answer {
                Answer::Response(body) => match status_of(&body) {
                    Some(status) if status >= 500 => panic!("{name} answered {status}: {body}"),
                    Some(status) => format!("HTTP {status}"),
                    None => body.chars().take(60).collect(),
                },
                Answer::Error(body) => panic!("{name} failed: {body}"),
            };
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{name:<12} {:>6.2} MiB        {:>6.1} / {:>6.1} / {:>6.1} ms                      {last}",
            meta.len() as f64 / 1048576.0,
            ms(times[runs / 2]),
            ms(times[0]),
            ms(times[runs - 1]),
        );
    }
}
