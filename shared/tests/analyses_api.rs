//! Analyses over HTTP, in-process on the embedded engine: running one (live and
//! test keys), every refusal (400, 413, 415), quota, idempotency, storage,
//! isolation between accounts, the list's filters and pages, and the
//! `analysis.completed` event.

use crate::support;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::Duration;
use serde_json::{Value, json};

use shared::app::{accounts, keys, outbox};
use shared::config::Config;
use shared::domain::account::QuotaLimits;
use shared::domain::account::{Mode, Plan};
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    support::start(support::relaxed(), Plan::Pro, Router::new()).await
}

fn ventas_rows(n: usize) -> Vec<Value> {
    let clients = [
        "Taller Ana SL",
        "Bar Lola",
        "Ferretería Pérez",
        "Academia Sol",
    ];
    (0..n)
        .map(|i| {
            json!({"Fecha": format!("2026-{:02}-{:02}", 1 + i % 10, 1 + i % 28),
                "Cliente": clients[i % clients.len()], "Importe": 50 + (i % 17) * 10})
        })
        .collect()
}

fn excel(module: &str, rows: Vec<Value>) -> Value {
    json!({"type": "excel", "title": "Ventas 2026",
        "data": {"module": module, "files": [{"name": "ventas.xlsx", "rows": rows}]}})
}

fn ventas() -> Value {
    excel("ventas", ventas_rows(40))
}

fn stock() -> Value {
    excel(
        "stock",
        vec![
            json!({"Referencia": "A-1", "Descripción": "Tornillos", "Existencias": 120, "Coste": 0.5}),
            json!({"Referencia": "A-2", "Descripción": "Tuercas", "Existencias": 0, "Coste": 0.3}),
        ],
    )
}

fn compare() -> Value {
    let side = |rows| json!({"files": [{"name": "ventas.xlsx", "rows": rows}]});
    json!({"type": "compare", "lang": "en", "data": {"module": "ventas",
        "a": side(ventas_rows(20)), "b": side(ventas_rows(30))}})
}

fn folder() -> Value {
    json!({"type": "folder", "data": {"files": [
        {"name": "ventas.xlsx", "rows": ventas_rows(10)},
        {"name": "gastos.xlsx", "rows": [{"Proveedor": "Iberdrola", "Concepto": "Luz", "Total": 121}]}]}})
}

fn cuestionario() -> Value {
    json!({"type": "cuestionario", "data": {"answers": {"FIN1": true, "FIN2": false, "VEN1": null}}})
}

async fn analyze_with(h: &Harness, key: &str, idem: Option<&str>, body: &Value) -> Reply {
    send(
        &h.app,
        post_json("/api/v1/analyze", key, idem, &body.to_string()),
    )
    .await
}

