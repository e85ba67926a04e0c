//! The AEAT simulator's HTTP service, in-process: SOAP in and out at the
//! AEAT's path, and the control API that injects record errors, SOAP
//! faults, server errors and timeouts (a timed-out message is registered,
//! so sending it again meets duplicates), and lists what it received; a test
//! message's SOAP header asks for its records' errors.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use shared::embedded::aeat_simulator::{AEAT_PATH, router};
use shared::ports::clock::ManualClock;
use shared::verifactu::BuiltRecord;
use shared::verifactu::aeat::simulated_errors::{self, SimulatedError};
use shared::verifactu::aeat::{Answer, Operation, RecordError, RecordState, SendState, soap};
use support::aeat::{chain, message};
use tower::ServiceExt;

fn simulator() -> Router {
    let clock = Arc::new(ManualClock::new("2026-11-24T09:00:00Z".parse().unwrap()));
    router(clock, 60)
}

async fn send(app: &Router, method: &str, path: &str, body: String) -> (StatusCode, String) {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

async fn submit(app: &Router, records: &[BuiltRecord]) -> (StatusCode, soap::Body) {
    let (status, xml) = send(app, "POST", AEAT_PATH, message(records)).await;
    (status, soap::read(&xml).unwrap())
}

fn answer(body: soap::Body) -> Answer {
    match body {
        soap::Body::Content(content) => Answer::read(&content).unwrap(),
        soap::Body::Fault(fault) => panic!("a fault: {fault:?}"),
    }
}

async fn control(app: &Router, method: &str, path: &str, body: Value) {
    let (status, text) = send(app, method, path, body.to_string()).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{text}");
}

#[tokio::test]
async fn messages_are_answered_at_the_aeat_path_and_record_errors_can_be_injected() {
    let app = simulator();
    let records = chain(4);
    let (status, body) = submit(&app, &records[..2]).await;
    assert_eq!(status, StatusCode::OK);
    let first = answer(body);
    assert_eq!((first.state, first.wait_seconds), (SendState::Correcto, 60));
    assert_eq!(first.lines.len(), 2);
    assert_eq!(
        first.presented.as_ref().unwrap().1,
        "2026-11-24T10:00:00+01:00"
    );

    control(
        &app,
        "POST",
        "/simulator/record-errors",
        json!({"number": "F-3", "code": 1105, "description": "NIF no identificado"}),
    )
    .await;
    control(
        &app,
        "PUT",
        "/simulator/wait-seconds",
        json!({"seconds": 5}),
    )
    .await;
    let rejected = answer(submit(&app, &records[2..3]).await.1);
    assert_eq!(
        (rejected.state, rejected.wait_seconds),
        (SendState::Incorrecto, 5)
    );
    assert_eq!(rejected.lines[0].state, RecordState::Incorrecto);
    assert_eq!(rejected.lines[0].error.as_ref().unwrap().code, 1105);
    control(&app, "DELETE", "/simulator/record-errors", json!({})).await;
    let accepted = answer(submit(&app, &records[3..]).await.1);
    assert_eq!(
        accepted.lines[0].state,
        RecordState::Correcto,
        "the chain goes on after a rejected record"
    );

    let (_, log) = send(&app, "GET", "/simulator/messages", String::new()).await;
    let outcomes: Vec<Value> = serde_json::from_str::<Value>(&log)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["outcome"].clone())
        .collect();
    assert_eq!(
        outcomes,
        [json!("Correcto"), json!("Incorrecto"), json!("Correcto")]
    );
}

#[tokio::test]
async fn faults_server_errors_and_unreadable_messages_register_nothing() {
    let app = simulator();
    let records = chain(1);
    control(
        &app,
        "POST",
        "/simulator/faults",
        json!({"kind": "soap_fault"}),
    )
    .await;
    control(
        &app,
        "POST",
        "/simulator/faults",
        json!({"kind": "server_error", "status": 502, "times": 2}),
    )
    .await;
    let (status, body) = submit(&app, &records).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(
        matches!(body, soap::Body::Fault(ref f) if f.code == "env:Server"),
        "{body:?}"
    );
    for _ in 0..2 {
        let (status, _) = send(&app, "POST", AEAT_PATH, message(&records)).await;
        assert_eq!(status, StatusCode::BAD_GATEWAY);
    }
    let (status, xml) = send(&app, "POST", AEAT_PATH, "<not-soap/>".into()).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
    let soap::Body::Fault(fault) = soap::read(&xml).unwrap() else {
        panic!("a fault")
    };
    assert!(fault.message.contains("4102"), "{fault:?}");
    let ok = answer(submit(&app, &records).await.1);
    assert_eq!(
        ok.lines[0].state,
        RecordState::Correcto,
        "nothing was registered before"
    );
}

#[tokio::test]
async fn a_timed_out_message_was_registered_so_sending_it_again_meets_duplicates() {
    let app = simulator();
    let records = chain(2);
    control(
        &app,
        "POST",
        "/simulator/faults",
        json!({"kind": "timeout", "seconds": 30}),
    )
    .await;
    let late = tokio::time::timeout(Duration::from_millis(300), submit(&app, &records)).await;
    assert!(late.is_err(), "the answer is held back");
    let again = answer(submit(&app, &records).await.1);
    assert_eq!(again.state, SendState::Incorrecto);
    for line in &again.lines {
        assert_eq!(line.error.as_ref().unwrap().code, 3000);
        assert_eq!(line.duplicate.as_ref().unwrap().state, "Correcta");
    }
}

#[tokio::test]
async fn a_test_messages_header_asks_for_its_records_errors() {
    let app = simulator();
    let records = chain(2);
    let asked = [SimulatedError {
        number: "F-1".into(),
        operation: Operation::Alta,
        error: RecordError {
            code: 4109,
            description: "El formato del NIF es incorrecto.".into(),
        },
    }];
    let envelope = message(&records);
    let with_header = envelope.replacen(
        "<env:Header/>",
        &format!(
            "<env:Header>{}</env:Header>",
            simulated_errors::header(&asked)
        ),
        1,
    );
    let (status, xml) = send(&app, "POST", AEAT_PATH, with_header).await;
    assert_eq!(status, StatusCode::OK);
    let lines = answer(soap::read(&xml).unwrap()).lines;
    let states: Vec<_> = lines
        .iter()
        .map(|l| (l.state, l.error.as_ref().map(|e| e.code)))
        .collect();
    assert_eq!(
        states,
        [
            (RecordState::Incorrecto, Some(4109)),
            (RecordState::Correcto, None)
        ]
    );
}
