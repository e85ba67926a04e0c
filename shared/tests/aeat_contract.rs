//! The `Aeat` port's contract, on both adapters: the in-process simulator
//! (`SimulatedAeat`) and HTTP (`HttpAeat`) to the simulator service on a
//! local port give the same answer to the same message; over HTTP, a SOAP
//! fault comes back as the fault envelope, a bare server error as `Status`,
//! and an answer that does not come in time as `Timeout`.

use crate::support;

use std::sync::{Arc, Mutex};

use serde_json::json;
use shared::adapters::aeat_http::HttpAeat;
use shared::adapters::aeat_simulated::SimulatedAeat;
use shared::config::AeatEndpoint;
use shared::embedded::aeat_simulator::{AEAT_PATH, router};
use shared::ports::Aeat;
use shared::ports::aeat::AeatError;
use shared::ports::clock::ManualClock;
use shared::verifactu::aeat::{Answer, SendState, soap};
use shared::verifactu::simulator::Simulator;
use support::aeat::chain;

/// One alta, F-1, in a message.
fn message() -> String {
    support::aeat::message(&chain(1))
}

fn answer(envelope: &str) -> Answer {
    match soap::read(envelope).unwrap() {
        soap::Body::Content(content) => Answer::read(&content).unwrap(),
        soap::Body::Fault(fault) => panic!("a fault: {fault:?}"),
    }
}

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new("2026-11-24T09:30:00Z".parse().unwrap()))
}

/// The simulator service on a free local port; its base address.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router(clock(), 60)).await.unwrap() });
    base
}

async fn control(base: &str, body: serde_json::Value) {
    shared::adapters::tls::install();
    let status = reqwest::Client::new()
        .post(format!("{base}/simulator/faults"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 204);
}

#[tokio::test]
async fn both_adapters_give_the_simulators_answer() {
    let in_process = SimulatedAeat::new(Arc::new(Mutex::new(Simulator::default())), clock());
    let base = serve().await;
    let over_http = HttpAeat::new(&AeatEndpoint::Url(format!("{base}{AEAT_PATH}")), 5);
    let adapters: [&dyn Aeat; 2] = [&in_process, &over_http];
    let mut answers = Vec::new();
    for aeat in adapters {
        let first = answer(&aeat.send(message(), None).await.unwrap());
        assert_eq!(first.state, SendState::Correcto);
        let again = answer(&aeat.send(message(), None).await.unwrap());
        assert_eq!(
            again.lines[0].error.as_ref().unwrap().code,
            3000,
            "a duplicate"
        );
        answers.push((first, again));
    }
    assert_eq!(answers[0], answers[1]);
    let fresh = SimulatedAeat::fresh_each_message(clock());
    for _ in 0..2 {
        assert_eq!(
            answer(&fresh.send(message(), None).await.unwrap()).state,
            SendState::Correcto
        );
    }
}

#[tokio::test]
async fn over_http_faults_errors_and_timeouts_are_told_apart() {
    let base = serve().await;
    let aeat = HttpAeat::new(&AeatEndpoint::Url(format!("{base}{AEAT_PATH}")), 1);
    control(&base, json!({"kind": "soap_fault"})).await;
    let envelope = aeat.send(message(), None).await.unwrap();
    assert!(matches!(
        soap::read(&envelope).unwrap(),
        soap::Body::Fault(_)
    ));
    control(&base, json!({"kind": "server_error", "status": 503})).await;
    assert_eq!(
        aeat.send(message(), None).await,
        Err(AeatError::Status(503))
    );
    control(&base, json!({"kind": "timeout", "seconds": 30})).await;
    assert_eq!(aeat.send(message(), None).await, Err(AeatError::Timeout(1)));
    let closed = HttpAeat::new(&AeatEndpoint::Url("http://127.0.0.1:9/".into()), 1);
    assert!(matches!(
        closed.send(message(), None).await,
        Err(AeatError::Transport(_))
    ));
}
