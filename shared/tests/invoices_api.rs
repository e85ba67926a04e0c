//! Invoices over HTTP, in-process on the embedded engine: issuing, totals,
//! VERI*FACTU data, validation, lifecycle, rectification, customers, the
//! ledger-backed tax tools, test mode, isolation and concurrency.

use crate::support;

use std::collections::HashSet;

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::app::accounts;
use shared::domain::account::Plan;
use shared::verifactu::{RegistrationHashInput, fingerprint_registration};
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
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
    let foreign = issued(&h, json!({"customer": {"name": "Jean", "tax_id": "FR40303265045", "address": "1 rue de la Paix", "country": "FR"}, "lines": [line(json!(1), json!(21))]})).await;
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

async fn post(h: &Harness, path: &str, body: Value) -> Reply {
    send(&h.app, post_json(path, &h.live, None, &body.to_string())).await
}

async fn events_of(h: &Harness, kind: &str) -> usize {
    support::events(h)
        .await
        .iter()
        .filter(|e| e.kind == kind)
        .count()
}

#[tokio::test]
async fn statuses_follow_the_transition_table_and_leave_history_and_events() {
    let h = harness().await;
    issued(
        &h,
        json!({"customer": customer(), "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    for to in ["paid", "unpaid", "paid"] {
        let r = post(&h, "/api/v1/invoices/1/status", json!({"status": to})).await;
        assert_eq!(
            (r.status, r.json["status"].clone()),
            (StatusCode::OK, json!(to)),
            "{}",
            r.json
        );
    }
    let same = post(&h, "/api/v1/invoices/1/status", json!({"status": "paid"})).await;
    assert_eq!(
        same.json["events"].as_array().unwrap().len(),
        7,
        "issued, then payment and paid, refund and unpaid, payment and paid: setting the current state changes nothing"
    );
    let r = post(
        &h,
        "/api/v1/invoices/1/status",
        json!({"status": "rejected"}),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "invalid_state",
    );
    bad(
        &post(
            &h,
            "/api/v1/invoices/1/status",
            json!({"status": "cancelled"}),
        )
        .await,
        "parameter_invalid",
        "status",
    );
    bad(
        &post(&h, "/api/v1/invoices/1/status", json!({"status": "lost"})).await,
        "parameter_invalid",
        "status",
    );
    let kinds = support::history_types(&same.json);
    assert_eq!(
        kinds,
        [
            "issued", "payment", "paid", "refund", "unpaid", "payment", "paid"
        ],
        "paid and unpaid record a payment and a refund"
    );
    assert_eq!(
        (
            events_of(&h, "invoice.paid").await,
            events_of(&h, "invoice.unpaid").await
        ),
        (2, 1)
    );
    assert_eq!(events_of(&h, "invoice.issued").await, 1);
    let missing = post(&h, "/api/v1/invoices/99/status", json!({"status": "paid"})).await;
    assert_error_shape(
        &missing,
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "resource_missing",
    );
    let not_a_number = send(&h.app, get("/api/v1/invoices/abc", Some(&h.live))).await;
    assert_eq!(not_a_number.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn cancelling_is_final_reverses_the_ledger_and_chains_an_anulacion() {
    let h = harness().await;
    issued(
        &h,
        json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!(1000), json!(21))]}),
    )
    .await;
    let r = post(
        &h,
        "/api/v1/invoices/1/cancel",
        json!({"reason": "Emitida por error"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["status"], "cancelled");
    let cancellation = &r.json["verifactu"]["cancellation"];
    assert_eq!(
        cancellation["IDFactura"]["NumSerieFacturaAnulada"],
        "F2026-000001"
    );
    assert_eq!(
        cancellation["Encadenamiento"]["RegistroAnterior"]["Huella"],
        r.json["verifactu"]["hash"]
    );
    assert_eq!(r.json["events"][1]["detail"], "Emitida por error");
    assert_eq!(events_of(&h, "invoice.cancelled").await, 1);
    for again in ["/api/v1/invoices/1/cancel"] {
        let r = post(&h, again, json!({})).await;
        assert_error_shape(
            &r,
            StatusCode::CONFLICT,
            "invalid_request_error",
            "invalid_state",
        );
    }
    let r = post(&h, "/api/v1/invoices/1/status", json!({"status": "paid"})).await;
    assert_eq!(r.code(), "invalid_state");
    let rectify = send(
        &h.app,
        post_json(
            "/api/v1/invoices/1/rectify",
            &h.live,
            Some("r1"),
            &json!({"reason_code": "R4", "method": "differences", "description": "x"}).to_string(),
        ),
    )
    .await;
    assert_eq!(rectify.code(), "invalid_state");

    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await;
    assert_eq!(
        num(&q.json["totals"]["base"]),
        0.0,
        "the cancellation reverses the entry"
    );
    let chain = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.live))).await;
    assert_eq!(
        (chain.json["status"].clone(), chain.json["records"].clone()),
        (json!("ok"), json!(2))
    );
}

