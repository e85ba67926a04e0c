//! Numbering series over HTTP, in-process on the embedded engine: simplified
//! and full invoices in separate series, rectifying ones in theirs, series
//! of the account's own, the rules that keep numbers from changing, and
//! gap-free numbering under concurrency.

use crate::support;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use serde_json::{Value, json};

use shared::app::invoices::issue;
use shared::app::invoices::request::IssueRequest;
use shared::app::keys::Caller;
use shared::app::series::{self, SeriesUpdate};
use shared::domain::account::{Mode, Plan};
use shared::ports::table::TableError;
use support::{Harness, Reply, post_json, send};

async fn harness() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    h
}

fn customer() -> Value {
    json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"})
}

fn lines(price: u32) -> Value {
    json!([{"description": "Servicio", "quantity": 1, "unit_price": price, "vat_rate": 21}])
}

async fn call(h: &Harness, method: Method, path: &str, body: Option<Value>) -> Reply {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {}", h.live));
    let body = match body {
        Some(b) => {
            req = req.header("content-type", "application/json");
            Body::from(b.to_string())
        }
        None => Body::empty(),
    };
    send(&h.app, req.body(body).unwrap()).await
}

async fn issue_body(h: &Harness, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    send(
        &h.app,
        post_json("/api/v1/invoices", &h.live, Some(&idem), &body.to_string()),
    )
    .await
}

