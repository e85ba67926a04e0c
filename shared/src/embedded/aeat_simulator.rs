//! The AEAT simulator as an HTTP service (`svc aeat-simulator`): the
//! VERI*FACTU SOAP endpoint (at the AEAT's path; any other POST path outside
//! `/simulator/` answers too; queries are answered, never failed) with
//! `verifactu::simulator`'s rules (a test
//! message's SOAP header asks for its records' errors:
//! `verifactu::aeat::simulated_errors`), and a control API to steer it from
//! tests:
//! - `POST /simulator/record-errors` `{"number", "code", "description"}`: that
//!   invoice's records get that error code (2000–2999 accepted with errors,
//!   others rejected); `DELETE /simulator/record-errors` clears them;
//! - `POST /simulator/faults` `{"kind", "times"?, "status"?, "seconds"?}`: the
//!   next `times` (default 1) messages fail: `soap_fault` (500 with a SOAP
//!   Fault, nothing registered), `server_error` (`status`, default 503,
//!   nothing registered) or `timeout` (registered, but answered only after
//!   `seconds`, default 120: the submitter gives up first and must not lose
//!   or duplicate what the AEAT got);
//! - `PUT /simulator/wait-seconds` `{"seconds"}`: the `TiempoEsperaEnvio` it asks for;
//! - `GET /simulator/messages`: what it received, in order.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use chrono::{DateTime, FixedOffset, Utc};
use serde::{Deserialize, Serialize};

use crate::ports::Clock;
use crate::verifactu::aeat::{Fault, RecordError, SendState, Submission, soap};
use crate::verifactu::simulator::{Message, Simulator, read_message};

/// The production path of the VERI*FACTU service (`SistemaFacturacion.wsdl`).
pub const AEAT_PATH: &str = "/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP";

