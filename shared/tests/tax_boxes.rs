//! Modelo 303's boxes for the operations that bear no Spanish VAT and the
//! accrual dates that place invoices in a quarter, through the API: the
//! boxes are written by hand from the 2026 form, the OCA
//! `l10n_es_aeat_mod303` map (2024-10) and LIVA arts. 21–25, 69, 75 and 84
//! (`docs/tax-boxes.md`), not from the code's output.

use crate::support;

use axum::Router;
use rust_decimal::dec;
use serde_json::{Value, json};

use shared::app::ledger;
use shared::domain::account::Plan;
use shared::invoice::kind::Kind;
use shared::invoice::line::Treatment;
use shared::tax::ledger_entry::{LedgerEntry, RateGroup};
use support::Harness;
use support::boxes::post_ok as post;

fn value(boxes: &Value, number: &str) -> Option<f64> {
    let found: Vec<f64> = boxes
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["box"] == number)
        .map(|b| b["value"].as_f64().unwrap())
        .collect();
    assert!(found.len() <= 1, "box {number} twice in {boxes}");
    found.first().copied()
}

fn assert_boxes(boxes: &Value, expected: &[(&str, f64)]) {
    for (number, want) in expected {
        let got = value(boxes, number).unwrap_or_else(|| panic!("no box {number} in {boxes}"));
        assert!(
            (got - want).abs() < 0.001,
            "box {number}: {got}, by hand {want}"
        );
    }
}

fn customer(name: &str, tax_id: &str, country: &str) -> Value {
    json!({"name": name, "tax_id": tax_id, "country": country, "address": "Main Street 1",
        "postal_code": "10001", "city": "Ciudad"})
}

fn line(price: u32, rate: u32, exemption: Option<&str>) -> Value {
    let mut l =
        json!({"description": "Servicio", "quantity": 1, "unit_price": price, "vat_rate": rate});
    if let Some(code) = exemption {
        l["exemption"] = json!(code);
    }
    l
}

/// Issues the invoice; its id.
async fn issue(
    h: &Harness,
    issue_date: &str,
    operation_date: Option<&str>,
    customer: Value,
    l: Value,
) -> Value {
    let mut body = json!({"customer": customer, "issue_date": issue_date, "lines": [l]});
    if let Some(d) = operation_date {
        body["operation_date"] = json!(d);
    }
    post(h, "/api/v1/invoices", body).await.json["id"].clone()
}

/// A rectification by differences of one signed line, issued today (21-11-2026).
async fn credit(h: &Harness, id: &Value, price: u32, rate: u32, exemption: Option<&str>) {
    let mut l = line(price, rate, exemption);
    l["quantity"] = json!(-1);
    post(
        h,
        &format!("/api/v1/invoices/{id}/rectify"),
        json!({"reason_code": "R1", "method": "differences", "description": "Devolución parcial",
            "lines": [l]}),
    )
    .await;
}

async fn model_303(h: &Harness, year: i32, quarter: u8) -> Value {
    post(
        h,
        "/api/v1/tax/model-303",
        json!({"year": year, "quarter": quarter}),
    )
    .await
    .json
}

