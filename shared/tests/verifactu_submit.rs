//! VERI*FACTU submission of test records to the simulator in-process: a
//! batch of 2,500 records goes as 1,000 + 1,000 + 500 with the answer's wait
//! honoured (manual clock); altas and anulaciones mixed; each EstadoRegistro
//! becomes its status and event; after a timeout the AEAT is asked before
//! the next message, so what it got is resolved from its query and never
//! sent again, and what it did not get is sent; a SOAP fault is retried
//! without asking; two submitters
//! never have two messages of one chain in flight; live records without the
//! issuer's certificate stay pending.

use crate::support;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Router;
use chrono::Duration;
use serde_json::{Value, json};

use shared::adapters::aeat_simulated::SimulatedAeat;
use shared::app::verifactu::certificates::Unusable;
use shared::app::verifactu::{Backlog, Outcome, backlog, submit_chain, submit_pending};
use shared::domain::account::Plan;
use shared::ports::Aeat;
use shared::ports::aeat::{AeatError, ClientIdentity};
use shared::verifactu::aeat::{Fault, RecordError, SendState, soap};
use shared::verifactu::simulator::Simulator;
use support::{Harness, get, post_json, send};

#[derive(Clone, Copy)]
enum Failure {
    /// The AEAT gets the message but its answer never arrives.
    TimeoutAfterDelivery,
    /// The message never reaches the AEAT, and the sender cannot tell.
    TimeoutBeforeDelivery,
    SoapFault,
}

/// The simulator, counting the records of each message and failing
/// submissions on demand; queries always reach it, counted apart.
struct Aeat4Tests {
    simulator: Arc<Mutex<Simulator>>,
    inner: SimulatedAeat,
    messages: Mutex<Vec<usize>>,
    queries: Mutex<usize>,
    failures: Mutex<VecDeque<Failure>>,
    delay: std::time::Duration,
}

#[async_trait]
impl Aeat for Aeat4Tests {
    async fn send(
        &self,
        message: String,
        _identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError> {
        if message.contains("ConsultaFactuSistemaFacturacion") {
            *self.queries.lock().unwrap() += 1;
            return self.inner.send(message, None).await;
        }
        let records = message.matches("<sfLR:RegistroFactura>").count();
        self.messages.lock().unwrap().push(records);
        tokio::time::sleep(self.delay).await;
        let failure = self.failures.lock().unwrap().pop_front();
        match failure {
            Some(Failure::TimeoutAfterDelivery) => {
                self.inner.send(message, None).await?;
                Err(AeatError::Timeout(60))
            }
            Some(Failure::TimeoutBeforeDelivery) => Err(AeatError::Timeout(60)),
            Some(Failure::SoapFault) => Ok(soap::fault_envelope(&Fault {
                code: "env:Server".into(),
                message: "Codigo[-1].Servicio no disponible".into(),
            })),
            None => self.inner.send(message, None).await,
        }
    }
}

struct Env {
    h: Harness,
    aeat: Arc<Aeat4Tests>,
}

async fn env(delay_ms: u64) -> Env {
    let mut made = None;
    let h = support::start_wired(
        support::relaxed(),
        Plan::Pro,
        Router::new(),
        |ports, wiring| {
            let simulator = Arc::new(Mutex::new(Simulator::default()));
            let aeat = Arc::new(Aeat4Tests {
                inner: SimulatedAeat::new(simulator.clone(), wiring.clock.clone()),
                simulator,
                messages: Mutex::default(),
                queries: Mutex::default(),
                failures: Mutex::default(),
                delay: std::time::Duration::from_millis(delay_ms),
            });
            made = Some(aeat.clone());
            ports.with_aeat_test(aeat)
        },
    )
    .await;
    h.set_issuer().await;
    Env {
        h,
        aeat: made.unwrap(),
    }
}

impl Env {
    async fn issue(&self, key: &str, n: usize) -> Vec<Value> {
        let mut issued = Vec::new();
        for i in 0..n {
            let body = json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": 21}]});
            let idem = format!("k-{i}-{}", rand_suffix());
            let r = send(
                &self.h.app,
                post_json("/api/v1/invoices", key, Some(&idem), &body.to_string()),
            )
            .await;
            assert_eq!(r.status, 201, "{}", r.json);
            issued.push(r.json);
        }
        issued
    }

