//! The in-process test harness: the real pipeline and routers on a fresh
//! embedded engine with a manual clock, one account with a live and a test key.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

pub mod aeat;
pub mod boxes;
pub mod invoice_fixtures;
pub mod jobs;
pub mod nif_corpus;
pub mod smtp;
pub mod web;
pub mod webhooks;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value as Json;
use tower::ServiceExt;

use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{AccountId, Issuer, Mode, Plan};
use shared::embedded::{LocalSecrets, SqliteTable};
use shared::http::{AppState, all_groups, with_pipeline};
use shared::mcp;
use shared::ports::Ports;
use shared::ports::clock::ManualClock;
use shared::secrets_key::SecretsKey;
use shared::tax::nif::Nif;

pub struct Harness {
    pub app: Router,
    pub ports: Ports,
    pub clock: Arc<ManualClock>,
    pub account: AccountId,
    pub live: String,
    pub test: String,
    pub live_key_id: String,
    _dir: tempfile::TempDir,
}

/// What `start_wired` hands its `wire` besides the ports.
pub struct Wiring<'a> {
    pub data_dir: &'a std::path::Path,
    pub feed: shared::embedded::feed::Feed,
    pub clock: Arc<ManualClock>,
}

/// Every endpoint group plus `extra` routes behind the pipeline, at 2026-11-21T10:00:00Z.
pub async fn start(config: Config, plan: Plan, extra: Router<AppState>) -> Harness {
    start_wired(config, plan, extra, |ports, _| ports).await
}

/// `start` with more ports: `wire` gets the ports (their table is a
/// `SqliteTable`, whose feed it gets too) and the data directory.
pub async fn start_wired(
    config: Config,
    plan: Plan,
    extra: Router<AppState>,
    wire: impl FnOnce(Ports, Wiring<'_>) -> Ports,
) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-11-21T10:00:00Z".parse().unwrap()));
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let feed = table.feed();
    // The key that seals certificates and webhook secrets (SVC_SECRETS_KEY).
    let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
    let ports = wire(
        shared::adapters::ports(Arc::new(table), clock.clone())
            .with_secrets(Arc::new(LocalSecrets::new(key))),
        Wiring {
            data_dir: dir.path(),
            feed,
            clock: clock.clone(),
        },
    );
    let account = accounts::create(&ports, "Test", plan, None).await.unwrap();
    let (live_key_id, live) = keys::create(&ports, &account.id, Mode::Live).await.unwrap();
    let (_, test) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let state = AppState::new(ports.clone(), config);
    Harness {
        app: with_pipeline(all_groups().merge(extra), state.clone()).merge(mcp::router(state)),
        ports,
        clock,
        account: account.id,
        live: live.reveal(),
        test: test.reveal(),
        live_key_id,
        _dir: dir,
    }
}

impl Harness {
    /// Gives the account complete issuer details (Madrid), so it can issue invoices.
    pub async fn set_issuer(&self) {
        accounts::set_issuer(&self.ports, &self.account, &madrid_issuer())
            .await
            .unwrap();
    }
}

/// Complete issuer details of a freelancer in Madrid (NIF 12345678Z).
pub fn madrid_issuer() -> Issuer {
    Issuer {
        name: Some("Ana García Pérez".into()),
        nif: Some(Nif::parse("12345678Z").unwrap()),
        address: Some("Calle Mayor 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: Some("Madrid".into()),
        country: Some("ES".into()),
    }
}

/// The default configuration with the rate limit out of the way.
pub fn relaxed() -> Config {
    Config {
        rate_limit_per_minute: 100_000,
        ..Config::default()
    }
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub json: Json,
}

impl Reply {
    pub fn code(&self) -> &str {
        self.json["error"]["code"].as_str().unwrap_or("")
    }

    pub fn param(&self) -> &str {
        self.json["error"]["param"].as_str().unwrap_or("")
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

pub fn get(path: &str, key: Option<&str>) -> Request<Body> {
    let mut req = Request::get(path);
    if let Some(key) = key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    req.body(Body::empty()).unwrap()
}

pub fn post_json(path: &str, key: &str, idempotency: Option<&str>, body: &str) -> Request<Body> {
    let mut req = Request::post(path)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json");
    if let Some(k) = idempotency {
        req = req.header("idempotency-key", k);
    }
    req.body(Body::from(body.to_string())).unwrap()
}

pub async fn send(app: &Router, req: Request<Body>) -> Reply {
    let response = app.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(Json::Null);
    Reply {
        status,
        headers,
        json,
    }
}

/// The types of an invoice's history events, oldest first.
pub fn history_types(invoice: &Json) -> Vec<String> {
    invoice["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

pub fn assert_error_shape(r: &Reply, status: StatusCode, kind: &str, code: &str) {
    assert_eq!(r.status, status, "{}", r.json);
    assert_eq!(r.json["error"]["type"], kind, "{}", r.json);
    assert_eq!(r.code(), code, "{}", r.json);
    assert!(!r.json["error"]["message"].as_str().unwrap_or("").is_empty());
    let request_id = r.header("request-id");
    assert!(request_id.starts_with("req_"));
    assert_eq!(r.json["error"]["request_id"], request_id);
}

/// The account's events of both modes, each mode newest first.
pub async fn events(h: &Harness) -> Vec<shared::app::outbox::Event> {
    use shared::app::events::{Filter, list};
    let mut all = Vec::new();
    for mode in [Mode::Live, Mode::Test] {
        let (page, _) = list(&h.ports, &h.account, mode, 1000, None, &Filter::default())
            .await
            .unwrap();
        all.extend(page);
    }
    all
}