/// 1,000 records of a few KB each, with room.
const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    SoapFault,
    ServerError,
    Timeout,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRequest {
    pub kind: FaultKind,
    #[serde(default = "one")]
    pub times: u32,
    pub status: Option<u16>,
    pub seconds: Option<f64>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordErrorRequest {
    number: String,
    code: u32,
    description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitRequest {
    seconds: u32,
}

/// One message as the simulator saw it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Received {
    pub received_at: String,
    pub issuer_nif: String,
    pub records: usize,
    /// `Correcto`, `ParcialmenteCorrecto`, `Incorrecto`, `soap_fault`,
    /// `server_error`, `timeout` (registered, answered late) or `unreadable`.
    pub outcome: String,
}

struct Service {
    simulator: Simulator,
    faults: VecDeque<FaultRequest>,
    received: Vec<Received>,
}

#[derive(Clone)]
struct Shared {
    service: Arc<Mutex<Service>>,
    clock: Arc<dyn Clock>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Service> {
        self.service.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The simulator's routes, its time from `clock` (in Madrid's offset as
/// the AEAT answers).
pub fn router(clock: Arc<dyn Clock>, wait_seconds: u32) -> Router {
    let shared = Shared {
        service: Arc::new(Mutex::new(Service {
            simulator: Simulator::asking_to_wait(wait_seconds),
            faults: VecDeque::new(),
            received: Vec::new(),
        })),
        clock,
    };
    Router::new()
        .route(
            "/simulator/record-errors",
            post(add_record_error).delete(clear_record_errors),
        )
        .route("/simulator/faults", post(add_fault))
        .route("/simulator/wait-seconds", put(set_wait))
        .route("/simulator/messages", get(messages))
        .fallback(post(submit))
        .layer(DefaultBodyLimit::max(MAX_MESSAGE_BYTES))
        .with_state(shared)
}

async fn add_record_error(
    State(s): State<Shared>,
    Json(r): Json<RecordErrorRequest>,
) -> StatusCode {
    s.lock().simulator.inject(
        &r.number,
        RecordError {
            code: r.code,
            description: r.description,
        },
    );
    StatusCode::NO_CONTENT
}

async fn clear_record_errors(State(s): State<Shared>) -> StatusCode {
    s.lock().simulator.clear_injections();
    StatusCode::NO_CONTENT
}

async fn add_fault(State(s): State<Shared>, Json(f): Json<FaultRequest>) -> StatusCode {
    s.lock().faults.push_back(f);
    StatusCode::NO_CONTENT
}

async fn set_wait(State(s): State<Shared>, Json(w): Json<WaitRequest>) -> StatusCode {
    s.lock().simulator.wait_seconds = w.seconds;
    StatusCode::NO_CONTENT
}

async fn messages(State(s): State<Shared>) -> Json<Vec<Received>> {
    Json(s.lock().received.clone())
}

fn soap_response(status: StatusCode, xml: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/xml; charset=utf-8")],
        xml,
    )
        .into_response()
}

/// What a message gets.
enum Reply {
    Answer(crate::verifactu::aeat::Answer, Option<Duration>),
    SoapFault,
    ServerError(StatusCode),
}

impl Service {
    fn log(&mut self, at: DateTime<Utc>, issuer_nif: &str, records: usize, outcome: &str) {
        self.received.push(Received {
            received_at: at.to_rfc3339(),
            issuer_nif: issuer_nif.to_string(),
            records,
            outcome: outcome.to_string(),
        });
    }

    /// The next injected fault, counted down.
    fn next_fault(&mut self) -> Option<FaultRequest> {
        let fault = self.faults.front_mut()?;
        fault.times = fault.times.saturating_sub(1);
        let taken = fault.clone();
        if fault.times == 0 {
            self.faults.pop_front();
        }
        Some(taken)
    }

    fn handle(&mut self, submission: &Submission, now: DateTime<Utc>) -> Reply {
        let (nif, records) = (submission.issuer_nif.as_str(), submission.records.len());
        let fault = self.next_fault();
        let (outcome, reply) = match fault {
            Some(FaultRequest {
                kind: FaultKind::SoapFault,
                ..
            }) => ("soap_fault", Reply::SoapFault),
            Some(FaultRequest {
                kind: FaultKind::ServerError,
                status,
                ..
            }) => {
                let status = status
                    .and_then(|s| StatusCode::from_u16(s).ok())
                    .unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
                ("server_error", Reply::ServerError(status))
            }
            other => {
                let madrid = FixedOffset::east_opt(3600).expect("a valid offset");
                let answer = self
                    .simulator
                    .answer(submission, now.with_timezone(&madrid));
                let delay =
                    other.map(|f| Duration::from_secs_f64(f.seconds.unwrap_or(120.0).max(0.0)));
                let outcome = match (delay, answer.state) {
                    (Some(_), _) => "timeout",
                    (None, SendState::Correcto) => "Correcto",
                    (None, SendState::ParcialmenteCorrecto) => "ParcialmenteCorrecto",
                    (None, SendState::Incorrecto) => "Incorrecto",
                };
                (outcome, Reply::Answer(answer, delay))
            }
        };
        self.log(now, nif, records, outcome);
        reply
    }
}

async fn submit(State(s): State<Shared>, body: String) -> Response {
    let now = s.clock.now();
    let submission = match read_message(&body) {
        Ok(Message::Submission(submission)) => submission,
        Ok(Message::Query(query)) => {
            let mut shared = s.lock();
            shared.log(now, &query.asker.nif, 0, "query");
            let answer = shared.simulator.answer_query(&query);
            return soap_response(StatusCode::OK, soap::envelope(&answer.to_xml()));
        }
        Err(fault) => {
            s.lock().log(now, "", 0, "unreadable");
            return soap_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                soap::fault_envelope(&fault),
            );
        }
    };
    let reply = s.lock().handle(&submission, now);
    match reply {
        Reply::SoapFault => {
            let fault = Fault {
                code: "env:Server".into(),
                message: "Codigo[-1].Error interno del servicio (simulado).".into(),
            };
            soap_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                soap::fault_envelope(&fault),
            )
        }
        Reply::ServerError(status) => (status, "simulated server error").into_response(),
        Reply::Answer(answer, delay) => {
            if let Some(delay) = delay {
                tokio::time::sleep(delay).await;
            }
            soap_response(StatusCode::OK, soap::envelope(&answer.to_xml()))
        }
    }
}