#[tokio::test]
async fn rectifying_invoices_by_substitution_and_by_differences() {
    let h = harness().await;
    issued(
        &h,
        json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!(1000), json!(21))]}),
    )
    .await;
    let rectify = |idem: &str, body: Value| {
        let req = post_json(
            "/api/v1/invoices/1/rectify",
            &h.live,
            Some(idem),
            &body.to_string(),
        );
        send(&h.app, req)
    };
    let diff = rectify("d1", json!({"reason_code": "R1", "method": "differences", "description": "Descuento posterior",
        "lines": [{"description": "Descuento", "quantity": -1, "unit_price": 100, "vat_rate": 21}]})).await;
    assert_eq!(diff.status, StatusCode::CREATED, "{}", diff.json);
    assert_eq!(
        (diff.json["number"].clone(), diff.json["kind"].clone()),
        (json!("R2026-000001"), json!("R1"))
    );
    assert_eq!(
        (
            num(&diff.json["base"]),
            num(&diff.json["vat_amount"]),
            num(&diff.json["total"])
        ),
        (-100.0, -21.0, -106.0)
    );
    let record = &diff.json["verifactu"]["record"];
    assert_eq!(
        (
            record["TipoRectificativa"].clone(),
            record["ImporteTotal"].clone()
        ),
        (json!("I"), json!("-121.00"))
    );
    assert_eq!(
        record["FacturasRectificadas"]["IDFacturaRectificada"][0]["NumSerieFactura"],
        "F2026-000001"
    );
    assert_eq!(diff.json["rectifies"]["number"], "F2026-000001");

    let subst = rectify(
        "s1",
        json!({"reason_code": "R4", "method": "substitution", "description": "Importe corregido",
        "lines": [line(json!(800), json!(21))]}),
    )
    .await;
    assert_eq!(subst.status, StatusCode::CREATED, "{}", subst.json);
    assert_eq!(
        (subst.json["number"].clone(), num(&subst.json["total"])),
        (json!("R2026-000002"), 848.0)
    );
    // D7: the substitution replaces the invoice as the credit of 100 € left
    // it (900 € + 189 € VAT), and its record reports those amounts as the
    // ones rectified (art. 15 RD 1619/2012; AEAT record design,
    // ImporteRectificacion: the amounts of the invoice being replaced).
    let record = &subst.json["verifactu"]["record"];
    assert_eq!(record["TipoRectificativa"], "S");
    assert_eq!(record["ImporteRectificacion"]["BaseRectificada"], "900.00");
    assert_eq!(record["ImporteRectificacion"]["CuotaRectificada"], "189.00");
    assert_eq!(subst.json["rectifies"]["rectified_base"], 900.0);

    let original = send(&h.app, get("/api/v1/invoices/1", Some(&h.live)))
        .await
        .json;
    let by: Vec<_> = original["rectified_by"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["number"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(by, ["R2026-000001", "R2026-000002"]);
    assert_eq!(
        original["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "rectified")
            .count(),
        2
    );
    let again = rectify("s2", json!({"reason_code": "R4", "method": "substitution", "description": "x", "lines": [line(json!(1), json!(21))]})).await;
    assert_eq!(again.code(), "invalid_state");
    let cancel = post(&h, "/api/v1/invoices/1/cancel", json!({})).await;
    assert_eq!(
        cancel.code(),
        "invalid_state",
        "a rectified invoice is not cancelled"
    );

    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(
        num(&q["totals"]["base"]),
        800.0,
        "the ledger holds the differences: 1,000 − 100, then 800 − 900 (D7)"
    );
    assert_eq!(q["rectification_count"], 2);
    assert_eq!(events_of(&h, "invoice.issued").await, 3);

    bad(
        &rectify(
            "x1",
            json!({"reason_code": "R5", "method": "differences", "description": "x"}),
        )
        .await,
        "parameter_invalid",
        "reason_code",
    );
    bad(
        &rectify(
            "x2",
            json!({"reason_code": "R1", "method": "swap", "description": "x"}),
        )
        .await,
        "parameter_invalid",
        "method",
    );
    bad(
        &rectify(
            "x3",
            json!({"reason_code": "R1", "method": "substitution", "description": "x"}),
        )
        .await,
        "parameter_missing",
        "lines",
    );
    bad(
        &rectify(
            "x4",
            json!({"reason_code": "R1", "method": "differences", "description": ""}),
        )
        .await,
        "parameter_invalid",
        "description",
    );
    let no_key = send(
        &h.app,
        post_json("/api/v1/invoices/1/rectify", &h.live, None, "{}"),
    )
    .await;
    bad(&no_key, "idempotency_key_required", "Idempotency-Key");
    let of_rectifying = send(
        &h.app,
        post_json(
            "/api/v1/invoices/2/rectify",
            &h.live,
            Some("x5"),
            &json!({"reason_code": "R1", "method": "differences", "description": "x"}).to_string(),
        ),
    )
    .await;
    assert_eq!(of_rectifying.code(), "invalid_state");

    let f2 = issued(&h, json!({"lines": [line(json!(100), json!(21))]})).await;
    let path = format!("/api/v1/invoices/{}/rectify", f2["id"]);
    let r5 = send(
        &h.app,
        post_json(
            &path,
            &h.live,
            Some("r5"),
            &json!({"reason_code": "R5", "method": "differences", "description": "Devolución"})
                .to_string(),
        ),
    )
    .await;
    assert_eq!(
        (r5.status, r5.json["kind"].clone(), num(&r5.json["total"])),
        (StatusCode::CREATED, json!("R5"), -121.0)
    );
    assert!(
        r5.json["verifactu"]["record"]
            .get("Destinatarios")
            .is_none()
    );

    let mistaken = issued(
        &h,
        json!({"customer": customer(), "lines": [line(json!(5), json!(21))]}),
    )
    .await;
    let cancelled = post(
        &h,
        &format!("/api/v1/invoices/{}/cancel", mistaken["id"]),
        json!({}),
    )
    .await;
    assert_eq!(
        cancelled.status,
        StatusCode::OK,
        "issues, rectifications and a cancellation in one chain"
    );
    let chain = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.live))).await;
    assert_eq!(
        (chain.json["status"].clone(), chain.json["records"].clone()),
        (json!("ok"), json!(7))
    );
}

