//! Invoices over HTTP, in-process on the embedded engine: issuing, totals,
//! VERI*FACTU data, validation, lifecycle, rectification, customers, the
//! ledger-backed tax tools, test mode, isolation and concurrency.

mod support;

use std::collections::HashSet;

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::app::accounts;
use shared::app::outbox;
use shared::domain::account::{Issuer, Plan};
use shared::tax::nif::Nif;
use shared::verifactu::{RegistrationHashInput, fingerprint_registration};
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let issuer = Issuer {
        name: Some("Ana García Pérez".into()),
        nif: Some(Nif::parse("12345678Z").unwrap()),
        address: Some("Calle Mayor 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: Some("Madrid".into()),
        country: Some("ES".into()),
    };
    accounts::set_issuer(&h.ports, &h.account, &issuer)
        .await
        .unwrap();
    h
}

fn customer() -> Value {
    json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"})
}

fn line(price: Value, rate: Value) -> Value {
    json!({"description": "Servicio", "quantity": 1, "unit_price": price, "vat_rate": rate})
}

async fn issue_with(h: &Harness, key: &str, idem: &str, body: Value) -> Reply {
    send(
        &h.app,
        post_json("/api/v1/invoices", key, Some(idem), &body.to_string()),
    )
    .await
}

async fn issue(h: &Harness, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    issue_with(h, &h.live, &idem, body).await
}

async fn issued(h: &Harness, body: Value) -> Value {
    let r = issue(h, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json
}

fn bad(r: &Reply, code: &str, param: &str) {
    assert_error_shape(r, StatusCode::BAD_REQUEST, "invalid_request_error", code);
    assert_eq!(r.param(), param, "{}", r.json);
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[tokio::test]
async fn an_issued_invoice_has_number_totals_and_a_verifiable_record() {
    let h = harness().await;
    let r = issue(
        &h,
        json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!(1000), json!(21))]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let inv = &r.json;
    assert_eq!(
        (
            inv["id"].clone(),
            inv["number"].clone(),
            inv["kind"].clone()
        ),
        (json!(1), json!("F2026-000001"), json!("F1"))
    );
    assert_eq!(r.header("location"), "/api/v1/invoices/1");
    for (field, value) in [
        ("base", 1000.0),
        ("vat_amount", 210.0),
        ("irpf_amount", 150.0),
        ("total", 1060.0),
    ] {
        assert_eq!(num(&inv[field]), value, "{field}");
    }
    assert_eq!(
        (inv["status"].clone(), inv["livemode"].clone()),
        (json!("issued"), json!(true))
    );
    assert_eq!(inv["issue_date"], "2026-11-21");
    assert_eq!(inv["events"][0]["type"], "issued");

    let vf = &inv["verifactu"];
    let record = &vf["record"];
    assert_eq!(vf["status"], "pending");
    assert_eq!(
        record["ImporteTotal"], "1210.00",
        "VERI*FACTU totals exclude IRPF"
    );
    assert_eq!(record["CuotaTotal"], "210.00");
    assert_eq!(record["TipoFactura"], "F1");
    assert_eq!(record["Encadenamiento"]["PrimerRegistro"], "S");
    let recomputed = fingerprint_registration(&RegistrationHashInput {
        issuer_nif: record["IDFactura"]["IDEmisorFactura"].as_str().unwrap(),
        number: record["IDFactura"]["NumSerieFactura"].as_str().unwrap(),
        issue_date: record["IDFactura"]["FechaExpedicionFactura"]
            .as_str()
            .unwrap(),
        kind: record["TipoFactura"].as_str().unwrap(),
        total_vat: record["CuotaTotal"].as_str().unwrap(),
        total: record["ImporteTotal"].as_str().unwrap(),
        previous_hash: "",
        generated_at: record["FechaHoraHusoGenRegistro"].as_str().unwrap(),
    });
    assert_eq!(
        vf["hash"], recomputed,
        "anyone can recompute the hash from the record"
    );
    assert_eq!(
        record["FechaHoraHusoGenRegistro"],
        "2026-11-21T11:00:00+01:00"
    );
    assert_eq!(
        vf["qr_url"],
        "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=12345678Z&numserie=F2026-000001&fecha=21-11-2026&importe=1210.00"
    );

    let read = send(&h.app, get("/api/v1/invoices/1", Some(&h.live))).await;
    assert_eq!(&read.json, inv);
    let second = issued(
        &h,
        json!({"customer": customer(), "lines": [line(json!(50), json!(10))]}),
    )
    .await;
    assert_eq!(second["number"], "F2026-000002");
    assert_eq!(second["verifactu"]["previous_hash"], vf["hash"]);
    assert_eq!(
        second["verifactu"]["record"]["Encadenamiento"]["RegistroAnterior"]["Huella"],
        vf["hash"]
    );
}

#[tokio::test]
async fn totals_follow_the_reference_examples() {
    let h = harness().await;
    let mixed = issued(
        &h,
        json!({"customer": customer(), "equivalence_surcharge": true,
        "lines": [line(json!(1000), json!(21)), line(json!(500), json!(10))]}),
    )
    .await;
    assert_eq!(num(&mixed["total"]), 1819.0);
    assert_eq!(num(&mixed["surcharge_amount"]), 59.0);
    assert_eq!(mixed["breakdown"].as_array().unwrap().len(), 2);
    assert_eq!(
        mixed["verifactu"]["record"]["Desglose"]["DetalleDesglose"][0]["ClaveRegimen"],
        "18"
    );

    let odd = issued(&h, json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!("1234.56"), json!(21))]})).await;
    assert_eq!(
        (
            num(&odd["vat_amount"]),
            num(&odd["irpf_amount"]),
            num(&odd["total"])
        ),
        (259.26, 185.18, 1308.64)
    );

    let per_group = issued(&h, json!({"customer": customer(), "lines": [line(json!(2.5), json!(21)), line(json!(2.5), json!(21))]})).await;
    assert_eq!(
        num(&per_group["vat_amount"]),
        1.05,
        "rounded per rate group, not per line"
    );
    let half_up = issued(
        &h,
        json!({"customer": customer(), "lines": [line(json!(0.5), json!(21))]}),
    )
    .await;
    assert_eq!(num(&half_up["vat_amount"]), 0.11);

    let discounted = issued(&h, json!({"customer": customer(), "lines": [
        {"description": "Piezas", "quantity": 3, "unit_price": 19.99, "vat_rate": 21, "discount_percent": 10},
        {"description": "Libro", "quantity": 2, "unit_price": 10, "vat_rate": 4},
        {"description": "Curso", "quantity": 1, "unit_price": 100, "vat_rate": 0, "exemption": "E1"}
    ]})).await;
    assert_eq!(num(&discounted["lines"][0]["base"]), 53.97);
    assert_eq!(num(&discounted["base"]), 173.97);
    assert_eq!(num(&discounted["vat_amount"]), 11.33 + 0.80);
    let record = &discounted["verifactu"]["record"]["Desglose"]["DetalleDesglose"];
    assert_eq!(record[2]["OperacionExenta"], "E1");

    let reverse = issued(&h, json!({"customer": customer(), "lines": [
        {"description": "Obra", "quantity": 1, "unit_price": 5000, "vat_rate": 0, "exemption": "S2"}]})).await;
    assert_eq!(
        (num(&reverse["vat_amount"]), num(&reverse["total"])),
        (0.0, 5000.0)
    );
    assert_eq!(
        reverse["verifactu"]["record"]["Desglose"]["DetalleDesglose"][0]["CalificacionOperacion"],
        "S2"
    );
}

