//! Test invoices that ask the AEAT simulator for an error
//! (`test_options.verifactu_error`), through the router and the submitter
//! in-process, with the simulator test records meet in every host (a fresh
//! one per message): the answer, its event, and the option refused with a
//! live key or a bad value.

mod support;

use chrono::Duration;
use serde_json::{Value, json};

use shared::app::verifactu::submit_pending;
use shared::domain::account::Plan;
use support::{Harness, get, post_json, send};

async fn start() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, axum::Router::new()).await;
    h.set_issuer().await;
    h
}

fn body(extra: Value) -> Value {
    let mut body = json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": 21}]});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

async fn issue(h: &Harness, key: &str, extra: Value) -> support::Reply {
    let idem = shared::ids::random_token(8);
    let req = post_json(
        "/api/v1/invoices",
        key,
        Some(&idem),
        &body(extra).to_string(),
    );
    send(&h.app, req).await
}

async fn invoice(h: &Harness, key: &str, id: &Value) -> Value {
    send(&h.app, get(&format!("/api/v1/invoices/{id}"), Some(key)))
        .await
        .json
}

/// Runs the submitter after the AEAT's wait since the last message.
async fn submit(h: &Harness) {
    h.clock.advance(Duration::seconds(60));
    submit_pending(&h.ports).await.unwrap();
}

fn asking(code: u32) -> Value {
    json!({"test_options": {"verifactu_error": {"code": code,
        "description": "El valor del campo NumSerieFactura es incorrecto."}}})
}

#[tokio::test]
async fn a_test_invoice_asking_for_an_error_code_is_rejected_with_it() {
    let h = start().await;
    let r = issue(&h, &h.test, asking(1104)).await;
    assert_eq!(r.status, 201, "{}", r.json);
    let id = &r.json["id"];
    submit(&h).await;
    let verifactu = &invoice(&h, &h.test, id).await["verifactu"];
    assert_eq!(verifactu["status"], "rejected", "{verifactu}");
    assert_eq!(verifactu["answer"]["state"], "Incorrecto");
    assert_eq!(verifactu["answer"]["code"], 1104);
    assert_eq!(
        verifactu["answer"]["description"],
        "El valor del campo NumSerieFactura es incorrecto."
    );
    let events = support::events(&h).await;
    let rejected: Vec<_> = events
        .iter()
        .filter(|e| e.kind == "verifactu.rejected")
        .collect();
    assert_eq!(rejected.len(), 1, "{events:?}");
    assert!(!rejected[0].livemode);
    assert_eq!(rejected[0].data["invoice_id"], *id);
    assert_eq!(rejected[0].data["answer"]["code"], 1104);
}

#[tokio::test]
async fn a_code_from_2000_to_2999_is_accepted_with_errors() {
    let h = start().await;
    let r = issue(
        &h,
        &h.test,
        json!({"test_options": {"verifactu_error": {"code": 2001}}}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.json);
    submit(&h).await;
    let verifactu = &invoice(&h, &h.test, &r.json["id"]).await["verifactu"];
    assert_eq!(verifactu["status"], "accepted_with_errors", "{verifactu}");
    assert_eq!(verifactu["answer"]["code"], 2001);
    assert_eq!(
        verifactu["answer"]["description"],
        "Error 2001 simulado (test_options.verifactu_error)."
    );
    let events = support::events(&h).await;
    assert!(events.iter().any(|e| e.kind == "verifactu.accepted"));
}

#[tokio::test]
async fn the_option_is_refused_with_a_live_key_or_a_bad_value() {
    let h = start().await;
    let live = issue(&h, &h.live, asking(1104)).await;
    support::assert_error_shape(
        &live,
        axum::http::StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(live.param(), "test_options");
    assert!(
        live.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("test keys"),
        "{}",
        live.json
    );
    let r = issue(&h, &h.test, asking(42)).await;
    assert_eq!(
        (r.status.as_u16(), r.param()),
        (400, "test_options.verifactu_error.code")
    );
    let r = issue(
        &h,
        &h.test,
        json!({"test_options": {"verifactu_error": {"code": 1104, "reason": "x"}}}),
    )
    .await;
    assert_eq!(
        (r.status.as_u16(), r.code(), r.param()),
        (
            400,
            "parameter_unknown",
            "test_options.verifactu_error.reason"
        )
    );
}
