//! The tax endpoints over HTTP, in-process: results, the ledger-backed tools,
//! and every kind of bad input (400 with `param`).

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use rust_decimal::dec;
use serde_json::{Value, json};

use shared::app::ledger;
use shared::domain::account::Plan;
use shared::invoice::kind::Kind;
use shared::invoice::line::Treatment;
use shared::tax::ledger_entry::{LedgerEntry, RateGroup};
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

async fn harness() -> Harness {
    support::start(support::relaxed(), Plan::Pro, Router::new()).await
}

async fn get_ok(h: &Harness, path: &str) -> Value {
    let r = send(&h.app, get(path, Some(&h.live))).await;
    assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.json);
    r.json
}

async fn post(h: &Harness, path: &str, body: Value) -> Reply {
    send(&h.app, post_json(path, &h.live, None, &body.to_string())).await
}

fn bad(r: &Reply, code: &str, param: &str) {
    assert_error_shape(r, StatusCode::BAD_REQUEST, "invalid_request_error", code);
    assert_eq!(r.param(), param, "{}", r.json);
}

#[tokio::test]
async fn nif_validation_reports_kind_reason_and_warnings() {
    let h = harness().await;
    let ok = get_ok(&h, "/api/v1/tax/nif?value=es%20b-64717838").await;
    assert_eq!(
        (
            ok["valid"].clone(),
            ok["normalized"].clone(),
            ok["kind"].clone()
        ),
        (json!(true), json!("B64717838"), json!("entity"))
    );
    assert_eq!(ok["entity_type"]["letter"], "B");
    let bad_digit = get_ok(&h, "/api/v1/tax/nif?value=12345678A").await;
    assert_eq!(
        (bad_digit["valid"].clone(), bad_digit["reason"].clone()),
        (json!(false), json!("bad_check_digit"))
    );
    let nie = get_ok(&h, "/api/v1/tax/nif?value=x-2482300-w").await;
    assert_eq!(nie["kind"], "nie");
    let odd = get_ok(&h, "/api/v1/tax/nif?value=B6471783H").await;
    assert_eq!(
        (odd["valid"].clone(), odd["warnings"][0]["code"].clone()),
        (json!(true), json!("control_character_form"))
    );
    let short = get_ok(&h, "/api/v1/tax/nif?value=1234567L").await;
    assert_eq!(
        (short["reason"].clone(), short["suggestion"].clone()),
        (json!("bad_length"), json!("01234567L"))
    );

    bad(
        &send(&h.app, get("/api/v1/tax/nif", Some(&h.live))).await,
        "parameter_missing",
        "value",
    );
    bad(
        &send(
            &h.app,
            get("/api/v1/tax/nif?value=B64717838&strict=1", Some(&h.live)),
        )
        .await,
        "parameter_unknown",
        "strict",
    );
    let long = format!("/api/v1/tax/nif?value={}", "1".repeat(65));
    bad(
        &send(&h.app, get(&long, Some(&h.live))).await,
        "parameter_invalid",
        "value",
    );
}

