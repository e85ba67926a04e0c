//! Modelos 130, 111 and 115 over HTTP against figures worked by hand from
//! the law: a laptop amortised across the quarters (LIRPF art. 28.1, LIS
//! art. 12.1, simplified table), a car's IRPF share (RIRPF art. 22.4), box 05
//! derived from the earlier quarters (RIRPF art. 110.3), the simplified
//! estimation's allowance (RIRPF art. 30, rule 2.ª) and withholdings declared
//! when paid (RIRPF art. 78.1).

use crate::support;

use axum::Router;
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde_json::{Value, json};

use shared::app::ledger;
use shared::domain::account::Plan;
use shared::invoice::kind::Kind;
use shared::invoice::line::Treatment;
use shared::tax::ledger_entry::{LedgerEntry, RateGroup};
use support::boxes::{assert_boxes, post_ok as post};
use support::{Harness, get, post_json, send};

async fn harness() -> Harness {
    support::start(support::relaxed(), Plan::Pro, Router::new()).await
}

async fn expense(h: &Harness, number: &str, date: &str, rest: Value) -> Value {
    let mut body = json!({"supplier_name": "Proveedor SL", "supplier_tax_id": "B12345674",
        "number": number, "issue_date": date});
    for (k, v) in rest.as_object().unwrap() {
        body[k] = v.clone();
    }
    post(h, "/api/v1/expenses", body).await.json
}

async fn invoice(h: &Harness, number: &str, date: &str, base: Decimal, irpf: Decimal) {
    let entry = LedgerEntry {
        tax: Default::default(),
        invoice_id: format!("inv_{number}"),
        number: number.into(),
        kind: Kind::F1,
        issue_date: date.parse().unwrap(),
        operation_date: None,
        accrual_date: None,
        customer_country: None,
        cash_accounting: false,
        groups: vec![RateGroup {
            vat_rate: dec!(21),
            base,
            vat_amount: base * dec!(0.21),
            surcharge_rate: dec!(0),
            surcharge_amount: dec!(0),
            treatment: Treatment::Taxed,
        }],
        irpf_rate: dec!(15),
        irpf_amount: irpf,
        total: base * dec!(1.21) - irpf,
    };
    h.ports
        .table
        .transact(vec![ledger::record(&h.account, &entry)])
        .await
        .unwrap();
}

async fn model_130(h: &Harness, body: Value) -> Value {
    post(h, "/api/v1/tax/model-130", body).await.json
}

#[tokio::test]
async fn a_laptop_is_amortised_across_the_quarters_not_expensed_at_once() {
    let h = harness().await;
    let laptop = expense(
        &h,
        "L-1",
        "2026-02-15",
        json!({"category": "equipment", "capital_good": true, "asset_kind": "computers",
            "lines": [{"rate": 21, "base": 1200}]}),
    )
    .await;
    // Group 5 of the simplified table (Orden de 27-3-1998): 26 %, 10 years.
    assert_eq!(
        (
            laptop["amortisation"]["kind"].clone(),
            laptop["amortisation"]["annual_rate"].clone(),
            laptop["amortisation"]["max_years"].clone(),
            laptop["amortisation"]["start_date"].clone(),
            laptop["amortisation"]["base"].clone()
        ),
        (
            json!("computers"),
            json!(26.0),
            json!(10),
            json!("2026-02-15"),
            json!(1200.0)
        )
    );
    // 1,200 × 26 % = 312 a year, by the days in service of 365:
    //   Q1 15-02..31-03 = 45 days → 38.4657… → 38.47;
    //   Q2 to 30-06 = 136 days → 116.2520… → 116.25;
    //   Q4 to 31-12 = 320 days → 273.5342… → 273.53;
    //   2027 Q1, 90 days of a new year → 76.9315… → 76.93.
    for (year, quarter, amortised) in [
        (2026, 1, 38.47),
        (2026, 2, 116.25),
        (2026, 4, 273.53),
        (2027, 1, 76.93),
    ] {
        let m = model_130(
            &h,
            json!({"year": year, "quarter": quarter, "income": 10000, "withholdings": 0,
                "direct_estimation": "normal", "previous_payments": 0}),
        )
        .await;
        assert_boxes(&m["boxes"], &[("02", amortised)]);
        let assets = m["amortisation"].as_array().unwrap();
        assert_eq!(assets.len(), 1, "{year} Q{quarter}");
        assert_eq!(assets[0]["year_to_date"], json!(amortised));
        assert!(m["expenses"].as_array().unwrap().is_empty());
    }
    let summary = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=2", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(summary["model_130"]["expenses_year_to_date"], json!(116.25));
}

