//! Benchmark: events of `svc serve` (release, embedded engine) delivered to a
//! webhook receiver on this machine (a test-mode webhook: live ones need https).
//! - event → delivered latency, p50/p99: from the event's `created_at` to its
//!   arrival at the receiver, one `invoice.issued` event at a time;
//! - deliveries per second: a burst of invoices issued by 16 clients, from the
//!   first event's `created_at` to the last arrival;
//! - async extraction jobs with a live key (a text PDF, the service's own
//!   invoice PDF): queued → succeeded as the job records it (`finished_at` −
//!   `created_at`), and from the request to a poll that sees it succeeded.
//!
//! Run: `cargo bench -p svc --bench events` (env BENCH_EVENTS, default 300;
//! BENCH_JOBS, default 30).

mod support;

use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use base64::Engine;
use chrono::{DateTime, Utc};
use serde_json::{Value as Json, json};
use tokio::sync::mpsc;

use support::serve_with;

struct Arrival {
    kind: String,
    created_at: DateTime<Utc>,
    at: DateTime<Utc>,
}

async fn receive(State(arrivals): State<mpsc::UnboundedSender<Arrival>>, body: Bytes) {
    let at = Utc::now();
    let event: Json = serde_json::from_slice(&body).expect("an event envelope");
    let _ = arrivals.send(Arrival {
        kind: event["type"].as_str().unwrap_or_default().to_string(),
        created_at: event["created_at"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("created_at"),
        at,
    });
}

/// A receiver answering 200 to every delivery; its URL and what arrives.
async fn receiver() -> (String, mpsc::UnboundedReceiver<Arrival>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let app = Router::new().route("/hook", post(receive)).with_state(tx);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, rx)
}

fn invoice(n: u64) -> String {
    format!(
        r#"{{"customer": {{"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"}},
            "lines": [{{"description": "Servicio {n}", "quantity": 1, "unit_price": 100, "vat_rate": 21}}]}}"#
    )
}

#[derive(Clone)]
struct Api {
    client: reqwest::Client,
    base: String,
    key: String,
}

impl Api {
    async fn post(&self, path: &str, body: String, key: Option<String>) -> (u16, Json) {
        let mut request = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .header("content-type", "application/json")
            .body(body);
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Json::Null))
    }

    async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap()
    }
}

async fn next_of(arrivals: &mut mpsc::UnboundedReceiver<Arrival>, kind: &str) -> Arrival {
    loop {
        let arrival = tokio::time::timeout(Duration::from_secs(30), arrivals.recv())
            .await
            .expect("a delivery within 30 s")
            .expect("the receiver runs");
        if arrival.kind == kind {
            return arrival;
        }
    }
}

fn millis(d: chrono::TimeDelta) -> f64 {
    d.num_microseconds().unwrap_or(i64::MAX) as f64 / 1000.0
}

fn report(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{name:<44} p50 {:>7.2} ms, p99 {:>7.2} ms, max {:>7.2} ms ({} samples)",
        at(0.5),
        at(0.99),
        at(1.0),
        ms.len()
    );
}

async fn sequential(api: &Api, arrivals: &mut mpsc::UnboundedReceiver<Arrival>, count: u64) {
    let mut latencies = Vec::new();
    for n in 0..count {
        let (status, _) = api
            .post("/api/v1/invoices", invoice(n), Some(format!("seq-{n}")))
            .await;
        assert_eq!(status, 201);
        let arrival = next_of(arrivals, "invoice.issued").await;
        latencies.push(millis(arrival.at - arrival.created_at));
    }
    report("event → delivered (one at a time)", latencies);
}

async fn burst(api: &Api, arrivals: &mut mpsc::UnboundedReceiver<Arrival>, count: u64) {
    let clients: Vec<_> = (0..16)
        .map(|client| {
            let api = api.clone();
            tokio::spawn(async move {
                for n in (client..count).step_by(16) {
                    let (status, body) = api
                        .post("/api/v1/invoices", invoice(n), Some(format!("burst-{n}")))
                        .await;
                    assert_eq!(status, 201, "{body}");
                }
            })
        })
        .collect();
    for client in clients {
        client.await.unwrap();
    }
    let mut first = None::<DateTime<Utc>>;
    let mut last = None::<DateTime<Utc>>;
    let mut latencies = Vec::new();
    for _ in 0..count {
        let arrival = next_of(arrivals, "invoice.issued").await;
        first = Some(first.map_or(arrival.created_at, |f| f.min(arrival.created_at)));
        last = Some(last.map_or(arrival.at, |l| l.max(arrival.at)));
        latencies.push(millis(arrival.at - arrival.created_at));
    }
    let seconds = millis(last.unwrap() - first.unwrap()) / 1000.0;
    println!(
        "deliveries per second (burst of {count})        {:>7.0} /s over {seconds:.2} s",
        count as f64 / seconds
    );
    report("event → delivered (burst)", latencies);
}

async fn jobs(api: &Api, count: u64) {
    let (status, invoice) = api
        .post("/api/v1/invoices", invoice(0), Some("job-pdf".into()))
        .await;
    assert_eq!(status, 201, "{invoice}");
    let pdf = api
        .get(&format!("/api/v1/invoices/{}/pdf", invoice["id"]))
        .await
        .bytes()
        .await
        .unwrap();
    let body = json!({"files": [{"name": "factura.pdf", "mime": "application/pdf",
        "data": base64::engine::general_purpose::STANDARD.encode(&pdf)}]})
    .to_string();
    let (mut observed, mut recorded) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let started = Instant::now();
        let (status, job) = api
            .post("/api/v1/invoices/extract?async=true", body.clone(), None)
            .await;
        assert_eq!(status, 202, "{job}");
        let path = format!("/api/v1/jobs/{}", job["id"].as_str().unwrap());
        let job = loop {
            let job: Json = api.get(&path).await.json().await.unwrap();
            if job["status"] == "succeeded" || job["status"] == "failed" {
                break job;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        observed.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(job["status"], "succeeded", "{job}");
        assert_eq!(job["result"]["invoices"].as_array().map(Vec::len), Some(1));
        let at = |field: &str| {
            job[field]
                .as_str()
                .unwrap()
                .parse::<DateTime<Utc>>()
                .unwrap()
        };
        recorded.push(millis(at("finished_at") - at("created_at")));
    }
    report("text-PDF job: queued → succeeded (job times)", recorded);
    report("text-PDF job: request → seen succeeded", observed);
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let (events, job_count) = (setting("BENCH_EVENTS", 300), setting("BENCH_JOBS", 30));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let secrets_key = shared::secrets_key::SecretsKey::generate();
    let server = serve_with(
        &["--data".into(), dir.path().display().to_string()],
        &[
            ("SVC_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("SVC_SECRETS_KEY", &secrets_key),
            ("SVC_QUOTA_PRO", "100000"),
        ],
    );
    runtime.block_on(async {
        let (url, mut arrivals) = receiver().await;
        let live = Api {
            client: reqwest::Client::new(),
            base: server.base.clone(),
            key: server.key.clone(),
        };
        let test = Api {
            key: server.test_key.clone(),
            ..live.clone()
        };
        let (status, webhook) = test
            .post(
                "/api/v1/webhooks",
                json!({"url": url, "events": ["*"]}).to_string(),
                None,
            )
            .await;
        assert_eq!(status, 201, "{webhook}");
        sequential(&test, &mut arrivals, events).await;
        burst(&test, &mut arrivals, events).await;
        jobs(&live, job_count).await;
    });
}