#[tokio::test]
async fn vat_forward_back_and_surcharge() {
    let h = harness().await;
    let r = post(
        &h,
        "/api/v1/tax/vat",
        json!({"amount": 121, "vat_rate": 21, "includes_vat": true}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(
        (
            r.json["base"].clone(),
            r.json["vat_amount"].clone(),
            r.json["total"].clone()
        ),
        (json!(100.0), json!(21.0), json!(121.0))
    );
    assert!(r.json["estimate"].as_str().unwrap().contains("Estimate"));

    let r = post(
        &h,
        "/api/v1/tax/vat",
        json!({"amount": "218.00", "vat_rate": "21", "includes_vat": true}),
    )
    .await;
    assert_eq!(
        (r.json["base"].clone(), r.json["vat_amount"].clone()),
        (json!(180.17), json!(37.83))
    );
    assert_eq!(r.json["quota_difference"], json!(-0.01));
    assert!(r.json["note"].as_str().is_some());

    let r = post(
        &h,
        "/api/v1/tax/vat",
        json!({"amount": 1000, "vat_rate": 21, "equivalence_surcharge": true}),
    )
    .await;
    assert_eq!(
        (
            r.json["surcharge_rate"].clone(),
            r.json["surcharge_amount"].clone(),
            r.json["total"].clone()
        ),
        (json!(5.2), json!(52.0), json!(1262.0))
    );
    let r = post(
        &h,
        "/api/v1/tax/vat",
        json!({"amount": 0.5, "vat_rate": 21}),
    )
    .await;
    assert_eq!(r.json["vat_amount"], json!(0.11), "half away from zero");

    let r = post(
        &h,
        "/api/v1/tax/vat",
        json!({"amount": 100, "vat_rate": 18, "date": "2011-05-01"}),
    )
    .await;
    assert_eq!(r.json["vat_amount"], json!(18.0));
    let r = post(
        &h,
        "/api/v1/tax/vat",
        json!({"amount": 100, "vat_rate": 18}),
    )
    .await;
    bad(&r, "parameter_invalid", "vat_rate");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("21, 10, 4, 0"),
        "{}",
        r.json
    );
}

#[tokio::test]
async fn vat_rejects_bad_amounts_and_fields() {
    let h = harness().await;
    for (body, code, param) in [
        (
            json!({"amount": -5, "vat_rate": 21}),
            "parameter_invalid",
            "amount",
        ),
        (
            json!({"amount": 1e13, "vat_rate": 21}),
            "parameter_invalid",
            "amount",
        ),
        (
            json!({"amount": "1.000,50", "vat_rate": 21}),
            "parameter_invalid",
            "amount",
        ),
        (
            json!({"amount": true, "vat_rate": 21}),
            "parameter_invalid",
            "amount",
        ),
        (json!({"vat_rate": 21}), "parameter_missing", "amount"),
        (
            json!({"amount": 10, "vat_rate": 21, "date": "2026-13-01"}),
            "parameter_invalid",
            "date",
        ),
        (
            json!({"amount": 10, "vat_rate": 21, "discount": 5}),
            "parameter_unknown",
            "discount",
        ),
        (
            json!({"amount": 10, "vat_rate": 21, "includes_vat": "yes"}),
            "parameter_invalid",
            "includes_vat",
        ),
    ] {
        bad(&post(&h, "/api/v1/tax/vat", body).await, code, param);
    }
    let r = send(
        &h.app,
        post_json("/api/v1/tax/vat", &h.live, None, "{\"amount\": 10,"),
    )
    .await;
    bad(&r, "json_invalid", "");
}

#[tokio::test]
async fn withholding_by_type_with_vat_and_total() {
    let h = harness().await;
    let r = post(
        &h,
        "/api/v1/tax/withholding",
        json!({"base": 1000, "type": "professional"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    for (field, value) in [
        ("withholding_rate", 15.0),
        ("withholding_amount", 150.0),
        ("vat_rate", 21.0),
        ("vat_amount", 210.0),
        ("total_invoice", 1060.0),
    ] {
        assert_eq!(r.json[field], json!(value), "{field}");
    }
    assert!(r.json["rule"].as_str().unwrap().contains("15 %"));
    let r = post(
        &h,
        "/api/v1/tax/withholding",
        json!({"base": "1234.56", "type": "professional"}),
    )
    .await;
    assert_eq!(r.json["total_invoice"], json!(1308.64));
    let r = post(
        &h,
        "/api/v1/tax/withholding",
        json!({"base": 1000, "type": "rental", "vat_rate": 21}),
    )
    .await;
    assert_eq!(r.json["total_invoice"], json!(1020.0));

    let r = post(
        &h,
        "/api/v1/tax/withholding",
        json!({"base": 1000, "type": "freelance"}),
    )
    .await;
    bad(&r, "parameter_invalid", "type");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("professional_new")
    );
    bad(
        &post(&h, "/api/v1/tax/withholding", json!({"base": 1000})).await,
        "parameter_missing",
        "type",
    );
    bad(
        &post(
            &h,
            "/api/v1/tax/withholding",
            json!({"base": 1000, "type": "none", "vat_rate": 7}),
        )
        .await,
        "parameter_invalid",
        "vat_rate",
    );
}

fn boxes(r: &Reply) -> Vec<(String, f64)> {
    r.json["boxes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["box"].as_str().unwrap().to_string(),
                b["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn value_of(r: &Reply, number: &str) -> f64 {
    boxes(r).into_iter().find(|(n, _)| n == number).unwrap().1
}

#[tokio::test]
async fn model_130_reproduces_worked_example_a_over_http() {
    let h = harness().await;
    let body = json!({
        "year": 2026, "quarter": 3, "income": 24000, "expenses": 11500, "withholdings": 1500,
        "previous_quarters": [
            {"income": 12000, "expenses": 3000, "withholdings": 720},
            {"income": 20000, "expenses": 7000, "withholdings": 1200}
        ],
        "previous_year_net_income": 15000, "direct_estimation": "normal"
    });
    let r = post(&h, "/api/v1/tax/model-130", body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(boxes(&r).len(), 19);
    for (number, value) in [
        ("01", 24000.0),
        ("03", 12500.0),
        ("04", 2500.0),
        ("05", 1400.0),
        ("06", 1500.0),
        ("07", -400.0),
        ("12", 0.0),
        ("19", 0.0),
    ] {
        assert_eq!(value_of(&r, number), value, "box {number}");
    }
    assert_eq!(r.json["outcome"], "zero");
    assert_eq!(r.json["income_source"], "request");

    let r = post(
        &h,
        "/api/v1/tax/model-130",
        json!({"year": 2026, "quarter": 2, "income": 1800, "expenses": 0,
        "previous_payments": 0, "negative_results_pending": 0, "previous_year_net_income": 9500}),
    )
    .await;
    assert_eq!(value_of(&r, "13"), 75.0);
}

#[tokio::test]
async fn model_130_takes_missing_income_from_the_ledger() {
    let h = harness().await;
    let entry = |number: &str, date: &str, base| LedgerEntry {
        tax: Default::default(),
        operation_date: None,
        accrual_date: None,
        customer_country: None,
        cash_accounting: false,
        invoice_id: format!("inv_{number}"),
        number: number.into(),
        kind: Kind::F1,
        issue_date: date.parse().unwrap(),
        groups: vec![RateGroup {
            vat_rate: dec!(21),
            base,
            vat_amount: base * dec!(0.21),
            surcharge_rate: dec!(0),
            surcharge_amount: dec!(0),
            treatment: Treatment::Taxed,
        }],
        irpf_rate: dec!(15),
        irpf_amount: base * dec!(0.15),
        total: base * dec!(1.06),
    };
    let writes = vec![
        ledger::record(&h.account, &entry("F2026-1", "2026-02-10", dec!(4000))),
        ledger::record(&h.account, &entry("F2026-2", "2026-03-31", dec!(2000))),
        ledger::record(&h.account, &entry("F2026-3", "2026-04-01", dec!(9999))),
    ];
    h.ports.table.transact(writes).await.unwrap();
    let r = post(
        &h,
        "/api/v1/tax/model-130",
        json!({"year": 2026, "quarter": 1, "expenses": 1000, "direct_estimation": "normal"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(
        (value_of(&r, "01"), value_of(&r, "06"), value_of(&r, "19")),
        (6000.0, 900.0, 100.0)
    );
    assert_eq!(
        (
            r.json["income_source"].clone(),
            r.json["withholdings_source"].clone()
        ),
        (json!("ledger"), json!("ledger"))
    );

    let test = send(
        &h.app,
        post_json(
            "/api/v1/tax/model-130",
            &h.test,
            None,
            r#"{"year": 2026, "quarter": 1}"#,
        ),
    )
    .await;
    assert_eq!(value_of(&test, "01"), 0.0);
    assert!(
        test.json["notes"]
            .to_string()
            .contains("Test keys have no ledger")
    );
}

#[tokio::test]
async fn model_130_rejects_bad_periods_and_inconsistent_quarters() {
    let h = harness().await;
    bad(
        &post(
            &h,
            "/api/v1/tax/model-130",
            json!({"year": 1899, "quarter": 1, "income": 1}),
        )
        .await,
        "parameter_invalid",
        "year",
    );
    bad(
        &post(
            &h,
            "/api/v1/tax/model-130",
            json!({"year": 2026, "quarter": 5, "income": 1}),
        )
        .await,
        "parameter_invalid",
        "quarter",
    );
    bad(
        &post(
            &h,
            "/api/v1/tax/model-130",
            json!({"year": 2026, "quarter": -1}),
        )
        .await,
        "parameter_invalid",
        "quarter",
    );
    let two = json!({"year": 2026, "quarter": 2, "income": 1, "previous_quarters": []});
    bad(
        &post(&h, "/api/v1/tax/model-130", two).await,
        "parameter_invalid",
        "previous_quarters",
    );
    let both = json!({"year": 2026, "quarter": 2, "income": 1, "previous_payments": 5,
        "previous_quarters": [{"income": 1, "expenses": 0}]});
    bad(
        &post(&h, "/api/v1/tax/model-130", both).await,
        "parameter_invalid",
        "previous_quarters",
    );
    let nested =
        json!({"year": 2026, "quarter": 2, "previous_quarters": [{"income": -1, "expenses": 0}]});
    bad(
        &post(&h, "/api/v1/tax/model-130", nested).await,
        "parameter_invalid",
        "previous_quarters[0].income",
    );
}

#[tokio::test]
async fn the_quarter_summary_reads_the_live_ledger() {
    let h = harness().await;
    let group = |rate, base, vat, re_rate, re| RateGroup {
        vat_rate: rate,
        base,
        vat_amount: vat,
        surcharge_rate: re_rate,
        surcharge_amount: re,
        treatment: Treatment::Taxed,
    };
    let entry = |number: &str, kind: &str, date: &str, groups: Vec<RateGroup>, irpf| LedgerEntry {
        tax: Default::default(),
        operation_date: None,
        accrual_date: None,
        customer_country: None,
        cash_accounting: false,
        invoice_id: format!("inv_{number}"),
        number: number.into(),
        kind: Kind::parse(kind).unwrap(),
        issue_date: date.parse().unwrap(),
        total: groups
            .iter()
            .map(|g: &RateGroup| g.base + g.vat_amount + g.surcharge_amount)
            .sum::<rust_decimal::Decimal>()
            - irpf,
        groups,
        irpf_rate: dec!(15),
        irpf_amount: irpf,
    };
    let writes = vec![
        ledger::record(
            &h.account,
            &entry(
                "F2026-1",
                "F1",
                "2026-03-02",
                vec![group(dec!(21), dec!(500), dec!(105), dec!(0), dec!(0))],
                dec!(75),
            ),
        ),
        ledger::record(
            &h.account,
            &entry(
                "F2026-2",
                "F1",
                "2026-04-02",
                vec![group(dec!(21), dec!(1000), dec!(210), dec!(5.2), dec!(52))],
                dec!(0),
            ),
        ),
        ledger::record(
            &h.account,
            &entry(
                "F2026-3",
                "F1",
                "2026-05-20",
                vec![group(dec!(10), dec!(200), dec!(20), dec!(0), dec!(0))],
                dec!(30),
            ),
        ),
        ledger::record(
            &h.account,
            &entry(
                "R2026-1",
                "R4",
                "2026-06-30",
                vec![group(dec!(21), dec!(-100), dec!(-21), dec!(0), dec!(0))],
                dec!(0),
            ),
        ),
    ];
    h.ports.table.transact(writes).await.unwrap();
    let q = get_ok(&h, "/api/v1/tax/quarter?year=2026&quarter=2").await;
    assert_eq!(
        (q["invoice_count"].clone(), q["rectification_count"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(
        q["vat"],
        json!([{"rate": 21.0, "base": 1000.0, "amount": 210.0}, {"rate": 10.0, "base": 200.0, "amount": 20.0}])
    );
    assert_eq!(
        q["surcharge"],
        json!([{"rate": 5.2, "base": 1000.0, "amount": 52.0}])
    );
    assert_eq!(q["totals"]["irpf_withheld"], json!(30.0));
    let model_303: Vec<(String, f64)> = q["model_303"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["box"].as_str().unwrap().to_string(),
                b["value"].as_f64().unwrap(),
            )
        })
        .collect();
    for (number, value) in [
        ("07", 1000.0),
        ("09", 210.0),
        ("04", 200.0),
        ("06", 20.0),
        ("14", -100.0),
        ("15", -21.0),
        ("22", 1000.0),
        ("24", 52.0),
        ("27", 261.0),
    ] {
        assert!(
            model_303.contains(&(number.to_string(), value)),
            "box {number} = {value} in {model_303:?}"
        );
    }
    assert_eq!(
        q["model_130"],
        json!({"income_year_to_date": 1600.0, "expenses_year_to_date": 0.0, "withholdings_year_to_date": 105.0})
    );

    let test = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=2", Some(&h.test)),
    )
    .await;
    assert_eq!(
        (
            test.json["livemode"].clone(),
            test.json["invoice_count"].clone()
        ),
        (json!(false), json!(0))
    );

    bad(
        &send(
            &h.app,
            get("/api/v1/tax/quarter?year=2026&quarter=5", Some(&h.live)),
        )
        .await,
        "parameter_invalid",
        "quarter",
    );
    bad(
        &send(
            &h.app,
            get("/api/v1/tax/quarter?year=abc&quarter=1", Some(&h.live)),
        )
        .await,
        "parameter_invalid",
        "year",
    );
    bad(
        &send(&h.app, get("/api/v1/tax/quarter?quarter=1", Some(&h.live))).await,
        "parameter_missing",
        "year",
    );
    bad(
        &send(
            &h.app,
            get("/api/v1/tax/quarter?year=1899&quarter=1", Some(&h.live)),
        )
        .await,
        "parameter_invalid",
        "year",
    );
}

#[tokio::test]
async fn the_calendar_lists_deadlines_in_a_range() {
    let h = harness().await;
    let c = get_ok(
        &h,
        "/api/v1/tax/calendar?from=2026-01-01&to=2026-01-31&forms=303,111",
    )
    .await;
    let rows: Vec<(String, String, String, Value)> = c["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["form"].as_str().unwrap().into(),
                d["period"].as_str().unwrap().into(),
                d["end"].as_str().unwrap().into(),
                d["domiciliation_end"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "111".into(),
                "2025-4T".into(),
                "2026-01-20".into(),
                json!("2026-01-15")
            ),
            (
                "303".into(),
                "2025-4T".into(),
                "2026-01-30".into(),
                json!("2026-01-27")
            ),
        ]
    );
    let en = get_ok(
        &h,
        "/api/v1/tax/calendar?from=2026-01-01&to=2026-01-31&forms=303&lang=en",
    )
    .await;
    assert!(
        en["data"][0]["description"]
            .as_str()
            .unwrap()
            .contains("VAT")
    );

    let default = get_ok(&h, "/api/v1/tax/calendar").await;
    assert_eq!(
        (default["from"].clone(), default["to"].clone()),
        (json!("2026-11-21"), json!("2027-02-19"))
    );
    let ends: Vec<&str> = default["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["end"].as_str().unwrap())
        .collect();
    assert!(
        ends.contains(&"2026-12-21") && ends.contains(&"2027-02-01"),
        "{ends:?}"
    );

    bad(
        &send(
            &h.app,
            get("/api/v1/tax/calendar?forms=303,999", Some(&h.live)),
        )
        .await,
        "parameter_invalid",
        "forms",
    );
    bad(
        &send(
            &h.app,
            get(
                "/api/v1/tax/calendar?from=2026-02-01&to=2026-01-01",
                Some(&h.live),
            ),
        )
        .await,
        "parameter_invalid",
        "to",
    );
    bad(
        &send(
            &h.app,
            get("/api/v1/tax/calendar?from=yesterday", Some(&h.live)),
        )
        .await,
        "parameter_invalid",
        "from",
    );
    bad(
        &send(
            &h.app,
            get(
                "/api/v1/tax/calendar?from=2026-01-01&to=2030-01-01",
                Some(&h.live),
            ),
        )
        .await,
        "parameter_invalid",
        "to",
    );
    bad(
        &send(&h.app, get("/api/v1/tax/calendar?lang=fr", Some(&h.live))).await,
        "parameter_invalid",
        "lang",
    );
}

#[tokio::test]
async fn tax_tools_use_no_quota() {
    let mut config = support::relaxed();
    config.quotas.pro = 1;
    let h = support::start(config, Plan::Pro, Router::new()).await;
    for _ in 0..3 {
        let r = post(&h, "/api/v1/tax/vat", json!({"amount": 10, "vat_rate": 21})).await;
        assert_eq!(r.status, StatusCode::OK);
    }
    let usage = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(usage.json["used"], 0);
}