async fn number(h: &Harness, body: Value) -> String {
    let r = issue_body(h, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json["number"].as_str().unwrap().to_string()
}

async fn rectify(h: &Harness, id: &Value, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    send(
        &h.app,
        post_json(
            &format!("/api/v1/invoices/{id}/rectify"),
            &h.live,
            Some(&idem),
            &body.to_string(),
        ),
    )
    .await
}

#[tokio::test]
async fn simplified_and_full_invoices_of_one_year_are_in_separate_series() {
    let h = harness().await;
    let ticket = issue_body(&h, json!({"lines": lines(100)})).await;
    assert_eq!(
        (ticket.json["kind"].clone(), ticket.json["number"].clone()),
        (json!("F2"), json!("S2026-000001")),
        "{}",
        ticket.json
    );
    let full = issue_body(&h, json!({"customer": customer(), "lines": lines(100)})).await;
    assert_eq!(
        (full.json["kind"].clone(), full.json["number"].clone()),
        (json!("F1"), json!("F2026-000001"))
    );
    assert_eq!(number(&h, json!({"lines": lines(5)})).await, "S2026-000002");

    let r5 = rectify(
        &h,
        &ticket.json["id"],
        json!({"reason_code": "R5", "method": "differences", "description": "Devolución"}),
    )
    .await;
    assert_eq!(r5.json["number"], "RS2026-000001", "{}", r5.json);
    let r1 = rectify(
        &h,
        &full.json["id"],
        json!({"reason_code": "R1", "method": "differences", "description": "Descuento"}),
    )
    .await;
    assert_eq!(r1.json["number"], "R2026-000001", "{}", r1.json);

    let listed = call(&h, Method::GET, "/api/v1/series", None).await;
    let codes: Vec<(Value, Value, Value)> = listed.json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["code"].clone(),
                s["purpose"].clone(),
                s["next_number"].clone(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [
            (json!("F"), json!("ordinary"), json!("F2026-000002")),
            (json!("R"), json!("rectifying"), json!("R2026-000002")),
            (
                json!("RS"),
                json!("rectifying_simplified"),
                json!("RS2026-000002")
            ),
            (json!("S"), json!("simplified"), json!("S2026-000003")),
        ]
    );
    let chain = call(&h, Method::GET, "/api/v1/verifactu/chain/verify", None).await;
    assert_eq!(
        (chain.json["status"].clone(), chain.json["records"].clone()),
        (json!("ok"), json!(5)),
        "one chain across every series"
    );
}

#[tokio::test]
async fn a_series_of_its_own_numbers_by_its_pattern_and_becomes_the_default() {
    let h = harness().await;
    let created = call(
        &h,
        Method::POST,
        "/api/v1/series",
        Some(
            json!({"code": "TK", "pattern": "{code}-{n:05}", "yearly_restart": false,
            "purpose": "simplified", "default": true, "description": "Tienda"}),
        ),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    assert_eq!(created.json["next_number"], "TK-00001");
    assert_eq!(number(&h, json!({"lines": lines(10)})).await, "TK-00001");
    assert_eq!(
        number(&h, json!({"lines": lines(10), "series": "S"})).await,
        "S2026-000001",
        "a named series of the purpose"
    );
    let s = call(&h, Method::GET, "/api/v1/series/S", None).await;
    assert_eq!(s.json["default"], false, "S stopped being the default");

    let wrong = issue_body(
        &h,
        json!({"customer": customer(), "lines": lines(10), "series": "TK"}),
    )
    .await;
    assert_eq!(
        (wrong.status, wrong.code(), wrong.param()),
        (StatusCode::BAD_REQUEST, "series_purpose_mismatch", "series"),
        "{}",
        wrong.json
    );
    let unknown = issue_body(&h, json!({"lines": lines(10), "series": "ZZ"})).await;
    assert_eq!(
        (unknown.code(), unknown.param()),
        ("parameter_invalid", "series")
    );

    h.clock.advance(chrono::Duration::days(45));
    assert_eq!(
        number(&h, json!({"lines": lines(10)})).await,
        "TK-00002",
        "a series that does not restart goes on into the next year"
    );
    assert_eq!(
        number(&h, json!({"customer": customer(), "lines": lines(10)})).await,
        "F2027-000001",
        "a yearly series starts again"
    );
}

#[tokio::test]
async fn a_series_that_numbered_invoices_is_never_renumbered_or_deleted() {
    let h = harness().await;
    let bad = |r: &Reply, status: StatusCode, code: &str| {
        assert_eq!((r.status, r.code()), (status, code), "{}", r.json);
    };
    for (body, param) in [
        (json!({"code": "f1", "purpose": "ordinary"}), "code"),
        (
            json!({"code": "A", "purpose": "ordinary", "pattern": "{n}{code}"}),
            "pattern",
        ),
        (
            json!({"code": "A", "purpose": "ordinary", "pattern": "{code}-{n}"}),
            "pattern",
        ),
        (
            json!({"code": "A", "purpose": "ordinary", "pattern": "{code}<{year}{n}"}),
            "pattern",
        ),
    ] {
        let r = call(&h, Method::POST, "/api/v1/series", Some(body)).await;
        bad(&r, StatusCode::BAD_REQUEST, "parameter_invalid");
        assert_eq!(r.param(), param);
    }
    let r = call(
        &h,
        Method::POST,
        "/api/v1/series",
        Some(json!({"code": "A", "purpose": "sales"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.json);
    let r = call(
        &h,
        Method::POST,
        "/api/v1/series",
        Some(json!({"code": "F", "purpose": "ordinary"})),
    )
    .await;
    bad(&r, StatusCode::CONFLICT, "series_exists");

    let created = call(
        &h,
        Method::POST,
        "/api/v1/series",
        Some(json!({"code": "FV", "purpose": "ordinary"})),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let changed = call(
        &h,
        Method::PATCH,
        "/api/v1/series/FV",
        Some(json!({"pattern": "{code}/{year}/{n:04}"})),
    )
    .await;
    assert_eq!(
        changed.json["next_number"], "FV/2026/0001",
        "{}",
        changed.json
    );
    assert_eq!(
        number(
            &h,
            json!({"customer": customer(), "lines": lines(10), "series": "FV"})
        )
        .await,
        "FV/2026/0001"
    );
    let used = call(&h, Method::GET, "/api/v1/series/FV", None).await;
    assert_eq!(used.json["used"], true);
    bad(
        &call(
            &h,
            Method::PATCH,
            "/api/v1/series/FV",
            Some(json!({"pattern": "{code}{year}{n}"})),
        )
        .await,
        StatusCode::CONFLICT,
        "series_in_use",
    );
    bad(
        &call(&h, Method::DELETE, "/api/v1/series/FV", None).await,
        StatusCode::CONFLICT,
        "series_in_use",
    );
    let described = call(
        &h,
        Method::PATCH,
        "/api/v1/series/FV",
        Some(json!({"description": "Ventas"})),
    )
    .await;
    assert_eq!(
        described.json["description"], "Ventas",
        "a used series may still be described"
    );

    bad(
        &call(&h, Method::DELETE, "/api/v1/series/R", None).await,
        StatusCode::CONFLICT,
        "series_builtin",
    );
    bad(
        &call(
            &h,
            Method::PATCH,
            "/api/v1/series/F",
            Some(json!({"default": false})),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "parameter_invalid",
    );
    let spare = call(
        &h,
        Method::POST,
        "/api/v1/series",
        Some(json!({"code": "X", "purpose": "rectifying"})),
    )
    .await;
    assert_eq!(spare.status, StatusCode::CREATED);
    let deleted = call(&h, Method::DELETE, "/api/v1/series/X", None).await;
    assert_eq!(
        (deleted.status, deleted.json["deleted"].clone()),
        (StatusCode::OK, json!(true))
    );
    assert_eq!(
        call(&h, Method::GET, "/api/v1/series/X", None).await.status,
        StatusCode::NOT_FOUND
    );
}

/// A series changed between the issue's reading of it and its commit makes
/// the issue's transaction fail (the HTTP pipeline then runs it again).
#[tokio::test]
async fn an_issue_does_not_commit_over_a_series_changed_meanwhile() {
    let h = harness().await;
    let caller = Caller {
        account_id: h.account.clone(),
        plan: Plan::Pro,
        mode: Mode::Live,
        key_id: h.live_key_id.clone(),
    };
    let req: IssueRequest =
        serde_json::from_value(json!({"customer": customer(), "lines": lines(10)})).unwrap();
    let draft = issue::draft(&h.ports, &caller, req).await.unwrap();
    let system = shared::config::Config::default().verifactu;
    let (_, writes) = issue::finalize(&h.ports, &caller, &system, draft)
        .await
        .unwrap();
    let (_, change) = series::changes(
        &h.ports,
        &caller,
        "F",
        &SeriesUpdate {
            pattern: Some("{code}-{year}-{n}".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    h.ports.table.transact(change).await.unwrap();
    let outcome = h.ports.table.transact(writes).await;
    assert!(
        matches!(outcome, Err(TableError::ConditionFailed { .. })),
        "{outcome:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_concurrent_tickets_are_numbered_1_to_100_in_their_series() {
    let h = harness().await;
    let tasks: Vec<_> = (0..100)
        .map(|i| {
            let app = h.app.clone();
            let live = h.live.clone();
            tokio::spawn(async move {
                let body = json!({"lines": lines(1 + i)});
                send(
                    &app,
                    post_json(
                        "/api/v1/invoices",
                        &live,
                        Some(&format!("t{i}")),
                        &body.to_string(),
                    ),
                )
                .await
            })
        })
        .collect();
    let mut numbers = Vec::new();
    for task in tasks {
        let r = task.await.unwrap();
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
        numbers.push(r.json["number"].as_str().unwrap().to_string());
    }
    numbers.sort();
    let expected: Vec<String> = (1..=100).map(|n| format!("S2026-{n:06}")).collect();
    assert_eq!(numbers, expected);
}
