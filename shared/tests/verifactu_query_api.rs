//! Asking the AEAT (its simulator, in-process and shared by every message):
//! `GET /verifactu/records` compares a month's records with what it holds
//! (a record never sent is `missing_at_aeat`), validates `year` and
//! `period`, and needs a live key's certificate; `GET
//! /invoices/{id}/verifactu/record` gives the records as sent with the
//! answers as received; the MCP tool `compare_verifactu_records`; and the
//! invoices a supplier reported with the account as recipient, read for an
//! import (`received_invoices`).

use crate::support;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate};
use rust_decimal::dec;
use serde_json::{Value, json};

use shared::adapters::aeat_simulated::SimulatedAeat;
use shared::app::keys::Caller;
use shared::app::verifactu::query::received_invoices;
use shared::app::verifactu::submit_pending;
use shared::domain::account::{Mode, Plan};
use shared::invoice::kind::Kind;
use shared::verifactu::aeat::query::{HeldState, Period};
use shared::verifactu::aeat::soap;
use shared::verifactu::simulator::Simulator;
use shared::verifactu::{
    BreakdownLine, InvoiceRef, PreviousRecord, Qualification, Recipient, Registration, SystemInfo,
    Treatment, submission_xml,
};
use support::{Harness, assert_error_shape, get, post_json, send};

struct Env {
    h: Harness,
    simulator: Arc<Mutex<Simulator>>,
}

async fn env() -> Env {
    let mut made = None;
    let h = support::start_wired(
        support::relaxed(),
        Plan::Pro,
        Router::new(),
        |ports, wiring| {
            let simulator = Arc::new(Mutex::new(Simulator::default()));
            made = Some(simulator.clone());
            ports.with_aeat_test(Arc::new(SimulatedAeat::new(
                simulator,
                wiring.clock.clone(),
            )))
        },
    )
    .await;
    h.set_issuer().await;
    Env {
        h,
        simulator: made.unwrap(),
    }
}

impl Env {
    async fn issue(&self, n: usize) -> Vec<Value> {
        let mut issued = Vec::new();
        for i in 0..n {
            let body = json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": 21}]});
            let idem = format!("q-{i}-{}", shared::ids::random_token(6));
            let r = send(
                &self.h.app,
                post_json(
                    "/api/v1/invoices",
                    &self.h.test,
                    Some(&idem),
                    &body.to_string(),
                ),
            )
            .await;
            assert_eq!(r.status, 201, "{}", r.json);
            issued.push(r.json);
        }
        issued
    }

    async fn submit(&self) {
        submit_pending(&self.h.ports).await.unwrap();
    }
}

/// The year and month of an issued invoice.
fn month_of(invoice: &Value) -> (i32, u32) {
    let date: NaiveDate = invoice["issue_date"].as_str().unwrap().parse().unwrap();
    (
        chrono::Datelike::year(&date),
        chrono::Datelike::month(&date),
    )
}

