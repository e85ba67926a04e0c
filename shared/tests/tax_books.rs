//! Modelos 303, 130, 111 and 115 from both books, against a quarter worked
//! out by hand: two issued invoices and seven expenses (professional fees
//! with IRPF withheld, a car's fuel at 50 %, goods with equivalence
//! surcharge, an intra-EU service, rent with IRPF withheld, a laptop as a
//! capital good, a supplier's credit note) and a draft that does not count.

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::domain::account::Plan;
use support::boxes::{assert_boxes, box_value as value, post_ok as post};
use support::{Harness, get, post_json, send};

fn expense(supplier: &str, nif: &str, number: &str, date: &str, rest: Value) -> Value {
    let mut body = json!({"supplier_name": supplier, "supplier_tax_id": nif,
        "number": number, "issue_date": date});
    for (k, v) in rest.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

async fn quarter(h: &Harness) {
    let customer = json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"});
    post(
        h,
        "/api/v1/invoices",
        json!({"customer": customer, "issue_date": "2026-10-14", "irpf_rate": 15,
        "lines": [{"description": "Proyecto", "quantity": 1, "unit_price": 3000, "vat_rate": 21}]}),
    )
    .await;
    post(
        h,
        "/api/v1/invoices",
        json!({"customer": customer, "issue_date": "2026-11-03",
        "lines": [{"description": "Soporte", "quantity": 1, "unit_price": 500, "vat_rate": 21}]}),
    )
    .await;
    for body in [
        expense(
            "Gestoría López SL",
            "B12345674",
            "G-412",
            "2026-10-05",
            json!({
            "category": "professional_services", "irpf_rate": 15, "paid_date": "2026-10-20",
            "lines": [{"rate": 21, "base": 200}]}),
        ),
        expense(
            "Gasolinera Sol SL",
            "B64717838",
            "T-88812",
            "2026-10-20",
            json!({
            "category": "vehicle", "expense_deductible_percent": 50,
            "lines": [{"rate": 21, "base": 60.50}]}),
        ),
        expense(
            "Mayorista Norte SA",
            "A28017895",
            "M-77",
            "2026-11-02",
            json!({
            "category": "goods",
            "lines": [{"rate": 21, "base": 100, "surcharge_rate": 5.2}]}),
        ),
        expense(
            "Cloud Tools Ltd",
            "IE6388047V",
            "CT-2026-11",
            "2026-11-10",
            json!({
            "supplier_country": "IE", "treatment": "intra_eu_services", "category": "software",
            "lines": [{"rate": 21, "base": 50}]}),
        ),
        expense(
            "Inmuebles Centro SL",
            "B10000024",
            "R-10",
            "2026-10-01",
            json!({
            "category": "rent", "irpf_rate": 19, "paid_date": "2026-10-01",
            "lines": [{"rate": 21, "base": 800}]}),
        ),
        expense(
            "Tienda Informática SL",
            "B12345674",
            "L-9",
            "2026-11-15",
            json!({
            "category": "equipment", "capital_good": true, "expense_deductible_percent": 0,
            "lines": [{"rate": 21, "base": 1200}]}),
        ),
        expense(
            "Gestoría López SL",
            "B12345674",
            "G-412-R",
            "2026-11-12",
            json!({
            "category": "professional_services",
            "lines": [{"rate": 21, "base": -50}]}),
        ),
        expense(
            "Proveedor Pendiente SL",
            "B64717838",
            "D-1",
            "2026-11-01",
            json!({
            "status": "draft", "lines": [{"rate": 21, "base": 1000}]}),
        ),
    ] {
        post(h, "/api/v1/expenses", body).await;
    }
}

#[tokio::test]
async fn modelo_303_130_111_and_115_equal_the_quarter_worked_by_hand() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    quarter(&h).await;

    let m303 = post(
        &h,
        "/api/v1/tax/model-303",
        json!({"year": 2026, "quarter": 4, "carried_forward": 100}),
    )
    .await
    .json;
    assert_boxes(
        &m303["boxes"],
        &[
            // Output: 3,000 + 500 at 21 % → quota 630 + 105 = 735.
            ("07", 3500.0),
            ("09", 735.0),
            // The Irish service, self-assessed: 50 × 21 % = 10.50.
            ("10", 50.0),
            ("11", 10.5),
            ("12", 0.0),
            // 27 = 735 + 10.50.
            ("27", 745.5),
            // Deducted, domestic current goods and services:
            //   fees 200 / 42 (all of it);
            //   fuel: 60.50 × 21 % = 12.705 → 12.71; 50 % → base 30.25, quota 6.355 → 6.36;
            //   goods with surcharge: nothing (LIVA art. 154.Dos);
            //   rent 800 / 168.
            // Base 200 + 30.25 + 800 = 1,030.25; quota 42 + 6.36 + 168 = 216.36.
            ("28", 1030.25),
            ("29", 216.36),
            // The self-assessed Irish service: 36/37, "adquisiciones
            // intracomunitarias de bienes y servicios" (2026 form; OCA map
            // 2024-10 line 36, p_iva21_sp_in).
            ("36", 50.0),
            ("37", 10.5),
            // The laptop, a capital good: 1,200 / 252.
            ("30", 1200.0),
            ("31", 252.0),
            // The supplier's credit note: −50 / −10.50.
            ("40", -50.0),
            ("41", -10.5),
            // 45 = 226.86 + 252 − 10.50 = 468.36; 46 = 745.50 − 468.36 = 277.14.
            ("45", 468.36),
            ("46", 277.14),
            // 100 carried from earlier quarters, all applied: 71 = 277.14 − 100.
            ("110", 100.0),
            ("78", 100.0),
            ("87", 0.0),
            ("71", 177.14),
        ],
    );
    assert_eq!(m303["result"], json!(177.14));
    assert_eq!(m303["outcome"], "pay");
    assert_eq!(m303["invoices"].as_array().unwrap().len(), 2);
    let counted = m303["expenses"].as_array().unwrap();
    assert_eq!(counted.len(), 7, "the draft is not counted");
    let fuel = counted.iter().find(|e| e["number"] == "T-88812").unwrap();
    assert_eq!(
        (fuel["boxes"].clone(), fuel["deductible_vat"].clone()),
        (json!(["28", "29"]), json!(6.36))
    );
    assert!(
        m303["notes"].to_string().contains("draft"),
        "{}",
        m303["notes"]
    );

    let m130 = post(
        &h,
        "/api/v1/tax/model-130",
        json!({"year": 2026, "quarter": 4, "direct_estimation": "normal"}),
    )
    .await
    .json;
    assert_eq!(
        (
            m130["income_source"].clone(),
            m130["expenses_source"].clone(),
            m130["withholdings_source"].clone()
        ),
        (json!("ledger"), json!("book"), json!("ledger"))
    );
    assert_boxes(
        &m130["boxes"],
        &[
            // Income: the bases issued this year, 3,000 + 500.
            ("01", 3500.0),
            // Deductible cost (bases + VAT not deducted, × the expense share):
            //   fees 200;
            //   fuel (60.50 + 12.71 − 6.36) × 50 % = 33.425 → 33.43;
            //   goods 100 + 21 + 5.20 = 126.20 (nothing deducted, all cost);
            //   the service 50 (its VAT deducted in full);
            //   rent 800; the laptop 0 (its IRPF share is 0, so its amortisation is 0);
            //   the credit note −50 − 10.50 + 10.50 = −50.
            // 200 + 33.43 + 126.20 + 50 + 800 + 0 − 50 = 1,159.63.
            ("02", 1159.63),
            // 03 = 3,500 − 1,159.63 = 2,340.37; 04 = 20 % = 468.074, truncated.
            ("03", 2340.37),
            ("04", 468.07),
            // IRPF withheld by the customer: 3,000 × 15 % = 450.
            ("06", 450.0),
            // 07 = 468.07 − 450.
            ("07", 18.07),
            ("19", 18.07),
        ],
    );
    // Six current expenses, and the laptop among the capital goods amortised.
    assert_eq!(m130["expenses"].as_array().unwrap().len(), 6);
    assert_eq!(m130["amortisation"].as_array().unwrap().len(), 1);
    assert_eq!(m130["invoices"].as_array().unwrap().len(), 2);

    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    // Modelo 111: the fees' IRPF, 200 × 15 % = 30 (the credit note withheld nothing).
    assert_boxes(
        &q["model_111"],
        &[("07", 1.0), ("08", 200.0), ("09", 30.0), ("30", 30.0)],
    );
    // Modelo 115: the rent's, 800 × 19 % = 152.
    assert_boxes(
        &q["model_115"],
        &[("01", 1.0), ("02", 800.0), ("03", 152.0), ("05", 152.0)],
    );
    // The summary's 303 carries nothing from earlier quarters: 46 = 277.14.
    assert_boxes(
        &q["model_303"],
        &[("27", 745.5), ("45", 468.36), ("46", 277.14)],
    );
    assert_eq!(
        q["model_130"],
        json!({"income_year_to_date": 3500.0, "expenses_year_to_date": 1159.63,
            "withholdings_year_to_date": 450.0})
    );
    assert_eq!(q["expense_count"], json!(7));
}

#[tokio::test]
async fn test_keys_and_an_empty_book_give_zeros() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let test = send(
        &h.app,
        post_json(
            "/api/v1/tax/model-303",
            &h.test,
            None,
            r#"{"year": 2026, "quarter": 4}"#,
        ),
    )
    .await;
    assert_eq!(test.status, StatusCode::OK, "{}", test.json);
    assert_eq!(value(&test.json["boxes"], "71"), 0.0);
    assert_eq!(test.json["outcome"], "zero");
    let bad = send(
        &h.app,
        post_json(
            "/api/v1/tax/model-303",
            &h.live,
            None,
            r#"{"year": 2026, "quarter": 5}"#,
        ),
    )
    .await;
    assert_eq!(
        (bad.status, bad.code(), bad.param()),
        (StatusCode::BAD_REQUEST, "parameter_invalid", "quarter")
    );
    let negative = send(
        &h.app,
        post_json(
            "/api/v1/tax/model-303",
            &h.live,
            None,
            r#"{"year": 2026, "quarter": 4, "carried_forward": -1}"#,
        ),
    )
    .await;
    assert_eq!(
        negative.status,
        StatusCode::BAD_REQUEST,
        "{}",
        negative.json
    );
}
