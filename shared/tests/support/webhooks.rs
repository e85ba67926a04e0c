//! Webhook test support: a deliveries queue in memory on the manual clock, a
//! local receiver that answers from a script and keeps what it got, and the
//! harness that wires them (the sender may reach loopback, as
//! `SVC_WEBHOOK_ALLOW_PRIVATE=true` allows).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value as Json;

use shared::app::outbox::Event;
use shared::domain::account::{Mode, Plan};
use shared::embedded::delivery_worker;
use shared::ports::clock::{Clock, ManualClock};
use shared::ports::queue::{MAX_DELAY, Message, NoQueue, Queue, QueueError};
use shared::ports::table::{Item, Key};
use shared::ports::webhook_http::HttpWebhookSender;
use shared::ports::{Ports, WebhookSender};

use super::{Harness, Reply, relaxed, send, start_with};

/// How long a received message stays invisible (the deliveries queue's setting).
pub const VISIBILITY: chrono::Duration = chrono::Duration::seconds(180);

struct Entry {
    id: String,
    body: String,
    visible_at: DateTime<Utc>,
    receipt: Option<String>,
    receive_count: u32,
}

/// A queue in memory whose delays and visibility run on the manual clock.
pub struct MemoryQueue {
    clock: Arc<ManualClock>,
    entries: Mutex<Vec<Entry>>,
}

impl MemoryQueue {
    pub fn new(clock: Arc<ManualClock>) -> Self {
        MemoryQueue {
            clock,
            entries: Mutex::new(Vec::new()),
        }
    }

    /// When the next message becomes visible.
    pub fn next_visible_at(&self) -> Option<DateTime<Utc>> {
        self.entries
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.visible_at)
            .min()
    }

    pub fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }

    pub fn bodies(&self) -> Vec<String> {
        self.entries
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.body.clone())
            .collect()
    }
}

#[async_trait]
impl Queue for MemoryQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<(), QueueError> {
        if delay > MAX_DELAY {
            return Err(QueueError::Invalid(format!("delay {delay:?} over 15 min")));
        }
        self.entries.lock().unwrap().push(Entry {
            id: shared::ids::new_id("msg"),
            body: body.to_string(),
            visible_at: self.clock.now() + chrono::Duration::from_std(delay).unwrap(),
            receipt: None,
            receive_count: 0,
        });
        Ok(())
    }

    async fn receive(&self, max: usize, _wait: Duration) -> Result<Vec<Message>, QueueError> {
        let now = self.clock.now();
        let mut entries = self.entries.lock().unwrap();
        let mut out = Vec::new();
        for e in entries.iter_mut().filter(|e| e.visible_at <= now).take(max) {
            let receipt = shared::ids::new_id("rcpt");
            e.visible_at = now + VISIBILITY;
            e.receipt = Some(receipt.clone());
            e.receive_count += 1;
            out.push(Message {
                id: e.id.clone(),
                body: e.body.clone(),
                receipt,
                receive_count: e.receive_count,
            });
        }
        Ok(out)
    }

    async fn delete(&self, receipt: &str) -> Result<(), QueueError> {
        let mut entries = self.entries.lock().unwrap();
        let before = entries.len();
        entries.retain(|e| e.receipt.as_deref() != Some(receipt));
        match entries.len() < before {
            true => Ok(()),
            false => Err(QueueError::Invalid(format!("unknown receipt {receipt}"))),
        }
    }

    async fn change_visibility(&self, receipt: &str, timeout: Duration) -> Result<(), QueueError> {
        let now = self.clock.now();
        let mut entries = self.entries.lock().unwrap();
        let entry = entries
            .iter_mut()
            .find(|e| e.receipt.as_deref() == Some(receipt))
            .ok_or_else(|| QueueError::Invalid(format!("unknown receipt {receipt}")))?;
        entry.visible_at = now + chrono::Duration::from_std(timeout).unwrap();
        Ok(())
    }
}

/// Runs the deliveries worker until the queue is empty or the next message
/// is due after `until`: it handles what is visible, then moves the clock to
/// the next message. The clock ends at the last message handled (or `until`).
pub async fn drain_until(
    ports: &Ports,
    queue: &MemoryQueue,
    clock: &ManualClock,
    until: DateTime<Utc>,
) {
    for _ in 0..100_000 {
        if delivery_worker::process(ports, Duration::ZERO)
            .await
            .unwrap()
            > 0
        {
            continue;
        }
        match queue.next_visible_at() {
            Some(at) if at <= until => clock.set(at.max(clock.now())),
            _ => {
                clock.set(until.max(clock.now()));
                return;
            }
        }
    }
    panic!("the deliveries queue never emptied");
}

pub async fn drain(ports: &Ports, queue: &MemoryQueue, clock: &ManualClock) {
    let far = clock.now() + chrono::Duration::days(365);
    for _ in 0..100_000 {
        if delivery_worker::process(ports, Duration::ZERO)
            .await
            .unwrap()
            > 0
        {
            continue;
        }
        match queue.next_visible_at() {
            Some(at) if at <= far => clock.set(at.max(clock.now())),
            Some(_) => panic!("a message is due more than a year ahead"),
            None => return,
        }
    }
    panic!("the deliveries queue never emptied");
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

/// The harness with the deliveries queue in memory and `sender`.
pub async fn harness_with(sender: Arc<dyn WebhookSender>) -> (Harness, Arc<MemoryQueue>) {
    let mut queue = None;
    let h = start_with(relaxed(), Plan::Pro, Router::new(), |ports, clock| {
        let q = Arc::new(MemoryQueue::new(clock));
        queue = Some(q.clone());
        ports.with_queues(Arc::new(NoQueue), q).with_sender(sender)
    })
    .await;
    (h, queue.unwrap())
}

/// The harness whose sender may reach the local receiver.
pub async fn harness() -> (Harness, Arc<MemoryQueue>) {
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
        kind: kind.to_string(),
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