    async fn invoice(&self, key: &str, id: &Value) -> Value {
        send(
            &self.h.app,
            get(&format!("/api/v1/invoices/{id}"), Some(key)),
        )
        .await
        .json
    }

    fn messages(&self) -> Vec<usize> {
        self.aeat.messages.lock().unwrap().clone()
    }

    fn queries(&self) -> usize {
        *self.aeat.queries.lock().unwrap()
    }

    fn fail(&self, failure: Failure) {
        self.aeat.failures.lock().unwrap().push_back(failure);
    }

    async fn submit(&self) -> Outcome {
        let mut outcomes = submit_pending(&self.h.ports).await.unwrap();
        assert_eq!(outcomes.len(), 1, "{outcomes:?}");
        outcomes.remove(0).1
    }
}

fn rand_suffix() -> String {
    shared::ids::random_token(6)
}

#[tokio::test]
async fn twenty_five_hundred_records_go_as_three_messages_with_the_wait_honoured() {
    let env = env(0).await;
    env.issue(&env.h.test.clone(), 2500).await;
    assert_eq!(
        env.submit().await,
        Outcome::Sent {
            records: 1000,
            state: SendState::Correcto
        }
    );
    assert_eq!(
        env.submit().await,
        Outcome::Sent {
            records: 1000,
            state: SendState::Correcto
        },
        "1,500 waiting: no need to wait"
    );
    let now = env.h.ports.clock.now();
    assert_eq!(
        env.submit().await,
        Outcome::Waiting(now + Duration::seconds(60))
    );
    env.h.clock.advance(Duration::seconds(59));
    assert!(matches!(env.submit().await, Outcome::Waiting(_)));
    env.h.clock.advance(Duration::seconds(1));
    assert_eq!(
        env.submit().await,
        Outcome::Sent {
            records: 500,
            state: SendState::Correcto
        }
    );
    assert_eq!(env.messages(), [1000, 1000, 500]);
    env.h.clock.advance(Duration::seconds(60));
    assert_eq!(env.submit().await, Outcome::Idle);
    assert!(
        submit_pending(&env.h.ports).await.unwrap().is_empty(),
        "the chain is done"
    );
}

#[tokio::test]
async fn altas_and_anulaciones_go_together_and_each_answer_is_stored_with_its_event() {
    let env = env(0).await;
    let key = env.h.test.clone();
    let issued = env.issue(&key, 3).await;
    let id = &issued[1]["id"];
    let r = send(
        &env.h.app,
        post_json(&format!("/api/v1/invoices/{id}/cancel"), &key, None, "{}"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["verifactu"]["cancellation_status"], "pending");

    let sim = env.aeat.simulator.clone();
    let rejected_number = issued[2]["number"].as_str().unwrap().to_string();
    sim.lock().unwrap().inject(
        &rejected_number,
        RecordError {
            code: 1105,
            description: "NIF no identificado".into(),
        },
    );
    assert!(matches!(
        env.submit().await,
        Outcome::Sent {
            records: 4,
            state: SendState::ParcialmenteCorrecto
        }
    ));

    let first = env.invoice(&key, &issued[0]["id"]).await;
    assert_eq!(first["verifactu"]["status"], "accepted");
    assert_eq!(first["verifactu"]["answer"]["csv"], "A-SIM00000000001");
    let cancelled = env.invoice(&key, id).await;
    assert_eq!(
        (
            &cancelled["verifactu"]["status"],
            &cancelled["verifactu"]["cancellation_status"]
        ),
        (&json!("accepted"), &json!("accepted"))
    );
    let rejected = env.invoice(&key, &issued[2]["id"]).await;
    assert_eq!(rejected["verifactu"]["status"], "rejected");
    assert_eq!(rejected["verifactu"]["answer"]["code"], 1105);

    let events = support::events(&env.h).await;
    let of = |kind: &str| events.iter().filter(|e| e.kind == kind).count();
    assert_eq!((of("verifactu.accepted"), of("verifactu.rejected")), (3, 1));
    let rejection = events
        .iter()
        .find(|e| e.kind == "verifactu.rejected")
        .unwrap();
    assert_eq!(rejection.data["number"], rejected_number.as_str());
    assert_eq!(
        rejection.data["answer"]["description"],
        "NIF no identificado"
    );
    assert!(!rejection.livemode);
}

#[tokio::test]
async fn accepted_with_errors_is_its_own_status() {
    let env = env(0).await;
    let key = env.h.test.clone();
    let issued = env.issue(&key, 1).await;
    let number = issued[0]["number"].as_str().unwrap();
    env.aeat.simulator.lock().unwrap().inject(
        number,
        RecordError {
            code: 2004,
            description: "Fecha fuera de plazo".into(),
        },
    );
    env.submit().await;
    let invoice = env.invoice(&key, &issued[0]["id"]).await;
    assert_eq!(invoice["verifactu"]["status"], "accepted_with_errors");
    assert_eq!(
        invoice["verifactu"]["answer"]["state"],
        "AceptadoConErrores"
    );
}

#[tokio::test]
async fn a_lost_answer_is_resolved_by_a_query_and_never_sent_again() {
    let env = env(0).await;
    let key = env.h.test.clone();
    let issued = env.issue(&key, 2).await;
    env.fail(Failure::TimeoutAfterDelivery);
    let Outcome::Retrying { at, reason } = env.submit().await else {
        panic!("a retry")
    };
    assert!(reason.starts_with("aeat_unavailable"), "{reason}");
    assert_eq!(at, env.h.ports.clock.now() + Duration::seconds(30));
    assert_eq!(
        env.invoice(&key, &issued[0]["id"]).await["verifactu"]["status"],
        "pending"
    );
    assert_eq!(env.queries(), 0);

    env.h.clock.advance(Duration::seconds(30));
    assert_eq!(env.submit().await, Outcome::Resolved { records: 2 });
    assert_eq!(env.queries(), 1, "the AEAT was asked before sending");
    assert_eq!(env.messages(), [2], "the records were not sent again");
    for invoice in &issued {
        let verifactu = &env.invoice(&key, &invoice["id"]).await["verifactu"];
        assert_eq!(verifactu["status"], "accepted");
        assert_eq!(verifactu["answer"]["state"], "Correcto");
        assert_eq!(verifactu["answer"]["resolved_by_query"], true);
        assert!(
            verifactu["answer"].get("duplicate").is_none(),
            "{verifactu}"
        );
    }
    let accepted = support::events(&env.h)
        .await
        .into_iter()
        .filter(|e| e.kind == shared::webhooks::event_type::EventType::VerifactuAccepted)
        .count();
    assert_eq!(accepted, 2, "one event per record, as an answer gives");

    env.h.clock.advance(Duration::seconds(60));
    let more = env.issue(&key, 1).await;
    env.fail(Failure::SoapFault);
    let Outcome::Retrying { at, reason } = env.submit().await else {
        panic!("a retry")
    };
    assert!(reason.starts_with("aeat_fault"), "{reason}");
    assert_eq!(at, env.h.ports.clock.now() + Duration::seconds(30));
    env.h.clock.advance(Duration::seconds(30));
    assert!(matches!(
        env.submit().await,
        Outcome::Sent { records: 1, .. }
    ));
    assert_eq!(
        env.queries(),
        1,
        "a fault is a refusal: nothing to ask after it"
    );
    assert_eq!(env.messages(), [2, 1, 1]);
    assert_eq!(
        env.invoice(&key, &more[0]["id"]).await["verifactu"]["status"],
        "accepted"
    );
    env.h.clock.advance(Duration::seconds(60));
    assert_eq!(env.submit().await, Outcome::Idle);
}

#[tokio::test]
async fn a_message_that_never_arrived_is_sent_again_after_the_query() {
    let env = env(0).await;
    let key = env.h.test.clone();
    let issued = env.issue(&key, 2).await;
    env.fail(Failure::TimeoutBeforeDelivery);
    assert!(matches!(env.submit().await, Outcome::Retrying { .. }));
    env.h.clock.advance(Duration::seconds(30));
    assert!(matches!(
        env.submit().await,
        Outcome::Sent {
            records: 2,
            state: SendState::Correcto
        }
    ));
    assert_eq!(env.queries(), 1);
    assert_eq!(env.messages(), [2, 2]);
    for invoice in &issued {
        let verifactu = &env.invoice(&key, &invoice["id"]).await["verifactu"];
        assert_eq!(verifactu["status"], "accepted");
        assert!(verifactu["answer"]["csv"].is_string(), "{verifactu}");
        assert!(verifactu["answer"].get("resolved_by_query").is_none());
        assert!(verifactu["answer"].get("duplicate").is_none());
    }
}

#[tokio::test]
async fn two_submitters_never_have_two_messages_of_one_chain_in_flight() {
    let env = env(200).await;
    env.issue(&env.h.test.clone(), 3).await;
    let chain = submit_pending_chain(&env).await;
    let (a, b) = tokio::join!(
        submit_chain(&env.h.ports, &chain),
        submit_chain(&env.h.ports, &chain)
    );
    let outcomes = [a.unwrap(), b.unwrap()];
    assert!(outcomes.contains(&Outcome::Busy), "{outcomes:?}");
    assert!(
        outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Sent { records: 3, .. })),
        "{outcomes:?}"
    );
    assert_eq!(env.messages(), [3]);
}