#[tokio::test]
async fn a_low_value_item_is_written_off_in_the_year_it_enters_service() {
    let h = harness().await;
    expense(
        &h,
        "S-1",
        "2026-03-10",
        json!({"category": "equipment", "capital_good": true, "low_value": true,
            "lines": [{"rate": 21, "base": 280}]}),
    )
    .await;
    // LIS art. 12.3.e: a new item of at most 300 € is written off at once
    // (within 25,000 € a year): 280 in Q1, and still 280 year to date in Q2.
    for quarter in [1, 2] {
        let m = model_130(
            &h,
            json!({"year": 2026, "quarter": quarter, "income": 1000, "withholdings": 0,
                "direct_estimation": "normal", "previous_payments": 0}),
        )
        .await;
        assert_boxes(&m["boxes"], &[("02", 280.0)]);
        assert_eq!(m["amortisation"][0]["low_value"], json!(true));
    }
    let next_year = model_130(
        &h,
        json!({"year": 2027, "quarter": 1, "income": 1000, "withholdings": 0,
            "direct_estimation": "normal"}),
    )
    .await;
    assert_boxes(&next_year["boxes"], &[("02", 0.0)]);
}

#[tokio::test]
async fn a_rate_outside_the_table_is_refused_naming_the_field() {
    let h = harness().await;
    let r = send(
        &h.app,
        post_json(
            "/api/v1/expenses",
            &h.live,
            Some("rate-too-high"),
            &json!({"supplier_name": "Proveedor SL", "supplier_tax_id": "B12345674",
                "number": "L-2", "issue_date": "2026-02-15", "capital_good": true,
                "asset_kind": "computers", "amortisation_rate": 40,
                "lines": [{"rate": 21, "base": 1200}]})
            .to_string(),
        ),
    )
    .await;
    assert_eq!(r.status.as_u16(), 400, "{}", r.json);
    assert_eq!(r.param(), "amortisation_rate");
    assert!(r.json.to_string().contains("Orden de 27 de marzo de 1998"));
}

#[tokio::test]
async fn a_car_is_no_irpf_cost_by_default_and_counts_when_used_only_for_work() {
    let h = harness().await;
    let fuel = expense(
        &h,
        "T-1",
        "2026-03-02",
        json!({"category": "vehicle", "lines": [{"rate": 21, "base": 100}]}),
    )
    .await;
    // LIVA art. 95.Tres.2ª: 50 % of the VAT; LIRPF art. 29.2 and RIRPF art.
    // 22.4: no IRPF cost unless the car is used exclusively for the activity.
    assert_eq!(
        (
            fuel["vat_deductible_percent"].clone(),
            fuel["expense_deductible_percent"].clone(),
            fuel["deductible"]["expense"].clone()
        ),
        (json!(50.0), json!(0.0), json!(0.0))
    );
    assert!(fuel["notes"].to_string().contains("RIRPF art. 22.4"));
    let only_work = expense(
        &h,
        "T-2",
        "2026-03-03",
        json!({"category": "vehicle", "private_use_percent": 0,
            "lines": [{"rate": 21, "base": 100}]}),
    )
    .await;
    // 100 + 21 − 10.50 deducted = 110.50.
    assert_eq!(only_work["deductible"]["expense"], json!(110.5));
    let m = model_130(
        &h,
        json!({"year": 2026, "quarter": 1, "income": 1000, "withholdings": 0,
            "direct_estimation": "normal"}),
    )
    .await;
    assert_boxes(&m["boxes"], &[("02", 110.5)]);
}