#[tokio::test]
async fn a_record_never_sent_is_missing_at_the_aeat_and_the_rest_match() {
    let env = env().await;
    let sent = env.issue(2).await;
    env.submit().await;
    let unsent = env.issue(1).await;
    let (year, month) = month_of(&sent[0]);
    let r = send(
        &env.h.app,
        get(
            &format!("/api/v1/verifactu/records?year={year}&period={month}"),
            Some(&env.h.test),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["object"], "verifactu_comparison");
    assert_eq!(r.json["issuer_nif"], "12345678Z");
    assert_eq!(r.json["matching"], 2, "{}", r.json);
    assert_eq!(
        r.json["missing_at_aeat"],
        json!([{"number": unsent[0]["number"], "issue_date": unsent[0]["issue_date"],
            "invoice_id": unsent[0]["id"], "operation": "Alta", "status": "pending",
            "aeat_state": null, "differences": []}])
    );
    assert_eq!(r.json["different"], json!([]));
    assert_eq!(r.json["only_at_aeat"], json!([]));

    let other = if month == 12 { 1 } else { month + 1 };
    let r = send(
        &env.h.app,
        get(
            &format!("/api/v1/verifactu/records?year={year}&period={other}"),
            Some(&env.h.test),
        ),
    )
    .await;
    assert_eq!(
        (
            r.json["matching"].clone(),
            r.json["missing_at_aeat"].clone()
        ),
        (json!(0), json!([])),
        "another month holds none of them"
    );
}

#[tokio::test]
async fn a_record_the_aeat_holds_otherwise_is_different_and_one_it_lost_is_missing() {
    let env = env().await;
    let issued = env.issue(2).await;
    env.submit().await;
    let (year, month) = month_of(&issued[0]);
    // The AEAT's copy starts over: it holds none of them, then only what a
    // supplier's system sent in our name for the second invoice.
    *env.simulator.lock().unwrap() = Simulator::default();
    let number = issued[1]["number"].as_str().unwrap();
    let date: NaiveDate = issued[1]["issue_date"].as_str().unwrap().parse().unwrap();
    let other = Registration {
        invoice: InvoiceRef {
            issuer_nif: "12345678Z".into(),
            number: number.into(),
            issue_date: date,
        },
        ..supplier_registration("12345678Z", "X-1", "B12345674")
    };
    deliver(&env, "Ana García Pérez", "12345678Z", &other);
    let r = send(
        &env.h.app,
        get(
            &format!("/api/v1/verifactu/records?year={year}&period={month}"),
            Some(&env.h.test),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["matching"], 0);
    assert_eq!(r.json["missing_at_aeat"][0]["invoice_id"], issued[0]["id"]);
    assert_eq!(r.json["missing_at_aeat"][0]["status"], "accepted");
    let different = &r.json["different"][0];
    assert_eq!(different["invoice_id"], issued[1]["id"]);
    assert_eq!(different["aeat_state"], "Correcto");
    assert_eq!(different["differences"], json!(["hash"]));
}

#[tokio::test]
async fn year_and_period_are_validated_naming_the_field() {
    let env = env().await;
    for (query, param) in [
        ("year=2026&period=13", "period"),
        ("year=2026&period=0", "period"),
        ("year=2026&period=may", "period"),
        ("year=1999&period=5", "year"),
        ("period=5", "year"),
        ("year=2026", "period"),
        ("year=2026&period=5&month=5", "month"),
    ] {
        let r = send(
            &env.h.app,
            get(
                &format!("/api/v1/verifactu/records?{query}"),
                Some(&env.h.test),
            ),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{query}: {}", r.json);
        assert_eq!(r.param(), param, "{query}: {}", r.json);
    }
}

#[tokio::test]
async fn a_live_key_needs_the_certificate_and_no_quota_is_used() {
    let env = env().await;
    let r = send(
        &env.h.app,
        get(
            "/api/v1/verifactu/records?year=2026&period=11",
            Some(&env.h.live),
        ),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "certificate_missing",
    );
    let usage = send(&env.h.app, get("/api/v1/usage", Some(&env.h.live))).await;
    assert_eq!(usage.json["used"], 0, "{}", usage.json);
}

#[tokio::test]
async fn an_invoices_records_come_as_sent_with_the_answers_as_received() {
    let env = env().await;
    let issued = env.issue(1).await;
    let id = issued[0]["id"].clone();
    let path = format!("/api/v1/invoices/{id}/verifactu/record");
    let pending = send(&env.h.app, get(&path, Some(&env.h.test))).await;
    assert_eq!(pending.status, StatusCode::OK, "{}", pending.json);
    assert_eq!(pending.json["records"][0]["status"], "pending");
    assert_eq!(pending.json["records"][0]["answer_xml"], Value::Null);

    env.submit().await;
    let r = send(
        &env.h.app,
        post_json(
            &format!("/api/v1/invoices/{id}/cancel"),
            &env.h.test,
            None,
            "{}",
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    env.h.clock.advance(chrono::Duration::seconds(60));
    env.submit().await;

    let r = send(&env.h.app, get(&path, Some(&env.h.test))).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(
        (r.json["object"].clone(), r.json["invoice_id"].clone()),
        (json!("verifactu_records"), id.clone())
    );
    let records = r.json["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    let number = issued[0]["number"].as_str().unwrap();
    for (record, element, operation) in [
        (&records[0], "<sf:RegistroAlta ", "Alta"),
        (&records[1], "<sf:RegistroAnulacion ", "Anulacion"),
    ] {
        assert_eq!(record["operation"], operation);
        assert_eq!(record["status"], "accepted");
        let xml = record["xml"].as_str().unwrap();
        assert!(xml.starts_with(element), "{xml}");
        assert!(xml.contains(record["hash"].as_str().unwrap()));
        let answer = record["answer_xml"].as_str().unwrap();
        assert!(
            answer.contains("RespuestaRegFactuSistemaFacturacion") && answer.contains(number),
            "{answer}"
        );
    }
    assert_ne!(records[0]["answer_xml"], records[1]["answer_xml"]);
    assert_eq!(records[0]["hash"], issued[0]["verifactu"]["hash"]);

    for (path, key) in [
        (path.as_str(), &env.h.live),
        ("/api/v1/invoices/999999/verifactu/record", &env.h.test),
        ("/api/v1/invoices/abc/verifactu/record", &env.h.test),
    ] {
        let r = send(&env.h.app, get(path, Some(key))).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}: {}", r.json);
    }
}

fn supplier_registration(issuer_nif: &str, number: &str, recipient_nif: &str) -> Registration {
    Registration {
        invoice: InvoiceRef {
            issuer_nif: issuer_nif.into(),
            number: number.into(),
            issue_date: NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
        },
        issuer_name: "Suministros Norte, S.A.".into(),
        correction: None,
        kind: Kind::F1,
        rectification: None,
        simplification: Default::default(),
        operation_date: None,
        description: "Papel".into(),
        recipients: vec![Recipient::Nif {
            name: "Ana García Pérez".into(),
            nif: recipient_nif.into(),
        }],
        breakdown: vec![BreakdownLine {
            tax: Default::default(),
            regime: "01".into(),
            treatment: Treatment::Qualified(Qualification::S1),
            rate: Some(dec!(21)),
            base: dec!(100),
            vat: Some(dec!(21)),
            surcharge_rate: None,
            surcharge: None,
        }],
        total_vat: dec!(21),
        total: dec!(121),
        previous: None,
        system: SystemInfo {
            producer_name: "Otro Programa, S.L.".into(),
            producer_nif: "B77436020".into(),
            system_name: "Facturador".into(),
            system_id: "FX".into(),
            version: "2.0".into(),
            installation_number: "1".into(),
            only_verifactu: true,
            multi_ot: false,
            multiple_ot: false,
        },
        generated_at: DateTime::parse_from_rfc3339("2026-11-20T09:00:00+01:00").unwrap(),
    }
}

/// A message of another system (its obligado's own) to the same simulator;
/// the record's Huella.
fn deliver(env: &Env, name: &str, nif: &str, registration: &Registration) -> String {
    let built = registration.build();
    let xml = submission_xml(name, nif, &[built.xml.as_str()]);
    let message = soap::envelope(xml.split_once("?>").unwrap().1);
    let now = DateTime::parse_from_rfc3339("2026-11-21T11:00:00+01:00").unwrap();
    let answer = env
        .simulator
        .lock()
        .unwrap()
        .respond(&message, now)
        .unwrap();
    assert!(answer.contains(">Correcto</"), "{answer}");
    built.hash
}

#[tokio::test]
async fn invoices_a_supplier_reported_to_the_account_are_received_for_an_import() {
    let env = env().await;
    let supplier = supplier_registration("A39200019", "SN-0042", "12345678Z");
    let hash = deliver(&env, "Suministros Norte, S.A.", "A39200019", &supplier);
    let elsewhere = Registration {
        previous: Some(PreviousRecord {
            invoice: supplier.invoice.clone(),
            hash,
        }),
        ..supplier_registration("A39200019", "SN-0043", "B64717838")
    };
    deliver(&env, "Suministros Norte, S.A.", "A39200019", &elsewhere);
    let caller = Caller {
        account_id: env.h.account.clone(),
        plan: Plan::Pro,
        mode: Mode::Test,
        key_id: "test".into(),
    };
    let received = received_invoices(&env.h.ports, &caller, Period::new(2026, 11).unwrap())
        .await
        .unwrap();
    assert_eq!(
        received.len(),
        1,
        "only what names the account: {received:?}"
    );
    let invoice = &received[0];
    assert_eq!(
        (
            invoice.issuer_nif.as_str(),
            invoice.issuer_name.as_deref(),
            invoice.number.as_str(),
            invoice.issue_date,
            invoice.kind,
            invoice.state
        ),
        (
            "A39200019",
            Some("Suministros Norte, S.A."),
            "SN-0042",
            NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
            Some(Kind::F1),
            HeldState::Correct
        )
    );
    assert_eq!(invoice.lines, supplier.breakdown);
    assert_eq!(
        (invoice.total_tax, invoice.total),
        (Some(dec!(21.00)), Some(dec!(121.00)))
    );
    assert!(
        received_invoices(&env.h.ports, &caller, Period::new(2026, 10).unwrap())
            .await
            .unwrap()
            .is_empty()
    );
}

fn rpc(key: &str, body: &Value) -> axum::http::Request<axum::body::Body> {
    axum::http::Request::post("/api/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("host", "localhost")
        .header("authorization", format!("Bearer {key}"))
        .body(axum::body::Body::from(body.to_string()))
        .unwrap()
}

#[tokio::test]
async fn the_mcp_tool_compares_as_the_route_does() {
    let env = env().await;
    let issued = env.issue(1).await;
    let (year, month) = month_of(&issued[0]);
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "compare_verifactu_records", "arguments": {"year": year, "period": month}}});
    let r = send(&env.h.app, rpc(&env.h.test, &body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let result = &r.json["result"];
    assert_eq!(result["isError"], false, "{result}");
    let content = &result["structuredContent"];
    assert_eq!(content["missing_at_aeat"][0]["invoice_id"], issued[0]["id"]);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("1 missing"),
        "{result}"
    );

    let body = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "compare_verifactu_records", "arguments": {"year": year, "period": 13}}});
    let r = send(&env.h.app, rpc(&env.h.test, &body)).await;
    let result = &r.json["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("period"),
        "{result}"
    );
}
