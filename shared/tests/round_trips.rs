//! How many table calls each kind of request makes once its key is warm. On
//! DynamoDB each call is one round trip (a transaction is one
//! TransactWriteItems), so these counts are the round trips per request there.

use crate::support;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::json;
use shared::app::dispatch::dispatch;
use shared::app::outbox;
use shared::app::webhooks::Subscribers;
use shared::domain::account::{Mode, Plan};
use shared::ports::Table;
use shared::ports::table::{Condition, Item, Key, Page, Query, TableError, UpdateOp, Write};
use shared::webhooks::event_type::EventType;
use support::{Harness, get, post_json, relaxed, send, start_wired};

/// The calls made, and how many items their queries returned.
#[derive(Default)]
struct Calls {
    made: Mutex<Vec<&'static str>>,
    queried: AtomicUsize,
}

type Log = Arc<Calls>;

/// A table that notes each call it passes on.
struct Counting {
    inner: Arc<dyn Table>,
    log: Log,
}

impl Counting {
    fn note(&self, call: &'static str) {
        self.log.made.lock().unwrap().push(call);
    }
}

#[async_trait]
impl Table for Counting {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.note("get");
        self.inner.get(key).await
    }
    async fn query(&self, query: &Query) -> Result<Page, TableError> {
        self.note("query");
        let page = self.inner.query(query).await?;
        self.log
            .queried
            .fetch_add(page.items.len(), Ordering::Relaxed);
        Ok(page)
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.note("put");
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        ops: Vec<UpdateOp>,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.note("update");
        self.inner.update(key, ops, condition).await
    }
    async fn delete(&self, key: &Key, condition: Option<Condition>) -> Result<(), TableError> {
        self.note("delete");
        self.inner.delete(key, condition).await
    }
    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.note("transact");
        self.inner.transact(writes).await
    }
    fn bookkeeping(self: Arc<Self>) -> Arc<dyn Table> {
        Arc::new(Counting {
            inner: self.inner.clone().bookkeeping(),
            log: self.log.clone(),
        })
    }
}

async fn counted() -> (Harness, Log) {
    let log = Log::default();
    let wired = log.clone();
    let h = start_wired(
        relaxed(),
        Plan::Pro,
        axum::Router::new(),
        move |ports, _| {
            let table: Arc<dyn Table> = Arc::new(Counting {
                inner: ports.table.clone(),
                log: wired,
            });
            shared::ports::Ports {
                bookkeeping: table.clone().bookkeeping(),
                table,
                ..ports
            }
        },
    )
    .await;
    h.set_issuer().await;
    (h, log)
}

/// The calls made while `request` is served, after it was served once.
async fn calls(
    h: &Harness,
    log: &Log,
    request: impl Fn() -> axum::http::Request<axum::body::Body>,
) -> Vec<&'static str> {
    let warm = send(&h.app, request()).await;
    assert!(warm.status.is_success(), "{} {}", warm.status, warm.json);
    log.made.lock().unwrap().clear();
    let reply = send(&h.app, request()).await;
    assert!(reply.status.is_success(), "{} {}", reply.status, reply.json);
    std::mem::take(&mut *log.made.lock().unwrap())
}

const INVOICE: &str = r#"{"customer": {"name": "Taller Ana SL", "tax_id": "B64717838",
    "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"},
    "lines": [{"description": "Servicio", "quantity": 2, "unit_price": 125.5, "vat_rate": 21}]}"#;

