//! The AEAT's side of VERI*FACTU submission, simulated: the records of each
//! obligado it has registered, the head of each NIF's chain, and the answer
//! a submission gets. Pure (the caller passes the time); the HTTP service
//! around it is `embedded::aeat_simulator`.
//!
//! What it checks, record by record in message order, and the codes it
//! answers with (the AEAT's codes for these cases):
//! - the record's issuer NIF is the message's obligado: else `1100`, Incorrecto;
//! - an alta the AEAT already holds, without Subsanacion, or a cancellation
//!   of a cancelled invoice: `3000` with `RegistroDuplicado`, Incorrecto;
//! - a cancellation of an invoice it does not hold (and no RechazoPrevio): `3002`, Incorrecto;
//! - the chain: the previous Huella is that of the last record of the NIF it
//!   took in order — registered, or rejected for its content (the issuer's
//!   system chains every record it makes) — and a NIF it has not seen may
//!   start anywhere: else `1100`, Incorrecto;
//! - the Huella recomputes from the record's fields: else `2000`,
//!   AceptadoConErrores (registered; the chain goes on from it).
//!
//! Errors can be injected per invoice number (`inject`): a code from 2000 to
//! 2999 is AceptadoConErrores (registered), any other Incorrecto.

use std::collections::HashMap;

use chrono::{DateTime, FixedOffset};

use super::aeat::{
    Answer, AnswerLine, Duplicate, Fault, InvoiceKey, Operation, RecordError, RecordState,
    SendState, Submission, SubmittedRecord, soap, submission,
};

/// The wait the AEAT asks for at first (Orden HAC/1177/2024 art. 16.2).
pub const DEFAULT_WAIT_SECONDS: u32 = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Correct,
    WithErrors,
    Cancelled,
}

impl Held {
    fn as_str(self) -> &'static str {
        match self {
            Held::Correct => "Correcta",
            Held::WithErrors => "AceptadaConErrores",
            Held::Cancelled => "Anulada",
        }
    }
}

#[derive(Debug, Clone)]
struct Registered {
    request_id: String,
    state: Held,
}

#[derive(Debug)]
pub struct Simulator {
    /// Asked of every submitter in each answer.
    pub wait_seconds: u32,
    heads: HashMap<String, String>,
    held: HashMap<InvoiceKey, Registered>,
    injected: HashMap<String, RecordError>,
    messages: u64,
}

impl Default for Simulator {
    fn default() -> Self {
        Simulator {
            wait_seconds: DEFAULT_WAIT_SECONDS,
            heads: HashMap::new(),
            held: HashMap::new(),
            injected: HashMap::new(),
            messages: 0,
        }
    }
}

fn error(code: u32, description: impl Into<String>) -> RecordError {
    RecordError {
        code,
        description: description.into(),
    }
}

/// What one record gets: its state, error and duplicate note.
type Verdict = (RecordState, Option<RecordError>, Option<Duplicate>);

impl Simulator {
    /// A simulator that asks for `wait_seconds` between messages.
    pub fn asking_to_wait(wait_seconds: u32) -> Self {
        Simulator {
            wait_seconds,
            ..Simulator::default()
        }
    }

    /// Answers every later record of the invoice `number` with `error`.
    pub fn inject(&mut self, number: &str, error: RecordError) {
        self.injected.insert(number.to_string(), error);
    }

    pub fn clear_injections(&mut self) {
        self.injected.clear();
    }

    /// The last Huella registered for a NIF.
    pub fn head(&self, nif: &str) -> Option<&str> {
        self.heads.get(nif).map(String::as_str)
    }

    /// Answers a whole SOAP message: the answer envelope, or the fault
    /// envelope of a message it cannot read (`Err`).
    pub fn respond(&mut self, message: &str, now: DateTime<FixedOffset>) -> Result<String, String> {
        match read_message(message) {
            Ok(submission) => Ok(soap::envelope(&self.answer(&submission, now).to_xml())),
            Err(fault) => Err(soap::fault_envelope(&fault)),
        }
    }

    /// Checks and registers a submission's records, and answers it.
    pub fn answer(&mut self, submission: &Submission, now: DateTime<FixedOffset>) -> Answer {
        self.messages += 1;
        let csv = format!("A-SIM{:011}", self.messages);
        let lines: Vec<AnswerLine> = submission
            .records
            .iter()
            .map(|record| {
                let (state, error, duplicate) = self.verdict(submission, record, &csv);
                AnswerLine {
                    invoice: record.invoice.clone(),
                    operation: record.operation,
                    state,
                    error,
                    duplicate,
                }
            })
            .collect();
        let rejected = lines
            .iter()
            .filter(|l| l.state == RecordState::Incorrecto)
            .count();
        let state = match rejected {
            0 => SendState::Correcto,
            n if n == lines.len() => SendState::Incorrecto,
            _ => SendState::ParcialmenteCorrecto,
        };
        let accepted = state != SendState::Incorrecto;
        Answer {
            csv: accepted.then_some(csv),
            presented: accepted.then(|| {
                (
                    submission.issuer_nif.clone(),
                    now.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
                )
            }),
            issuer_nif: submission.issuer_nif.clone(),
            issuer_name: submission.issuer_name.clone(),
            wait_seconds: self.wait_seconds,
            state,
            lines,
        }
    }

