//! No internal text reaches a client: every use-case error kind carrying an
//! SDK's words (which can name roles, account ids and resources) becomes a
//! response without them, directly and through the whole pipeline, on every
//! route of the OpenAPI document, and through an extraction whose OCR engine
//! fails.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine;
use http_body_util::BodyExt;
use tower::ServiceExt;

use shared::app::accounts::AccountError;
use shared::app::analyses::AnalysesError;
use shared::app::customers::CustomerError;
use shared::app::events::EventsError;
use shared::app::invoices::error::InvoiceError;
use shared::app::keys::AuthError;
use shared::app::tax_tools::ToolError;
use shared::app::webhooks::WebhookError;
use shared::domain::account::{AccountId, Plan};
use shared::extraction::TextDocument;
use shared::http::error::ApiError;
use shared::item_cache::ItemCache;
use shared::ports::ocr::{ImageFormat, Ocr, OcrError};
use shared::ports::queue::QueueError;
use shared::ports::table::{
    Condition, Item, Key, Ordered, Page, Query, Table, TableError, UpdateOp, Write,
};

/// What an SDK error says: it must stay in the logs.
const SDK_TEXT: &str = "AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/svc-InvoicesFunctionRole-X1/invoices is not authorized";

fn leaks(body: &str) -> bool {
    body.contains("123456789012") || body.contains("arn:aws") || body.contains("AccessDenied")
}

#[test]
fn every_use_case_error_kind_is_answered_without_internal_text() {
    let table = || TableError::Unavailable(SDK_TEXT.into());
    let account = AccountId::generate();
    let errors: Vec<(&str, ApiError)> = vec![
        ("table unavailable", table().into()),
        ("table invalid", TableError::Invalid(SDK_TEXT.into()).into()),
        (
            "auth storage",
            AuthError::Storage(AccountError::Table(table())).into(),
        ),
        (
            "auth corrupt account",
            AuthError::Storage(AccountError::Corrupt(account, SDK_TEXT.into())).into(),
        ),
        ("invoices", InvoiceError::Storage(table()).into()),
        ("analyses", AnalysesError::Storage(table()).into()),
        ("events", EventsError::Storage(table()).into()),
        ("customers", CustomerError::Storage(table()).into()),
        ("webhooks storage", WebhookError::Storage(table()).into()),
        (
            "webhooks queue",
            WebhookError::Queue(QueueError::Unavailable(SDK_TEXT.into())).into(),
        ),
        (
            "webhooks malformed",
            WebhookError::Malformed(SDK_TEXT.into()).into(),
        ),
        ("webhooks busy", WebhookError::Busy(SDK_TEXT.into()).into()),
        (
            "tax tools storage",
            ToolError {
                code: "storage",
                message: SDK_TEXT.into(),
                param: None,
            }
            .into(),
        ),
        ("internal", ApiError::internal(SDK_TEXT)),
    ];
    for (what, error) in errors {
        let body = error.body("req_1");
        assert!(!leaks(&body), "{what}: {body}");
        assert!(error.status.is_server_error(), "{what}: {}", error.status);
    }
}

/// The embedded table, whose reads and writes fail with an SDK's words once
/// `failing` is set; its bookkeeping view (rate limits, idempotency leases)
/// keeps working, so requests get past the layers to their use cases.
struct Failing {
    inner: Arc<dyn Table>,
    failing: Arc<AtomicBool>,
}

impl Failing {
    fn check(&self) -> Result<(), TableError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(TableError::Unavailable(SDK_TEXT.into()));
        }
        Ok(())
    }
}

#[async_trait]
impl Table for Failing {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.check()?;
        self.inner.get(key).await
    }
    async fn query(&self, query: &Query) -> Result<Page, TableError> {
        self.check()?;
        self.inner.query(query).await
    }
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        self.check()?;
        self.inner.put(item, condition).await
    }
    async fn update(
        &self,
        key: &Key,
        ops: Vec<UpdateOp>,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        self.check()?;
        self.inner.update(key, ops, condition).await
    }
    async fn delete(&self, key: &Key, condition: Option<Condition>) -> Result<(), TableError> {
        self.check()?;
        self.inner.delete(key, condition).await
    }
    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.check()?;
        self.inner.transact(writes).await
    }
    async fn order(&self, writes: Vec<Write>) -> Result<Ordered, TableError> {
        self.check()?;
        self.inner.order(writes).await
    }
    async fn get_ordered(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.check()?;
        self.inner.get_ordered(key).await
    }
    fn bookkeeping(self: Arc<Self>) -> Arc<dyn Table> {
        self.inner.clone().bookkeeping()
    }
}

