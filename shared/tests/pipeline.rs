//! The request pipeline over HTTP, in-process on the embedded engine: auth,
//! plans, rate limit, quota, idempotency, error shapes, limits and routing.
//! Test-only routes exercise the generic layers the way real handlers will.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Extension, State};
use axum::http::{Request, StatusCode};
use axum::middleware::from_fn;
use axum::response::IntoResponse;
use axum::routing::post;
use chrono::Duration;
use serde::Deserialize;
use serde_json::{Value as Json, json};
use tokio::sync::Notify;

use crate::support;

use shared::app::keys::Caller;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{AccountId, Mode, Plan};
use shared::http::AppState;
use shared::http::error::ApiError;
use shared::http::json::ApiJson;
use shared::http::quota::charge_unit;
use shared::http::unit_of_work::{UnitOfWork, require_idempotency_key};
use shared::ports::clock::Clock;
use shared::ports::table::{Condition, Item, Key, Query, SortKey, Write};
use support::{Harness, assert_error_shape, get, post_json, send};

#[derive(Default)]
struct Gate {
    entered: Notify,
    release: Notify,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewWidget {
    name: String,
    #[serde(default)]
    wait: bool,
}

/// A handler with an effect: it stores a widget through the unit of work.
async fn create_widget(
    caller: Caller,
    uow: UnitOfWork,
    Extension(gate): Extension<Arc<Gate>>,
    ApiJson(body): ApiJson<NewWidget>,
) -> Result<impl IntoResponse, ApiError> {
    if body.wait {
        gate.entered.notify_one();
        gate.release.notified().await;
    }
    let id = shared::ids::new_id("wid");
    uow.add(Write::Put {
        item: Item::new(Key::new(
            widgets_pk(&caller.account_id, caller.mode),
            id.clone(),
        ))
        .with("name", body.name.clone()),
        condition: Some(Condition::Absent),
    });
    if body.name.is_empty() {
        return Err(ApiError::invalid("parameter_invalid", "name must not be empty").param("name"));
    }
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({"id": id, "name": body.name})),
    ))
}

async fn analyse(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
) -> Result<axum::Json<Json>, ApiError> {
    charge_unit(&state, &caller, &uow).await?;
    Ok(axum::Json(json!({"livemode": caller.mode.is_live()})))
}

async fn explode() -> &'static str {
    panic!("boom")
}

fn widgets_pk(account: &AccountId, mode: Mode) -> String {
    format!("WIDGET#{account}#{}", mode.as_str())
}

struct PipelineHarness {
    h: Harness,
    gate: Arc<Gate>,
}

impl std::ops::Deref for PipelineHarness {
    type Target = Harness;

    fn deref(&self) -> &Harness {
        &self.h
    }
}

async fn harness_with(config: Config, plan: Plan) -> PipelineHarness {
    let gate = Arc::new(Gate::default());
    let test_routes = Router::new()
        .route("/api/v1/test/widgets", post(create_widget))
        .route(
            "/api/v1/test/invoices",
            post(create_widget).route_layer(from_fn(require_idempotency_key)),
        )
        .route("/api/v1/test/analyses", post(analyse))
        .route("/api/v1/test/panic", post(explode))
        .layer(Extension(gate.clone()));
    PipelineHarness {
        h: support::start(config, plan, test_routes).await,
        gate,
    }
}

async fn harness() -> PipelineHarness {
    harness_with(support::relaxed(), Plan::Pro).await
}

async fn widget_count(h: &PipelineHarness, mode: Mode) -> usize {
    let q = Query::new(widgets_pk(&h.account, mode), SortKey::All);
    h.ports.table.query(&q).await.unwrap().items.len()
}

#[tokio::test]
async fn each_key_failure_has_its_own_401() {
    let h = harness().await;
    let r = send(&h.app, get("/api/v1/usage", None)).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_key_missing",
    );
    let r = send(&h.app, get("/api/v1/usage", Some("not-a-key"))).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_key_malformed",
    );
    let basic = Request::get("/api/v1/usage")
        .header("authorization", "Basic abc")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&h.app, basic).await.code(), "api_key_malformed");
    let stranger = format!("svc_live_{}", "0".repeat(48));
    let r = send(&h.app, get("/api/v1/usage", Some(&stranger))).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_key_unknown",
    );

    assert_eq!(
        send(&h.app, get("/api/v1/usage", Some(&h.live)))
            .await
            .status,
        StatusCode::OK
    );
    keys::revoke(&h.ports, &h.live_key_id).await.unwrap();
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_key_revoked",
    );
}

