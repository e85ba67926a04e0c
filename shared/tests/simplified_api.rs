//! Simplified invoices over HTTP, in-process on the embedded engine:
//! tickets with prices that include VAT, qualified simplified invoices
//! (art. 7.2/7.3), full invoices without the customer's identification
//! (art. 6.1.d), full invoices replacing tickets (F3) and rectifications
//! of tickets (R5), with what their VERI*FACTU records say.

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::domain::account::Plan;
use support::{Harness, Reply, get, post_json, send};

async fn harness() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    h
}

fn customer() -> Value {
    json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"})
}

fn item(description: &str, quantity: u32, price: f64, rate: u32) -> Value {
    json!({"description": description, "quantity": quantity, "unit_price": price, "vat_rate": rate})
}

async fn post(h: &Harness, path: &str, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    send(
        &h.app,
        post_json(path, &h.live, Some(&idem), &body.to_string()),
    )
    .await
}

async fn created(h: &Harness, path: &str, body: Value) -> Value {
    let r = post(h, path, body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[tokio::test]
async fn a_ticket_with_prices_that_include_vat_adds_up_to_them() {
    let h = harness().await;
    let ticket = created(
        &h,
        "/api/v1/invoices",
        json!({"prices_include_vat": true, "lines": [
            item("Chicle", 3, 0.10, 21), item("Pan", 2, 1.25, 10)]}),
    )
    .await;
    assert_eq!(
        (
            ticket["kind"].clone(),
            ticket["number"].clone(),
            ticket["prices_include_vat"].clone()
        ),
        (json!("F2"), json!("S2026-000001"), json!(true))
    );
    assert_eq!(num(&ticket["total"]), 2.80, "0.30 + 2.50 as printed");
    let groups: Vec<(f64, f64, f64)> = ticket["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (num(&g["vat_rate"]), num(&g["base"]), num(&g["vat_amount"])))
        .collect();
    assert_eq!(groups, [(21.0, 0.25, 0.05), (10.0, 2.27, 0.23)]);
    let first = &ticket["lines"][0];
    assert_eq!(num(&first["unit_price_with_vat"]), 0.10);
    assert_eq!(
        num(&first["unit_price"]),
        0.083333,
        "0.25 / 3 units, to 6 decimals"
    );
    assert_eq!(ticket["verifactu"]["record"]["ImporteTotal"], "2.80");

    let r5 = created(
        &h,
        &format!("/api/v1/invoices/{}/rectify", ticket["id"]),
        json!({"reason_code": "R5", "method": "differences", "description": "Devolución"}),
    )
    .await;
    assert_eq!(
        (
            r5["number"].clone(),
            num(&r5["total"]),
            r5["prices_include_vat"].clone()
        ),
        (json!("RS2026-000001"), -2.80, json!(true)),
        "the whole ticket credited, to the cent"
    );

    let surcharge = post(
        &h,
        "/api/v1/invoices",
        json!({"prices_include_vat": true, "equivalence_surcharge": true, "customer": customer(),
            "lines": [item("Pan", 1, 1.0, 10)]}),
    )
    .await;
    assert_eq!(
        (surcharge.status, surcharge.code(), surcharge.param()),
        (
            StatusCode::BAD_REQUEST,
            "parameter_invalid",
            "prices_include_vat"
        )
    );
    let over = post(
        &h,
        "/api/v1/invoices",
        json!({"prices_include_vat": true, "lines": [item("Tele", 1, 400.01, 21)]}),
    )
    .await;
    assert_eq!(over.code(), "customer_required", "{}", over.json);
    assert_eq!(
        post(
            &h,
            "/api/v1/invoices",
            json!({"prices_include_vat": true, "lines": [item("Tele", 1, 400.0, 21)]})
        )
        .await
        .status,
        StatusCode::CREATED,
        "400 € with VAT is within the limit"
    );
}

#[tokio::test]
async fn a_qualified_simplified_invoice_names_the_customer_in_a_simplified_series() {
    let h = harness().await;
    let inv = created(
        &h,
        "/api/v1/invoices",
        json!({"simplified": true, "customer": customer(), "lines": [item("Menú", 2, 12.0, 10)]}),
    )
    .await;
    assert_eq!(
        (
            inv["kind"].clone(),
            inv["number"].clone(),
            inv["qualified_simplified"].clone(),
            inv["series"].clone()
        ),
        (json!("F1"), json!("S2026-000001"), json!(true), json!("S"))
    );
    let record = &inv["verifactu"]["record"];
    assert_eq!(record["FacturaSimplificadaArt7273"], "S");
    assert!(
        record["Destinatarios"]
            .to_string()
            .contains("\"NIF\":\"B64717838\""),
        "{record}"
    );
    let pdf = send(
        &h.app,
        get(
            &format!("/api/v1/invoices/{}/pdf", inv["id"]),
            Some(&h.live),
        ),
    )
    .await;
    assert_eq!(pdf.status, StatusCode::OK);

    let over = post(
        &h,
        "/api/v1/invoices",
        json!({"simplified": true, "customer": customer(), "lines": [item("Menú", 40, 12.0, 10)]}),
    )
    .await;
    assert_eq!(
        (over.code(), over.param()),
        ("parameter_invalid", "simplified")
    );
    let mut addressless = customer();
    addressless.as_object_mut().unwrap().remove("address");
    let r = post(
        &h,
        "/api/v1/invoices",
        json!({"simplified": true, "customer": addressless, "lines": [item("Menú", 1, 12.0, 10)]}),
    )
    .await;
    assert_eq!(
        (r.code(), r.param()),
        ("parameter_missing", "customer.address")
    );

    let rectified = created(
        &h,
        &format!("/api/v1/invoices/{}/rectify", inv["id"]),
        json!({"reason_code": "R1", "method": "differences", "description": "Menú no servido"}),
    )
    .await;
    assert_eq!(
        rectified["number"], "R2026-000001",
        "named customer: rectified as a full invoice"
    );
}

#[tokio::test]
async fn a_full_invoice_goes_without_the_customers_tax_id_only_for_operations_abroad() {
    let h = harness().await;
    let abroad =
        json!({"name": "Jane Roe", "address": "1 Main St", "city": "Austin", "country": "US"});
    let inv = created(
        &h,
        "/api/v1/invoices",
        json!({"simplified": false, "customer": abroad,
            "lines": [{"description": "Consultoría", "quantity": 1, "unit_price": 2000, "vat_rate": 0, "exemption": "N2"}]}),
    )
    .await;
    assert_eq!(
        (
            inv["kind"].clone(),
            inv["number"].clone(),
            inv["without_recipient_id"].clone()
        ),
        (json!("F2"), json!("F2026-000001"), json!(true))
    );
    let record = &inv["verifactu"]["record"];
    assert_eq!(record["FacturaSinIdentifDestinatarioArt61d"], "S");
    assert!(record.get("Destinatarios").is_none());
    let taxed = post(
        &h,
        "/api/v1/invoices",
        json!({"simplified": false, "customer": abroad, "lines": [item("Consultoría", 1, 2000.0, 21)]}),
    )
    .await;
    assert_eq!(
        (taxed.code(), taxed.param()),
        ("customer_required", "customer.tax_id")
    );
}

#[tokio::test]
async fn a_full_invoice_replaces_tickets_which_then_name_it() {
    let h = harness().await;
    let t1 = created(
        &h,
        "/api/v1/invoices",
        json!({"lines": [item("Tornillos", 10, 0.5, 21)]}),
    )
    .await;
    let t2 = created(
        &h,
        "/api/v1/invoices",
        json!({"lines": [item("Taladro", 1, 80.0, 21), item("Libro", 1, 20.0, 4)]}),
    )
    .await;
    let f3 = created(
        &h,
        "/api/v1/invoices",
        json!({"customer": customer(), "replaces": [t1["id"], t2["id"]]}),
    )
    .await;
    assert_eq!(
        (
            f3["kind"].clone(),
            f3["number"].clone(),
            f3["lines"].as_array().unwrap().len()
        ),
        (json!("F3"), json!("F2026-000001"), 3)
    );
    assert!((num(&f3["total"]) - num(&t1["total"]) - num(&t2["total"])).abs() < 1e-9);
    assert_eq!(f3["replaces"][1]["number"], "S2026-000002");
    let replaced = &f3["verifactu"]["record"]["FacturasSustituidas"]["IDFacturaSustituida"];
    assert_eq!(replaced[0]["NumSerieFactura"], "S2026-000001", "{replaced}");
    assert_eq!(replaced[1]["NumSerieFactura"], "S2026-000002");

    let ticket = send(
        &h.app,
        get(&format!("/api/v1/invoices/{}", t1["id"]), Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(ticket["replaced_by"]["number"], "F2026-000001");
    assert_eq!(
        ticket["events"].as_array().unwrap().last().unwrap()["type"],
        "replaced"
    );

    let again = post(
        &h,
        "/api/v1/invoices",
        json!({"customer": customer(), "replaces": [t1["id"]]}),
    )
    .await;
    assert_eq!(
        (again.code(), again.param()),
        ("parameter_invalid", "replaces"),
        "{}",
        again.json
    );
    let with_lines = post(
        &h,
        "/api/v1/invoices",
        json!({"customer": customer(), "replaces": [999], "lines": [item("x", 1, 1.0, 21)]}),
    )
    .await;
    assert_eq!(with_lines.param(), "replaces");
    let anonymous = created(
        &h,
        "/api/v1/invoices",
        json!({"lines": [item("Clavos", 1, 2.0, 21)]}),
    )
    .await;
    let nameless = post(
        &h,
        "/api/v1/invoices",
        json!({"replaces": [anonymous["id"]]}),
    )
    .await;
    assert_eq!(nameless.code(), "customer_required");
    let cancel = post(
        &h,
        &format!("/api/v1/invoices/{}/cancel", t1["id"]),
        json!({}),
    )
    .await;
    assert_eq!(
        (cancel.status, cancel.code()),
        (StatusCode::CONFLICT, "invalid_state")
    );
    let rectify = post(
        &h,
        &format!("/api/v1/invoices/{}/rectify", t2["id"]),
        json!({"reason_code": "R5", "method": "differences", "description": "x"}),
    )
    .await;
    assert_eq!(rectify.code(), "invalid_state", "{}", rectify.json);

    let quarter = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    let sold = num(&t1["total"]) + num(&t2["total"]) + num(&anonymous["total"]);
    assert!(
        (num(&quarter["totals"]["total"]) - sold).abs() < 1e-6,
        "the tickets' VAT is declared once: {quarter}"
    );
    let chain = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.live))).await;
    assert_eq!(chain.json["status"], "ok");
}

/// D9: art. 4.4 RD 1619/2012 reserves intra-EU supplies (E5), operations
/// located abroad (N2) and reverse charge (S2) to full invoices: neither a
/// ticket, nor a qualified simplified invoice, nor an R5 carries them.
#[tokio::test]
async fn simplified_invoices_carry_no_intra_eu_abroad_or_reverse_charge_lines() {
    let h = harness().await;
    let zero = |code: &str| json!({"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 0, "exemption": code});
    for code in ["E5", "N2", "S2"] {
        let ticket = post(
            &h,
            "/api/v1/invoices",
            json!({"lines": [item("Pan", 1, 1.0, 4), zero(code)]}),
        )
        .await;
        assert_eq!(
            (ticket.status, ticket.code(), ticket.param()),
            (
                StatusCode::BAD_REQUEST,
                "simplified_invoice_not_allowed",
                "lines[1].exemption"
            ),
            "{code}: {}",
            ticket.json
        );
        assert!(
            ticket.json["error"]["message"]
                .as_str()
                .unwrap()
                .contains("art. 4.4 RD 1619/2012")
        );
        let qualified = post(
            &h,
            "/api/v1/invoices",
            json!({"simplified": true, "customer": customer(), "lines": [zero(code)]}),
        )
        .await;
        assert_eq!(
            qualified.code(),
            "simplified_invoice_not_allowed",
            "{code}: {}",
            qualified.json
        );
    }
    let ticket = created(
        &h,
        "/api/v1/invoices",
        json!({"lines": [item("Pan", 1, 10.0, 4)]}),
    )
    .await;
    let r5 = post(
        &h,
        &format!("/api/v1/invoices/{}/rectify", ticket["id"]),
        json!({"reason_code": "R5", "method": "differences", "description": "Cambio",
            "lines": [{"description": "Servicio", "quantity": -1, "unit_price": 1, "vat_rate": 0, "exemption": "S2"}]}),
    )
    .await;
    assert_eq!(
        (r5.code(), r5.param()),
        ("simplified_invoice_not_allowed", "lines[0].exemption"),
        "{}",
        r5.json
    );
}
