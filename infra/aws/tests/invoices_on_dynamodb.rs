//! Invoices on DynamoDB (emulator): 50 concurrent issues with distinct keys,
//! full invoices and tickets, are numbered without gaps in their series (the
//! built-in F and a ticket series of the account's), the chain verifies and
//! the ledger adds up.

mod support;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::Datelike;
use serde_json::json;

use shared::domain::madrid;
use shared::ports::clock::{Clock, SystemClock};
use support::call;

fn authorized(req: axum::http::request::Builder, key: &str) -> axum::http::request::Builder {
    req.header("authorization", format!("Bearer {key}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_issues_on_dynamodb_are_gap_free_in_each_series() {
    if !support::emulator("Invoices on DynamoDB") {
        return;
    }
    let clock = Arc::new(SystemClock);
    let (_, app, key) = support::issuing_service("invoices", clock.clone()).await;
    let series = json!({"code": "TK", "pattern": "{code}-{n:05}", "yearly_restart": false,
        "purpose": "simplified", "default": true});
    let req = authorized(Request::post("/api/v1/series"), &key)
        .header("content-type", "application/json")
        .body(Body::from(series.to_string()))
        .unwrap();
    let (status, body) = call(&app, req).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let tasks: Vec<_> = (0..50)
        .map(|i| {
            let (app, key) = (app.clone(), key.clone());
            tokio::spawn(async move {
                let lines = json!([{"description": "Servicio", "quantity": 1, "unit_price": 100 + i, "vat_rate": 21}]);
                let body = if i % 5 < 3 {
                    json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15, "lines": lines})
                } else {
                    json!({"lines": lines})
                };
                let req = authorized(Request::post("/api/v1/invoices"), &key)
                    .header("content-type", "application/json")
                    .header("idempotency-key", format!("dyn-{i}"))
                    .body(Body::from(body.to_string()))
                    .unwrap();
                call(&app, req).await
            })
        })
        .collect();
    let mut numbers = Vec::new();
    let mut total = 0.0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        numbers.push(body["number"].as_str().unwrap().to_string());
        total += body["total"].as_f64().unwrap();
    }
    let today = madrid::date(clock.now());
    numbers.sort();
    let mut expected: Vec<String> = (1..=30)
        .map(|n| format!("F{}-{n:06}", today.year()))
        .chain((1..=20).map(|n| format!("TK-{n:05}")))
        .collect();
    expected.sort();
    assert_eq!(numbers, expected);

    let get = |path: &str| {
        authorized(Request::get(path), &key)
            .body(Body::empty())
            .unwrap()
    };
    let (_, chain) = call(&app, get("/api/v1/verifactu/chain/verify")).await;
    assert_eq!(
        (chain["status"].clone(), chain["records"].clone()),
        (json!("ok"), json!(50)),
        "{chain}"
    );
    let quarter = (today.month() - 1) / 3 + 1;
    let (_, q) = call(
        &app,
        get(&format!(
            "/api/v1/tax/quarter?year={}&quarter={quarter}",
            today.year()
        )),
    )
    .await;
    assert_eq!(q["invoice_count"], 50);
    assert!(
        (q["totals"]["total"].as_f64().unwrap() - total).abs() < 1e-6,
        "ledger sums equal invoice sums"
    );
}