    fn verdict(&mut self, submission: &Submission, record: &SubmittedRecord, csv: &str) -> Verdict {
        let key = &record.invoice;
        if key.nif != submission.issuer_nif {
            let e = error(
                1100,
                format!(
                    "Valor o tipo incorrecto del campo: IDEmisorFactura ({} no es el obligado {}).",
                    key.nif, submission.issuer_nif
                ),
            );
            return (RecordState::Incorrecto, Some(e), None);
        }
        let held = self.held.get(key).cloned();
        let duplicate = match (record.operation, &held) {
            (Operation::Alta, Some(h)) if !record.correction && h.state != Held::Cancelled => {
                Some(h)
            }
            (Operation::Anulacion, Some(h)) if h.state == Held::Cancelled => Some(h),
            _ => None,
        };
        if let Some(h) = duplicate {
            let note = Duplicate {
                request_id: h.request_id.clone(),
                state: h.state.as_str().to_string(),
            };
            let e = error(3000, "Registro de facturación duplicado.");
            return (RecordState::Incorrecto, Some(e), Some(note));
        }
        if record.operation == Operation::Anulacion && held.is_none() && !record.after_rejection {
            let e = error(3002, "No existe el registro de facturación.");
            return (RecordState::Incorrecto, Some(e), None);
        }
        if let Some(head) = self.heads.get(&key.nif)
            && record.previous_hash.as_deref() != Some(head.as_str())
        {
            let e = error(
                1100,
                format!(
                    "Valor o tipo incorrecto del campo: Encadenamiento (el registro anterior de {} es {head}).",
                    key.nif
                ),
            );
            return (RecordState::Incorrecto, Some(e), None);
        }
        let verdict = match self.injected.get(&key.number) {
            Some(injected) if (2000..3000).contains(&injected.code) => (
                RecordState::AceptadoConErrores,
                Some(injected.clone()),
                None,
            ),
            Some(injected) => {
                self.heads.insert(key.nif.clone(), record.hash.clone());
                return (RecordState::Incorrecto, Some(injected.clone()), None);
            }
            None if record.expected_hash() != record.hash => (
                RecordState::AceptadoConErrores,
                Some(error(
                    2000,
                    "El cálculo de la huella suministrada es incorrecta.",
                )),
                None,
            ),
            None => (RecordState::Correcto, None, None),
        };
        let state = match (record.operation, verdict.0) {
            (Operation::Anulacion, _) => Held::Cancelled,
            (Operation::Alta, RecordState::Correcto) => Held::Correct,
            (Operation::Alta, _) => Held::WithErrors,
        };
        self.held.insert(
            key.clone(),
            Registered {
                request_id: csv.to_string(),
                state,
            },
        );
        self.heads.insert(key.nif.clone(), record.hash.clone());
        verdict
    }
}