#[tokio::test]
async fn simplified_invoices_need_no_customer_up_to_400() {
    let h = harness().await;
    let f2 = issued(&h, json!({"lines": [line(json!(300), json!(21))]})).await;
    assert_eq!(
        (f2["kind"].clone(), num(&f2["total"])),
        (json!("F2"), 363.0)
    );
    assert!(f2["verifactu"]["record"].get("Destinatarios").is_none());
    bad(
        &issue(&h, json!({"lines": [line(json!(400), json!(21))]})).await,
        "customer_required",
        "customer.tax_id",
    );
    bad(
        &issue(
            &h,
            json!({"irpf_rate": 15, "lines": [line(json!(10), json!(21))]}),
        )
        .await,
        "customer_required",
        "customer.tax_id",
    );
    let consumer = issued(
        &h,
        json!({"customer": {"name": "Luis"}, "lines": [line(json!(10), json!(21))]}),
    )
    .await;
    assert_eq!(consumer["kind"], "F2");
}

#[tokio::test]
async fn bad_issue_requests_get_400_with_the_field() {
    let h = harness().await;
    let base = |lines: Value| json!({"customer": customer(), "lines": lines});
    let cases: Vec<(Value, &str, &str)> = vec![
        (base(json!([])), "parameter_missing", "lines"),
        (
            base(json!([line(json!(100), json!(18))])),
            "parameter_invalid",
            "lines[0].vat_rate",
        ),
        (
            json!({"customer": customer(), "irpf_rate": 13, "lines": [line(json!(100), json!(21))]}),
            "parameter_invalid",
            "irpf_rate",
        ),
        (
            base(
                json!([{"description": "x", "quantity": 1.12345, "unit_price": 1, "vat_rate": 21}]),
            ),
            "parameter_invalid",
            "lines[0].quantity",
        ),
        (
            base(json!([{"description": "x", "quantity": 0, "unit_price": 1, "vat_rate": 21}])),
            "parameter_invalid",
            "lines[0].quantity",
        ),
        (
            base(
                json!([{"description": "x", "quantity": 1, "unit_price": 1.1234567, "vat_rate": 21}]),
            ),
            "parameter_invalid",
            "lines[0].unit_price",
        ),
        (
            base(json!([{"description": "x", "quantity": 1, "unit_price": -1, "vat_rate": 21}])),
            "parameter_invalid",
            "lines[0].unit_price",
        ),
        (
            base(json!([{"description": " ", "quantity": 1, "unit_price": 1, "vat_rate": 21}])),
            "parameter_invalid",
            "lines[0].description",
        ),
        (
            base(
                json!([{"description": "x", "quantity": 1, "unit_price": 1, "vat_rate": 21, "discount_percent": 120}]),
            ),
            "parameter_invalid",
            "lines[0].discount_percent",
        ),
        (
            base(json!([{"description": "x", "quantity": 1, "unit_price": 1, "vat_rate": 0}])),
            "exemption_required",
            "lines[0].exemption",
        ),
        (
            base(
                json!([{"description": "x", "quantity": 1, "unit_price": 1, "vat_rate": 21, "exemption": "E1"}]),
            ),
            "parameter_invalid",
            "lines[0].exemption",
        ),
        (
            base(
                json!([{"description": "x", "quantity": 1, "unit_price": 1, "vat_rate": 0, "exemption": "E9"}]),
            ),
            "parameter_invalid",
            "lines[0].exemption",
        ),
        (
            json!({"customer": customer(), "equivalence_surcharge": true, "lines": [{"description": "x", "quantity": 1, "unit_price": 1, "vat_rate": 0, "exemption": "E1"}]}),
            "surcharge_not_applicable",
            "lines[0].vat_rate",
        ),
        (
            base(
                json!([{"description": "x", "quantity": 1000, "unit_price": 999999999999u64, "vat_rate": 21}]),
            ),
            "amount_too_large",
            "lines",
        ),
        (
            json!({"customer": {"name": "X", "tax_id": "B64717839"}, "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "customer.tax_id",
        ),
        (
            json!({"customer": {"tax_id": "B64717838"}, "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "customer.name",
        ),
        (
            json!({"customer": customer(), "customer_id": "cus_x", "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "customer_id",
        ),
        (
            json!({"customer_id": "cus_nope", "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "customer_id",
        ),
        (
            json!({"customer": customer(), "issue_date": "2026-11-22", "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "issue_date",
        ),
        (
            json!({"customer": customer(), "due_date": "2026-11-01", "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "due_date",
        ),
        (
            json!({"customer": customer(), "payment": {"method": "transfer", "iban": "ES9121000418450200051333"}, "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "payment.iban",
        ),
        (
            json!({"customer": customer(), "payment": {"method": "transfer"}, "lines": [line(json!(1), json!(21))]}),
            "parameter_missing",
            "payment.iban",
        ),
        (
            json!({"customer": customer(), "payment": {"method": "bitcoin"}, "lines": [line(json!(1), json!(21))]}),
            "parameter_invalid",
            "payment.method",
        ),
        (
            json!({"customer": customer(), "lines": [line(json!(1), json!(21))], "currency": "USD"}),
            "parameter_unknown",
            "currency",
        ),
        (
            json!({"customer": customer(), "lines": [{"description": "x", "quantity": "abc", "unit_price": 1, "vat_rate": 21}]}),
            "parameter_invalid",
            "lines[0].quantity",
        ),
    ];
    for (body, code, param) in cases {
        let r = issue(&h, body.clone()).await;
        assert_eq!((r.code(), r.param()), (code, param), "{body}: {}", r.json);
        assert_eq!(r.status, StatusCode::BAD_REQUEST);
    }
    let foreign = issued(&h, json!({"customer": {"name": "Jean", "tax_id": "FR40303265045", "country": "FR"}, "lines": [line(json!(1), json!(21))]})).await;
    assert_eq!(
        foreign["verifactu"]["record"]["Destinatarios"]["IDDestinatario"][0]["IDOtro"]["CodigoPais"],
        "FR"
    );
    let ok_iban = issued(&h, json!({"customer": customer(), "payment": {"method": "transfer", "iban": "ES91 2100 0418 4502 0005 1332"}, "lines": [line(json!(1), json!(21))]})).await;
    assert_eq!(ok_iban["payment"]["iban"], "ES9121000418450200051332");

    let earlier = issue(&h, json!({"customer": customer(), "issue_date": "2026-11-20", "lines": [line(json!(1), json!(21))]})).await;
    bad(&earlier, "parameter_invalid", "issue_date");
    assert!(
        earlier.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("before the last invoice")
    );

    let no_key = send(
        &h.app,
        post_json(
            "/api/v1/invoices",
            &h.live,
            None,
            &json!({"lines": []}).to_string(),
        ),
    )
    .await;
    bad(&no_key, "idempotency_key_required", "Idempotency-Key");
}

#[tokio::test]
async fn an_incomplete_issuer_is_409_naming_the_fields() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let r = issue(
        &h,
        json!({"customer": customer(), "lines": [line(json!(1), json!(21))]}),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "issuer_incomplete",
    );
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("name, nif, address, postal_code, city")
    );
}
