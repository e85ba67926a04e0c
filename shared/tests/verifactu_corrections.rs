//! Test invoices that ask the AEAT simulator for an error
//! (`test_options.verifactu_error`) and the correction path
//! (`POST /invoices/{id}/verifactu/resubmit`), through the router and the
//! submitter in-process: with the simulator test records meet in every host
//! (a fresh one per message) and with one that remembers what it registered
//! (as the AEAT does). A rejected record is resubmitted under the fixed
//! issuer name and accepted, the chain verifying; one accepted with errors
//! is corrected with Subsanacion only; a rejected cancellation goes again;
//! pending and accepted records, and an issuer whose NIF changed, are 409;
//! the option is refused with a live key; only the test message that asks
//! for an error carries the header that asks.

use crate::support;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::Duration;
use serde_json::{Value, json};

use shared::adapters::aeat_simulated::SimulatedAeat;
use shared::app::accounts;
use shared::app::invoices::record::registration_of;
use shared::app::verifactu::submit_pending;
use shared::config::Config;
use shared::domain::account::Plan;
use shared::ports::Aeat;
use shared::ports::aeat::{AeatError, ClientIdentity};
use shared::tax::nif::Nif;
use shared::verifactu::aeat::RecordError;
use shared::verifactu::simulator::Simulator;
use support::{Harness, get, post_json, send};

async fn start() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, axum::Router::new()).await;
    h.set_issuer().await;
    h
}

/// One simulator for every test message, recording the messages.
struct Held {
    simulator: Arc<Mutex<Simulator>>,
    inner: SimulatedAeat,
    messages: Mutex<Vec<String>>,
}

