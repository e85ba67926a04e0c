//! Whether an AWS emulator is configured for these tests, and what the
//! tests of the service on the emulator share: a call through a router, an
//! account that can issue live invoices, and the jobs' table, queue and
//! bucket with what the queue's event source mapping hands the worker.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::Write as _;
use std::sync::Arc;

use aws_lambda_events::event::sqs::SqsEvent;
use aws_sdk_sqs::types::QueueAttributeName;
use serde_json::json;

use infra_aws::{DynamoTable, S3Blobs, SqsQueue};
use shared::ids::random_token;
use shared::ports::clock::SystemClock;
use shared::ports::queue::NoQueue;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use shared::app::{accounts, keys};
use shared::domain::account::{Issuer, Mode, Plan};
use shared::ports::Ports;
use shared::tax::nif::Nif;

fn is_set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// `emulator_of("DYNAMODB", what)`.
pub fn emulator(what: &str) -> bool {
    emulator_of("DYNAMODB", what)
}

/// True when an endpoint for `service` (the suffix of its SDK endpoint
/// variable: `DYNAMODB`, `SQS`, `S3`) is configured (then emulator
/// credentials are set where none are). Otherwise says that `what` was not
/// run — past the test harness's capture, so a plain `cargo test` shows it —
/// or fails when `SVC_REQUIRE_<service>=1` (as in `bash .ci/run`).
pub fn emulator_of(service: &str, what: &str) -> bool {
    let endpoint = format!("AWS_ENDPOINT_URL_{service}");
    if !is_set(&endpoint) && !is_set("AWS_ENDPOINT_URL") {
        let not_run =
            format!("{what} NOT RUN: set {endpoint} to an emulator (bash .ci/run starts moto)");
        let require = format!("SVC_REQUIRE_{service}");
        assert!(
            std::env::var(&require).as_deref() != Ok("1"),
            "{require}=1 but {not_run}"
        );
        let _ = writeln!(std::io::stderr(), "\n{not_run}\n");
        return false;
    }
    emulator_credentials();
    true
}

/// Points the SDK's client of `service` (the suffix of its endpoint
/// variable: `TEXTRACT`, `BEDROCK_RUNTIME`) at a fake server of the test.
pub fn use_fake(service: &str, url: &str) {
    // SAFETY: each test binary using this holds a single test, which calls
    // this before the SDK or any task reads the environment.
    unsafe { std::env::set_var(format!("AWS_ENDPOINT_URL_{service}"), url) };
    emulator_credentials();
}

/// Emulator credentials and region where none are set.
fn emulator_credentials() {
    for (var, value) in [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "eu-west-1"),
    ] {
        if !is_set(var) {
            // SAFETY: as in `use_fake`, before the SDK reads the environment.
            unsafe { std::env::set_var(var, value) };
        }
    }
}

/// Sends `req` through `app`: the status and the JSON body (null if none).
pub async fn call(app: &axum::Router, req: Request<Body>) -> (StatusCode, Value) {
    let response = app.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A Pro account with complete issuer details (Nube SA, A13585625) and its
/// live key.
pub async fn issuing_account(ports: &Ports) -> String {
    let account = accounts::create(ports, "Nube", Plan::Pro, None)
        .await
        .unwrap();
    let issuer = Issuer {
        name: Some("Nube SA".into()),
        nif: Some(Nif::parse("A13585625").unwrap()),
        address: Some("Gran Vía 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: None,
        country: Some("ES".into()),
    };
    accounts::set_issuer(ports, &account.id, &issuer)
        .await
        .unwrap();
    let (_, key) = keys::create(ports, &account.id, Mode::Live).await.unwrap();
    key.reveal()
}

/// The service on a new table of the emulator named for one run
/// (`svc-<name>-…`), at `clock`, without rate limits: its ports, its router
/// and the live key of an `issuing_account`.
pub async fn issuing_service(
    name: &str,
    clock: Arc<dyn shared::ports::clock::Clock>,
) -> (Ports, axum::Router, String) {
    let table =
        DynamoTable::from_env(&format!("svc-{name}-{}", random_token(6)), clock.clone()).await;
    table.create_table().await.unwrap();
    let ports = shared::adapters::ports(Arc::new(table), clock);
    let key = issuing_account(&ports).await;
    let config = shared::config::Config {
        rate_limit_per_minute: 100_000,
        ..shared::config::Config::default()
    };
    let app = shared::http::service_router(shared::http::AppState::new(ports.clone(), config));
    (ports, app, key)
}

/// The ports of async jobs on the emulators, named for one run: a table,
/// the jobs queue (with the embedded host's settings) and a staging bucket;
/// with the queue's client and address. None (having said why) when an
/// emulator is not configured.
pub async fn jobs_on_aws(what: &str) -> Option<(Ports, aws_sdk_sqs::Client, String)> {
    if !["DYNAMODB", "SQS", "S3"]
        .into_iter()
        .all(|s| emulator_of(s, what))
    {
        return None;
    }
    let config = infra_aws::sdk::config().await;
    let run = random_token(6);
    let clock = Arc::new(SystemClock);
    let table = DynamoTable::from_env(&format!("svc-jobs-{run}"), clock.clone()).await;
    table.create_table().await.unwrap();
    let sqs = aws_sdk_sqs::Client::new(&config);
    let url = sqs
        .create_queue()
        .queue_name(format!("svc-jobs-{run}"))
        .attributes(
            QueueAttributeName::VisibilityTimeout,
            infra_aws::environment::JOBS_QUEUE
                .visibility_timeout
                .as_secs()
                .to_string(),
        )
        .send()
        .await
        .expect("create the queue")
        .queue_url
        .unwrap();
    let blobs = S3Blobs::from_env(&format!("svc-staging-{run}")).await;
    blobs.create_bucket().await.expect("create the bucket");
    let ports = shared::adapters::ports(Arc::new(table), clock)
        .with_queues(
            Arc::new(SqsQueue::new(sqs.clone(), &url)),
            Arc::new(NoQueue),
        )
        .with_blobs(Arc::new(blobs));
    Some((ports, sqs, url))
}

/// What the event source mapping does: receive `count` messages (first
/// deliveries) and hand them over as an `SqsEvent`, with each message's id
/// and receipt handle.
pub async fn receive_batch(
    sqs: &aws_sdk_sqs::Client,
    url: &str,
    count: usize,
) -> (SqsEvent, Vec<(String, String)>) {
    let mut records = Vec::new();
    let mut receipts = Vec::new();
    while records.len() < count {
        let received = sqs
            .receive_message()
            .queue_url(url)
            .max_number_of_messages((count - records.len()).min(10) as i32)
            .wait_time_seconds(1)
            .send()
            .await
            .expect("receive");
        for m in received.messages() {
            let (id, receipt) = (m.message_id().unwrap(), m.receipt_handle().unwrap());
            receipts.push((id.to_string(), receipt.to_string()));
            records.push(
                json!({"messageId": id, "receiptHandle": receipt, "body": m.body().unwrap(),
                "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {},
                "eventSource": "aws:sqs", "awsRegion": "eu-west-1"}),
            );
        }
    }
    let event = serde_json::from_value(json!({"Records": records})).expect("an SQS event");
    (event, receipts)
}