#[tokio::test]
async fn the_backlog_counts_the_records_waiting_and_finds_the_oldest() {
    let env = env(0).await;
    let issued_at = env.h.ports.clock.now();
    env.issue(&env.h.test.clone(), 3).await;
    env.h.clock.advance(Duration::seconds(90));
    let waiting = backlog(&env.h.ports).await.unwrap();
    assert_eq!(waiting.records, 3);
    let oldest = waiting.oldest.expect("the oldest record's time");
    assert!(
        (oldest - issued_at).num_seconds().abs() <= 1,
        "{oldest} vs {issued_at}"
    );
    assert!(matches!(
        env.submit().await,
        Outcome::Sent { records: 3, .. }
    ));
    assert_eq!(backlog(&env.h.ports).await.unwrap(), Backlog::default());
}

async fn submit_pending_chain(env: &Env) -> String {
    use shared::ports::table::{Query, SortKey};
    let page = env
        .h
        .ports
        .table
        .query(&Query::new("VERIFACTU#PENDING", SortKey::All))
        .await
        .unwrap();
    page.items[0].key.sk.clone()
}

#[tokio::test]
async fn live_records_without_the_certificate_stay_pending_and_say_why() {
    let env = env(0).await;
    let key = env.h.live.clone();
    let issued = env.issue(&key, 1).await;
    assert_eq!(
        env.submit().await,
        Outcome::CertificateMissing(Unusable::Missing)
    );
    assert!(env.messages().is_empty());
    let verifactu = &env.invoice(&key, &issued[0]["id"]).await["verifactu"];
    assert_eq!(verifactu["status"], "pending");
    assert_eq!(verifactu["status_reason"], "certificate_missing");
}

#[tokio::test]
async fn the_embedded_submitter_sends_test_records_on_its_own() {
    let env = env(0).await;
    let key = env.h.test.clone();
    let issued = env.issue(&key, 1).await;
    let worker = shared::embedded::verifactu_worker::spawn(env.h.ports.clone());
    let mut status = Value::Null;
    for _ in 0..200 {
        status = env.invoice(&key, &issued[0]["id"]).await["verifactu"]["status"].clone();
        if status != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    worker.abort();
    assert_eq!(status, "accepted");
}
