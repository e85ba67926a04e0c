//! Importing received invoices from the AEAT, end to end against the
//! simulator: a supplier registers its invoices with VERI*FACTU naming the
//! account as recipient (and one for someone else); the account's import
//! brings the account's into the book as drafts, adds nothing the second
//! time, and a confirmed draft counts in Modelo 303. Without issuer details
//! or a certificate it says which is missing.

use crate::support;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::StatusCode;
use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde_json::{Value, json};

use shared::adapters::aeat_simulated::SimulatedAeat;
use shared::app::verifactu::certificates;
use shared::domain::account::Plan;
use shared::embedded::LocalSecrets;
use shared::invoice::kind::Kind;
use shared::secrets_key::SecretsKey;
use shared::verifactu::aeat::soap;
use shared::verifactu::certificate_fixture::Fixture;
use shared::verifactu::simulator::Simulator;
use shared::verifactu::*;
use support::{Harness, Reply, get, post_json, send};

const SUPPLIER: &str = "B12345674";
const SUPPLIER_NAME: &str = "Ferretería Núñez, S.L.";

fn at(minute: u32) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(&format!("2026-11-12T10:{minute:02}:00+01:00")).unwrap()
}

fn system() -> SystemInfo {
    SystemInfo {
        producer_name: "Otro SIF".into(),
        producer_nif: "B64717838".into(),
        system_name: "otro".into(),
        system_id: "OT".into(),
        version: "1".into(),
        installation_number: "1".into(),
        only_verifactu: true,
        multi_ot: false,
        multiple_ot: false,
    }
}

/// The supplier's altas: (number, recipient NIF, base, VAT rate), chained.
fn supplier_records(invoices: &[(&str, &str, Decimal, Decimal)]) -> Vec<BuiltRecord> {
    let mut previous: Option<PreviousRecord> = None;
    invoices
        .iter()
        .enumerate()
        .map(|(i, (number, recipient, base, rate))| {
            let invoice = InvoiceRef {
                issuer_nif: SUPPLIER.into(),
                number: number.to_string(),
                issue_date: NaiveDate::from_ymd_opt(2026, 11, 10).unwrap(),
            };
            let vat = (base * rate / dec!(100)).round_dp(2);
            let record = Registration {
                invoice: invoice.clone(),
                issuer_name: SUPPLIER_NAME.into(),
                correction: None,
                kind: Kind::F1,
                rectification: None,
                simplification: Default::default(),
                operation_date: None,
                description: "Material de oficina".into(),
                recipients: vec![Recipient::Nif {
                    name: "Cliente".into(),
                    nif: recipient.to_string(),
                }],
                breakdown: vec![BreakdownLine {
                    regime: "01".into(),
                    tax: Default::default(),
                    treatment: Treatment::Qualified(Qualification::S1),
                    rate: Some(*rate),
                    base: *base,
                    vat: Some(vat),
                    surcharge_rate: None,
                    surcharge: None,
                }],
                total_vat: vat,
                total: base + vat,
                previous: previous.take(),
                system: system(),
                generated_at: at(i as u32),
            }
            .build();
            previous = Some(PreviousRecord {
                invoice,
                hash: record.hash.clone(),
            });
            record
        })
        .collect()
}

fn message(records: &[&str]) -> String {
    let xml = submission_xml(SUPPLIER_NAME, SUPPLIER, records);
    soap::envelope(xml.split_once("?>").unwrap().1)
}

async fn harness() -> (Harness, Arc<Mutex<Simulator>>) {
    let simulator = Arc::new(Mutex::new(Simulator::default()));
    let shared = simulator.clone();
    let h = support::start_wired(
        support::relaxed(),
        Plan::Pro,
        Router::new(),
        move |ports, wiring| {
            let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
            ports
                .with_aeat_live(Arc::new(SimulatedAeat::new(shared, wiring.clock.clone())))
                .with_secrets(Arc::new(LocalSecrets::new(key)))
        },
    )
    .await;
    (h, simulator)
}

async fn import(h: &Harness, key: &str, period: u32) -> Reply {
    send(
        &h.app,
        post_json(
            "/api/v1/expenses/import-from-aeat",
            key,
            None,
            &json!({"year": 2026, "period": period}).to_string(),
        ),
    )
    .await
}