/// D6: a rectification by differences is checked against the invoice's
/// current amounts per rate group (arts. 80 and 89 Ley 37/1992, art. 15
/// RD 1619/2012): nothing is credited beyond what was charged, a credit of
/// the whole invoice credits what is left, and once nothing is left no
/// credit goes through.
#[tokio::test]
async fn rectifications_by_differences_never_credit_more_than_the_invoice() {
    let h = harness().await;
    issued(
        &h,
        json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!(1000), json!(21)), line(json!(500), json!(10))]}),
    )
    .await;
    let rectify = |body: Value| {
        let req = post_json(
            "/api/v1/invoices/1/rectify",
            &h.live,
            Some(&shared::ids::random_token(8)),
            &body.to_string(),
        );
        send(&h.app, req)
    };
    let credit = |price: i64, rate: i64| {
        json!({"reason_code": "R1", "method": "differences", "description": "Abono",
            "lines": [{"description": "Abono", "quantity": -1, "unit_price": price, "vat_rate": rate}]})
    };
    // The 10 % group charged 500 €: 600 € of it is refused although the
    // invoice's total (1,500 € of bases) would cover it.
    let beyond = rectify(credit(600, 10)).await;
    bad(&beyond, "rectification_exceeds_invoice", "lines");
    assert!(
        beyond.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("art. 15 RD 1619/2012"),
        "{}",
        beyond.json
    );
    // A rate the invoice never charged has nothing to credit.
    bad(
        &rectify(credit(10, 4)).await,
        "rectification_exceeds_invoice",
        "lines",
    );
    let partial = rectify(credit(400, 21)).await;
    assert_eq!(partial.status, StatusCode::CREATED, "{}", partial.json);
    // 600 € is left at 21 %: 601 € more is refused, checked against what is left.
    bad(
        &rectify(credit(601, 21)).await,
        "rectification_exceeds_invoice",
        "lines",
    );
    // The whole invoice: what is left, 600 € + 126 € and 500 € + 50 €, less
    // IRPF 15 % of 1,100 € = 165 € → −1,111 €.
    let rest =
        rectify(json!({"reason_code": "R1", "method": "differences", "description": "Anulación"}))
            .await;
    assert_eq!(rest.status, StatusCode::CREATED, "{}", rest.json);
    assert_eq!(
        (
            num(&rest.json["base"]),
            num(&rest.json["vat_amount"]),
            num(&rest.json["irpf_amount"]),
            num(&rest.json["total"])
        ),
        (-1100.0, -176.0, -165.0, -1111.0)
    );
    // Credited in full: neither a second full credit nor a cent more.
    bad(
        &rectify(json!({"reason_code": "R1", "method": "differences", "description": "Otra vez"}))
            .await,
        "rectification_exceeds_invoice",
        "method",
    );
    bad(
        &rectify(credit(1, 21)).await,
        "rectification_exceeds_invoice",
        "lines",
    );
    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(num(&q["totals"]["base"]), 0.0, "1,500 − 400 − 1,100");
}

