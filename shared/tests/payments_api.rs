//! Payments and due dates over HTTP, in-process on the embedded engine:
//! instalments of an issue request, payments and refunds and the payment
//! state they derive, their events, idempotency, the status endpoint's
//! `paid`/`unpaid`, invoices stored before payments existed, and the
//! scheduled `invoice.overdue` events over a month.

use crate::support;

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use shared::app::accounts;
use shared::app::invoices::overdue;
use shared::domain::account::Plan;
use shared::ports::clock::Clock;
use shared::ports::table::Key;
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    h
}

/// An F1 request of 100 € + 21 % VAT = 121 €, issued 2026-11-21 (the harness's today).
fn request(extra: Value) -> Value {
    let mut body = json!({
        "customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
            "postal_code": "10003", "city": "Cáceres"},
        "lines": [{"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

async fn issue(h: &Harness, key: &str, extra: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    let body = request(extra).to_string();
    send(
        &h.app,
        post_json("/api/v1/invoices", key, Some(&idem), &body),
    )
    .await
}

async fn issued(h: &Harness, extra: Value) -> Value {
    let r = issue(h, &h.live, extra).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json
}

async fn pay_with(h: &Harness, key: &str, id: &Value, idem: &str, body: Value) -> Reply {
    let path = format!("/api/v1/invoices/{id}/payments");
    send(&h.app, post_json(&path, key, Some(idem), &body.to_string())).await
}

async fn pay(h: &Harness, id: &Value, body: Value) -> Reply {
    pay_with(h, &h.live, id, &shared::ids::random_token(8), body).await
}

async fn paid(h: &Harness, id: &Value, body: Value) -> Value {
    let r = pay(h, id, body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json
}

async fn set_status(h: &Harness, id: &Value, status: &str) -> Value {
    let path = format!("/api/v1/invoices/{id}/status");
    let body = json!({ "status": status }).to_string();
    let r = send(&h.app, post_json(&path, &h.live, None, &body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json
}

async fn read(h: &Harness, id: &Value) -> Value {
    let r = send(
        &h.app,
        get(&format!("/api/v1/invoices/{id}"), Some(&h.live)),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json
}

fn bad(r: &Reply, code: &str, param: &str) {
    assert_error_shape(r, StatusCode::BAD_REQUEST, "invalid_request_error", code);
    assert_eq!(r.param(), param, "{}", r.json);
}

/// (status, payment_status, amount_paid, amount_due) of an invoice.
fn state(inv: &Value) -> (String, String, f64, f64) {
    (
        inv["status"].as_str().unwrap().to_string(),
        inv["payment_status"].as_str().unwrap().to_string(),
        inv["amount_paid"].as_f64().unwrap(),
        inv["amount_due"].as_f64().unwrap(),
    )
}

fn s(status: &str, payment: &str, paid: f64, due: f64) -> (String, String, f64, f64) {
    (status.into(), payment.into(), paid, due)
}

/// The types of the account's events, oldest first.
async fn event_types(h: &Harness) -> Vec<String> {
    let mut kinds: Vec<_> = support::events(h).await.into_iter().collect();
    kinds.sort_by(|a, b| a.id.cmp(&b.id));
    kinds.into_iter().map(|e| e.kind.to_string()).collect()
}

#[tokio::test]
async fn instalments_default_to_the_payment_terms_and_requests_are_checked() {
    let h = harness().await;
    let inv = issued(&h, json!({})).await;
    assert_eq!(inv["due_date"], "2026-12-21", "30 days by default");
    assert_eq!(
        inv["instalments"],
        json!([{"date": "2026-12-21", "amount": 121.0}])
    );
    assert_eq!(state(&inv), s("issued", "unpaid", 0.0, 121.0));
    assert_eq!(
        (inv["payments"].clone(), inv["paid_at"].clone()),
        (json!([]), Value::Null)
    );

    accounts::set_payment_terms(&h.ports, &h.account, 45)
        .await
        .unwrap();
    let inv = issued(&h, json!({})).await;
    assert_eq!(inv["due_date"], "2027-01-05");
    let inv = issued(&h, json!({"due_date": "2026-11-30"})).await;
    assert_eq!(
        inv["instalments"],
        json!([{"date": "2026-11-30", "amount": 121.0}])
    );

    let split = json!({"due_dates": [{"date": "2026-12-01", "amount": 60.5}, {"date": "2027-01-01", "amount": 60.50}]});
    let inv = issued(&h, split).await;
    assert_eq!(inv["due_date"], "2027-01-01", "the last instalment's date");
    assert_eq!(
        inv["instalments"][0],
        json!({"date": "2026-12-01", "amount": 60.5})
    );

    let cases = [
        (
            json!({"due_dates": [{"date": "2026-12-01", "amount": 121.01}]}),
            "due_dates",
        ),
        (
            json!({"due_dates": [{"date": "2026-11-20", "amount": 121}]}),
            "due_dates[0].date",
        ),
        (
            json!({"due_dates": [{"date": "2026-12-01", "amount": 21}, {"date": "2026-12-01", "amount": 100}]}),
            "due_dates[1].date",
        ),
        (
            json!({"due_dates": [{"date": "2026-12-01", "amount": 121.5}, {"date": "2026-12-02", "amount": -0.5}]}),
            "due_dates[1].amount",
        ),
        (json!({"due_dates": []}), "due_dates"),
        (
            json!({"due_date": "2026-12-01", "due_dates": [{"date": "2026-12-01", "amount": 121}]}),
            "due_dates",
        ),
    ];
    for (extra, param) in cases {
        bad(&issue(&h, &h.live, extra).await, "parameter_invalid", param);
    }
    let r = issue(
        &h,
        &h.live,
        json!({"due_dates": [{"date": "2026-12-01", "amount": 121, "note": "x"}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.json);
}

#[tokio::test]
async fn partial_full_and_refunded_payments_derive_the_state_and_send_events() {
    let h = harness().await;
    let inv = issued(&h, json!({})).await;
    let id = inv["id"].clone();

    let inv = paid(
        &h,
        &id,
        json!({"amount": 50, "date": "2026-11-21", "method": "transfer", "reference": "TRF 1"}),
    )
    .await;
    assert_eq!(state(&inv), s("issued", "partially_paid", 50.0, 71.0));
    let payment = &inv["payments"][0];
    assert!(payment["id"].as_str().unwrap().starts_with("pay_"));
    assert_eq!(
        (
            payment["amount"].clone(),
            payment["date"].clone(),
            payment["method"].clone(),
            payment["reference"].clone()
        ),
        (
            json!(50.0),
            json!("2026-11-21"),
            json!("transfer"),
            json!("TRF 1")
        )
    );
    assert!(payment["created_at"].is_string());

    let inv = paid(&h, &id, json!({"amount": 71, "method": "card"})).await;
    assert_eq!(state(&inv), s("paid", "paid", 121.0, 0.0));
    assert_eq!(inv["paid_at"], "2026-11-21");

    let inv = paid(
        &h,
        &id,
        json!({"amount": -21, "method": "card", "reference": "devolución"}),
    )
    .await;
    assert_eq!(state(&inv), s("unpaid", "partially_paid", 100.0, 21.0));
    assert_eq!(inv["paid_at"], Value::Null);
    assert_eq!(read(&h, &id).await["payments"].as_array().unwrap().len(), 3);

    let kinds = event_types(&h).await;
    let received = kinds
        .iter()
        .filter(|k| *k == "invoice.payment_received")
        .count();
    assert_eq!(received, 3);
    assert_eq!(kinds.iter().filter(|k| *k == "invoice.paid").count(), 1);
    assert_eq!(kinds.iter().filter(|k| *k == "invoice.unpaid").count(), 1);
    let events = support::events(&h).await;
    let refund = events
        .iter()
        .find(|e| {
            e.kind == "invoice.payment_received" && e.data["payment"]["amount"] == json!(-21.0)
        })
        .expect("the refund's event");
    assert_eq!(refund.data["object"]["id"], id);
    assert_eq!(
        (
            refund.data["payment_status"].clone(),
            refund.data["amount_due"].clone()
        ),
        (json!("partially_paid"), json!(21.0))
    );
    let history = support::history_types(&read(&h, &id).await);
    assert_eq!(
        history,
        ["issued", "payment", "payment", "paid", "refund", "unpaid"]
    );
}

#[tokio::test]
async fn bad_payments_are_refused_with_the_field_at_fault() {
    let h = harness().await;
    let id = issued(&h, json!({})).await["id"].clone();
    bad(
        &pay(&h, &id, json!({"amount": 121.01, "method": "cash"})).await,
        "overpayment",
        "amount",
    );
    bad(
        &pay(&h, &id, json!({"amount": -1, "method": "cash"})).await,
        "refund_exceeds_paid",
        "amount",
    );
    bad(
        &pay(&h, &id, json!({"amount": 0, "method": "cash"})).await,
        "parameter_invalid",
        "amount",
    );
    bad(
        &pay(&h, &id, json!({"amount": 1.001, "method": "cash"})).await,
        "parameter_invalid",
        "amount",
    );
    bad(
        &pay(
            &h,
            &id,
            json!({"amount": 1, "method": "cash", "date": "2026-11-22"}),
        )
        .await,
        "parameter_invalid",
        "date",
    );
    bad(
        &pay(
            &h,
            &id,
            json!({"amount": 1, "method": "cash", "date": "2026-11-20"}),
        )
        .await,
        "parameter_invalid",
        "date",
    );
    let r = pay(&h, &id, json!({"amount": 1, "method": "cheque"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.json);
    let long = "x".repeat(141);
    bad(
        &pay(
            &h,
            &id,
            json!({"amount": 1, "method": "cash", "reference": long}),
        )
        .await,
        "parameter_invalid",
        "reference",
    );
    let keyless = send(
        &h.app,
        post_json(
            &format!("/api/v1/invoices/{id}/payments"),
            &h.live,
            None,
            r#"{"amount": 1, "method": "cash"}"#,
        ),
    )
    .await;
    assert_eq!(keyless.status, StatusCode::BAD_REQUEST, "{}", keyless.json);
    assert_eq!(keyless.code(), "idempotency_key_required");
    let unknown = pay(&h, &json!(99), json!({"amount": 1, "method": "cash"})).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let other_mode = pay_with(
        &h,
        &h.test,
        &id,
        "k",
        json!({"amount": 1, "method": "cash"}),
    )
    .await;
    assert_eq!(
        other_mode.status,
        StatusCode::NOT_FOUND,
        "test keys see test invoices only"
    );

    let path = format!("/api/v1/invoices/{id}/cancel");
    let r = send(&h.app, post_json(&path, &h.live, None, "{}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["amount_due"], 0.0);
    let r = pay(&h, &id, json!({"amount": 1, "method": "cash"})).await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "invalid_state",
    );
    assert_eq!(read(&h, &id).await["payments"], json!([]));
}

#[tokio::test]
async fn a_payment_retried_with_its_key_is_recorded_once() {
    let h = harness().await;
    let id = issued(&h, json!({})).await["id"].clone();
    let body = json!({"amount": 21, "method": "transfer"});
    let first = pay_with(&h, &h.live, &id, "pay-1", body.clone()).await;
    let again = pay_with(&h, &h.live, &id, "pay-1", body).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.json);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(first.json, again.json);
    let other = pay_with(
        &h,
        &h.live,
        &id,
        "pay-1",
        json!({"amount": 22, "method": "transfer"}),
    )
    .await;
    assert_eq!(other.status, StatusCode::UNPROCESSABLE_ENTITY);
    let inv = read(&h, &id).await;
    assert_eq!(inv["payments"].as_array().unwrap().len(), 1);
    assert_eq!(state(&inv), s("issued", "partially_paid", 21.0, 100.0));
}

#[tokio::test]
async fn the_status_endpoint_records_and_refunds_what_is_outstanding() {
    let h = harness().await;
    let id = issued(&h, json!({})).await["id"].clone();
    paid(&h, &id, json!({"amount": 21, "method": "transfer"})).await;
    let inv = set_status(&h, &id, "paid").await;
    assert_eq!(state(&inv), s("paid", "paid", 121.0, 0.0));
    let last = &inv["payments"][1];
    assert_eq!(
        (
            last["amount"].clone(),
            last["method"].clone(),
            last["date"].clone()
        ),
        (json!(100.0), json!("other"), json!("2026-11-21"))
    );
    let inv = set_status(&h, &id, "unpaid").await;
    assert_eq!(state(&inv), s("unpaid", "unpaid", 0.0, 121.0));
    assert_eq!(inv["payments"][2]["amount"], -121.0);

    let accepted = issued(&h, json!({})).await["id"].clone();
    set_status(&h, &accepted, "accepted").await;
    let inv = set_status(&h, &accepted, "unpaid").await;
    assert_eq!(state(&inv), s("unpaid", "unpaid", 0.0, 121.0));
    assert_eq!(inv["payments"], json!([]), "nothing paid, nothing refunded");

    let kinds = event_types(&h).await;
    assert_eq!(kinds.iter().filter(|k| *k == "invoice.paid").count(), 1);
    assert_eq!(kinds.iter().filter(|k| *k == "invoice.unpaid").count(), 2);
}

#[tokio::test]
async fn invoices_stored_before_payments_show_a_sensible_state() {
    let h = harness().await;
    let id = issued(&h, json!({"due_date": "2026-11-25"})).await["id"].clone();
    // Rewrite the stored document as it was before payments existed, marked paid.
    let key = Key::new(
        format!("INVOICES#{}#live", h.account),
        format!("{:012}", id.as_u64().unwrap()),
    );
    let item = h.ports.table.get(&key).await.unwrap().unwrap();
    let mut doc: Value = serde_json::from_str(item.s("doc").unwrap()).unwrap();
    for field in [
        "instalments",
        "payments",
        "payment_status",
        "amount_paid",
        "amount_due",
        "paid_at",
    ] {
        doc.as_object_mut().unwrap().remove(field);
    }
    doc["status"] = json!("paid");
    doc["events"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "paid", "at": "2026-11-21T10:00:00Z"}));
    h.ports
        .table
        .put(item.clone().with("doc", doc.to_string()), None)
        .await
        .unwrap();

    let inv = read(&h, &id).await;
    assert_eq!(state(&inv), s("paid", "paid", 121.0, 0.0));
    assert_eq!(
        (inv["paid_at"].clone(), inv["instalments"].clone()),
        (json!("2026-11-21"), json!([]))
    );

    let inv = paid(&h, &id, json!({"amount": -21, "method": "transfer"})).await;
    assert_eq!(state(&inv), s("unpaid", "partially_paid", 100.0, 21.0));
    let amounts: Vec<_> = inv["payments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["amount"].clone())
        .collect();
    assert_eq!(
        amounts,
        [json!(121.0), json!(-21.0)],
        "the old payment is written out first"
    );

    h.clock.set("2026-11-26T10:00:00Z".parse().unwrap());
    assert_eq!(
        read(&h, &id).await["payment_status"],
        "overdue",
        "its due_date counts"
    );
}

/// Runs the overdue sweep `runs` times per hour until `until`; returns how many events it sent.
async fn every_hour(h: &Harness, until: &str, runs: usize) -> usize {
    let until: DateTime<Utc> = until.parse().unwrap();
    let mut sent = 0;
    while h.clock.now() < until {
        for _ in 0..runs {
            sent += overdue::run(&h.ports, h.clock.now()).await.unwrap();
        }
        h.clock.advance(Duration::hours(1));
    }
    sent
}

/// (livemode, invoice id, instalment number, created_at) of the
/// `invoice.overdue` events, in that order.
async fn overdue_events(h: &Harness) -> Vec<(bool, u64, u64, String)> {
    let mut found: Vec<_> = support::events(h)
        .await
        .into_iter()
        .filter(|e| e.kind == "invoice.overdue")
        .map(|e| {
            (
                e.livemode,
                e.data["object"]["id"].as_u64().unwrap(),
                e.data["instalment"]["number"].as_u64().unwrap(),
                e.created_at,
            )
        })
        .collect();
    found.sort();
    found
}

#[tokio::test]
async fn a_month_of_scheduled_runs_sends_each_overdue_instalment_once() {
    let h = harness().await;
    let two = json!({"due_dates": [{"date": "2026-11-25", "amount": 60}, {"date": "2026-12-10", "amount": 61}]});
    let unpaid = issued(&h, two.clone()).await["id"].clone();
    let covered = issued(&h, two.clone()).await["id"].clone();
    let late_payer = issued(&h, two).await["id"].clone();
    let settled = issued(&h, json!({"due_date": "2026-11-30"})).await["id"].clone();
    let test = issue(&h, &h.test, json!({"due_date": "2026-11-30"})).await;
    assert_eq!(test.status, StatusCode::CREATED);
    paid(&h, &covered, json!({"amount": 60, "method": "transfer"})).await;
    paid(&h, &settled, json!({"amount": 121, "method": "transfer"})).await;

    let sent = every_hour(&h, "2026-12-01T00:00:00Z", 2).await;
    assert_eq!(
        sent, 3,
        "the first instalments of two invoices, the test invoice's"
    );
    let inv = read(&h, &late_payer).await;
    assert_eq!(inv["payment_status"], "overdue");
    assert!(inv["instalments"][0]["overdue_notified_at"].is_string());
    assert_eq!(
        inv["events"].as_array().unwrap().last().unwrap()["type"],
        "overdue"
    );
    // Paid late: the first instalment is covered, the second before its date.
    h.clock.set("2026-12-05T10:00:00Z".parse().unwrap());
    paid(
        &h,
        &late_payer,
        json!({"amount": 121, "method": "transfer"}),
    )
    .await;
    let sent = every_hour(&h, "2026-12-20T00:00:00Z", 2).await;
    assert_eq!(sent, 2, "the second instalments of two invoices");

    let id = |v: &Value| v.as_u64().unwrap();
    let (first, second, test_day) = (
        "2026-11-25T23:00:00.000Z",
        "2026-12-10T23:00:00.000Z",
        "2026-11-30T23:00:00.000Z",
    );
    let mut expected = vec![
        (false, 1, 1, test_day.to_string()),
        (true, id(&unpaid), 1, first.to_string()),
        (true, id(&unpaid), 2, second.to_string()),
        (true, id(&covered), 2, second.to_string()),
        (true, id(&late_payer), 1, first.to_string()),
    ];
    expected.sort();
    assert_eq!(
        overdue_events(&h).await,
        expected,
        "once each, at the first run of the Madrid day after its date; none for paid ones"
    );
    assert_eq!(read(&h, &unpaid).await["payment_status"], "overdue");
    assert_eq!(read(&h, &settled).await["payment_status"], "paid");
    let list = |query: &'static str| {
        let app = h.app.clone();
        let key = h.live.clone();
        async move {
            let r = send(&app, get(&format!("/api/v1/invoices?{query}"), Some(&key))).await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.json);
            let ids: Vec<Value> = r.json["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["id"].clone())
                .collect();
            ids
        }
    };
    assert_eq!(
        list("payment_status=overdue").await,
        [covered.clone(), unpaid.clone()]
    );
    assert_eq!(list("payment_status=paid").await, [settled, late_payer]);
    let r = send(
        &h.app,
        get("/api/v1/invoices?payment_status=late", Some(&h.live)),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.json);
}

#[tokio::test]
async fn concurrent_runs_send_an_overdue_instalment_once() {
    let h = Arc::new(harness().await);
    issued(&h, json!({"due_date": "2026-11-22"})).await;
    h.clock.set("2026-11-23T10:00:00Z".parse().unwrap());
    let now = h.clock.now();
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let ports = h.ports.clone();
            tokio::spawn(async move { overdue::run(&ports, now).await.unwrap() })
        })
        .collect();
    let mut sent = 0;
    for r in runs {
        sent += r.await.unwrap();
    }
    assert_eq!(sent, 1);
    assert_eq!(overdue_events(&h).await.len(), 1);
    assert_eq!(overdue::run(&h.ports, now).await.unwrap(), 0);
}

/// D13: one balance per invoice, net of its rectifications. A credit note
/// lowers the rectified invoice's amount due, a substitution replaces it
/// (art. 15 RD 1619/2012: the rectifying invoice corrects the original, it
/// is not a second debt); the rectifying invoices collect nothing
/// themselves.
#[tokio::test]
async fn rectifications_change_the_balance_of_the_invoice_they_rectify() {
    let h = harness().await;
    let id = issued(&h, json!({})).await["id"].clone();
    paid(&h, &id, json!({"amount": 21, "method": "transfer"})).await;
    let rectify = |body: Value| {
        let path = format!("/api/v1/invoices/{id}/rectify");
        let idem = shared::ids::random_token(8);
        let app = h.app.clone();
        let key = h.live.clone();
        async move { send(&app, post_json(&path, &key, Some(&idem), &body.to_string())).await }
    };
    // A credit of 50 € + 10.50 € VAT: 121 − 60.50 = 60.50 to collect, 21 paid.
    let credit = rectify(
        json!({"reason_code": "R1", "method": "differences", "description": "Descuento",
        "lines": [{"description": "Descuento", "quantity": -1, "unit_price": 50, "vat_rate": 21}]}),
    )
    .await;
    assert_eq!(credit.status, StatusCode::CREATED, "{}", credit.json);
    let credit = credit.json;
    assert_eq!(
        state(&credit),
        s("issued", "paid", 0.0, 0.0),
        "a credit: nothing to collect"
    );
    assert_eq!(
        (credit["instalments"].clone(), credit["due_date"].clone()),
        (json!([]), Value::Null)
    );
    let r = pay(
        &h,
        &credit["id"],
        json!({"amount": 1, "method": "transfer"}),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "invalid_state",
    );
    let original = read(&h, &id).await;
    assert_eq!(state(&original), s("issued", "partially_paid", 21.0, 39.5));
    assert_eq!(original["rectifications_total"], -60.5);
    bad(
        &pay(&h, &id, json!({"amount": 40, "method": "transfer"})).await,
        "overpayment",
        "amount",
    );

    // A substitution by 90 € + 18.90 € VAT replaces the balance: 108.90,
    // of which 21 is paid; the substitution itself collects nothing.
    let line =
        json!([{"description": "Servicio", "quantity": 1, "unit_price": 90, "vat_rate": 21}]);
    let substitution = rectify(json!({"reason_code": "R1", "method": "substitution", "description": "Precio corregido", "lines": line})).await;
    assert_eq!(
        substitution.status,
        StatusCode::CREATED,
        "{}",
        substitution.json
    );
    let substitution = substitution.json;
    assert_eq!(state(&substitution), s("issued", "paid", 0.0, 0.0));
    let original = read(&h, &id).await;
    assert_eq!(state(&original), s("issued", "partially_paid", 21.0, 87.9));
    let inv = paid(&h, &id, json!({"amount": 87.9, "method": "transfer"})).await;
    assert_eq!(state(&inv), s("paid", "paid", 108.9, 0.0));
    let list = send(
        &h.app,
        get(
            "/api/v1/invoices?payment_status=partially_paid",
            Some(&h.live),
        ),
    )
    .await;
    assert_eq!(list.json["data"], json!([]), "{}", list.json);
}

/// D13: an invoice credited in full has nothing to collect: no overdue
/// reminder, and what was paid is refunded as a negative payment.
#[tokio::test]
async fn an_invoice_credited_in_full_is_settled_and_never_overdue() {
    let h = harness().await;
    let unpaid = issued(&h, json!({"due_date": "2026-11-25"})).await["id"].clone();
    let prepaid = issued(&h, json!({"due_date": "2026-11-25"})).await["id"].clone();
    paid(&h, &prepaid, json!({"amount": 21, "method": "transfer"})).await;
    for id in [&unpaid, &prepaid] {
        let path = format!("/api/v1/invoices/{id}/rectify");
        let body =
            json!({"reason_code": "R1", "method": "differences", "description": "Anulación"});
        let r = send(
            &h.app,
            post_json(
                &path,
                &h.live,
                Some(&shared::ids::random_token(8)),
                &body.to_string(),
            ),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    }
    assert_eq!(every_hour(&h, "2026-12-01T00:00:00Z", 1).await, 0);
    assert!(overdue_events(&h).await.is_empty());
    assert_eq!(
        state(&read(&h, &unpaid).await),
        s("issued", "paid", 0.0, 0.0)
    );
    assert_eq!(
        state(&read(&h, &prepaid).await),
        s("issued", "paid", 21.0, 0.0)
    );
    let r = pay(&h, &prepaid, json!({"amount": 1, "method": "transfer"})).await;
    assert_eq!(r.code(), "invalid_state", "{}", r.json);
    let refunded = paid(&h, &prepaid, json!({"amount": -21, "method": "transfer"})).await;
    assert_eq!(state(&refunded).2, 0.0);
}