#[async_trait]
impl Aeat for Held {
    async fn send(
        &self,
        message: String,
        identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError> {
        self.messages.lock().unwrap().push(message.clone());
        self.inner.send(message, identity).await
    }
}

async fn start_held() -> (Harness, Arc<Held>) {
    let mut made = None;
    let h = support::start_wired(
        support::relaxed(),
        Plan::Pro,
        axum::Router::new(),
        |ports, wiring| {
            let simulator = Arc::new(Mutex::new(Simulator::default()));
            let held = Arc::new(Held {
                inner: SimulatedAeat::new(simulator.clone(), wiring.clock.clone()),
                simulator,
                messages: Mutex::default(),
            });
            made = Some(held.clone());
            ports.with_aeat_test(held)
        },
    )
    .await;
    h.set_issuer().await;
    (h, made.unwrap())
}

async fn resubmit(h: &Harness, key: &str, id: &Value) -> support::Reply {
    let path = format!("/api/v1/invoices/{id}/verifactu/resubmit");
    send(&h.app, post_json(&path, key, None, "")).await
}

async fn set_issuer(h: &Harness, name: &str, nif: &str) {
    let mut issuer = accounts::get(&h.ports, &h.account).await.unwrap().issuer;
    issuer.name = Some(name.into());
    issuer.nif = Some(Nif::parse(nif).unwrap());
    accounts::set_issuer(&h.ports, &h.account, &issuer)
        .await
        .unwrap();
}

fn count(events: &[shared::app::outbox::Event], kind: &str) -> usize {
    events.iter().filter(|e| e.kind == kind).count()
}

/// A record's JSON view without what a correction changes.
fn lasting(record: &Value) -> Value {
    let mut record = record.clone();
    let map = record.as_object_mut().unwrap();
    for changed in [
        "NombreRazonEmisor",
        "Subsanacion",
        "RechazoPrevio",
        "Encadenamiento",
        "FechaHoraHusoGenRegistro",
        "Huella",
    ] {
        map.remove(changed);
    }
    record
}

fn body(extra: Value) -> Value {
    let mut body = json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": 21}]});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

async fn issue(h: &Harness, key: &str, extra: Value) -> support::Reply {
    let idem = shared::ids::random_token(8);
    let req = post_json(
        "/api/v1/invoices",
        key,
        Some(&idem),
        &body(extra).to_string(),
    );
    send(&h.app, req).await
}

async fn invoice(h: &Harness, key: &str, id: &Value) -> Value {
    send(&h.app, get(&format!("/api/v1/invoices/{id}"), Some(key)))
        .await
        .json
}

/// Runs the submitter after the AEAT's wait since the last message.
async fn submit(h: &Harness) {
    h.clock.advance(Duration::seconds(60));
    submit_pending(&h.ports).await.unwrap();
}

fn asking(code: u32) -> Value {
    json!({"test_options": {"verifactu_error": {"code": code,
        "description": "El valor del campo NumSerieFactura es incorrecto."}}})
}

#[tokio::test]
async fn a_test_invoice_asking_for_an_error_code_is_rejected_with_it() {
    let h = start().await;
    let r = issue(&h, &h.test, asking(1104)).await;
    assert_eq!(r.status, 201, "{}", r.json);
    let id = &r.json["id"];
    submit(&h).await;
    let verifactu = &invoice(&h, &h.test, id).await["verifactu"];
    assert_eq!(verifactu["status"], "rejected", "{verifactu}");
    assert_eq!(verifactu["answer"]["state"], "Incorrecto");
    assert_eq!(verifactu["answer"]["code"], 1104);
    assert_eq!(
        verifactu["answer"]["description"],
        "El valor del campo NumSerieFactura es incorrecto."
    );
    let events = support::events(&h).await;
    let rejected: Vec<_> = events
        .iter()
        .filter(|e| e.kind == "verifactu.rejected")
        .collect();
    assert_eq!(rejected.len(), 1, "{events:?}");
    assert!(!rejected[0].livemode);
    assert_eq!(rejected[0].data["invoice_id"], *id);
    assert_eq!(rejected[0].data["answer"]["code"], 1104);
}

#[tokio::test]
async fn a_code_from_2000_to_2999_is_accepted_with_errors() {
    let h = start().await;
    let r = issue(
        &h,
        &h.test,
        json!({"test_options": {"verifactu_error": {"code": 2001}}}),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.json);
    submit(&h).await;
    let verifactu = &invoice(&h, &h.test, &r.json["id"]).await["verifactu"];
    assert_eq!(verifactu["status"], "accepted_with_errors", "{verifactu}");
    assert_eq!(verifactu["answer"]["code"], 2001);
    assert_eq!(
        verifactu["answer"]["description"],
        "Error 2001 simulado (test_options.verifactu_error)."
    );
    let events = support::events(&h).await;
    assert!(events.iter().any(|e| e.kind == "verifactu.accepted"));
}

#[tokio::test]
async fn the_option_is_refused_with_a_live_key_or_a_bad_value() {
    let h = start().await;
    let live = issue(&h, &h.live, asking(1104)).await;
    support::assert_error_shape(
        &live,
        axum::http::StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(live.param(), "test_options");
    assert!(
        live.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("test keys"),
        "{}",
        live.json
    );
    let r = issue(&h, &h.test, asking(42)).await;
    assert_eq!(
        (r.status.as_u16(), r.param()),
        (400, "test_options.verifactu_error.code")
    );
    let r = issue(
        &h,
        &h.test,
        json!({"test_options": {"verifactu_error": {"code": 1104, "reason": "x"}}}),
    )
    .await;
    assert_eq!(
        (r.status.as_u16(), r.code(), r.param()),
        (
            400,
            "parameter_unknown",
            "test_options.verifactu_error.reason"
        )
    );
}

/// Issues a test invoice asking for 1104, has it rejected, fixes the
/// issuer's name, resubmits it and has it accepted.
async fn rejected_then_resubmitted(h: &Harness) {
    let r = issue(h, &h.test, asking(1104)).await;
    let id = r.json["id"].clone();
    let first = r.json["verifactu"].clone();
    submit(h).await;
    assert_eq!(
        invoice(h, &h.test, &id).await["verifactu"]["status"],
        "rejected"
    );
    set_issuer(h, "Ana García Pérez (corregido)", "12345678Z").await;

    let r = resubmit(h, &h.test, &id).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let verifactu = &r.json["verifactu"];
    assert_eq!(verifactu["status"], "pending");
    assert!(verifactu.get("answer").is_none(), "{verifactu}");
    let record = &verifactu["record"];
    assert_eq!(
        (&record["Subsanacion"], &record["RechazoPrevio"]),
        (&json!("S"), &json!("X"))
    );
    assert_eq!(record["NombreRazonEmisor"], "Ana García Pérez (corregido)");
    assert_eq!(r.json["issuer"]["name"], "Ana García Pérez (corregido)");
    assert_eq!(verifactu["previous_hash"], first["hash"]);
    assert_ne!(verifactu["hash"], first["hash"]);
    assert_eq!(verifactu["qr_url"], first["qr_url"]);
    assert_eq!(lasting(record), lasting(&first["record"]));
    let last = r.json["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["type"], "verifactu_resubmitted");
    assert!(
        last["detail"].as_str().unwrap().contains("code 1104"),
        "{last}"
    );

    let chain = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.test))).await;
    assert_eq!(
        (&chain.json["status"], &chain.json["records"]),
        (&json!("ok"), &json!(2))
    );

    submit(h).await;
    let verifactu = &invoice(h, &h.test, &id).await["verifactu"];
    assert_eq!(verifactu["status"], "accepted", "{verifactu}");
    assert_eq!(verifactu["answer"]["state"], "Correcto");
    let events = support::events(h).await;
    assert_eq!(
        (
            count(&events, "verifactu.rejected"),
            count(&events, "verifactu.accepted")
        ),
        (1, 1)
    );
    let accepted = events
        .iter()
        .find(|e| e.kind == "verifactu.accepted")
        .unwrap();
    assert_eq!(accepted.data["hash"], verifactu["hash"]);
    assert!(!accepted.livemode);

    let again = resubmit(h, &h.test, &id).await;
    assert_eq!(
        (again.status.as_u16(), again.code()),
        (409, "invalid_state")
    );
    assert!(
        again.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("rectifying invoice")
    );
}

#[tokio::test]
async fn a_rejected_record_is_resubmitted_under_the_fixed_issuer_name_and_accepted() {
    rejected_then_resubmitted(&start().await).await;
    rejected_then_resubmitted(&start_held().await.0).await;
}

/// Issues a test invoice accepted with errors (2001) and corrects it.
async fn accepted_with_errors_then_corrected(h: &Harness) {
    let r = issue(
        h,
        &h.test,
        json!({"test_options": {"verifactu_error": {"code": 2001}}}),
    )
    .await;
    let id = r.json["id"].clone();
    submit(h).await;
    let r = resubmit(h, &h.test, &id).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let record = &r.json["verifactu"]["record"];
    assert_eq!(record["Subsanacion"], "S");
    assert!(record.get("RechazoPrevio").is_none(), "{record}");
    submit(h).await;
    let verifactu = &invoice(h, &h.test, &id).await["verifactu"];
    assert_eq!(verifactu["status"], "accepted", "{verifactu}");
    assert_eq!(
        verifactu["answer"]["state"], "Correcto",
        "it replaced the record held"
    );
}

#[tokio::test]
async fn a_record_accepted_with_errors_is_corrected_with_subsanacion_only() {
    accepted_with_errors_then_corrected(&start().await).await;
    accepted_with_errors_then_corrected(&start_held().await.0).await;
}

#[tokio::test]
async fn pending_and_accepted_records_and_another_issuer_nif_are_409() {
    let h = start().await;
    let id = issue(&h, &h.test, json!({})).await.json["id"].clone();
    let pending = resubmit(&h, &h.test, &id).await;
    assert_eq!(
        (pending.status.as_u16(), pending.code()),
        (409, "invalid_state")
    );
    assert!(
        pending.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("wait for the AEAT's answer")
    );
    submit(&h).await;
    let accepted = resubmit(&h, &h.test, &id).await;
    assert_eq!(
        (accepted.status.as_u16(), accepted.code()),
        (409, "invalid_state")
    );

    let rejected = issue(&h, &h.test, asking(1104)).await.json["id"].clone();
    submit(&h).await;
    set_issuer(&h, "Otra Empresa SL", "B64717838").await;
    let moved = resubmit(&h, &h.test, &rejected).await;
    assert_eq!(
        (moved.status.as_u16(), moved.code()),
        (409, "invalid_state")
    );
    let message = moved.json["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("B64717838") && message.contains("cancel the invoice"),
        "{message}"
    );
    let unknown = resubmit(&h, &h.test, &json!(999)).await;
    assert_eq!(unknown.status.as_u16(), 404);
}

#[tokio::test]
async fn a_rejected_cancellation_is_resubmitted_and_accepted() {
    let (h, held) = start_held().await;
    let r = issue(&h, &h.test, json!({})).await;
    let (id, number) = (
        r.json["id"].clone(),
        r.json["number"].as_str().unwrap().to_string(),
    );
    submit(&h).await;
    held.simulator.lock().unwrap().inject(
        &number,
        RecordError {
            code: 3003,
            description: "El presentador no tiene los permisos necesarios.".into(),
        },
    );
    let path = format!("/api/v1/invoices/{id}/cancel");
    let r = send(&h.app, post_json(&path, &h.test, None, "{}")).await;
    assert_eq!(r.status, 200, "{}", r.json);
    submit(&h).await;
    held.simulator.lock().unwrap().clear_injections();
    let verifactu = &invoice(&h, &h.test, &id).await["verifactu"];
    assert_eq!(verifactu["cancellation_status"], "rejected", "{verifactu}");

    let r = resubmit(&h, &h.test, &id).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let cancellation = &r.json["verifactu"]["cancellation"];
    assert_eq!(cancellation["RechazoPrevio"], "S");
    assert!(
        cancellation.get("SinRegistroPrevio").is_none(),
        "the registration was accepted"
    );
    assert_eq!(r.json["verifactu"]["cancellation_status"], "pending");
    submit(&h).await;
    let verifactu = &invoice(&h, &h.test, &id).await["verifactu"];
    assert_eq!(verifactu["cancellation_status"], "accepted", "{verifactu}");
    assert_eq!(verifactu["status"], "accepted");
    let chain = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.test))).await;
    assert_eq!(
        (&chain.json["status"], &chain.json["records"]),
        (&json!("ok"), &json!(3))
    );
}

