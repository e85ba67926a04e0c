//! Webhook test support: the embedded deliveries queue on the manual clock,
//! a local receiver that answers from a script and keeps what it got, and
//! the harness that wires them (the sender may reach loopback, as
//! `SVC_WEBHOOK_ALLOW_PRIVATE=true` allows).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value as Json;

use shared::adapters::webhook_http::HttpWebhookSender;
use shared::app::outbox::Event;
use shared::app::webhooks::Subscribers;
use shared::domain::account::{Mode, Plan};
use shared::embedded::delivery_worker;
use shared::embedded::{QueueSettings, SqliteQueue};
use shared::ports::clock::{Clock, ManualClock};
use shared::ports::queue::NoQueue;
use shared::ports::table::{Item, Key};
use shared::ports::{Ports, WebhookSender};
use shared::webhooks::event_type::EventType;

use super::{Harness, Reply, relaxed, send, start_wired};

/// The deliveries queue's settings on the embedded host (`WebhooksQueue` in
/// template.yaml): invisible 180 s once received, dead-lettered after 5.
pub const DELIVERIES: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(180),
    max_receives: 5,
};

/// The embedded deliveries queue (`SqliteQueue`, in its own file) on the
/// manual clock, and a look at its file to know when to move the clock.
pub struct Deliveries {
    pub queue: Arc<SqliteQueue>,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Deliveries {
    fn open(clock: Arc<ManualClock>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("queue.db");
        let queue = SqliteQueue::open(&path, "deliveries", DELIVERIES, clock).unwrap();
        Deliveries {
            queue: Arc::new(queue),
            path,
            _dir: dir,
        }
    }

    fn look<T>(&self, sql: &str, row: impl FnOnce(&rusqlite::Row) -> rusqlite::Result<T>) -> T {
        let conn = rusqlite::Connection::open(&self.path).unwrap();
        conn.query_row(sql, ["deliveries"], row).unwrap()
    }

    /// When the next message becomes visible.
    pub fn next_visible_at(&self) -> Option<DateTime<Utc>> {
        let millis: Option<i64> = self.look(
            "SELECT MIN(visible_at) FROM queue_messages WHERE queue = ?1",
            |r| r.get(0),
        );
        millis.map(|m| DateTime::from_timestamp_millis(m).unwrap())
    }

    pub fn len(&self) -> usize {
        let count: i64 = self.look(
            "SELECT COUNT(*) FROM queue_messages WHERE queue = ?1",
            |r| r.get(0),
        );
        usize::try_from(count).unwrap()
    }

    pub fn bodies(&self) -> Vec<String> {
        let conn = rusqlite::Connection::open(&self.path).unwrap();
        let mut stmt = conn
            .prepare("SELECT body FROM queue_messages WHERE queue = ?1 ORDER BY rowid")
            .unwrap();
        stmt.query_map(["deliveries"], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}

/// Runs the deliveries worker: handles what is visible, then moves the clock
/// to the next message, until the queue is empty (the clock then stays at the
/// last message handled) or, with `until`, the next message is due after it
/// (the clock then ends at `until`).
async fn run(ports: &Ports, queue: &Deliveries, clock: &ManualClock, until: Option<DateTime<Utc>>) {
    for _ in 0..100_000 {
        if delivery_worker::process(ports, Duration::ZERO)
            .await
            .unwrap()
            > 0
        {
            continue;
        }
        match (queue.next_visible_at(), until) {
            (Some(at), None) => clock.set(at.max(clock.now())),
            (Some(at), Some(until)) if at <= until => clock.set(at.max(clock.now())),
            (_, Some(until)) => return clock.set(until.max(clock.now())),
            (None, None) => return,
        }
    }
    panic!("the deliveries queue never emptied");
}

pub async fn drain(ports: &Ports, queue: &Deliveries, clock: &ManualClock) {
    run(ports, queue, clock, None).await
}

pub async fn drain_until(
    ports: &Ports,
    queue: &Deliveries,
    clock: &ManualClock,
    until: DateTime<Utc>,
) {
    run(ports, queue, clock, Some(until)).await
}

/// What the receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    pub fn json(&self) -> Json {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// An HTTP server on 127.0.0.1 answering with the scripted statuses in
/// order, then 200; each answer's body is `answer <n>` padded past 2 KB.
pub struct Receiver {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    script: Arc<Mutex<VecDeque<u16>>>,
}

impl Receiver {
    pub async fn start(script: &[u16]) -> Receiver {
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let script = Arc::new(Mutex::new(script.iter().copied().collect::<VecDeque<_>>()));
        let (r, s) = (received.clone(), script.clone());
        let app = Router::new().fallback(move |headers: HeaderMap, body: Bytes| {
            let (r, s) = (r.clone(), s.clone());
            async move {
                let n = {
                    let mut got = r.lock().unwrap();
                    got.push(Received { headers, body });
                    got.len()
                };
                let status = s.lock().unwrap().pop_front().unwrap_or(200);
                (
                    StatusCode::from_u16(status).unwrap(),
                    format!("answer {n} {}", ".".repeat(3000)),
                )
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Receiver {
            url: format!("http://{addr}/hooks"),
            received,
            script,
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Answers still scripted.
    pub fn pending(&self) -> usize {
        self.script.lock().unwrap().len()
    }
}

/// The harness with the embedded deliveries queue and `sender`.
pub async fn harness_with(sender: Arc<dyn WebhookSender>) -> (Harness, Deliveries) {
    let mut deliveries = None;
    let h = start_wired(relaxed(), Plan::Pro, Router::new(), |ports, wiring| {
        let d = Deliveries::open(wiring.clock);
        let queue = d.queue.clone();
        deliveries = Some(d);
        ports
            .with_queues(Arc::new(NoQueue), queue)
            .with_sender(sender)
    })
    .await;
    (h, deliveries.unwrap())
}

/// The harness whose sender may reach the local receiver.
pub async fn harness() -> (Harness, Deliveries) {
    harness_with(Arc::new(HttpWebhookSender::new(true))).await
}

pub fn request(method: Method, path: &str, key: &str, body: Option<&str>) -> Request<Body> {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {key}"));
    match body {
        Some(b) => req
            .header("content-type", "application/json")
            .body(Body::from(b.to_string()))
            .unwrap(),
        None => req.body(Body::empty()).unwrap(),
    }
}

pub async fn call(h: &Harness, method: Method, path: &str, key: &str, body: Option<Json>) -> Reply {
    let body = body.map(|b| b.to_string());
    send(&h.app, request(method, path, key, body.as_deref())).await
}

/// Registers a webhook through the API; its JSON (with the secret).
pub async fn register(h: &Harness, key: &str, url: &str, events: Json) -> Json {
    let r = call(
        h,
        Method::POST,
        "/api/v1/webhooks",
        key,
        Some(serde_json::json!({"url": url, "events": events})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json
}

/// An event of the harness account, stored as the outbox stores it.
pub async fn event(h: &Harness, mode: Mode, kind: &str, data: Json) -> Event {
    let now = h.clock.now();
    let created_at = now.to_rfc3339_opts(SecondsFormat::Millis, true);
    let event = Event {
        id: shared::ids::new_ordered_id("evt", now),
        account_id: h.account.to_string(),
        kind: EventType::parse(kind).unwrap(),
        created_at: created_at.clone(),
        livemode: mode.is_live(),
        data: data.clone(),
    };
    let item = Item::new(event_key(h, mode, &event.id))
        .with("entity", "event")
        .with("id", event.id.as_str())
        .with("account_id", h.account.as_str())
        .with("livemode", mode.is_live())
        .with("type", kind)
        .with("created_at", created_at)
        .with("data", data.to_string())
        .with("ttl", (now + chrono::Duration::days(30)).timestamp());
    h.ports.table.put(item, None).await.unwrap();
    event
}

pub fn event_key(h: &Harness, mode: Mode, id: &str) -> Key {
    Key::new(format!("EVENTS#{}#{}", h.account, mode.as_str()), id)
}

/// The event item's (`deliveries`, `delivered`) counts.
pub async fn counts(h: &Harness, mode: Mode, id: &str) -> (Option<i64>, Option<i64>) {
    let item = h
        .ports
        .table
        .get(&event_key(h, mode, id))
        .await
        .unwrap()
        .unwrap();
    (item.n("deliveries"), item.n("delivered"))
}

/// Fans `event` out as the dispatcher does, in a batch of its own.
pub async fn fan_out(ports: &Ports, event: &Event) {
    shared::app::webhooks::fan_out(ports, event, &mut Subscribers::default())
        .await
        .unwrap();
}