#[tokio::test]
async fn the_chain_verifier_finds_a_tampered_record() {
    let h = harness().await;
    for _ in 0..3 {
        issued(
            &h,
            json!({"customer": customer(), "lines": [line(json!(10), json!(21))]}),
        )
        .await;
    }
    let chain = "CHAIN#live#12345678Z#RECORDS";
    let key = shared::ports::table::Key::new(chain, "000000000002");
    let item = h.ports.table.get(&key).await.unwrap().unwrap();
    let tampered = item
        .s("record")
        .unwrap()
        .replace("\"ImporteTotal\":\"12.10\"", "\"ImporteTotal\":\"1.21\"");
    h.ports
        .table
        .put(item.with("record", tampered), None)
        .await
        .unwrap();
    let r = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.live))).await;
    assert_eq!(r.json["status"], "broken", "{}", r.json);
    assert_eq!(
        (
            r.json["first_break"]["index"].clone(),
            r.json["first_break"]["number"].clone()
        ),
        (json!(1), json!("F2026-000002"))
    );
}

#[tokio::test]
async fn customers_are_an_address_book_and_invoices_keep_their_copy() {
    let h = harness().await;
    let created = post(&h, "/api/v1/customers", customer()).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let id = created.json["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("cus_"));
    let dup = post(
        &h,
        "/api/v1/customers",
        json!({"name": "Otro", "tax_id": "b-64717838"}),
    )
    .await;
    assert_error_shape(
        &dup,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "customer_exists",
    );
    assert!(dup.json["error"]["message"].as_str().unwrap().contains(&id));
    bad(
        &post(
            &h,
            "/api/v1/customers",
            json!({"name": "X", "tax_id": "12345678A"}),
        )
        .await,
        "parameter_invalid",
        "tax_id",
    );
    bad(
        &post(&h, "/api/v1/customers", json!({"tax_id": "12345678Z"})).await,
        "parameter_invalid",
        "name",
    );

    let inv = issued(
        &h,
        json!({"customer_id": id, "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    assert_eq!(
        (inv["customer"]["name"].clone(), inv["customer_id"].clone()),
        (json!("Taller Ana SL"), json!(id))
    );

    let patch = axum::http::Request::patch(format!("/api/v1/customers/{id}"))
        .header("authorization", format!("Bearer {}", h.live))
        .header("content-type", "application/json")
        .body(axum::body::Body::from(
            json!({"name": "Taller Ana y Luis SL"}).to_string(),
        ))
        .unwrap();
    let patched = send(&h.app, patch).await;
    assert_eq!(
        (patched.status, patched.json["name"].clone()),
        (StatusCode::OK, json!("Taller Ana y Luis SL"))
    );
    let list = send(&h.app, get("/api/v1/customers?limit=1", Some(&h.live))).await;
    assert_eq!(
        (
            list.json["object"].clone(),
            list.json["data"].as_array().unwrap().len()
        ),
        (json!("list"), 1)
    );
    bad(
        &send(&h.app, get("/api/v1/customers?limit=0", Some(&h.live))).await,
        "parameter_invalid",
        "limit",
    );

    let delete = axum::http::Request::delete(format!("/api/v1/customers/{id}"))
        .header("authorization", format!("Bearer {}", h.live))
        .body(axum::body::Body::empty())
        .unwrap();
    assert_eq!(send(&h.app, delete).await.status, StatusCode::OK);
    assert_eq!(
        send(
            &h.app,
            get(&format!("/api/v1/customers/{id}"), Some(&h.live))
        )
        .await
        .status,
        StatusCode::NOT_FOUND
    );
    let kept = send(&h.app, get("/api/v1/invoices/1", Some(&h.live))).await;
    assert_eq!(
        kept.json["customer"]["name"], "Taller Ana SL",
        "the invoice keeps its own copy"
    );
    let again = post(&h, "/api/v1/customers", customer()).await;
    assert_eq!(
        again.status,
        StatusCode::CREATED,
        "the tax id is free again after deletion"
    );
}

#[tokio::test]
async fn the_tax_tools_read_the_ledger_that_issuing_writes() {
    let h = harness().await;
    issued(
        &h,
        json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!(1000), json!(21))]}),
    )
    .await;
    issued(&h, json!({"customer": customer(), "equivalence_surcharge": true, "lines": [line(json!(500), json!(10))]})).await;
    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(q["invoice_count"], 2);
    assert_eq!(
        q["vat"],
        json!([{"rate": 21.0, "base": 1000.0, "amount": 210.0}, {"rate": 10.0, "base": 500.0, "amount": 50.0}])
    );
    assert_eq!(
        q["surcharge"],
        json!([{"rate": 1.4, "base": 500.0, "amount": 7.0}])
    );
    assert_eq!(num(&q["totals"]["irpf_withheld"]), 150.0);
    let m = post(
        &h,
        "/api/v1/tax/model-130",
        json!({"year": 2026, "quarter": 4, "expenses": 0, "previous_payments": 0}),
    )
    .await;
    assert_eq!(m.json["income_source"], "ledger");
    let boxes: Vec<(String, f64)> = m.json["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["box"].as_str().unwrap().into(), num(&b["value"])))
        .collect();
    assert!(
        boxes.contains(&("01".into(), 1500.0)) && boxes.contains(&("06".into(), 150.0)),
        "{boxes:?}"
    );
}

