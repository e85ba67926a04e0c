//! The AEAT's side of VERI*FACTU submission, simulated: the records of each
//! obligado it has registered, the head of each NIF's chain, and the answer
//! a submission gets. Pure (the caller passes the time); the HTTP service
//! around it is `embedded::aeat_simulator`.
//!
//! What it checks, record by record in message order, and the codes it
//! answers with (the AEAT's codes for these cases):
//! - the record's issuer NIF is the message's obligado: else `1108`, Incorrecto;
//! - a record it holds, sent again (the same Huella, as after a lost
//!   answer): `3000` with `RegistroDuplicado`, Incorrecto;
//! - the chain: the previous Huella is that of the last record of the NIF it
//!   took in order — registered, or rejected for its content (the issuer's
//!   system chains every record it makes) — and a NIF it has not seen may
//!   start anywhere: else `1100`, Incorrecto;
//! - the AEAT's record rules (`verifactu::validation`, checked on the day of
//!   the message): a broken one answers its code, Incorrecto, or for codes
//!   2000–2999 AceptadoConErrores (registered);
//! - an alta of an invoice it holds, other than a correction (Subsanacion S)
//!   of it, and a correction that says the invoice is not there
//!   (RechazoPrevio X) when it is; a cancellation of a cancelled invoice:
//!   `3000` with `RegistroDuplicado`, Incorrecto;
//! - a record of an invoice it does not hold that needs its registration (a
//!   correction without RechazoPrevio X, a cancellation without
//!   SinRegistroPrevio S): `3002` ("No existe el registro de facturación";
//!   the AEAT's list of errors has no code of its own for a correction of a
//!   record it lacks, and this is the one that says so), Incorrecto. Of a NIF
//!   it has not seen before the message it knows no past, so it takes the
//!   record's word, as it does for the chain's start (a simulator that
//!   starts fresh for every message, as test records meet, answers so);
//! - the Huella recomputes from the record's fields: else `2000`,
//!   AceptadoConErrores (registered; the chain goes on from it).
//!
//! A correction of a record it holds replaces it.
//!
//! It answers queries (`ConsultaFactuSistemaFacturacion`) from what it
//! holds: as issuer, the obligado's records of the month (of the operation
//! date, or else of the issue date); as recipient, every record of any
//! issuer naming the asker as a recipient; in the order it registered them
//! (last change), `page_size` per answer with a key to the next page.
//!
//! A test message may ask for an error per record (its SOAP Header, see
//! `aeat::simulated_errors`), and errors can be injected per invoice number
//! (`inject`); the message's ask comes first. A code from 2000 to 2999 is
//! AceptadoConErrores (registered), any other Incorrecto.

use std::collections::HashMap;

use chrono::{DateTime, FixedOffset};

use super::Recipient;
use super::aeat::query::{self, HeldData, HeldRecord, HeldState, Query, QueryAnswer, Side};
use super::aeat::{
    Answer, AnswerLine, Duplicate, Fault, InvoiceKey, Operation, RecordError, RecordState,
    SendState, Submission, SubmittedRecord, simulated_errors, soap, submission,
};
use super::validation::{self, Violation};

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

impl From<Held> for HeldState {
    fn from(held: Held) -> Self {
        match held {
            Held::Correct => HeldState::Correct,
            Held::WithErrors => HeldState::AcceptedWithErrors,
            Held::Cancelled => HeldState::Cancelled,
        }
    }
}

#[derive(Debug, Clone)]
struct Registered {
    request_id: String,
    state: Held,
    /// The Huella of the record that registered it.
    hash: String,
    /// What a query returns: the alta's data (a cancellation keeps it).
    data: HeldData,
    error: Option<RecordError>,
    modified_at: String,
    /// The order of the last change, which queries answer in.
    order: u64,
}

/// A message the simulator takes: a submission or a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Submission(Submission),
    Query(Query),
}