#[tokio::test]
async fn cancelling_a_rejected_invoice_says_it_has_no_registration_and_is_accepted() {
    let (h, _) = start_held().await;
    let id = issue(&h, &h.test, asking(1104)).await.json["id"].clone();
    submit(&h).await;
    let path = format!("/api/v1/invoices/{id}/cancel");
    let r = send(&h.app, post_json(&path, &h.test, None, "{}")).await;
    assert_eq!(
        r.json["verifactu"]["cancellation"]["SinRegistroPrevio"],
        "S"
    );
    submit(&h).await;
    let verifactu = &invoice(&h, &h.test, &id).await["verifactu"];
    assert_eq!(verifactu["cancellation_status"], "accepted", "{verifactu}");
}

#[tokio::test]
async fn only_the_test_message_that_asks_for_an_error_carries_the_header() {
    let (h, held) = start_held().await;
    let id = issue(&h, &h.test, asking(1104)).await.json["id"].clone();
    submit(&h).await;
    resubmit(&h, &h.test, &id).await;
    submit(&h).await;
    let messages = held.messages.lock().unwrap().clone();
    assert_eq!(messages.len(), 2);
    assert!(
        messages[0].contains("<svc:SimulatedErrors"),
        "{}",
        messages[0]
    );
    assert!(messages[0].contains("<svc:CodigoErrorRegistro>1104<"));
    assert!(!messages[1].contains("SimulatedErrors"), "{}", messages[1]);
}

#[tokio::test]
async fn every_fixture_invoice_rebuilds_to_the_record_it_was_issued_with() {
    let system = Config::default().verifactu;
    for (name, invoice) in support::invoice_fixtures::all().await {
        let previous = invoice.verifactu.previous_hash.as_ref().map(|hash| {
            let link = &invoice.verifactu.record["Encadenamiento"]["RegistroAnterior"];
            shared::app::invoices::store::ChainHead {
                seq: 0,
                hash: hash.clone(),
                number: link["NumSerieFactura"].as_str().unwrap().to_string(),
                issue_date: chrono::NaiveDate::parse_from_str(
                    link["FechaExpedicionFactura"].as_str().unwrap(),
                    "%d-%m-%Y",
                )
                .unwrap(),
            }
        });
        let rebuilt = registration_of(
            &invoice,
            &invoice.issuer.name,
            None,
            previous.as_ref(),
            &system,
            invoice.created_at,
        )
        .build();
        assert_eq!(rebuilt.json, invoice.verifactu.record, "{name}");
        assert_eq!(rebuilt.hash, invoice.verifactu.hash, "{name}");
    }
}