/// Every route of the OpenAPI document, with its path parameters filled.
fn routes() -> Vec<(String, String)> {
    let text = include_str!("../src/http/openapi.json");
    let document: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut routes = Vec::new();
    for (path, operations) in document["paths"].as_object().unwrap() {
        let filled: String = path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "1"
                } else {
                    segment
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        for method in operations.as_object().unwrap().keys() {
            routes.push((method.to_uppercase(), filled.clone()));
        }
    }
    routes
}

#[tokio::test]
async fn no_route_answers_storage_failures_with_internal_text() {
    let failing = Arc::new(AtomicBool::new(false));
    let switch = failing.clone();
    let h = support::start_wired(
        support::relaxed(),
        Plan::Max,
        axum::Router::new(),
        move |ports, _| {
            let table: Arc<dyn Table> = Arc::new(Failing {
                inner: ports.table.clone(),
                failing: switch,
            });
            shared::ports::Ports {
                bookkeeping: table.clone().bookkeeping(),
                // Keys and accounts stay as read before the failure.
                cache: Arc::new(ItemCache::new(Duration::from_secs(3600))),
                table,
                ..ports
            }
        },
    )
    .await;
    let warm = support::send(&h.app, support::get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(warm.status, StatusCode::OK, "{}", warm.json);
    failing.store(true, Ordering::SeqCst);

    let routes = routes();
    assert!(routes.len() > 30, "{routes:?}");
    let mut server_errors = 0;
    for (i, (method, path)) in routes.iter().enumerate() {
        let mut req = Request::builder()
            .method(method.as_str())
            .uri(path)
            .header("authorization", format!("Bearer {}", h.live));
        if method != "GET" {
            req = req
                .header("content-type", "application/json")
                .header("idempotency-key", format!("sanitising-{i}"));
        }
        let response = h
            .app
            .clone()
            .oneshot(req.body(Body::from("{}")).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = String::from_utf8_lossy(&bytes);
        assert!(!leaks(&body), "{method} {path}: {body}");
        if status.is_server_error() {
            server_errors += 1;
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            let code = json["error"]["code"].as_str().unwrap_or_default();
            assert!(
                ["internal_error", "service_unavailable"].contains(&code),
                "{method} {path}: {body}"
            );
        }
    }
    assert!(
        server_errors > 10,
        "the failing table was reached {server_errors} times"
    );
}

/// An OCR engine that fails as an SDK would.
struct FailingOcr;

#[async_trait]
impl Ocr for FailingOcr {
    async fn read(&self, _: &[u8], _: ImageFormat) -> Result<TextDocument, OcrError> {
        Err(OcrError::Failed(SDK_TEXT.into()))
    }
}

#[tokio::test]
async fn a_failing_ocr_engine_is_reported_without_its_words() {
    let h = support::start_wired(
        support::relaxed(),
        Plan::Max,
        axum::Router::new(),
        |ports, _| shared::ports::Ports {
            ocr: Arc::new(FailingOcr),
            ..ports
        },
    )
    .await;
    let mut png = Vec::new();
    image::RgbImage::from_pixel(64, 64, image::Rgb([255, 255, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let body =
        serde_json::json!({"files": [{"name": "ticket.png", "mime": "image/png", "data": data}]});
    let reply = support::send(
        &h.app,
        support::post_json(
            "/api/v1/invoices/extract",
            &h.live,
            Some("ocr-fails"),
            &body.to_string(),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
    let text = reply.json.to_string();
    assert!(!leaks(&text), "{text}");
    assert_eq!(reply.json["errors"][0]["code"], "ocr_failed", "{text}");
}