#[tokio::test]
async fn mini_plan_refuses_live_keys_but_keeps_them_and_test_keys_work() {
    let h = harness_with(Config::default(), Plan::Mini).await;
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_plan_required",
    );
    let r = send(&h.app, get("/api/v1/usage", Some(&h.test))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["livemode"], false);
    assert_eq!(r.json["plan"], "mini");

    accounts::set_plan(&h.ports, &h.account, Plan::Pro)
        .await
        .unwrap();
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["livemode"], true);
}

#[tokio::test]
async fn usage_reports_the_plan_and_todays_quota() {
    let h = harness().await;
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        r.json,
        json!({"object": "usage", "plan": "pro", "daily_limit": 100, "used": 0, "remaining": 100,
               "resets_at": "2026-11-21T23:00:00Z", "livemode": true})
    );
    assert!(r.header("request-id").starts_with("req_"));
}

#[tokio::test]
async fn the_rate_limit_holds_per_key_and_minute_with_headers_on_every_response() {
    let config = Config {
        rate_limit_per_minute: 3,
        ..Config::default()
    };
    let h = harness_with(config, Plan::Pro).await;
    h.clock.set("2026-11-21T10:00:15Z".parse().unwrap());
    for remaining in ["2", "1", "0"] {
        let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.header("x-ratelimit-limit"), "3");
        assert_eq!(r.header("x-ratelimit-remaining"), remaining);
        assert_eq!(r.header("x-ratelimit-reset"), "1795255260");
    }
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_error_shape(
        &r,
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_error",
        "rate_limited",
    );
    assert_eq!(r.header("retry-after"), "45");
    assert_eq!(r.header("x-ratelimit-remaining"), "0");
    let other = send(&h.app, get("/api/v1/usage", Some(&h.test))).await;
    assert_eq!(other.status, StatusCode::OK, "each key has its own window");

    h.clock.advance(Duration::seconds(45));
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("x-ratelimit-remaining"), "2");
}

#[tokio::test]
async fn the_quota_is_charged_per_live_request_and_resets_at_madrid_midnight() {
    let mut config = Config {
        rate_limit_per_minute: 1000,
        ..Config::default()
    };
    config.quotas.pro = 5;
    let h = harness_with(config, Plan::Pro).await;
    for _ in 0..5 {
        let r = send(
            &h.app,
            post_json("/api/v1/test/analyses", &h.live, None, "{}"),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
        h.clock.advance(Duration::seconds(1));
    }
    let r = send(
        &h.app,
        post_json("/api/v1/test/analyses", &h.live, None, "{}"),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_error",
        "quota_exceeded",
    );
    let midnight: chrono::DateTime<chrono::Utc> = "2026-11-21T23:00:00Z".parse().unwrap();
    let expected_wait = (midnight - h.clock.now()).num_seconds().to_string();
    assert_eq!(r.header("retry-after"), expected_wait);

    let r = send(
        &h.app,
        post_json("/api/v1/test/analyses", &h.test, None, "{}"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "test keys use no quota");
    let usage = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(
        (usage.json["used"].clone(), usage.json["remaining"].clone()),
        (json!(5), json!(0))
    );

    let events = support::events(&h).await;
    let thresholds: Vec<_> = events
        .iter()
        .filter(|e| e.kind == "quota.threshold")
        .map(|e| (e.data["percent"].clone(), e.account_id.clone()))
        .collect();
    assert_eq!(
        thresholds,
        [
            (json!(100), h.account.to_string()),
            (json!(80), h.account.to_string())
        ],
        "newest first"
    );

    h.clock.set(midnight);
    let r = send(
        &h.app,
        post_json("/api/v1/test/analyses", &h.live, None, "{}"),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::OK,
        "a new Madrid day has a fresh quota"
    );
}

#[tokio::test]
async fn a_replayed_quota_request_is_charged_once() {
    let h = harness().await;
    for _ in 0..3 {
        let r = send(
            &h.app,
            post_json("/api/v1/test/analyses", &h.live, Some("charge-once"), "{}"),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
    }
    let usage = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(usage.json["used"], 1);
}

#[tokio::test]
async fn the_same_idempotency_key_replays_the_first_response() {
    let h = harness().await;
    let body = r#"{"name": "gear"}"#;
    let first = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, Some("key-1"), body),
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(first.header("idempotent-replayed"), "");
    let again = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, Some("key-1"), body),
    )
    .await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.json, first.json);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.header("content-type"), "application/json");
    assert_eq!(widget_count(&h, Mode::Live).await, 1);

    let other = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            Some("key-1"),
            r#"{"name": "cog"}"#,
        ),
    )
    .await;
    assert_error_shape(
        &other,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_error",
        "idempotency_key_reused",
    );
    assert_eq!(other.json["error"]["param"], "Idempotency-Key");

    let test_space = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.test, Some("key-1"), body),
    )
    .await;
    assert_eq!(test_space.status, StatusCode::CREATED);
    assert_eq!(
        test_space.header("idempotent-replayed"),
        "",
        "test keys have their own key space"
    );
    assert_eq!(widget_count(&h, Mode::Test).await, 1);

    let without = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, None, body),
    )
    .await;
    assert_eq!(without.status, StatusCode::CREATED);
    assert_eq!(widget_count(&h, Mode::Live).await, 2);

    h.clock.advance(Duration::hours(24));
    let later = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            Some("key-1"),
            r#"{"name": "cog"}"#,
        ),
    )
    .await;
    assert_eq!(later.status, StatusCode::CREATED, "keys are kept 24 hours");
}

