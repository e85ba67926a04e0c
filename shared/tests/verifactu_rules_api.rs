//! The AEAT's record rules over HTTP: a request whose VERI*FACTU record the
//! AEAT would refuse is answered 400 `aeat_rule_<code>` naming the rule, and
//! nothing is stored; the records of reverse-charge, export and intra-EU
//! invoices carry what the rules ask (TipoImpositivo and CuotaRepercutida 0
//! for S2, error 1198; ClaveRegimen 02 for exports, 1199; the VAT prefix of
//! a NIF-IVA, 1122).

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::domain::account::Plan;
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    h
}

fn customer() -> Value {
    json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"})
}

async fn issue(h: &Harness, key: &str, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    send(
        &h.app,
        post_json("/api/v1/invoices", key, Some(&idem), &body.to_string()),
    )
    .await
}

fn lines(invoice: &Value) -> &Value {
    &invoice["verifactu"]["record"]["Desglose"]["DetalleDesglose"]
}

#[tokio::test]
async fn a_record_the_aeat_would_refuse_is_not_issued_and_nothing_is_stored() {
    let h = harness().await;
    // The clock reads 21-11-2026: an operation on 01-12-2026 is after today
    // and after the issue date, which the AEAT takes only for ClaveRegimen
    // 14 and 15 (errors 1173 and 1146).
    for key in [&h.live, &h.test] {
        let r = issue(
            &h,
            key,
            json!({"customer": customer(), "operation_date": "2026-12-01", "lines": [
                {"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]}),
        )
        .await;
        assert_error_shape(
            &r,
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "aeat_rule_1173",
        );
        assert_eq!(r.param(), "FechaOperacion", "{}", r.json);
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(message.contains("AEAT rule 1173"), "{message}");
        let list = send(&h.app, get("/api/v1/invoices", Some(key))).await;
        assert_eq!(list.json["data"], json!([]), "{}", list.json);
    }
    let r = issue(
        &h,
        &h.live,
        json!({"customer": customer(), "operation_date": "2026-11-20", "lines": [
            {"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert_eq!(r.json["id"], 1, "the refused ones took no id: {}", r.json);
}

#[tokio::test]
async fn reverse_charge_exports_and_eu_customers_are_recorded_as_the_aeat_requires() {
    let h = harness().await;
    let reverse = issue(
        &h,
        &h.live,
        json!({"customer": customer(), "lines": [
            {"description": "Obra", "quantity": 1, "unit_price": 5000, "vat_rate": 0, "exemption": "S2"}]}),
    )
    .await;
    assert_eq!(reverse.status, StatusCode::CREATED, "{}", reverse.json);
    let line = &lines(&reverse.json)[0];
    assert_eq!(
        (
            &line["CalificacionOperacion"],
            &line["TipoImpositivo"],
            &line["CuotaRepercutida"]
        ),
        (&json!("S2"), &json!("0.00"), &json!("0.00")),
        "{line}"
    );

    let export = issue(
        &h,
        &h.live,
        json!({"customer": {"name": "Acme Inc", "tax_id": "123456789", "country": "US", "address": "1 Main St"}, "lines": [
            {"description": "Máquina", "quantity": 1, "unit_price": 900, "vat_rate": 0, "exemption": "E2"}]}),
    )
    .await;
    assert_eq!(export.status, StatusCode::CREATED, "{}", export.json);
    let line = &lines(&export.json)[0];
    assert_eq!(
        (&line["ClaveRegimen"], &line["OperacionExenta"]),
        (&json!("02"), &json!("E2")),
        "{line}"
    );

    let eu = issue(
        &h,
        &h.live,
        json!({"customer": {"name": "Jean", "tax_id": "40303265045", "country": "FR", "address": "1 rue X"}, "lines": [
            {"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]}),
    )
    .await;
    assert_eq!(eu.status, StatusCode::CREATED, "{}", eu.json);
    assert_eq!(
        eu.json["verifactu"]["record"]["Destinatarios"]["IDDestinatario"][0]["IDOtro"],
        json!({"CodigoPais": "FR", "IDType": "02", "ID": "FR40303265045"})
    );
}