#[derive(Debug)]
pub struct Simulator {
    /// Asked of every submitter in each answer.
    pub wait_seconds: u32,
    /// Records per query answer (the AEAT's 10,000; tests page with fewer).
    pub page_size: usize,
    heads: HashMap<String, String>,
    held: HashMap<InvoiceKey, Registered>,
    injected: HashMap<String, RecordError>,
    messages: u64,
    changes: u64,
}

impl Default for Simulator {
    fn default() -> Self {
        Simulator {
            wait_seconds: DEFAULT_WAIT_SECONDS,
            page_size: query::MAX_PAGE,
            heads: HashMap::new(),
            held: HashMap::new(),
            injected: HashMap::new(),
            messages: 0,
            changes: 0,
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

fn incorrect(code: u32, description: impl Into<String>) -> Verdict {
    (
        RecordState::Incorrecto,
        Some(error(code, description)),
        None,
    )
}

fn duplicate(held: &Registered) -> Verdict {
    let note = Duplicate {
        request_id: held.request_id.clone(),
        state: held.state.as_str().to_string(),
    };
    let e = error(3000, "Registro de facturación duplicado.");
    (RecordState::Incorrecto, Some(e), Some(note))
}

/// Whether the record needs the AEAT to hold its invoice's registration.
fn needs_registration(record: &SubmittedRecord) -> bool {
    match record.operation {
        Operation::Alta => record.correction && !record.without_registration,
        Operation::Anulacion => !record.without_registration,
    }
}

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
            Ok(Message::Submission(submission)) => {
                Ok(soap::envelope(&self.answer(&submission, now).to_xml()))
            }
            Ok(Message::Query(query)) => Ok(soap::envelope(&self.answer_query(&query).to_xml())),
            Err(fault) => Err(soap::fault_envelope(&fault)),
        }
    }

    /// The records a query asks for, one page.
    pub fn answer_query(&self, query: &Query) -> QueryAnswer {
        let mut found: Vec<(&InvoiceKey, &Registered)> = self
            .held
            .iter()
            .filter(|(key, held)| asked_for(query, key, held))
            .collect();
        found.sort_by_key(|(_, held)| held.order);
        let start = query.after.as_ref().map_or(0, |after| {
            found
                .iter()
                .position(|(key, _)| *key == after)
                .map_or(found.len(), |i| i + 1)
        });
        let page: Vec<_> = found.iter().skip(start).take(self.page_size).collect();
        let more = found.len() > start + page.len();
        let records: Vec<HeldRecord> = page
            .iter()
            .map(|(key, held)| HeldRecord {
                invoice: (*key).clone(),
                data: HeldData {
                    issuer_name: held
                        .data
                        .issuer_name
                        .clone()
                        .filter(|_| query.side == Side::Recipient),
                    hash: Some(held.hash.clone()),
                    ..held.data.clone()
                },
                state: held.state.into(),
                error: held.error.clone(),
                modified_at: held.modified_at.clone(),
            })
            .collect();
        QueryAnswer {
            side: query.side,
            asker: query.asker.clone(),
            period: query.period,
            next: more
                .then(|| records.last().map(|r| r.invoice.clone()))
                .flatten(),
            records,
        }
    }

    /// Checks and registers a submission's records, and answers it.
    pub fn answer(&mut self, submission: &Submission, now: DateTime<FixedOffset>) -> Answer {
        self.messages += 1;
        let csv = format!("A-SIM{:011}", self.messages);
        let at = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, false);
        let known = self.heads.contains_key(&submission.issuer_nif);
        let lines: Vec<AnswerLine> = submission
            .records
            .iter()
            .map(|record| {
                let violation = validation::first(&record.record, now.date_naive());
                let (state, error, duplicate) =
                    self.verdict(submission, record, (&csv, &at), known, violation);
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
            presented: accepted.then(|| (submission.issuer_nif.clone(), at)),
            issuer_nif: submission.issuer_nif.clone(),
            issuer_name: submission.issuer_name.clone(),
            wait_seconds: self.wait_seconds,
            state,
            lines,
        }
    }