#[tokio::test]
async fn a_failed_request_has_no_effect_and_frees_its_key() {
    let h = harness().await;
    let bad = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            Some("key-2"),
            r#"{"name": ""}"#,
        ),
    )
    .await;
    assert_error_shape(
        &bad,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(bad.json["error"]["param"], "name");
    assert_eq!(
        widget_count(&h, Mode::Live).await,
        0,
        "a failed handler's writes are not committed"
    );
    let fixed = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            Some("key-2"),
            r#"{"name": "ok"}"#,
        ),
    )
    .await;
    assert_eq!(fixed.status, StatusCode::CREATED);
}

#[tokio::test]
async fn a_key_whose_first_request_still_runs_is_409() {
    let h = harness().await;
    let app = h.app.clone();
    let live = h.live.clone();
    let first = tokio::spawn(async move {
        send(
            &app,
            post_json(
                "/api/v1/test/widgets",
                &live,
                Some("key-3"),
                r#"{"name": "slow", "wait": true}"#,
            ),
        )
        .await
    });
    h.gate.entered.notified().await;
    let second = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            Some("key-3"),
            r#"{"name": "slow", "wait": true}"#,
        ),
    )
    .await;
    assert_error_shape(
        &second,
        StatusCode::CONFLICT,
        "idempotency_error",
        "idempotency_key_in_use",
    );
    h.gate.release.notify_one();
    assert_eq!(first.await.unwrap().status, StatusCode::CREATED);
    assert_eq!(widget_count(&h, Mode::Live).await, 1);
}

#[tokio::test]
async fn concurrent_requests_with_one_key_have_one_effect() {
    let h = harness().await;
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let app = h.app.clone();
            let live = h.live.clone();
            tokio::spawn(async move {
                send(
                    &app,
                    post_json(
                        "/api/v1/test/widgets",
                        &live,
                        Some("key-race"),
                        r#"{"name": "one"}"#,
                    ),
                )
                .await
            })
        })
        .collect();
    let mut ids = std::collections::HashSet::new();
    for task in tasks {
        let r = task.await.unwrap();
        match r.status {
            StatusCode::CREATED => {
                ids.insert(r.json["id"].as_str().unwrap().to_string());
            }
            StatusCode::CONFLICT => assert_eq!(r.code(), "idempotency_key_in_use"),
            other => panic!("unexpected {other}: {}", r.json),
        }
    }
    assert_eq!(ids.len(), 1, "every success is the same response");
    assert_eq!(widget_count(&h, Mode::Live).await, 1);
}

#[tokio::test]
async fn idempotency_keys_are_validated_and_required_where_needed() {
    let h = harness().await;
    let long = "k".repeat(256);
    let r = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            Some(&long),
            r#"{"name": "x"}"#,
        ),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "idempotency_key_invalid",
    );
    assert_eq!(r.json["error"]["param"], "Idempotency-Key");
    let r = send(
        &h.app,
        post_json("/api/v1/test/invoices", &h.live, None, r#"{"name": "x"}"#),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "idempotency_key_required",
    );
    let r = send(
        &h.app,
        post_json(
            "/api/v1/test/invoices",
            &h.live,
            Some("inv-1"),
            r#"{"name": "x"}"#,
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
}

#[tokio::test]
async fn malformed_bodies_get_precise_400s_415_and_413() {
    let config = Config {
        rate_limit_per_minute: 1000,
        max_body_bytes: 1024,
        ..Config::default()
    };
    let h = harness_with(config, Plan::Pro).await;
    let r = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, None, "{\"name\": \"a\",,}"),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "json_invalid",
    );
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 1 column 14"),
        "{}",
        r.json
    );
    let r = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, None, r#"{"name": 5}"#),
    )
    .await;
    assert_eq!(
        (r.code(), &r.json["error"]["param"]),
        ("parameter_invalid", &json!("name"))
    );
    let r = send(
        &h.app,
        post_json(
            "/api/v1/test/widgets",
            &h.live,
            None,
            r#"{"name": "a", "colour": 1}"#,
        ),
    )
    .await;
    assert_eq!(
        (r.code(), &r.json["error"]["param"]),
        ("parameter_unknown", &json!("colour"))
    );
    let r = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, None, "{}"),
    )
    .await;
    assert_eq!(
        (r.code(), &r.json["error"]["param"]),
        ("parameter_missing", &json!("name"))
    );

    let text = Request::post("/api/v1/test/widgets")
        .header("authorization", format!("Bearer {}", h.live))
        .header("content-type", "text/plain")
        .body(Body::from("name=a"))
        .unwrap();
    let r = send(&h.app, text).await;
    assert_error_shape(
        &r,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "invalid_request_error",
        "unsupported_media_type",
    );

    let big = format!(r#"{{"name": "{}"}}"#, "x".repeat(2000));
    let r = send(
        &h.app,
        post_json("/api/v1/test/widgets", &h.live, Some("big"), &big),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::PAYLOAD_TOO_LARGE,
        "invalid_request_error",
        "body_too_large",
    );
    assert_eq!(widget_count(&h, Mode::Live).await, 0);
}