async fn analyzed(h: &Harness, body: &Value) -> Value {
    let r = analyze_with(h, &h.live, None, body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json
}

async fn used_today(h: &Harness) -> u64 {
    let r = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    r.json["used"].as_u64().unwrap()
}

async fn completed_events(h: &Harness) -> Vec<outbox::Event> {
    support::events(h)
        .await
        .into_iter()
        .filter(|e| e.kind == "analysis.completed")
        .collect()
}

async fn list(h: &Harness, key: &str, query: &str) -> Reply {
    send(&h.app, get(&format!("/api/v1/analyses{query}"), Some(key))).await
}

fn ids(r: &Reply) -> Vec<String> {
    r.json["data"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {}", r.json))
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_live_analysis_is_returned_stored_listed_charged_and_announced() {
    let h = harness().await;
    let a = analyzed(&h, &ventas()).await;
    let id = a["id"].as_str().unwrap();
    assert!(id.starts_with("an_") && id.len() == 31, "{id}");
    assert_eq!(
        (&a["object"], &a["type"], &a["module"], &a["lang"]),
        (
            &json!("analysis"),
            &json!("excel"),
            &json!("ventas"),
            &json!("es")
        )
    );
    assert_eq!(a["title"], "Ventas 2026");
    assert_eq!(a["created_at"], "2026-11-21T10:00:00Z");
    assert_eq!(a["livemode"], true);
    for member in [
        "summary",
        "key_figures",
        "strengths",
        "priorities",
        "action_plan",
        "glossary",
    ] {
        assert!(a["report"].get(member).is_some(), "report.{member}: {a}");
    }
    assert!(!a["report"]["key_figures"].as_array().unwrap().is_empty());
    assert!(a["actions"].is_array());
    assert!(a.get("headline").is_none(), "the headline is for lists");

    let read = send(
        &h.app,
        get(&format!("/api/v1/analyses/{id}"), Some(&h.live)),
    )
    .await;
    assert_eq!(read.status, StatusCode::OK);
    assert_eq!(read.header("content-type"), "application/json");
    assert_eq!(read.json, a, "read back as it was returned");

    let listed = list(&h, &h.live, "").await;
    assert_eq!(
        (&listed.json["object"], &listed.json["has_more"]),
        (&json!("list"), &json!(false))
    );
    let item = &listed.json["data"][0];
    let keys: Vec<_> = item.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["created_at", "headline", "id", "module", "title", "type"]
    );
    assert_eq!(item["id"], id);
    assert!(!item["headline"].as_str().unwrap().is_empty());

    assert_eq!(used_today(&h).await, 1);
    let events = completed_events(&h).await;
    assert_eq!(events.len(), 1);
    assert!(events[0].livemode);
    assert_eq!(events[0].account_id, h.account.as_str());
    assert_eq!(&events[0].data, item, "the event carries the list item");
}

#[tokio::test]
async fn every_type_runs() {
    let h = harness().await;
    for (body, kind, module) in [
        (stock(), "excel", Some("stock")),
        (compare(), "compare", Some("ventas")),
        (folder(), "folder", None),
        (cuestionario(), "cuestionario", None),
    ] {
        let a = analyzed(&h, &body).await;
        assert_eq!(a["type"], kind, "{a}");
        assert_eq!(a["module"].as_str(), module, "{a}");
    }
    let a = analyzed(&h, &compare()).await;
    assert_eq!(a["lang"], "en");
}

#[tokio::test]
async fn test_keys_get_a_sample_and_keep_nothing() {
    let h = harness().await;
    let live = analyzed(&h, &ventas()).await;
    for body in [ventas(), compare(), folder(), cuestionario()] {
        let r = analyze_with(&h, &h.test, None, &body).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
        assert_eq!(r.json["livemode"], false);
        assert_eq!(r.json["type"], body["type"]);
        assert!(r.json["id"].as_str().unwrap().starts_with("an_"));
        assert!(r.json["report"]["summary"].is_string());
        let read = send(
            &h.app,
            get(
                &format!("/api/v1/analyses/{}", r.json["id"].as_str().unwrap()),
                Some(&h.test),
            ),
        )
        .await;
        assert_error_shape(
            &read,
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "resource_missing",
        );
    }
    let r = list(&h, &h.test, "").await;
    assert_eq!(
        (&r.json["data"], &r.json["has_more"]),
        (&json!([]), &json!(false))
    );
    let id = live["id"].as_str().unwrap();
    let read = send(
        &h.app,
        get(&format!("/api/v1/analyses/{id}"), Some(&h.test)),
    )
    .await;
    assert_eq!(
        read.status,
        StatusCode::NOT_FOUND,
        "live analyses are not in the test space"
    );

    assert_eq!(ids(&list(&h, &h.live, "").await), [id]);
    assert_eq!(used_today(&h).await, 1, "test keys use no quota");
    assert_eq!(completed_events(&h).await.len(), 1, "and send no event");

    let r = analyze_with(&h, &h.test, None, &json!({"type": "excel", "data": {}})).await;
    assert_eq!(
        (r.status, r.param()),
        (StatusCode::BAD_REQUEST, "data.module"),
        "test keys validate as live keys do"
    );
}

fn bad(r: &Reply, status: StatusCode, code: &str, param: &str) {
    let kind = "invalid_request_error";
    assert_error_shape(r, status, kind, code);
    assert_eq!(r.param(), param, "{}", r.json);
}

#[tokio::test]
async fn invalid_requests_name_their_parameter_and_charge_nothing() {
    let h = harness().await;
    let file = |rows: Value| json!({"name": "a.xlsx", "rows": rows});
    let files = |rows: Value| json!({"module": "ventas", "files": [file(rows)]});
    let cases = [
        (
            json!({"data": files(json!([{"Importe": 1}]))}),
            "parameter_missing",
            "type",
        ),
        (
            json!({"type": "pdf", "data": files(json!([{"Importe": 1}]))}),
            "parameter_invalid",
            "type",
        ),
        (
            json!({"type": "excel", "lang": "fr", "data": files(json!([{"Importe": 1}]))}),
            "parameter_invalid",
            "lang",
        ),
        (
            json!({"type": "excel", "data": {"module": "compras", "files": [file(json!([{"Importe": 1}]))]}}),
            "parameter_invalid",
            "data.module",
        ),
        (
            json!({"type": "excel", "data": files(json!([]))}),
            "parameter_invalid",
            "data.files[0].rows",
        ),
        (
            json!({"type": "excel", "data": {"module": "ventas", "files": []}}),
            "parameter_invalid",
            "data.files",
        ),
        (
            json!({"type": "excel", "data": files(json!([{"Color": "rojo", "Talla": "M"}]))}),
            "parameter_invalid",
            "data.files[0].rows",
        ),
        (
            json!({"type": "excel", "extra": 1, "data": files(json!([{"Importe": 1}]))}),
            "parameter_unknown",
            "extra",
        ),
        (
            json!({"type": "excel", "data": {"module": "ventas", "files": [
                {"name": "a.xlsx", "rows": [{"Importe": 1}], "sheet": "Hoja1"}]}}),
            "parameter_unknown",
            "data.files[0].sheet",
        ),
        (
            json!({"type": "compare", "data": {"module": "ventas", "a": {"files": [file(json!([{"Importe": 1}]))]}}}),
            "parameter_missing",
            "data.b",
        ),
        (
            json!({"type": "cuestionario", "data": {"answers": {"XYZ9": true}}}),
            "parameter_invalid",
            "data.answers.XYZ9",
        ),
    ];
    for (body, code, param) in cases {
        let r = analyze_with(&h, &h.live, None, &body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body} → {}", r.json);
        assert_eq!((r.code(), r.param()), (code, param), "{body} → {}", r.json);
        assert_error_shape(&r, StatusCode::BAD_REQUEST, "invalid_request_error", code);
    }
    let lang = analyze_with(
        &h,
        &h.live,
        None,
        &json!({"type": "excel", "lang": "fr", "data": files(json!([{"Importe": 1}]))}),
    )
    .await;
    assert!(
        lang.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("es, en"),
        "lists the accepted values: {}",
        lang.json
    );
    let syntax = send(
        &h.app,
        post_json("/api/v1/analyze", &h.live, None, "{\"type\": \"excel\",,}"),
    )
    .await;
    bad(&syntax, StatusCode::BAD_REQUEST, "json_invalid", "");

    let text = Request::post("/api/v1/analyze")
        .header("authorization", format!("Bearer {}", h.live))
        .header("content-type", "text/csv")
        .body(Body::from(ventas().to_string()))
        .unwrap();
    let r = send(&h.app, text).await;
    bad(
        &r,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        "Content-Type",
    );

    assert_eq!(used_today(&h).await, 0);
    assert!(completed_events(&h).await.is_empty());
    assert!(ids(&list(&h, &h.live, "").await).is_empty());
}

#[tokio::test]
async fn too_many_rows_or_files_and_too_large_bodies_are_413() {
    let h = harness().await;
    let many_rows: Vec<Value> = (0..100_001).map(|i| json!({"Importe": i % 10})).collect();
    let r = analyze_with(&h, &h.live, None, &excel("ventas", many_rows)).await;
    bad(
        &r,
        StatusCode::PAYLOAD_TOO_LARGE,
        "analysis_too_large",
        "data.files[0].rows",
    );
    let file = json!({"name": "a.xlsx", "rows": [{"Importe": 1}]});
    let many_files = json!({"type": "folder", "data": {"files": vec![file; 21]}});
    let r = analyze_with(&h, &h.test, None, &many_files).await;
    bad(
        &r,
        StatusCode::PAYLOAD_TOO_LARGE,
        "analysis_too_large",
        "data.files",
    );

    let small = Config {
        max_body_bytes: 64 * 1024,
        ..support::relaxed()
    };
    let h = support::start(small, Plan::Pro, Router::new()).await;
    let r = analyze_with(&h, &h.live, None, &excel("ventas", ventas_rows(2_000))).await;
    bad(&r, StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", "");
    assert_eq!(used_today(&h).await, 0);
}

#[tokio::test]
async fn an_analysis_too_large_to_keep_is_413_and_charges_nothing() {
    let h = harness().await;
    // Every ignored column is named in the report's data-quality note.
    let mut row = serde_json::Map::new();
    row.insert("Importe".into(), json!(10));
    for i in 0..199 {
        row.insert(format!("{i:03}{}", ".".repeat(80)), json!("-"));
    }
    let files: Vec<Value> = (0..20)
        .map(|i| json!({"name": format!("{i}.xlsx"), "rows": [row.clone()]}))
        .collect();
    let body = json!({"type": "excel", "data": {"module": "ventas", "files": files}});
    let r = analyze_with(&h, &h.live, None, &body).await;
    assert_error_shape(
        &r,
        StatusCode::PAYLOAD_TOO_LARGE,
        "invalid_request_error",
        "report_too_large",
    );
    assert_eq!(used_today(&h).await, 0);
    assert!(ids(&list(&h, &h.live, "").await).is_empty());
}

#[tokio::test]
async fn an_exhausted_quota_is_429_and_test_keys_still_work() {
    let config = Config {
        quotas: QuotaLimits {
            mini: 1,
            pro: 2,
            max: 3,
        },
        ..support::relaxed()
    };
    let h = support::start(config, Plan::Pro, Router::new()).await;
    analyzed(&h, &ventas()).await;
    analyzed(&h, &cuestionario()).await;
    let r = analyze_with(&h, &h.live, None, &ventas()).await;
    assert_error_shape(
        &r,
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_error",
        "quota_exceeded",
    );
    let retry: i64 = r.header("retry-after").parse().unwrap();
    assert_eq!(retry, 13 * 3600, "until midnight in Madrid");
    assert_eq!(ids(&list(&h, &h.live, "").await).len(), 2);
    let r = analyze_with(&h, &h.test, None, &ventas()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);

    h.clock.advance(Duration::hours(14));
    analyzed(&h, &ventas()).await;
}

#[tokio::test]
async fn a_replay_with_the_idempotency_key_returns_the_same_analysis_once() {
    let h = harness().await;
    let first = analyze_with(&h, &h.live, Some("an-1"), &ventas()).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json);
    assert_eq!(first.header("idempotent-replayed"), "");
    h.clock.advance(Duration::minutes(5));
    let again = analyze_with(&h, &h.live, Some("an-1"), &ventas()).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.json, first.json);
    assert_eq!(used_today(&h).await, 1, "charged once");
    assert_eq!(ids(&list(&h, &h.live, "").await).len(), 1, "stored once");
    assert_eq!(completed_events(&h).await.len(), 1, "announced once");

    let other = analyze_with(&h, &h.live, Some("an-1"), &stock()).await;
    assert_eq!(
        (other.status, other.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "idempotency_key_reused")
    );
    let test = analyze_with(&h, &h.test, Some("an-1"), &ventas()).await;
    assert_eq!(
        (test.status, test.header("idempotent-replayed")),
        (StatusCode::OK, ""),
        "keys are scoped to the mode"
    );
}

#[tokio::test]
async fn another_accounts_analysis_is_unknown() {
    let h = harness().await;
    let mine = analyzed(&h, &ventas()).await;
    let other = accounts::create(&h.ports, "Otra", Plan::Max, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&h.ports, &other.id, Mode::Live).await.unwrap();
    let key = key.reveal();
    let id = mine["id"].as_str().unwrap();
    let r = send(&h.app, get(&format!("/api/v1/analyses/{id}"), Some(&key))).await;
    assert_error_shape(
        &r,
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "resource_missing",
    );
    assert!(ids(&list(&h, &key, "").await).is_empty());
    for unknown in ["an_0000000000000000000000000000", "inv_1", "x"] {
        let r = send(
            &h.app,
            get(&format!("/api/v1/analyses/{unknown}"), Some(&h.live)),
        )
        .await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{unknown}");
    }
}

#[tokio::test]
async fn lists_filter_by_type_module_and_madrid_dates_and_page_newest_first() {
    let h = harness().await;
    // 2026-11-21T10:00Z onwards, one a day; the third at 23:30 UTC, already
    // the 24th in Madrid.
    let mut made = Vec::new();
    for (i, body) in [ventas(), stock(), compare(), folder(), cuestionario()]
        .iter()
        .enumerate()
    {
        if i == 2 {
            h.clock.advance(Duration::minutes(13 * 60 + 30));
        }
        made.push(analyzed(&h, body).await["id"].as_str().unwrap().to_string());
        h.clock.advance(Duration::days(1));
    }
    let newest_first: Vec<_> = made.iter().rev().cloned().collect();
    assert_eq!(ids(&list(&h, &h.live, "").await), newest_first);

    let cases = [
        ("?type=excel", vec![&made[1], &made[0]]),
        ("?module=ventas", vec![&made[2], &made[0]]),
        ("?type=compare&module=ventas", vec![&made[2]]),
        ("?type=excel&module=caja", vec![]),
        (
            "?from=2026-11-22",
            vec![&made[4], &made[3], &made[2], &made[1]],
        ),
        ("?to=2026-11-23", vec![&made[1], &made[0]]),
        ("?from=2026-11-24&to=2026-11-24", vec![&made[2]]),
        ("?from=2026-11-22&to=2026-11-23", vec![&made[1]]),
        ("?from=2027-01-01", vec![]),
    ];
    for (query, expected) in cases {
        let r = list(&h, &h.live, query).await;
        let expected: Vec<String> = expected.into_iter().cloned().collect();
        assert_eq!(ids(&r), expected, "{query}");
    }

    let page = list(&h, &h.live, "?limit=2").await;
    assert_eq!(ids(&page), newest_first[..2]);
    assert_eq!(page.json["has_more"], true);
    let next = list(&h, &h.live, &format!("?limit=2&starting_after={}", made[3])).await;
    assert_eq!(ids(&next), newest_first[2..4]);
    assert_eq!(next.json["has_more"], true);
    let last = list(&h, &h.live, &format!("?limit=2&starting_after={}", made[1])).await;
    assert_eq!(
        (ids(&last), &last.json["has_more"]),
        (vec![made[0].clone()], &json!(false))
    );
    let filtered = list(
        &h,
        &h.live,
        &format!("?from=2026-11-22&to=2026-11-24&starting_after={}", made[4]),
    )
    .await;
    assert_eq!(ids(&filtered), [made[2].clone(), made[1].clone()]);
    let before_range = list(
        &h,
        &h.live,
        &format!("?from=2026-11-24&starting_after={}", made[1]),
    )
    .await;
    assert!(ids(&before_range).is_empty());

    for (query, code, param) in [
        ("?limit=0", "parameter_invalid", "limit"),
        ("?limit=101", "parameter_invalid", "limit"),
        ("?type=pdf", "parameter_invalid", "type"),
        ("?module=compras", "parameter_invalid", "module"),
        ("?from=21-11-2026", "parameter_invalid", "from"),
        ("?from=2026-11-23&to=2026-11-22", "parameter_invalid", "to"),
        (
            "?starting_after=inv_1",
            "parameter_invalid",
            "starting_after",
        ),
        ("?sort=asc", "parameter_unknown", "sort"),
    ] {
        let r = list(&h, &h.live, query).await;
        bad(&r, StatusCode::BAD_REQUEST, code, param);
    }
}