    /// `known`: the simulator had seen the message's NIF before it; `(csv,
    /// at)`: the message's CSV and time; `violation`: the first AEAT record
    /// rule the record breaks.
    fn verdict(
        &mut self,
        submission: &Submission,
        record: &SubmittedRecord,
        (csv, at): (&str, &str),
        known: bool,
        violation: Option<Violation>,
    ) -> Verdict {
        let key = &record.invoice;
        if key.nif != submission.issuer_nif {
            return incorrect(
                1108,
                format!(
                    "El NIF del IDEmisorFactura debe ser el mismo que el NIF del ObligadoEmision ({} no es {}).",
                    key.nif, submission.issuer_nif
                ),
            );
        }
        let held = self.held.get(key).cloned();
        if let Some(resent) = held.as_ref().filter(|h| h.hash == record.hash) {
            return duplicate(resent);
        }
        if let Some(head) = self.heads.get(&key.nif)
            && record.previous_hash.as_deref() != Some(head.as_str())
        {
            return incorrect(
                1100,
                format!(
                    "Valor o tipo incorrecto del campo: Encadenamiento (el registro anterior de {} es {head}).",
                    key.nif
                ),
            );
        }
        self.heads.insert(key.nif.clone(), record.hash.clone());
        if let Some(v) = violation.as_ref().filter(|v| !v.accepted_with_errors()) {
            return incorrect(v.code, v.message.clone());
        }
        let asked = self.asked(submission, record);
        if let Some(rejection) = rejection(record, held.as_ref(), known, asked.as_ref()) {
            return rejection;
        }
        let verdict = match (asked, violation) {
            (Some(asked), _) => (RecordState::AceptadoConErrores, Some(asked), None),
            (None, Some(v)) => (
                RecordState::AceptadoConErrores,
                Some(error(v.code, v.message)),
                None,
            ),
            (None, None) if record.expected_hash() != record.hash => (
                RecordState::AceptadoConErrores,
                Some(error(
                    2000,
                    "El cálculo de la huella suministrada es incorrecta.",
                )),
                None,
            ),
            (None, None) => (RecordState::Correcto, None, None),
        };
        let state = match (record.operation, verdict.0) {
            (Operation::Anulacion, _) => Held::Cancelled,
            (Operation::Alta, RecordState::Correcto) => Held::Correct,
            (Operation::Alta, _) => Held::WithErrors,
        };
        let data = match record.operation {
            Operation::Alta => record.data.clone(),
            Operation::Anulacion => held.map(|h| h.data).unwrap_or_default(),
        };
        self.changes += 1;
        self.held.insert(
            key.clone(),
            Registered {
                request_id: csv.to_string(),
                state,
                hash: record.hash.clone(),
                data,
                error: verdict.1.clone(),
                modified_at: at.to_string(),
                order: self.changes,
            },
        );
        verdict
    }

    /// The error the message asks for the record, or else the one injected
    /// for its invoice.
    fn asked(&self, submission: &Submission, record: &SubmittedRecord) -> Option<RecordError> {
        submission
            .simulated_errors
            .iter()
            .find(|e| e.number == record.invoice.number && e.operation == record.operation)
            .map(|e| &e.error)
            .or_else(|| self.injected.get(&record.invoice.number))
            .cloned()
    }
}

/// Why a record that is a link of its chain is not registered, if it is
/// not; `asked`, an error asked for it, rejects it unless its code is
/// 2000–2999 (accepted with errors).
fn rejection(
    record: &SubmittedRecord,
    held: Option<&Registered>,
    known: bool,
    asked: Option<&RecordError>,
) -> Option<Verdict> {
    match (record.operation, held) {
        (Operation::Alta, Some(h))
            if h.state != Held::Cancelled
                && (!record.correction || record.without_registration) =>
        {
            return Some(duplicate(h));
        }
        (Operation::Anulacion, Some(h)) if h.state == Held::Cancelled => {
            return Some(duplicate(h));
        }
        (_, None) if known && needs_registration(record) => {
            return Some(incorrect(3002, "No existe el registro de facturación."));
        }
        _ => {}
    }
    asked
        .filter(|e| !(2000..3000).contains(&e.code))
        .map(|e| (RecordState::Incorrecto, Some(e.clone()), None))
}