#[tokio::test]
async fn untaxed_operations_fill_59_60_120_122_in_the_quarter_they_accrued() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    let spain = customer("Taller Ana SL", "B64717838", "ES");
    let france = customer("Atelier SARL", "FR40303265045", "FR");
    let germany = customer("Werk GmbH", "DE136695976", "DE");
    let usa = customer("Acme Inc", "US123456789", "US");
    // Q3 by its operation date (LIVA art. 75.Uno.2º): rendered 28-09, issued 12-10.
    let late = issue(
        &h,
        "2026-10-12",
        Some("2026-09-28"),
        spain.clone(),
        line(1000, 21, None),
    )
    .await;
    // Intra-EU supply of goods, transport from 20-08, invoiced 13-10: accrues
    // on 15-09 (art. 75.Uno.8º), Q3, box 59.
    issue(
        &h,
        "2026-10-13",
        Some("2026-08-20"),
        france.clone(),
        line(1500, 0, Some("E5")),
    )
    .await;
    // Q4: an export (E2, art. 21) → 60.
    let export = issue(
        &h,
        "2026-10-14",
        None,
        usa.clone(),
        line(2000, 0, Some("E2")),
    )
    .await;
    // A service to a German business, located in Germany (N2, art. 69.Uno.1º)
    // → 59, the intra-EU services declared in Modelo 349.
    issue(&h, "2026-10-15", None, germany, line(300, 0, Some("N2"))).await;
    // A service to a US business (N2) → 120.
    issue(&h, "2026-10-16", None, usa, line(200, 0, Some("N2"))).await;
    // Domestic reverse charge (S2, art. 84.Uno.2º): the customer self-assesses → 122.
    issue(
        &h,
        "2026-10-17",
        None,
        spain.clone(),
        line(400, 0, Some("S2")),
    )
    .await;
    // Exempt without the right to deduct (E1, art. 20): no box.
    issue(&h, "2026-10-18", None, spain, line(80, 0, Some("E1"))).await;
    // Rectifications on 21-11 (art. 89.Cinco: declared in their own period,
    // Q4): 500 of the export credited lowers 60, never 14; 100 of the
    // late 21 % invoice credited goes to 14/15.
    credit(&h, &export, 500, 0, Some("E2")).await;
    credit(&h, &late, 100, 21, None).await;

    let q3 = model_303(&h, 2026, 3).await;
    assert_boxes(
        &q3["boxes"],
        &[
            ("07", 1000.0),
            ("09", 210.0),
            ("27", 210.0),
            ("59", 1500.0),
            ("60", 0.0),
            ("120", 0.0),
            ("122", 0.0),
        ],
    );
    let counted: Vec<&str> = q3["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["accrual_date"].as_str().unwrap())
        .collect();
    assert_eq!(counted, ["2026-09-15", "2026-09-28"]);

    let q4 = model_303(&h, 2026, 4).await;
    assert_boxes(
        &q4["boxes"],
        &[
            ("59", 300.0),
            ("60", 1500.0),
            ("120", 200.0),
            ("122", 400.0),
            ("14", -100.0),
            ("15", -21.0),
            ("27", -21.0),
        ],
    );
    assert_eq!(
        value(&q4["boxes"], "07"),
        None,
        "nothing taxed at 21 % in Q4"
    );
    assert_eq!(value(&q4["boxes"], "150"), None, "no 0 % taxed line in Q4");
    assert_eq!(q4["invoices"].as_array().unwrap().len(), 7);

    // Modelo 130 counts income in the quarter it accrued too: Q3 holds the
    // late invoice and the intra-EU supply, 1,000 + 1,500.
    let m130 = post(
        &h,
        "/api/v1/tax/model-130",
        json!({"year": 2026, "quarter": 3}),
    )
    .await
    .json;
    assert_boxes(&m130["boxes"], &[("01", 2500.0)]);
}

#[tokio::test]
async fn a_taxed_line_at_0_percent_fills_150_to_152() {
    // Basic foods were taxed at 0 % from 01-01-2023 to 30-09-2024 (RDL
    // 20/2022 art. 72); the form's row 150–152 (OCA map 2023, lines 150/152).
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let entry = LedgerEntry {
        invoice_id: "inv_1".into(),
        number: "F2024-7".into(),
        kind: Kind::F2,
        tax: Default::default(),
        issue_date: "2024-05-06".parse().unwrap(),
        operation_date: None,
        accrual_date: None,
        customer_country: None,
        cash_accounting: false,
        groups: vec![RateGroup {
            vat_rate: dec!(0),
            base: dec!(35.50),
            vat_amount: dec!(0),
            surcharge_rate: dec!(0),
            surcharge_amount: dec!(0),
            treatment: Treatment::Taxed,
        }],
        irpf_rate: dec!(0),
        irpf_amount: dec!(0),
        total: dec!(35.50),
    };
    h.ports
        .table
        .transact(vec![ledger::record(&h.account, &entry)])
        .await
        .unwrap();
    let q2 = model_303(&h, 2024, 2).await;
    assert_boxes(
        &q2["boxes"],
        &[
            ("150", 35.5),
            ("151", 0.0),
            ("152", 0.0),
            ("59", 0.0),
            ("60", 0.0),
        ],
    );
}
