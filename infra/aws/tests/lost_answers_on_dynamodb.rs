//! Lost answers on DynamoDB (emulator): behind a fault proxy that commits
//! one transaction in seven and then answers 500 (as when DynamoDB's answer
//! is lost after the commit), every invoice request still answers 201, each
//! invoice exists once and the chain verifies. The SDK retries the 500; its
//! retry fails the committed transaction's own conditions, and the request
//! finds its commit by its receipt or its idempotency record.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use infra_aws::DynamoTable;
use shared::config::Config;
use shared::http::{AppState, service_router};
use shared::ports::clock::SystemClock;
use support::call;

const TRANSACT: &str = "DynamoDB_20120810.TransactWriteItems";
const REQUESTS: usize = 28;

#[derive(Clone)]
struct Proxy {
    upstream: String,
    client: reqwest::Client,
    transactions: Arc<AtomicUsize>,
    lost: Arc<AtomicUsize>,
}

async fn forward(
    axum::extract::State(proxy): axum::extract::State<Proxy>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let target = headers
        .get("x-amz-target")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut request = proxy
        .client
        .request(method, format!("{}{}", proxy.upstream, uri))
        .body(body);
    for (name, value) in &headers {
        if name != "host" && name != "content-length" {
            request = request.header(name, value);
        }
    }
    let answer = request.send().await.expect("the emulator answers");
    let status = answer.status();
    let content_type = answer.headers().get("content-type").cloned();
    let bytes = answer.bytes().await.expect("the emulator's body");
    if target == TRANSACT
        && status.is_success()
        && proxy.transactions.fetch_add(1, Ordering::SeqCst) % 7 == 3
    {
        proxy.lost.fetch_add(1, Ordering::SeqCst);
        let lost = json!({"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
            "message": "Internal server error"});
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "application/x-amz-json-1.0")],
            lost.to_string(),
        )
            .into_response();
    }
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = StatusCode::from_u16(status.as_u16()).expect("a status");
    if let Some(content_type) = content_type {
        response.headers_mut().insert("content-type", content_type);
    }
    response
}

async fn start_proxy(upstream: String) -> (String, Proxy) {
    let proxy = Proxy {
        upstream,
        client: reqwest::Client::new(),
        transactions: Arc::default(),
        lost: Arc::default(),
    };
    let app = axum::Router::new()
        .fallback(forward)
        .with_state(proxy.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), proxy)
}

/// A valid DNI with this number.
fn dni(number: u32) -> String {
    let letter = b"TRWAGMYFPDXBNJZSQVHLCKE"[(number % 23) as usize] as char;
    format!("{number:08}{letter}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lost_answers_to_commits_are_answered_from_the_commit() {
    if !support::emulator("Lost answers on DynamoDB") {
        return;
    }
    let upstream = std::env::var("AWS_ENDPOINT_URL_DYNAMODB")
        .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
        .unwrap();
    let (address, proxy) = start_proxy(upstream).await;
    let sdk = infra_aws::sdk::config().await;
    let client = aws_sdk_dynamodb::Client::from_conf(
        aws_sdk_dynamodb::config::Builder::from(&sdk)
            .endpoint_url(address)
            .build(),
    );
    let clock = Arc::new(SystemClock);
    let name = format!("svc-lost-{}", shared::ids::random_token(6));
    let table = DynamoTable::new(client, name, clock.clone());
    table.create_table().await.unwrap();
    let ports = shared::adapters::ports(Arc::new(table), clock);
    let key = support::issuing_account(&ports).await;
    let config = Config {
        rate_limit_per_minute: 100_000,
        ..Config::default()
    };
    let app = service_router(AppState::new(ports, config));

    let post = |path: &str, idempotency: Option<String>, body: Value| {
        let mut req = Request::post(path)
            .header("authorization", format!("Bearer {key}"))
            .header("content-type", "application/json");
        if let Some(k) = idempotency {
            req = req.header("idempotency-key", k);
        }
        req.body(Body::from(body.to_string())).unwrap()
    };
    let get = |path: &str| {
        Request::get(path)
            .header("authorization", format!("Bearer {key}"))
            .body(Body::empty())
            .unwrap()
    };
    let mut numbers = Vec::new();
    for i in 0..REQUESTS {
        // Invoices need an Idempotency-Key (its record tells whether the
        // commit landed); customers are created without one (a receipt tells).
        let invoice = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"},
            "lines": [{"description": "Servicio", "quantity": 1, "unit_price": 100 + i, "vat_rate": 21}]});
        let (status, answer) = call(
            &app,
            post("/api/v1/invoices", Some(format!("lost-{i}")), invoice),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "invoice {i}: {answer}");
        numbers.push(answer["number"].as_str().unwrap().to_string());
        let customer =
            json!({"name": format!("Cliente {i}"), "tax_id": dni(10_000_000 + i as u32)});
        let (status, answer) = call(&app, post("/api/v1/customers", None, customer)).await;
        assert_eq!(status, StatusCode::CREATED, "customer {i}: {answer}");
    }
    assert!(
        proxy.lost.load(Ordering::SeqCst) >= 5,
        "the proxy lost {} answers",
        proxy.lost.load(Ordering::SeqCst)
    );

    let listed = |path: &str| {
        let req = get(path);
        let app = app.clone();
        async move {
            let (_, list) = call(&app, req).await;
            list["data"].as_array().unwrap().len()
        }
    };
    assert_eq!(listed("/api/v1/invoices?limit=100").await, REQUESTS);
    assert_eq!(listed("/api/v1/customers?limit=100").await, REQUESTS);
    let mut distinct = numbers.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), REQUESTS, "{numbers:?}");
    let (_, chain) = call(&app, get("/api/v1/verifactu/chain/verify")).await;
    assert_eq!(
        (chain["status"].clone(), chain["records"].clone()),
        (json!("ok"), json!(REQUESTS)),
        "{chain}"
    );
}