/// Whether a query asks for a held record.
fn asked_for(query: &Query, key: &InvoiceKey, held: &Registered) -> bool {
    let names = |nif: &str| {
        held.data
            .recipients
            .iter()
            .any(|r| matches!(r, Recipient::Nif { nif: n, .. } if n == nif))
    };
    let period = query::Period::of_date(held.data.operation_date.as_ref().unwrap_or(&key.date));
    let (ours, theirs) = match query.side {
        Side::Issuer => (
            key.nif == query.asker.nif,
            query.counterpart.as_ref().is_none_or(|c| names(&c.nif)),
        ),
        Side::Recipient => (
            names(&query.asker.nif),
            query.counterpart.as_ref().is_none_or(|c| key.nif == c.nif),
        ),
    };
    ours && theirs
        && period == Some(query.period)
        && query.number.as_ref().is_none_or(|n| *n == key.number)
}

/// A message as a simulator reads it (a submission with the errors its
/// Header asks for, or a query), or the fault it answers (4102: the XML does
/// not follow the schema).
pub fn read_message(message: &str) -> Result<Message, Fault> {
    let read = match soap::read_with_header(message) {
        Ok((_, soap::Body::Content(content)))
            if content.name == "ConsultaFactuSistemaFacturacion" =>
        {
            Query::read(&content).map(Message::Query)
        }
        Ok((header, soap::Body::Content(content))) => {
            submission::read(&content).and_then(|submission| {
                Ok(Message::Submission(Submission {
                    simulated_errors: simulated_errors::read(header.as_ref())?,
                    ..submission
                }))
            })
        }
        Ok((_, soap::Body::Fault(_))) => Err("the message is a SOAP Fault".to_string()),
        Err(e) => Err(e),
    };
    read.map_err(|e| Fault {
        code: "env:Client".into(),
        message: format!("Codigo[4102].El XML no cumple el esquema. {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::super::aeat::simulated_errors::SimulatedError;
    use super::super::test_support::*;
    use super::super::{
        BreakdownLine, BuiltRecord, Cancellation, Correction, PreviousRecord, Qualification,
        Registration, Treatment, submission_xml,
    };
    use super::*;
    use crate::invoice::kind::Kind;
    use rust_decimal::{Decimal, dec};

    const NIF: &str = "00000000T";
    const RECIPIENT: &str = "11111111H";

    /// The josemmo F1 with NIFs whose check characters hold, as the AEAT's
    /// record rules require (1219, 1123, 1176, 1269).
    fn f1() -> Registration {
        let example = josemmo_f1();
        Registration {
            recipients: vec![
                Recipient::Nif {
                    name: "El Destinatario, S.L.".into(),
                    nif: RECIPIENT.into(),
                },
                example.recipients[1].clone(),
            ],
            previous: Some(PreviousRecord {
                invoice: invoice(NIF, "PRUEBA-0", date(2025, 6, 1)),
                hash: "A".repeat(64),
            }),
            system: system(&example.issuer_name, NIF),
            ..example
        }
    }

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
                    ..f1()
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

    /// D8: the AEAT refuses an S2 line without TipoImpositivo and
    /// CuotaRepercutida 0 (1198) and an F2 with an S2 line (1197), and takes
    /// with errors a CuotaTotal more than 10 € off (2006); a record of
    /// another issuer than the message's obligado is 1108.
    #[test]
    fn records_breaking_the_aeats_rules_get_their_codes() {
        let s2 = |rate: Option<Decimal>| BreakdownLine {
            treatment: Treatment::Qualified(Qualification::S2),
            rate,
            vat: rate,
            ..s1_line(dec!(21), dec!(100))
        };
        let record = |kind, rate, total_vat| {
            Registration {
                invoice: invoice(NIF, "PRUEBA-1", date(2025, 6, 2)),
                kind,
                recipients: if kind == Kind::F2 {
                    Vec::new()
                } else {
                    f1().recipients
                },
                breakdown: vec![s2(rate)],
                total_vat,
                total: dec!(100),
                previous: None,
                ..f1()
            }
            .build()
        };
        let zero = Some(Decimal::ZERO);
        for (built, expected) in [
            (
                record(Kind::F1, None, Decimal::ZERO),
                (RecordState::Incorrecto, Some(1198)),
            ),
            (
                record(Kind::F2, zero, Decimal::ZERO),
                (RecordState::Incorrecto, Some(1197)),
            ),
            (
                record(Kind::F1, zero, dec!(20)),
                (RecordState::AceptadoConErrores, Some(2006)),
            ),
            (
                record(Kind::F1, zero, Decimal::ZERO),
                (RecordState::Correcto, None),
            ),
            (
                Registration {
                    invoice: invoice("A39200019", "PRUEBA-1", date(2025, 6, 2)),
                    previous: None,
                    ..f1()
                }
                .build(),
                (RecordState::Incorrecto, Some(1108)),
            ),
        ] {
            let mut sim = Simulator::default();
            assert_eq!(
                states(&submit(&mut sim, &[&built])),
                [expected],
                "{}",
                built.xml
            );
        }
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

        let mut other = Simulator::default();
        submit(&mut other, &[&chain[0].1]);
        let unknown = cancel(&chain[0].1, &chain[1].0);
        assert_eq!(
            states(&submit(&mut other, &[&unknown])),
            [(RecordState::Incorrecto, Some(3002))]
        );
    }

    /// The next alta of `number` in the chain after `previous`.
    fn alta(
        previous: &mut Option<PreviousRecord>,
        number: &str,
        correction: Option<Correction>,
    ) -> BuiltRecord {
        let registration = Registration {
            invoice: invoice(NIF, number, date(2025, 6, 2)),
            correction,
            previous: previous.take(),
            ..f1()
        };
        let built = registration.build();
        *previous = head(&registration.invoice, &built);
        built
    }

    /// The next anulación of `number` in the chain after `previous`.
    fn anulacion(
        previous: &mut Option<PreviousRecord>,
        number: &str,
        without_registration: bool,
    ) -> BuiltRecord {
        let cancellation = Cancellation {
            invoice: invoice(NIF, number, date(2025, 6, 2)),
            without_registration,
            after_rejection: false,
            previous: previous.take(),
            system: f1().system,
            generated_at: at("2025-06-03T09:05:00+02:00"),
        };
        let built = cancellation.build();
        *previous = head(&cancellation.invoice, &built);
        built
    }

    #[test]
    fn corrections_replace_what_it_holds_and_need_it_unless_it_was_rejected() {
        let mut sim = Simulator::default();
        let mut previous = None;
        submit(&mut sim, &[&alta(&mut previous, "PRUEBA-1", None)]);
        let corrected = alta(&mut previous, "PRUEBA-1", Some(Correction::OfAccepted));
        let said_absent = alta(&mut previous, "PRUEBA-1", Some(Correction::OfRejected));
        let lacking = alta(&mut previous, "PRUEBA-2", Some(Correction::OfAccepted));
        let mut without_subsanacion = alta(&mut previous, "PRUEBA-3", Some(Correction::OfRejected));
        without_subsanacion.xml = without_subsanacion
            .xml
            .replace("<sf:Subsanacion>S</sf:Subsanacion>", "");
        let after_rejection = alta(&mut previous, "PRUEBA-4", Some(Correction::OfRejected));
        let answer = submit(
            &mut sim,
            &[
                &corrected,
                &said_absent,
                &lacking,
                &without_subsanacion,
                &after_rejection,
            ],
        );
        assert_eq!(
            states(&answer),
            [
                (RecordState::Correcto, None),
                (RecordState::Incorrecto, Some(3000)),
                (RecordState::Incorrecto, Some(3002)),
                (RecordState::Incorrecto, Some(1153)),
                (RecordState::Correcto, None),
            ],
            "the chain goes on after each rejection"
        );
        assert_eq!(
            answer.lines[1].duplicate.as_ref().unwrap().state,
            "Correcta"
        );
        assert_eq!(sim.head(NIF), Some(after_rejection.hash.as_str()));
        assert_eq!(
            states(&submit(&mut sim, &[&corrected])),
            [(RecordState::Incorrecto, Some(3000))],
            "the correction replaced the first record"
        );
    }

    #[test]
    fn a_cancellation_without_registration_is_taken_when_the_invoice_is_not_there() {
        let mut sim = Simulator::default();
        let mut previous = None;
        submit(&mut sim, &[&alta(&mut previous, "PRUEBA-1", None)]);
        let without = anulacion(&mut previous, "PRUEBA-2", true);
        let plain = anulacion(&mut previous, "PRUEBA-3", false);
        assert_eq!(
            states(&submit(&mut sim, &[&without, &plain])),
            [
                (RecordState::Correcto, None),
                (RecordState::Incorrecto, Some(3002))
            ]
        );
    }

    #[test]
    fn of_a_nif_it_has_not_seen_it_takes_the_records_word() {
        let mut previous = None;
        let correction = alta(&mut previous, "PRUEBA-7", Some(Correction::OfAccepted));
        let cancellation = anulacion(&mut previous, "PRUEBA-8", false);
        assert_eq!(
            states(&submit(
                &mut Simulator::default(),
                &[&correction, &cancellation]
            )),
            vec![(RecordState::Correcto, None); 2]
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

    /// `records` in a message whose Header asks for `asked`, answered whole.
    fn respond(sim: &mut Simulator, records: &[&BuiltRecord], asked: &[SimulatedError]) -> Answer {
        let records: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
        let xml = submission_xml("El Nombre del Emisor, S.L.", NIF, &records);
        let message = soap::envelope_with_header(
            &simulated_errors::header(asked),
            xml.split_once("?>").unwrap().1,
        );
        let envelope = sim.respond(&message, now()).unwrap();
        let soap::Body::Content(body) = soap::read(&envelope).unwrap() else {
            panic!("an answer")
        };
        Answer::read(&body).unwrap()
    }

    #[test]
    fn a_message_asks_for_its_records_errors_and_only_for_itself() {
        let chain = altas(2);
        let mut sim = Simulator::default();
        sim.inject("PRUEBA-2", error(2004, "Fuera de plazo."));
        let ask = |number: &str, operation, code| SimulatedError {
            number: number.into(),
            operation,
            error: error(code, format!("Pedido {code}.")),
        };
        let asked = [
            ask("PRUEBA-1", Operation::Alta, 1104),
            ask("PRUEBA-2", Operation::Anulacion, 1105),
        ];
        let answer = respond(&mut sim, &[&chain[0].1, &chain[1].1], &asked);
        assert_eq!(
            states(&answer),
            [
                (RecordState::Incorrecto, Some(1104)),
                (RecordState::AceptadoConErrores, Some(2004))
            ],
            "the ask is per record and operation; the injection still holds"
        );
        assert_eq!(
            answer.lines[0].error.as_ref().unwrap().description,
            "Pedido 1104."
        );

        let mut previous = head(&chain[1].0.invoice, &chain[1].1);
        let corrected = alta(&mut previous, "PRUEBA-1", Some(Correction::OfRejected));
        assert_eq!(
            states(&respond(&mut sim, &[&corrected], &[])),
            [(RecordState::Correcto, None)],
            "the next message asks nothing"
        );
    }

    fn ask(
        sim: &mut Simulator,
        side: Side,
        nif: &str,
        month: u32,
        after: Option<InvoiceKey>,
    ) -> QueryAnswer {
        let query = Query {
            side,
            asker: query::Party {
                nif: nif.into(),
                name: "Quien Pregunta".into(),
            },
            period: query::Period::new(2025, month).unwrap(),
            number: None,
            counterpart: None,
            after,
        };
        let envelope = sim.respond(&query.envelope(), now()).unwrap();
        query::read_answer(&envelope).unwrap()
    }

    fn numbers(answer: &QueryAnswer) -> Vec<&str> {
        answer
            .records
            .iter()
            .map(|r| r.invoice.number.as_str())
            .collect()
    }

    #[test]
    fn an_issuer_query_pages_through_the_month_of_the_operation_date() {
        let chain = altas(3);
        let mut sim = Simulator {
            page_size: 2,
            ..Simulator::default()
        };
        submit(&mut sim, &chain.iter().map(|(_, b)| b).collect::<Vec<_>>());
        let first = ask(&mut sim, Side::Issuer, NIF, 5, None);
        assert_eq!(numbers(&first), ["PRUEBA-1", "PRUEBA-2"]);
        let record = &first.records[0];
        assert_eq!(record.state, HeldState::Correct);
        assert_eq!(record.data.hash.as_deref(), Some(chain[0].1.hash.as_str()));
        assert_eq!(record.data.issuer_name, None, "asked as issuer");
        assert_eq!(record.data.breakdown.len(), 2);
        assert_eq!(
            record.data.total.map(|t| t.to_string()).as_deref(),
            Some("176.00")
        );
        let second = ask(&mut sim, Side::Issuer, NIF, 5, first.next.clone());
        assert_eq!(numbers(&second), ["PRUEBA-3"]);
        assert_eq!(second.next, None);
        assert!(
            ask(&mut sim, Side::Issuer, NIF, 6, None).records.is_empty(),
            "filed under May, the operation date's month, not June's issue date"
        );
        assert!(
            ask(&mut sim, Side::Issuer, "A39200019", 5, None)
                .records
                .is_empty()
        );
    }

    #[test]
    fn a_recipient_sees_every_issuers_records_naming_it_with_their_names() {
        let mut sim = Simulator::default();
        submit(&mut sim, &[&altas(1)[0].1]);
        let supplier = Registration {
            invoice: invoice("A39200019", "PROV-7", date(2025, 5, 20)),
            issuer_name: "Proveedor, S.A.".into(),
            operation_date: None,
            ..f1()
        };
        let records = [supplier.build().xml];
        let records: Vec<&str> = records.iter().map(String::as_str).collect();
        let xml = submission_xml("Proveedor, S.A.", "A39200019", &records);
        let message = soap::envelope(xml.split_once("?>").unwrap().1);
        sim.respond(&message, now()).unwrap();
        let received = ask(&mut sim, Side::Recipient, RECIPIENT, 5, None);
        assert_eq!(numbers(&received), ["PRUEBA-1", "PROV-7"]);
        assert_eq!(
            received.records[1].data.issuer_name.as_deref(),
            Some("Proveedor, S.A.")
        );
        assert_eq!(received.records[1].invoice.nif, "A39200019");
        assert!(
            ask(&mut sim, Side::Issuer, RECIPIENT, 5, None)
                .records
                .is_empty()
        );
    }

    #[test]
    fn a_cancelled_invoice_is_held_cancelled_and_a_fresh_simulator_holds_nothing() {
        let mut sim = Simulator::default();
        let mut previous = None;
        submit(&mut sim, &[&alta(&mut previous, "PRUEBA-1", None)]);
        let cancellation = anulacion(&mut previous, "PRUEBA-1", false);
        submit(&mut sim, &[&cancellation]);
        let held = ask(&mut sim, Side::Issuer, NIF, 5, None);
        assert_eq!(held.records[0].state, HeldState::Cancelled);
        assert_eq!(
            held.records[0].data.hash.as_deref(),
            Some(cancellation.hash.as_str())
        );
        assert_eq!(held.records[0].data.kind, Some(Kind::F1), "the alta's data");
        let empty = ask(&mut Simulator::default(), Side::Issuer, NIF, 5, None);
        assert!(empty.records.is_empty() && empty.next.is_none());
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