fn numbers(list: &Value) -> Vec<String> {
    let mut n: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["number"].as_str().unwrap().to_string())
        .collect();
    n.sort();
    n
}

#[tokio::test]
async fn suppliers_invoices_registered_with_the_aeat_come_into_the_book_as_drafts() {
    let (h, simulator) = harness().await;

    let no_issuer = import(&h, &h.live, 11).await;
    assert_eq!(
        (no_issuer.status, no_issuer.code()),
        (StatusCode::CONFLICT, "issuer_incomplete"),
        "{}",
        no_issuer.json
    );
    h.set_issuer().await;
    let no_certificate = import(&h, &h.live, 11).await;
    assert_eq!(
        no_certificate.code(),
        "certificate_missing",
        "{}",
        no_certificate.json
    );
    certificates::import(&h.ports, &h.account, &Fixture::person().pkcs12("pw"), "pw")
        .await
        .unwrap();

    // The account's issuer NIF is 12345678Z (support::madrid_issuer).
    let records = supplier_records(&[
        ("F-101", "12345678Z", dec!(100), dec!(21)),
        ("F-102", "B64717838", dec!(500), dec!(21)),
        ("F-103", "12345678Z", dec!(50), dec!(10)),
    ]);
    let xml: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
    let answer = simulator
        .lock()
        .unwrap()
        .respond(&message(&xml), at(30))
        .unwrap();
    assert!(answer.contains("Correcto"), "{answer}");

    let first = import(&h, &h.live, 11).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json);
    assert_eq!(
        first.json["records"], 2,
        "only the account's: {}",
        first.json
    );
    assert_eq!(numbers(&first.json["imported"]), ["F-101", "F-103"]);
    let draft = first.json["imported"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["number"] == "F-101")
        .unwrap()
        .clone();
    assert_eq!(
        (
            draft["status"].clone(),
            draft["source"].clone(),
            draft["supplier"]["tax_id"].clone(),
            draft["total"].clone()
        ),
        (json!("draft"), json!("aeat"), json!(SUPPLIER), json!(121.0))
    );
    assert!(draft["notes"].to_string().contains("IRPF"), "{draft}");

    let again = import(&h, &h.live, 11).await;
    assert_eq!(again.json["imported"], json!([]), "{}", again.json);
    let skipped = again.json["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2);
    assert!(
        skipped
            .iter()
            .all(|s| s["reason"] == "already_in_book" && s["expense_id"].is_string())
    );

    let drafts = send(&h.app, get("/api/v1/expenses?status=draft", Some(&h.live))).await;
    assert_eq!(numbers(&drafts.json["data"]), ["F-101", "F-103"]);

    // Drafts do not count; a confirmed one does: 100 × 21 % = 21 deducted.
    let m303 = || {
        send(
            &h.app,
            post_json(
                "/api/v1/tax/model-303",
                &h.live,
                None,
                r#"{"year": 2026, "quarter": 4}"#,
            ),
        )
    };
    let before = m303().await;
    assert_eq!(before.json["expenses"], json!([]), "{}", before.json);
    let id = draft["id"].as_str().unwrap();
    let confirm = axum::http::Request::patch(format!("/api/v1/expenses/{id}"))
        .header("authorization", format!("Bearer {}", h.live))
        .header("content-type", "application/json")
        .body(axum::body::Body::from(r#"{"status": "confirmed"}"#))
        .unwrap();
    let confirmed = send(&h.app, confirm).await;
    assert_eq!(confirmed.json["status"], "confirmed", "{}", confirmed.json);
    let after = m303().await;
    assert_eq!(
        after.json["expenses"][0]["deductible_vat"],
        json!(21.0),
        "{}",
        after.json
    );

    let bad = import(&h, &h.live, 13).await;
    assert_eq!(
        (bad.status, bad.param()),
        (StatusCode::BAD_REQUEST, "period")
    );
    // Test keys ask the test simulator and keep nothing.
    let test = import(&h, &h.test, 11).await;
    assert_eq!(test.status, StatusCode::OK, "{}", test.json);
    assert_eq!(test.json["livemode"], false);
}