/// A message as the AEAT reads it, or the fault it answers (4102: the XML
/// does not follow the schema).
pub fn read_message(message: &str) -> Result<Submission, Fault> {
    let read = match soap::read(message) {
        Ok(soap::Body::Content(content)) => submission::read(&content),
        Ok(soap::Body::Fault(_)) => Err("the message is a SOAP Fault".to_string()),
        Err(e) => Err(e),
    };
    read.map_err(|e| Fault {
        code: "env:Client".into(),
        message: format!("Codigo[4102].El XML no cumple el esquema. {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::super::{BuiltRecord, Cancellation, Registration, submission_xml};
    use super::*;

    const NIF: &str = "00000000B";

    fn now() -> DateTime<FixedOffset> {
        at("2025-06-03T10:00:00+02:00")
    }

    /// Altas PRUEBA-1…n chained from nothing.
    fn altas(n: usize) -> Vec<(Registration, BuiltRecord)> {
        let mut previous = None;
        (1..=n)
            .map(|i| {
                let registration = Registration {
                    invoice: invoice(NIF, &format!("PRUEBA-{i}"), date(2025, 6, 2)),
                    previous: previous.clone(),
                    ..josemmo_f1()
                };
                let built = registration.build();
                previous = head(&registration.invoice, &built);
                (registration, built)
            })
            .collect()
    }

    fn submit(sim: &mut Simulator, records: &[&BuiltRecord]) -> Answer {
        let records: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
        let xml = submission_xml("El Nombre del Emisor, S.L.", NIF, &records);
        let soap::Body::Content(body) = soap::read(&soap::envelope(
            xml.trim_start_matches(r#"<?xml version="1.0" encoding="UTF-8"?>"#),
        ))
        .unwrap() else {
            panic!("a body")
        };
        sim.answer(&submission::read(&body).unwrap(), now())
    }

    fn states(answer: &Answer) -> Vec<(RecordState, Option<u32>)> {
        answer
            .lines
            .iter()
            .map(|l| (l.state, l.error.as_ref().map(|e| e.code)))
            .collect()
    }

    #[test]
    fn a_chain_is_registered_and_answered_correct_with_a_csv_and_the_wait() {
        let chain = altas(3);
        let mut sim = Simulator::default();
        let answer = submit(&mut sim, &chain.iter().map(|(_, b)| b).collect::<Vec<_>>());
        assert_eq!(answer.state, SendState::Correcto);
        assert_eq!(answer.csv.as_deref(), Some("A-SIM00000000001"));
        assert_eq!(answer.wait_seconds, 60);
        assert_eq!(states(&answer), vec![(RecordState::Correcto, None); 3]);
        assert_eq!(answer.lines[2].invoice.number, "PRUEBA-3");
        assert_eq!(sim.head(NIF), Some(chain[2].1.hash.as_str()));
    }

    #[test]
    fn duplicates_breaks_and_bad_hashes_get_their_codes() {
        let chain = altas(3);
        let mut sim = Simulator::default();
        submit(&mut sim, &[&chain[0].1]);
        let again = submit(&mut sim, &[&chain[0].1]);
        assert_eq!(again.state, SendState::Incorrecto);
        assert_eq!(again.csv, None);
        assert_eq!(states(&again), [(RecordState::Incorrecto, Some(3000))]);
        let duplicate = again.lines[0].duplicate.as_ref().unwrap();
        assert_eq!(
            (duplicate.request_id.as_str(), duplicate.state.as_str()),
            ("A-SIM00000000001", "Correcta")
        );

        let skipped = submit(&mut sim, &[&chain[2].1]);
        assert_eq!(states(&skipped), [(RecordState::Incorrecto, Some(1100))]);

        let mut tampered = chain[1].1.clone();
        tampered.xml = tampered
            .xml
            .replace("<sf:ImporteTotal>176.00<", "<sf:ImporteTotal>177.00<");
        assert_ne!(tampered.xml, chain[1].1.xml);
        let answer = submit(&mut sim, &[&tampered, &chain[2].1]);
        assert_eq!(answer.state, SendState::Correcto);
        assert_eq!(
            states(&answer),
            [
                (RecordState::AceptadoConErrores, Some(2000)),
                (RecordState::Correcto, None)
            ]
        );
    }

    #[test]
    fn cancellations_chain_like_altas_and_need_a_registered_invoice() {
        let chain = altas(2);
        let mut sim = Simulator::default();
        let cancel = |previous: &BuiltRecord, target: &Registration| {
            Cancellation {
                invoice: target.invoice.clone(),
                without_registration: false,
                after_rejection: false,
                previous: head(&target.invoice, previous),
                system: target.system.clone(),
                generated_at: at("2025-06-03T09:05:00+02:00"),
            }
            .build()
        };
        let first_cancelled = cancel(&chain[1].1, &chain[0].0);
        let answer = submit(&mut sim, &[&chain[0].1, &chain[1].1, &first_cancelled]);
        assert_eq!(states(&answer), vec![(RecordState::Correcto, None); 3]);
        assert_eq!(answer.lines[2].operation, Operation::Anulacion);
        let twice = cancel(&first_cancelled, &chain[0].0);
        assert_eq!(
            states(&submit(&mut sim, &[&twice])),
            [(RecordState::Incorrecto, Some(3000))]
        );

        let mut fresh = Simulator::default();
        let unknown = cancel(&chain[1].1, &chain[1].0);
        assert_eq!(
            states(&submit(&mut fresh, &[&unknown])),
            [(RecordState::Incorrecto, Some(3002))]
        );
    }

    #[test]
    fn injected_codes_decide_the_state_and_the_whole_message_state_follows() {
        let chain = altas(3);
        let mut sim = Simulator::default();
        sim.inject(
            "PRUEBA-1",
            error(2004, "FechaHoraHusoGenRegistro fuera de plazo."),
        );
        sim.inject(
            "PRUEBA-2",
            error(1105, "El NIF del destinatario no está identificado."),
        );
        let answer = submit(&mut sim, &[&chain[0].1, &chain[1].1]);
        assert_eq!(
            states(&answer),
            [
                (RecordState::AceptadoConErrores, Some(2004)),
                (RecordState::Incorrecto, Some(1105))
            ]
        );
        assert_eq!(answer.state, SendState::ParcialmenteCorrecto);
        assert!(answer.csv.is_some());
        sim.clear_injections();
        assert_eq!(
            states(&submit(&mut sim, &[&chain[2].1])),
            [(RecordState::Correcto, None)],
            "the chain goes on after a record rejected for its content"
        );
    }

    #[test]
    fn an_answer_reads_back_as_written() {
        let chain = altas(2);
        let mut sim = Simulator::default();
        submit(&mut sim, &[&chain[0].1]);
        let answer = submit(&mut sim, &[&chain[0].1, &chain[1].1]);
        let soap::Body::Content(body) = soap::read(&soap::envelope(&answer.to_xml())).unwrap()
        else {
            panic!("a body")
        };
        assert_eq!(Answer::read(&body).unwrap(), answer);
    }
}