#[tokio::test]
async fn box_05_comes_from_the_earlier_quarters_of_the_books_unless_given() {
    let h = harness().await;
    invoice(&h, "F-1", "2026-02-10", dec!(12000), dec!(720)).await;
    invoice(&h, "F-2", "2026-05-10", dec!(8000), dec!(480)).await;
    expense(
        &h,
        "G-1",
        "2026-03-01",
        json!({"category": "professional_services", "lines": [{"rate": 21, "base": 3000}]}),
    )
    .await;
    expense(
        &h,
        "G-2",
        "2026-05-20",
        json!({"category": "professional_services", "lines": [{"rate": 21, "base": 4000}]}),
    )
    .await;
    // Q1: 01 12,000; 02 3,000; 03 9,000; 04 1,800; 06 720 → 19 = 1,080.
    // Q2 (YTD): 01 20,000; 02 7,000; 03 13,000; 04 2,600; 05 = Q1's 1,080;
    // 06 1,200 → 07 = 2,600 − 1,080 − 1,200 = 320 (RIRPF art. 110.3).
    let q2 = model_130(
        &h,
        json!({"year": 2026, "quarter": 2, "direct_estimation": "normal"}),
    )
    .await;
    assert_eq!(q2["previous_quarters_source"], "books");
    assert_boxes(
        &q2["boxes"],
        &[
            ("01", 20000.0),
            ("02", 7000.0),
            ("03", 13000.0),
            ("04", 2600.0),
            ("05", 1080.0),
            ("06", 1200.0),
            ("07", 320.0),
            ("19", 320.0),
        ],
    );
    // What was actually filed wins: 07 = 2,600 − 1,000 − 1,200.
    let given = model_130(
        &h,
        json!({"year": 2026, "quarter": 2, "direct_estimation": "normal",
            "previous_payments": 1000}),
    )
    .await;
    assert_eq!(given["previous_quarters_source"], "request");
    assert_boxes(&given["boxes"], &[("05", 1000.0), ("07", 400.0)]);
    // Simplified estimation: Q1's allowance 5 % × 9,000 = 450, so Q1 pays
    // 20 % × 8,550 − 720 = 990; Q2: 5 % × 13,000 = 650, 03 = 12,350,
    // 04 = 2,470, 05 = 990, 07 = 2,470 − 990 − 1,200 = 280.
    let simplified = model_130(&h, json!({"year": 2026, "quarter": 2})).await;
    assert_boxes(
        &simplified["boxes"],
        &[("02", 7650.0), ("05", 990.0), ("07", 280.0)],
    );
}

#[tokio::test]
async fn the_simplified_allowance_is_5_percent_capped_at_2000() {
    let h = harness().await;
    // RIRPF art. 30, rule 2.ª: 5 % × (12,000 − 3,000) = 450; 02 = 3,450; 03 = 8,550;
    // 04 = 1,710; 19 = 1,710 − 720 = 990.
    let m = model_130(
        &h,
        json!({"year": 2026, "quarter": 1, "income": 12000, "expenses": 3000, "withholdings": 720}),
    )
    .await;
    assert_eq!(
        (
            m["direct_estimation"].clone(),
            m["hard_to_justify_allowance"].clone()
        ),
        (json!("simplified"), json!(450.0))
    );
    assert_boxes(
        &m["boxes"],
        &[("02", 3450.0), ("03", 8550.0), ("19", 990.0)],
    );
    // 5 % × 50,000 = 2,500 > 2,000 € a year: 02 = 10,000 + 2,000.
    let capped = model_130(
        &h,
        json!({"year": 2026, "quarter": 1, "income": 60000, "expenses": 10000, "withholdings": 0}),
    )
    .await;
    assert_eq!(capped["hard_to_justify_allowance"], json!(2000.0));
    assert_boxes(
        &capped["boxes"],
        &[("02", 12000.0), ("03", 48000.0), ("04", 9600.0)],
    );
    let normal = model_130(
        &h,
        json!({"year": 2026, "quarter": 1, "income": 60000, "expenses": 10000, "withholdings": 0,
            "direct_estimation": "normal"}),
    )
    .await;
    assert_boxes(&normal["boxes"], &[("02", 10000.0)]);
}

#[tokio::test]
async fn a_professional_invoice_of_q1_paid_in_q2_is_in_q2s_modelo_111() {
    let h = harness().await;
    expense(
        &h,
        "P-1",
        "2026-03-10",
        json!({"category": "professional_services", "irpf_rate": 15, "paid_date": "2026-04-15",
            "lines": [{"rate": 21, "base": 1000}]}),
    )
    .await;
    expense(
        &h,
        "P-2",
        "2026-03-12",
        json!({"category": "rent", "irpf_rate": 19, "lines": [{"rate": 21, "base": 500}]}),
    )
    .await;
    let quarter = |q: u8| {
        let h = &h;
        async move {
            send(
                &h.app,
                get(
                    &format!("/api/v1/tax/quarter?year=2026&quarter={q}"),
                    Some(&h.live),
                ),
            )
            .await
            .json
        }
    };
    // RIRPF art. 78.1: the withholding is due when the fee is paid.
    let q1 = quarter(1).await;
    assert_boxes(&q1["model_111"], &[("07", 0.0), ("08", 0.0), ("09", 0.0)]);
    // The unpaid rent is in no Modelo 115 yet, and a note says so.
    assert_boxes(&q1["model_115"], &[("03", 0.0)]);
    assert!(
        q1["notes"].to_string().contains("not paid yet"),
        "{}",
        q1["notes"]
    );
    let q2 = quarter(2).await;
    // 1,000 × 15 % = 150.
    assert_boxes(
        &q2["model_111"],
        &[("07", 1.0), ("08", 1000.0), ("09", 150.0), ("30", 150.0)],
    );
}