#[tokio::test]
async fn test_keys_never_touch_the_live_counter_chain_or_ledger() {
    let h = harness().await;
    let t = issue_with(
        &h,
        &h.test,
        "t1",
        json!({"customer": customer(), "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    assert_eq!(t.status, StatusCode::CREATED, "{}", t.json);
    assert_eq!(
        (t.json["number"].clone(), t.json["livemode"].clone()),
        (json!("TEST-F2026-000001"), json!(false))
    );
    assert!(
        t.json["verifactu"]["qr_url"]
            .as_str()
            .unwrap()
            .starts_with("https://prewww2.aeat.es/")
    );
    let live = issued(
        &h,
        json!({"customer": customer(), "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    assert_eq!(
        live["number"], "F2026-000001",
        "the live counter is untouched"
    );
    assert_eq!(
        live["verifactu"]["record"]["Encadenamiento"]["PrimerRegistro"], "S",
        "the live chain is untouched"
    );
    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(
        q["invoice_count"], 1,
        "test invoices never reach the ledger"
    );
    let from_live = send(
        &h.app,
        get(&format!("/api/v1/invoices/{}", t.json["id"]), Some(&h.live)),
    )
    .await;
    assert_eq!(
        from_live.json["number"], "F2026-000001",
        "ids are per space: live id 1 is the live invoice"
    );
}

#[tokio::test]
async fn another_account_cannot_see_an_invoice() {
    let h = harness().await;
    issued(
        &h,
        json!({"customer": customer(), "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    let other = accounts::create(&h.ports, "B", Plan::Pro, None)
        .await
        .unwrap();
    let (_, key) =
        shared::app::keys::create(&h.ports, &other.id, shared::domain::account::Mode::Live)
            .await
            .unwrap();
    let r = send(&h.app, get("/api/v1/invoices/1", Some(&key.reveal()))).await;
    assert_error_shape(
        &r,
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "resource_missing",
    );
    let r = send(
        &h.app,
        post_json("/api/v1/invoices/1/cancel", &key.reveal(), None, "{}"),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn lists_page_newest_first_with_filters() {
    let h = harness().await;
    for price in [10, 20, 30, 40, 50] {
        issued(
            &h,
            json!({"customer": customer(), "lines": [line(json!(price), json!(21))]}),
        )
        .await;
    }
    post(&h, "/api/v1/invoices/2/status", json!({"status": "paid"})).await;
    let first = send(&h.app, get("/api/v1/invoices?limit=2", Some(&h.live)))
        .await
        .json;
    let ids: Vec<_> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].clone())
        .collect();
    assert_eq!(
        (ids, first["has_more"].clone()),
        (vec![json!(5), json!(4)], json!(true))
    );
    let next = send(
        &h.app,
        get("/api/v1/invoices?limit=10&starting_after=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(next["data"].as_array().unwrap().len(), 3);
    assert_eq!(next["has_more"], false);
    for beyond in ["0", "9223372036854775808", "18446744073709551616", "-1"] {
        bad(
            &send(
                &h.app,
                get(
                    &format!("/api/v1/invoices?starting_after={beyond}"),
                    Some(&h.live),
                ),
            )
            .await,
            "parameter_invalid",
            "starting_after",
        );
    }
    let paid = send(&h.app, get("/api/v1/invoices?status=paid", Some(&h.live)))
        .await
        .json;
    assert_eq!(paid["data"].as_array().unwrap().len(), 1);
    let none = send(
        &h.app,
        get(
            "/api/v1/invoices?kind=R1&from=2026-01-01&to=2026-12-31",
            Some(&h.live),
        ),
    )
    .await
    .json;
    assert_eq!(none["data"].as_array().unwrap().len(), 0);
    bad(
        &send(&h.app, get("/api/v1/invoices?status=lost", Some(&h.live))).await,
        "parameter_invalid",
        "status",
    );
    bad(
        &send(&h.app, get("/api/v1/invoices?kind=F9", Some(&h.live))).await,
        "parameter_invalid",
        "kind",
    );
    bad(
        &send(
            &h.app,
            get(
                "/api/v1/invoices?from=2026-02-01&to=2026-01-01",
                Some(&h.live),
            ),
        )
        .await,
        "parameter_invalid",
        "to",
    );
    bad(
        &send(&h.app, get("/api/v1/invoices?limit=101", Some(&h.live))).await,
        "parameter_invalid",
        "limit",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_issues_are_numbered_1_to_200_without_gaps() {
    let h = harness().await;
    let tasks: Vec<_> = (0..200)
        .map(|i| {
            let app = h.app.clone();
            let live = h.live.clone();
            tokio::spawn(async move {
                let body = json!({"customer": customer(), "irpf_rate": 15, "lines": [line(json!(10 + i), json!(21))]});
                send(&app, post_json("/api/v1/invoices", &live, Some(&format!("k{i}")), &body.to_string())).await
            })
        })
        .collect();
    let mut numbers = Vec::new();
    let mut total = 0.0;
    for task in tasks {
        let r = task.await.unwrap();
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
        numbers.push(r.json["number"].as_str().unwrap().to_string());
        total += num(&r.json["total"]);
    }
    numbers.sort();
    let expected: Vec<String> = (1..=200).map(|n| format!("F2026-{n:06}")).collect();
    assert_eq!(numbers, expected);
    let chain = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.live)))
        .await
        .json;
    assert_eq!(
        (chain["status"].clone(), chain["records"].clone()),
        (json!("ok"), json!(200))
    );
    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(q["invoice_count"], 200);
    assert!(
        (num(&q["totals"]["total"]) - total).abs() < 1e-6,
        "ledger sums equal invoice sums"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_concurrent_requests_with_one_key_issue_one_invoice() {
    let h = harness().await;
    let body = json!({"customer": customer(), "lines": [line(json!(99), json!(21))]}).to_string();
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let (app, live, body) = (h.app.clone(), h.live.clone(), body.clone());
            tokio::spawn(async move {
                send(
                    &app,
                    post_json("/api/v1/invoices", &live, Some("the-one"), &body),
                )
                .await
            })
        })
        .collect();
    let mut bodies = HashSet::new();
    for task in tasks {
        let r = task.await.unwrap();
        match r.status {
            StatusCode::CREATED => {
                bodies.insert(r.json.to_string());
            }
            StatusCode::CONFLICT => assert_eq!(r.code(), "idempotency_key_in_use"),
            other => panic!("unexpected {other}: {}", r.json),
        }
    }
    assert_eq!(bodies.len(), 1, "every success is the same response");
    let list = send(&h.app, get("/api/v1/invoices", Some(&h.live)))
        .await
        .json;
    assert_eq!(
        list["data"].as_array().unwrap().len(),
        1,
        "exactly one invoice"
    );
}

/// D10, D11, D23: combinations the law refuses, each a 400 naming the field
/// and the article.
#[tokio::test]
async fn full_invoices_name_the_address_e5_goes_abroad_in_the_eu_and_surcharge_excludes_irpf() {
    let h = harness().await;
    let zero = |code: &str| json!({"description": "Mercancía", "quantity": 1, "unit_price": 100, "vat_rate": 0, "exemption": code});
    let message = |r: &Reply| r.json["error"]["message"].as_str().unwrap().to_string();
    // D10: art. 6.1.e RD 1619/2012, the customer's address on a full invoice.
    let no_address = issue(
        &h,
        json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838"}, "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    bad(&no_address, "parameter_missing", "customer.address");
    assert!(message(&no_address).contains("art. 6.1.e RD 1619/2012"));
    // D11: art. 25 Ley 37/1992, E5 only to a business in another member state.
    let french = json!({"name": "Atelier SARL", "tax_id": "FR40303265045", "address": "1 rue de la Paix",
        "postal_code": "75002", "city": "Paris", "country": "FR"});
    let us = json!({"name": "Acme Inc", "tax_id": "123456789", "address": "1 Main St", "city": "Austin", "country": "US"});
    for customer in [customer(), us] {
        let r = issue(&h, json!({"customer": customer, "lines": [zero("E5")]})).await;
        bad(&r, "exemption_not_applicable", "lines[0].exemption");
        assert!(message(&r).contains("art. 25 Ley 37/1992"), "{}", r.json);
    }
    let intra = issue(&h, json!({"customer": french, "lines": [zero("E5")]})).await;
    assert_eq!(intra.status, StatusCode::CREATED, "{}", intra.json);
    // D23: arts. 148 and 154 Ley 37/1992 (goods to a retailer) against
    // art. 101 Ley 35/2006 (withholding on professional income).
    let both = issue(
        &h,
        json!({"customer": customer(), "equivalence_surcharge": true, "irpf_rate": 15, "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    bad(&both, "surcharge_with_withholding", "irpf_rate");
    assert!(message(&both).contains("154 Ley 37/1992"), "{}", both.json);
}

/// D14, D19: where the law leaves room the invoice is issued with warnings
/// naming the field and the article.
#[tokio::test]
async fn long_b2b_terms_and_r2_r3_dates_are_warned_about() {
    let h = harness().await;
    // Ley 3/2004 art. 4.3: between businesses, at most 60 days from the
    // operation (here 2026-10-01; the harness's today is 2026-11-21).
    let late = issued(
        &h,
        json!({"customer": customer(), "operation_date": "2026-10-01", "due_date": "2026-12-01",
            "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    assert_eq!(
        late["warnings"],
        json!([{"code": "payment_term_over_60_days", "param": "due_date",
            "message": late["warnings"][0]["message"]}])
    );
    assert!(
        late["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("art. 4.3 Ley 3/2004")
    );
    let in_time = issued(
        &h,
        json!({"customer": customer(), "due_date": "2027-01-20", "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    assert!(in_time.get("warnings").is_none(), "{in_time}");
    let split = issued(
        &h,
        json!({"customer": customer(), "due_dates": [{"date": "2026-12-01", "amount": 60}, {"date": "2027-02-01", "amount": 61}],
            "lines": [line(json!(100), json!(21))]}),
    )
    .await;
    assert_eq!(split["warnings"][0]["param"], "due_dates[1].date");

    // Art. 80.Cuatro Ley 37/1992: a bad debt is rectified no earlier than
    // six months after the VAT accrued; the invoice of 2026-10-01 is too recent.
    let rectify = |id: &Value, code: &str| {
        let path = format!("/api/v1/invoices/{id}/rectify");
        let body = json!({"reason_code": code, "method": "differences", "description": "Impago"});
        let idem = shared::ids::random_token(8);
        let app = h.app.clone();
        let key = h.live.clone();
        async move { send(&app, post_json(&path, &key, Some(&idem), &body.to_string())).await }
    };
    let r3 = rectify(&late["id"], "R3").await;
    assert_eq!(r3.status, StatusCode::CREATED, "{}", r3.json);
    assert_eq!(r3.json["warnings"][0]["code"], "r3_too_early");
    assert_eq!(r3.json["warnings"][0]["param"], "reason_code");
    assert!(
        r3.json["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("art. 80.Cuatro")
    );
    let r2 = rectify(&in_time["id"], "R2").await;
    assert_eq!(
        r2.json["warnings"][0]["code"], "r2_conditions",
        "{}",
        r2.json
    );
}

/// D21: tobacco carries a 1.75 % surcharge (art. 161 Ley 37/1992); D22: the
/// Ceuta and Melilla professional withholding, 15 % and 7 % reduced by 60 %
/// (art. 68.4 Ley 35/2006), is an IRPF rate.
#[tokio::test]
async fn tobacco_surcharge_and_ceuta_melilla_withholding_can_be_issued() {
    let h = harness().await;
    let tobacco = issued(
        &h,
        json!({"customer": customer(), "equivalence_surcharge": true, "lines": [
            {"description": "Cigarrillos", "quantity": 1, "unit_price": 100, "vat_rate": 21, "tobacco": true},
            line(json!(100), json!(21))]}),
    )
    .await;
    let rates: Vec<f64> = tobacco["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| num(&l["surcharge_rate"]))
        .collect();
    assert_eq!(rates, [1.75, 5.2]);
    assert_eq!(num(&tobacco["surcharge_amount"]), 1.75 + 5.2);
    for (rate, withheld) in [(6.0, 60.0), (2.8, 28.0)] {
        let inv = issued(
            &h,
            json!({"customer": customer(), "irpf_rate": rate, "lines": [line(json!(1000), json!(21))]}),
        )
        .await;
        assert_eq!(num(&inv["irpf_amount"]), withheld);
    }
    bad(
        &issue(&h, json!({"customer": customer(), "irpf_rate": 7.5, "lines": [line(json!(1000), json!(21))]})).await,
        "parameter_invalid",
        "irpf_rate",
    );
}
