//! Events over HTTP, in-process on the embedded engine: the envelope, pages,
//! the `type` and `delivery_success` filters, isolation between accounts and
//! modes, the 30 days, and an invoice event as the invoices group records it.

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use chrono::Duration;
use serde_json::{Value, json};

use shared::app::outbox;
use shared::domain::account::{AccountId, Mode, Plan};
use shared::ports::clock::Clock;
use shared::ports::table::UpdateOp;
use shared::webhooks::event_type::EventType;
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    support::start(support::relaxed(), Plan::Pro, Router::new()).await
}

async fn emit(h: &Harness, account: &AccountId, mode: Mode, kind: &str) -> String {
    let data = json!({"n": kind});
    let write = outbox::record(
        account,
        mode,
        EventType::parse(kind).unwrap(),
        data,
        h.clock.now(),
    );
    let id = write.key().sk.clone();
    h.ports.table.transact(vec![write]).await.unwrap();
    h.clock.advance(Duration::milliseconds(1));
    id
}

async fn list(h: &Harness, query: &str) -> Reply {
    send(
        &h.app,
        get(&format!("/api/v1/events{query}"), Some(&h.live)),
    )
    .await
}

fn ids(r: &Reply) -> Vec<String> {
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn events_are_listed_newest_first_in_pages_and_filtered() {
    let h = harness().await;
    let mut live = Vec::new();
    for kind in [
        "invoice.issued",
        "invoice.paid",
        "quota.threshold",
        "invoice.paid",
    ] {
        live.push(emit(&h, &h.account, Mode::Live, kind).await);
    }
    emit(&h, &h.account, Mode::Test, "invoice.paid").await;
    let other = AccountId::generate();
    emit(&h, &other, Mode::Live, "invoice.paid").await;

    let first = list(&h, "?limit=3").await;
    assert_eq!(
        ids(&first),
        [live[3].clone(), live[2].clone(), live[1].clone()]
    );
    assert_eq!(first.json["object"], "list");
    assert_eq!(first.json["has_more"], true);
    assert_eq!(
        first.json["data"][0],
        json!({"id": live[3], "type": "invoice.paid", "created_at": "2026-11-21T10:00:00.003Z",
            "livemode": true, "data": {"n": "invoice.paid"}})
    );
    let rest = list(&h, &format!("?limit=3&starting_after={}", live[1])).await;
    assert_eq!(ids(&rest), [live[0].clone()]);
    assert_eq!(rest.json["has_more"], false);

    assert_eq!(
        ids(&list(&h, "?type=invoice.paid").await),
        [live[3].clone(), live[1].clone()]
    );
    let key = outbox::key(&h.account, Mode::Live, &live[1]);
    let counts = vec![
        UpdateOp::set("deliveries", 1),
        UpdateOp::set("delivered", 0),
    ];
    h.ports.table.update(&key, counts, None).await.unwrap();
    assert_eq!(
        ids(&list(&h, "?delivery_success=false").await),
        [live[1].clone()]
    );
    let delivered = list(&h, "?delivery_success=true&type=invoice.paid").await;
    assert_eq!(ids(&delivered), [live[3].clone()]);

    let test = send(&h.app, get("/api/v1/events", Some(&h.test))).await;
    assert_eq!(ids(&test).len(), 1);
    assert_eq!(test.json["data"][0]["livemode"], false);

    for (query, code, param) in [
        ("?type=invoice.lost", "parameter_invalid", "type"),
        ("?limit=0", "parameter_invalid", "limit"),
        (
            "?delivery_success=maybe",
            "parameter_invalid",
            "delivery_success",
        ),
        ("?colour=red", "parameter_unknown", "colour"),
    ] {
        let r = list(&h, query).await;
        assert_error_shape(&r, StatusCode::BAD_REQUEST, "invalid_request_error", code);
        assert_eq!(r.param(), param, "{query}: {}", r.json);
    }
}

#[tokio::test]
async fn one_event_is_read_by_its_account_and_mode_for_30_days() {
    let h = harness().await;
    let id = emit(&h, &h.account, Mode::Live, "invoice.paid").await;
    let other = emit(&h, &AccountId::generate(), Mode::Live, "invoice.paid").await;
    let path = format!("/api/v1/events/{id}");
    let r = send(&h.app, get(&path, Some(&h.live))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let members: Vec<_> = r.json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(members, ["created_at", "data", "id", "livemode", "type"]);

    let missing = [
        (format!("/api/v1/events/{other}"), &h.live),
        (path.clone(), &h.test),
        ("/api/v1/events/evt_0".to_string(), &h.live),
    ];
    for (path, key) in missing {
        let r = send(&h.app, get(&path, Some(key))).await;
        assert_error_shape(
            &r,
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "resource_missing",
        );
    }
    h.clock.advance(Duration::days(30));
    let r = send(&h.app, get(&path, Some(&h.live))).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "gone after 30 days");
    assert!(ids(&list(&h, "").await).is_empty());
}

#[tokio::test]
async fn an_issued_invoice_is_announced_with_its_summary_as_data_object() {
    let h = harness().await;
    h.set_issuer().await;
    let body = json!({
        "customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
            "postal_code": "10003", "city": "Cáceres"},
        "lines": [{"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]
    });
    let request = post_json("/api/v1/invoices", &h.live, Some("k1"), &body.to_string());
    let issued = send(&h.app, request).await;
    assert_eq!(issued.status, StatusCode::CREATED, "{}", issued.json);

    let r = list(&h, "?type=invoice.issued").await;
    assert_eq!(ids(&r).len(), 1);
    let object: &Value = &r.json["data"][0]["data"]["object"];
    assert_eq!(object["number"], issued.json["number"]);
    assert_eq!(object["status"], "issued");
    assert_eq!(object.as_object().unwrap().len(), 12, "{object}");
    for member in [
        "id",
        "object",
        "number",
        "kind",
        "livemode",
        "issue_date",
        "customer_id",
        "base",
        "vat_amount",
        "irpf_amount",
        "total",
    ] {
        assert_eq!(object[member], issued.json[member], "{member}");
    }
}