#[tokio::test]
async fn unknown_routes_and_methods_are_404_and_405() {
    let h = harness().await;
    let r = send(&h.app, get("/api/v1/nothing-here", Some(&h.live))).await;
    assert_error_shape(
        &r,
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "route_not_found",
    );
    let r = send(&h.app, post_json("/api/v1/usage", &h.live, None, "{}")).await;
    assert_error_shape(
        &r,
        StatusCode::METHOD_NOT_ALLOWED,
        "invalid_request_error",
        "method_not_allowed",
    );
    let r = send(&h.app, get("/api/v1/nothing-here", None)).await;
    assert_eq!(r.code(), "api_key_missing", "authentication comes first");
}

#[tokio::test]
async fn a_panicking_handler_is_a_500_in_the_error_shape() {
    let h = harness().await;
    let r = send(&h.app, post_json("/api/v1/test/panic", &h.live, None, "{}")).await;
    assert_error_shape(
        &r,
        StatusCode::INTERNAL_SERVER_ERROR,
        "api_error",
        "internal_error",
    );
}

#[tokio::test]
async fn the_openapi_document_is_served_and_covers_every_route() {
    let h = harness().await;
    let r = send(&h.app, get("/api/v1/openapi.json", Some(&h.test))).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json["openapi"], "3.1.0");
    let paths: Vec<_> = r.json["paths"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        paths,
        [
            "/api/v1/analyses",
            "/api/v1/analyses/{id}",
            "/api/v1/analyze",
            "/api/v1/customers",
            "/api/v1/customers/{id}",
            "/api/v1/events",
            "/api/v1/events/{id}",
            "/api/v1/expenses",
            "/api/v1/expenses/import-from-aeat",
            "/api/v1/expenses/{id}",
            "/api/v1/expenses/{id}/document",
            "/api/v1/expenses/{id}/history",
            "/api/v1/invoices",
            "/api/v1/invoices/extract",
            "/api/v1/invoices/{id}",
            "/api/v1/invoices/{id}/cancel",
            "/api/v1/invoices/{id}/payments",
            "/api/v1/invoices/{id}/pdf",
            "/api/v1/invoices/{id}/rectify",
            "/api/v1/invoices/{id}/send",
            "/api/v1/invoices/{id}/status",
            "/api/v1/invoices/{id}/verifactu/record",
            "/api/v1/invoices/{id}/verifactu/resubmit",
            "/api/v1/invoices/{id}/xml",
            "/api/v1/jobs/{id}",
            "/api/v1/openapi.json",
            "/api/v1/series",
            "/api/v1/series/{code}",
            "/api/v1/tax/calendar",
            "/api/v1/tax/model-130",
            "/api/v1/tax/model-303",
            "/api/v1/tax/nif",
            "/api/v1/tax/quarter",
            "/api/v1/tax/vat",
            "/api/v1/tax/withholding",
            "/api/v1/uploads",
            "/api/v1/usage",
            "/api/v1/verifactu/chain/verify",
            "/api/v1/verifactu/records",
            "/api/v1/webhooks",
            "/api/v1/webhooks/{id}",
            "/api/v1/webhooks/{id}/deliveries",
            "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry",
            "/api/v1/webhooks/{id}/rotate-secret",
            "/api/v1/webhooks/{id}/test"
        ]
    );
    let vat = &r.json["paths"]["/api/v1/tax/vat"]["post"];
    assert!(
        vat["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "Idempotency-Key")
    );
    assert!(vat["responses"].get("422").is_some());
    let usage = &r.json["paths"]["/api/v1/usage"]["get"];
    assert_eq!(usage["security"], json!([{"bearer": []}]));
    for status in ["200", "401", "429"] {
        assert!(usage["responses"].get(status).is_some(), "missing {status}");
    }
    assert!(r.json["components"]["schemas"].get("ErrorBody").is_some());
    assert!(
        r.json["components"]["schemas"]["UsageResponse"]
            .get("example")
            .is_some()
    );
}