#[tokio::test]
async fn each_kind_of_request_makes_only_the_calls_it_needs() {
    let (h, log) = counted().await;
    let key = h.live.clone();

    let usage = calls(&h, &log, || get("/api/v1/usage", Some(&key))).await;
    assert_eq!(usage, ["update", "get"], "rate window, usage counter");

    let nif = calls(&h, &log, || {
        get("/api/v1/tax/nif?value=B64717838", Some(&key))
    })
    .await;
    assert_eq!(nif, ["update"], "the rate window only");

    let quarter = calls(&h, &log, || {
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&key))
    })
    .await;
    assert_eq!(
        quarter,
        ["update", "query", "query", "get", "query", "query"],
        "rate window, the ledger, the book of expenses (capital goods included), the account (cash-accounting regime), its collections, the year before's ledger (a fourth quarter: unpaid cash-regime invoices)"
    );

    let vat = calls(&h, &log, || {
        post_json(
            "/api/v1/tax/vat",
            &key,
            None,
            r#"{"amount": "100", "vat_rate": 21}"#,
        )
    })
    .await;
    assert_eq!(vat, ["update"], "the rate window only");

    let n = AtomicU64::new(0);
    let issue = calls(&h, &log, || {
        let idem = format!("k-{}", n.fetch_add(1, Ordering::Relaxed));
        post_json("/api/v1/invoices", &key, Some(&idem), INVOICE)
    })
    .await;
    assert_eq!(
        issue,
        [
            "update", "put", "get", "get", "query", "get", "get", "get", "get", "transact"
        ],
        "rate window, idempotency lease, account, certificate, id counter, the series, their counter, chain head, the issuer NIF's claim, the transaction"
    );

    let read = calls(&h, &log, || get("/api/v1/invoices/1", Some(&key))).await;
    assert_eq!(
        read,
        ["update", "get", "get"],
        "rate window, the invoice, the certificate its pending record waits for"
    );
}

#[tokio::test]
async fn a_made_up_key_is_looked_up_once_while_its_miss_is_fresh() {
    let (h, log) = counted().await;
    let made_up = format!("svc_live_{}", "0".repeat(48));
    log.made.lock().unwrap().clear();
    for _ in 0..20 {
        let reply = send(&h.app, get("/api/v1/usage", Some(&made_up))).await;
        assert_eq!(reply.code(), "api_key_unknown", "{}", reply.json);
    }
    assert_eq!(
        *log.made.lock().unwrap(),
        ["get"],
        "one read for twenty requests"
    );
}

/// Issues `count` live invoices.
async fn issue_live(h: &Harness, count: usize) {
    for n in 0..count {
        let idem = format!("i-{n}");
        let reply = send(
            &h.app,
            post_json("/api/v1/invoices", &h.live, Some(&idem), INVOICE),
        )
        .await;
        assert!(reply.status.is_success(), "{}", reply.json);
    }
}

#[tokio::test]
async fn a_live_chain_without_a_certificate_is_passed_over_without_reading_its_records() {
    let (h, log) = counted().await;
    issue_live(&h, 5).await;
    log.queried.store(0, Ordering::Relaxed);
    let outcomes = shared::app::verifactu::submit::submit_pending(&h.ports)
        .await
        .unwrap();
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(
        log.queried.load(Ordering::Relaxed),
        2,
        "the chain from the pending list, then its newest record only"
    );
}

#[tokio::test]
async fn an_unfiltered_list_reads_one_invoice_more_than_it_answers() {
    let (h, log) = counted().await;
    issue_live(&h, 5).await;
    for (path, read, answered, more) in [
        ("/api/v1/invoices?limit=2", 3, 2, true),
        ("/api/v1/invoices?limit=5", 5, 5, false),
        ("/api/v1/invoices?limit=2&status=issued", 5, 2, true),
    ] {
        log.queried.store(0, Ordering::Relaxed);
        let reply = send(&h.app, get(path, Some(&h.live))).await;
        assert_eq!(
            reply.json["data"].as_array().unwrap().len(),
            answered,
            "{path}"
        );
        assert_eq!(reply.json["has_more"], more, "{path}");
        assert_eq!(log.queried.load(Ordering::Relaxed), read, "{path}");
    }
}

#[tokio::test]
async fn a_batch_of_events_reads_the_webhooks_of_each_account_and_mode_once() {
    let (h, log) = counted().await;
    let event = |mode, kind| {
        let kind = EventType::parse(kind).unwrap();
        let write = outbox::record(&h.account, mode, kind, json!({}), h.ports.clock.now());
        let Write::Put { item, .. } = write else {
            panic!("events are puts")
        };
        item
    };
    let batch = [
        event(Mode::Live, "invoice.issued"),
        event(Mode::Live, "invoice.paid"),
        event(Mode::Test, "invoice.issued"),
        event(Mode::Live, "invoice.cancelled"),
    ];
    log.made.lock().unwrap().clear();
    let mut subscribers = Subscribers::default();
    for item in &batch {
        dispatch(&h.ports, item, &mut subscribers).await.unwrap();
    }
    assert_eq!(
        *log.made.lock().unwrap(),
        ["query", "query"],
        "the live webhooks, then the test webhooks"
    );
}
