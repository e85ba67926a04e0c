//! Payments and overdue instalments on DynamoDB (emulator): the due-date
//! index is queried by date range on the real engine, a payment takes its
//! instalment out of it, and concurrent scheduled runs send each overdue
//! instalment's `invoice.overdue` once.

mod support;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use shared::app::events::{Filter, list};
use shared::app::invoices::{due_index, overdue};
use shared::domain::account::Mode;
use shared::ports::clock::{Clock, ManualClock};
use shared::webhooks::event_type::EventType;
use support::call;

fn post(path: &str, key: &str, idem: &str, body: Value) -> Request<Body> {
    Request::post(path)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("idempotency-key", idem)
        .body(Body::from(body.to_string()))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_due_date_index_and_overdue_runs_on_dynamodb() {
    if !support::emulator("Payments on DynamoDB") {
        return;
    }
    let clock = Arc::new(ManualClock::new("2026-11-21T10:00:00Z".parse().unwrap()));
    let (ports, app, key) = support::issuing_service("payments", clock.clone()).await;

    let customer = json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"});
    let lines =
        json!([{"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]);
    let mut ids = Vec::new();
    for (n, due_dates) in [
        json!([{"date": "2026-11-22", "amount": 60}, {"date": "2026-11-28", "amount": 61}]),
        json!([{"date": "2026-11-22", "amount": 121}]),
    ]
    .into_iter()
    .enumerate()
    {
        let body = json!({"customer": customer, "lines": lines, "due_dates": due_dates});
        let (status, invoice) = call(
            &app,
            post("/api/v1/invoices", &key, &format!("i-{n}"), body),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{invoice}");
        ids.push(invoice["id"].as_u64().unwrap());
    }
    let day = |d: &str| d.parse().unwrap();
    let due = due_index::due_before(&ports, day("2026-11-23"))
        .await
        .unwrap();
    let mut found: Vec<_> = due.iter().map(|e| (e.invoice_id, e.index)).collect();
    found.sort();
    assert_eq!(found, [(ids[0], 0), (ids[1], 0)], "due before the 23rd");
    assert_eq!(
        due_index::due_before(&ports, day("2026-12-01"))
            .await
            .unwrap()
            .len(),
        3
    );
    assert!(
        due_index::due_before(&ports, day("2026-11-22"))
            .await
            .unwrap()
            .is_empty()
    );

    let pay = json!({"amount": 121, "method": "transfer"});
    let path = format!("/api/v1/invoices/{}/payments", ids[1]);
    let (status, invoice) = call(&app, post(&path, &key, "p-1", pay)).await;
    assert_eq!(status, StatusCode::OK, "{invoice}");
    assert_eq!(invoice["payment_status"], "paid");
    assert_eq!(
        due_index::due_before(&ports, day("2026-12-01"))
            .await
            .unwrap()
            .len(),
        2,
        "a covered instalment leaves the index"
    );

    clock.set("2026-11-23T10:00:00Z".parse().unwrap());
    let now = clock.now();
    let runs: Vec<_> = (0..3)
        .map(|_| {
            let ports = ports.clone();
            tokio::spawn(async move { overdue::run(&ports, now).await.unwrap() })
        })
        .collect();
    let mut sent = 0;
    for run in runs {
        sent += run.await.unwrap();
    }
    assert_eq!(sent, 1);
    assert_eq!(overdue::run(&ports, now).await.unwrap(), 0);
    let account = ports
        .table
        .query(&shared::ports::table::Query::new(
            "ACCOUNTS",
            shared::ports::table::SortKey::All,
        ))
        .await
        .unwrap()
        .items[0]
        .key
        .sk
        .parse()
        .unwrap();
    let filter = Filter {
        kind: Some(EventType::InvoiceOverdue),
        ..Filter::default()
    };
    let (events, _) = list(&ports, &account, Mode::Live, 10, None, &filter)
        .await
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data["object"]["id"], ids[0]);
    assert_eq!(
        events[0].data["instalment"],
        json!({"number": 1, "date": "2026-11-22", "amount": 60.0})
    );
    let remaining = due_index::due_before(&ports, day("2026-12-01"))
        .await
        .unwrap();
    assert_eq!(remaining.len(), 1, "only the second instalment is left");
}
