//! Submitting a chain's pending records: one message at a time per chain
//! (a lease in the table, so two submitters never have two messages of one
//! issuer in flight), up to 1,000 records in chain order, altas and
//! anulaciones mixed; then the wait the answer asks for (`TiempoEsperaEnvio`,
//! 60 s at first) unless 1,000 records are waiting — the law's flow control.
//! Each record's answer, its invoice's view and a `verifactu.accepted` /
//! `verifactu.rejected` event are written in one transaction. A transport
//! failure or a SOAP fault leaves the records pending (with a reason) and is
//! retried with backoff; a record the AEAT already holds (a resend after a
//! lost answer) counts as accepted.
//!
//! A message whose fate is unknown (no answer in time, a broken connection,
//! an answer that cannot be read) leaves the chain uncertain: before its
//! next message the AEAT is asked (`ConsultaFactuSistemaFacturacion`, as
//! issuer, the months of the pending records) and a pending record it holds
//! with the same Huella (or, for a cancellation, the invoice it holds
//! cancelled) takes the state it holds there, as an answer would, marked
//! `resolved_by_query`; only the others are sent.
//!
//! Each answer's envelope, as received, is stored once per message under
//! `<chain>#ANSWERS` (`<token>#<part:03>`, in parts of at most 300 KB: an
//! answer to 1,000 records can outgrow a table item), and each record it
//! answers points to it (`answer_xml`: the token). Not in the blob store,
//! whose objects expire after a day.
//!
//! State per chain: `<chain>/SUBMISSION` (`through`: the last record
//! answered; `next_at`; `failures`; `reason`; `uncertain`: 1 while a
//! message's fate is unknown) and `<chain>/LEASE` (expires on its own).
//! `VERIFACTU#PENDING/<chain>` lists the chains with work.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use crate::app::invoices::error::InvoiceError;
use crate::app::invoices::store::{self, PENDING_CHAINS};
use crate::app::outbox;
use crate::app::verifactu::certificates;
use crate::app::verifactu::query::ask_all;
use crate::domain::account::{AccountId, Mode};
use crate::invoice::model::AeatAnswer;
use crate::ports::aeat::{AeatError, ClientIdentity};
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, UpdateOp, Write};
use crate::ports::{Aeat, Ports};
use crate::verifactu::aeat::query::{HeldRecord, HeldState, Party, Period, Side};
use crate::verifactu::aeat::simulated_errors::{self, SimulatedError};
use crate::verifactu::aeat::{
    Answer, AnswerLine, MAX_RECORDS, Operation, RecordError, RecordState, SendState, soap,
};
use crate::verifactu::status::RecordStatus;
use crate::verifactu::submission_xml;
use crate::webhooks::event_type::EventType;

/// Longer than a message's send (the HTTP adapter gives up after 60 s) and
/// the applying of its answer.
pub const LEASE_SECONDS: i64 = 180;
/// The first retry after a failure; it doubles up to `MAX_BACKOFF_SECONDS`.
pub const FIRST_BACKOFF_SECONDS: i64 = 30;
pub const MAX_BACKOFF_SECONDS: i64 = 3600;

/// What one call did for a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing waits to be sent.
    Idle,
    /// Another submitter holds the chain's lease.
    Busy,
    /// The flow control: the next message not before this time.
    Waiting(DateTime<Utc>),
    /// A message went and its answer was applied.
    Sent { records: usize, state: SendState },
    /// After a message of unknown fate, the AEAT held every pending record:
    /// their states were taken from its query, and nothing was sent.
    Resolved { records: usize },
    /// The message failed; records stay pending and are retried at `at`.
    Retrying { at: DateTime<Utc>, reason: String },
    /// Live records stay pending: the account's certificate is missing,
    /// expired or cannot be opened here.
    CertificateMissing(certificates::Unusable),
}

/// A record as stored, waiting for its answer.
struct Pending {
    seq: String,
    key: Key,
    xml: String,
    hash: String,
    number: String,
    date: String,
    /// The month the AEAT files it under (the operation date's, else the
    /// issue date's).
    period: Option<Period>,
    operation: Operation,
    invoice_id: u64,
    account: AccountId,
    issuer_name: String,
    /// What a test record asks the simulator to answer.
    simulated_error: Option<RecordError>,
}

fn time(item: Option<&Item>, name: &str) -> Option<DateTime<Utc>> {
    item?.s(name)?.parse().ok()
}

/// Submits what waits in every chain with pending records.
pub async fn submit_pending(ports: &Ports) -> Result<Vec<(String, Outcome)>, TableError> {
    let mut done = Vec::new();
    let mut query = Query::new(PENDING_CHAINS, SortKey::All).limit(100);
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            let chain = item.key.sk.clone();
            let outcome = submit_chain(ports, &chain).await?;
            done.push((chain, outcome));
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(done),
        }
    }
}

/// Sends the chain's next message, if it is time, and applies its answer.
pub async fn submit_chain(ports: &Ports, chain: &str) -> Result<Outcome, TableError> {
    let now = ports.clock.now();
    let lease_key = Key::new(chain, "LEASE");
    let owner = crate::ids::random_token(16);
    let lease = Item::new(lease_key.clone())
        .with("owner", owner.clone())
        .with("ttl", (now + Duration::seconds(LEASE_SECONDS)).timestamp());
    match ports
        .table
        .transact(vec![Write::Put {
            item: lease,
            condition: Some(Condition::Absent),
        }])
        .await
    {
        Ok(()) => {}
        Err(TableError::ConditionFailed { .. }) => return Ok(Outcome::Busy),
        Err(e) => return Err(e),
    }
    let outcome = submit_leased(ports, chain, now).await;
    let release = Write::Delete {
        key: lease_key,
        condition: Some(Condition::equals("owner", owner)),
    };
    if let Err(e) = ports.table.transact(vec![release]).await {
        tracing::warn!(chain = crate::redact::short_hash(chain), error = %e, "a submission lease was not released; it expires on its own");
    }
    outcome
}

async fn submit_leased(
    ports: &Ports,
    chain: &str,
    now: DateTime<Utc>,
) -> Result<Outcome, TableError> {
    let state_key = Key::new(chain, "SUBMISSION");
    let state = ports.table.get(&state_key).await?;
    let through = state
        .as_ref()
        .and_then(|s| s.s("through"))
        .unwrap_or_default()
        .to_string();
    // A live chain that cannot be sent is told from its newest record alone,
    // before its (up to 1,000) pending records are read.
    let identity = match store::chain_mode(chain) {
        Mode::Test => None,
        Mode::Live => match newest_record(ports, chain, &through).await? {
            None => {
                forget_chain(ports, chain, &through).await?;
                return Ok(Outcome::Idle);
            }
            // The newest record's account signs for the chain's NIF.
            Some(newest) => Some(
                match certificates::identity(ports, &newest.account).await? {
                    Ok(identity) => identity,
                    Err(unusable) => {
                        // A missing or expired certificate shows from the
                        // certificate itself (`reason::unsendable`); only what
                        // this host cannot do is noted on the chain.
                        if let certificates::Unusable::Sealed(_) = unusable {
                            note_reason(ports, &state_key, &unusable.reason()).await?;
                        }
                        return Ok(Outcome::CertificateMissing(unusable));
                    }
                },
            ),
        },
    };
    let pending = pending_records(ports, chain, &through).await?;
    let Some(last) = pending.last() else {
        forget_chain(ports, chain, &through).await?;
        return Ok(Outcome::Idle);
    };
    let last_seq = last.seq.clone();
    if let Some(next_at) = time(state.as_ref(), "next_at")
        && now < next_at
        && pending.len() < MAX_RECORDS
    {
        return Ok(Outcome::Waiting(next_at));
    }
    let uncertain = state.as_ref().and_then(|s| s.n("uncertain")) == Some(1);
    let (aeat, identity): (&dyn Aeat, _) = match identity {
        None => (ports.aeat_test.as_ref(), None),
        Some(identity) => match &ports.aeat_live {
            Some(aeat) => (aeat.as_ref(), Some(identity)),
            None => {
                let reason = "aeat_unavailable: this host sends no live records";
                let state = state.as_ref();
                return retry_later(ports, &state_key, state, now, reason.into(), uncertain).await;
            }
        },
    };
    let pending = if uncertain {
        let records = pending.len();
        let resolved = resolve(ports, aeat, identity.as_ref(), chain, pending, now).await?;
        match resolved {
            Ok(rest) if rest.is_empty() => {
                save_state(ports, state_key, &last_seq, time(state.as_ref(), "next_at")).await?;
                return Ok(Outcome::Resolved { records });
            }
            Ok(rest) => rest,
            Err(reason) => {
                let state = state.as_ref();
                return retry_later(ports, &state_key, state, now, reason, true).await;
            }
        }
    } else {
        pending
    };
    let message = message(chain, &pending);
    let envelope = match aeat.send(message, identity.as_ref()).await {
        Ok(envelope) => envelope,
        Err(e) => {
            let reason = failure(e);
            return retry_later(ports, &state_key, state.as_ref(), now, reason, true).await;
        }
    };
    let answer = match read_answer(&envelope) {
        Ok(answer) => answer,
        Err(reason) => {
            let uncertain = !reason.starts_with("aeat_fault");
            let state = state.as_ref();
            return retry_later(ports, &state_key, state, now, reason, uncertain).await;
        }
    };
    let answer_xml = store_answer(ports, chain, &envelope).await?;
    for record in &pending {
        if let Some(line) = answer.lines.iter().find(|l| matches(l, record)) {
            let aeat_answer = AeatAnswer {
                state: format!("{:?}", line.state),
                csv: answer.csv.clone(),
                code: line.error.as_ref().map(|e| e.code),
                description: line.error.as_ref().map(|e| e.description.clone()),
                duplicate: line.duplicate.is_some(),
                resolved_by_query: false,
                submitted_at: now,
            };
            let answered = Answered {
                status: status_of(line),
                answer: aeat_answer,
                xml: Some(&answer_xml),
            };
            apply(ports, record, &answered, now).await?;
        }
    }
    let unanswered = pending
        .iter()
        .any(|p| !answer.lines.iter().any(|l| matches(l, p)));
    if unanswered {
        let reason = format!("aeat_rejected_message: EstadoEnvio {:?}", answer.state);
        return retry_later(ports, &state_key, state.as_ref(), now, reason, false).await;
    }
    let next_at = now + Duration::seconds(i64::from(answer.wait_seconds));
    save_state(ports, state_key, &last_seq, Some(next_at)).await?;
    tracing::info!(chain = crate::redact::short_hash(chain), records = pending.len(), state = ?answer.state, "VERI*FACTU message answered");
    Ok(Outcome::Sent {
        records: pending.len(),
        state: answer.state,
    })
}

/// The chain's state after every record through `last_seq` was answered.
async fn save_state(
    ports: &Ports,
    state_key: Key,
    last_seq: &str,
    next_at: Option<DateTime<Utc>>,
) -> Result<(), TableError> {
    let item = Item::new(state_key)
        .with("through", last_seq.to_string())
        .with("failures", 0i64);
    let item = match next_at {
        Some(at) => item.with("next_at", at.to_rfc3339()),
        None => item,
    };
    ports
        .table
        .transact(vec![Write::Put {
            item,
            condition: None,
        }])
        .await
}

/// The largest part of an answer envelope in one item.
pub const ANSWER_PART_BYTES: usize = 300_000;

/// `text` in parts of at most `max` bytes, cut between characters.
fn parts(text: &str, max: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut cut = rest.len().min(max);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (part, tail) = rest.split_at(cut);
        parts.push(part);
        rest = tail;
    }
    parts
}

/// Stores an answer's envelope as received, once per message; its token.
async fn store_answer(ports: &Ports, chain: &str, envelope: &str) -> Result<String, TableError> {
    let token = crate::ids::random_token(16);
    for (i, part) in parts(envelope, ANSWER_PART_BYTES).into_iter().enumerate() {
        let item = Item::new(Key::new(
            format!("{chain}#ANSWERS"),
            format!("{token}#{i:03}"),
        ))
        .with("xml", part.to_string());
        ports
            .table
            .transact(vec![Write::Put {
                item,
                condition: None,
            }])
            .await?;
    }
    Ok(token)
}

/// The answer envelope stored under `token`, if any.
pub async fn stored_answer(
    ports: &Ports,
    chain: &str,
    token: &str,
) -> Result<Option<String>, TableError> {
    let query = Query::new(
        format!("{chain}#ANSWERS"),
        SortKey::Prefix(format!("{token}#")),
    );
    let page = ports.table.query(&query).await?;
    if page.items.is_empty() {
        return Ok(None);
    }
    Ok(Some(page.items.iter().filter_map(|i| i.s("xml")).collect()))
}

/// Asks the AEAT which pending records it holds (the months they are filed
/// under) and applies what it holds; the records it does not hold, still to
/// be sent, or why it could not be asked (`Err`).
async fn resolve(
    ports: &Ports,
    aeat: &dyn Aeat,
    identity: Option<&ClientIdentity>,
    chain: &str,
    pending: Vec<Pending>,
    now: DateTime<Utc>,
) -> Result<Result<Vec<Pending>, String>, TableError> {
    let party = Party {
        nif: store::chain_nif(chain).to_string(),
        name: issuer_name(&pending).to_string(),
    };
    let periods: BTreeSet<(i32, u32)> = pending
        .iter()
        .filter_map(|p| p.period)
        .map(|p| (p.year(), p.month()))
        .collect();
    let mut held = Vec::new();
    for (year, month) in periods {
        let Some(period) = Period::new(year, month) else {
            continue;
        };
        match ask_all(aeat, identity, Side::Issuer, &party, period).await {
            Ok(records) => held.extend(records),
            Err(reason) => return Ok(Err(reason)),
        }
    }
    let mut rest = Vec::new();
    for record in pending {
        match held.iter().find(|h| holds(h, &record)) {
            Some(h) => apply(ports, &record, &resolved(h, now), now).await?,
            None => rest.push(record),
        }
    }
    Ok(Ok(rest))
}

/// Whether the AEAT holds this pending record: the same Huella, or the
/// invoice cancelled for a pending cancellation (it cannot be cancelled twice).
fn holds(held: &HeldRecord, record: &Pending) -> bool {
    held.invoice.number == record.number
        && held.invoice.date == record.date
        && (held.data.hash.as_deref() == Some(record.hash.as_str())
            || (record.operation == Operation::Anulacion && held.state == HeldState::Cancelled))
}

/// The answer a held record stands for.
fn resolved(held: &HeldRecord, now: DateTime<Utc>) -> Answered<'static> {
    let (status, state) = match held.state {
        HeldState::AcceptedWithErrors => (RecordStatus::AcceptedWithErrors, "AceptadoConErrores"),
        HeldState::Correct | HeldState::Cancelled => (RecordStatus::Accepted, "Correcto"),
    };
    Answered {
        status,
        answer: AeatAnswer {
            state: state.to_string(),
            csv: None,
            code: held.error.as_ref().map(|e| e.code),
            description: held.error.as_ref().map(|e| e.description.clone()),
            duplicate: false,
            resolved_by_query: true,
            submitted_at: now,
        },
        xml: None,
    }
}

/// The records that wait for the AEAT's answer, over every chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub records: usize,
    /// When the oldest of them was generated (`FechaHoraHusoGenRegistro`).
    pub oldest: Option<DateTime<Utc>>,
}

/// Counts the pending records of every chain with work (those after the
/// chain's last answered record), and finds the oldest.
pub async fn backlog(ports: &Ports) -> Result<Backlog, TableError> {
    let mut backlog = Backlog::default();
    let mut chains = Query::new(PENDING_CHAINS, SortKey::All).limit(100);
    loop {
        let page = ports.table.query(&chains).await?;
        for marker in &page.items {
            let chain = marker.key.sk.as_str();
            let state = ports.table.get(&Key::new(chain, "SUBMISSION")).await?;
            let through = state
                .as_ref()
                .and_then(|s| s.s("through"))
                .unwrap_or_default();
            let mut records = records_after(chain, through).limit(MAX_RECORDS);
            loop {
                let page = ports.table.query(&records).await?;
                for record in page
                    .items
                    .iter()
                    .filter(|r| r.s("status") == Some(RecordStatus::Pending.code()))
                {
                    backlog.records += 1;
                    backlog.oldest = match (backlog.oldest, generated_at(record)) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                }
                match page.next {
                    Some(next) => records = records.after(Some(next)),
                    None => break,
                }
            }
        }
        match page.next {
            Some(next) => chains = chains.after(Some(next)),
            None => return Ok(backlog),
        }
    }
}

fn generated_at(record: &Item) -> Option<DateTime<Utc>> {
    let json: serde_json::Value = serde_json::from_str(record.s("record")?).ok()?;
    let text = json["FechaHoraHusoGenRegistro"].as_str()?;
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The SOAP message of a chain's next records. A test chain's message
/// carries the errors its records ask the simulator for (our own SOAP
/// header); a live message never does.
fn message(chain: &str, pending: &[Pending]) -> String {
    let records: Vec<&str> = pending.iter().map(|p| p.xml.as_str()).collect();
    let xml = submission_xml(issuer_name(pending), store::chain_nif(chain), &records);
    let body = xml.split_once("?>").map_or(xml.as_str(), |(_, body)| body);
    let asked: Vec<SimulatedError> = match store::chain_mode(chain) {
        Mode::Live => Vec::new(),
        Mode::Test => pending
            .iter()
            .filter_map(|p| {
                Some(SimulatedError {
                    number: p.number.clone(),
                    operation: p.operation,
                    error: p.simulated_error.clone()?,
                })
            })
            .collect(),
    };
    soap::envelope_with_header(&simulated_errors::header(&asked), body)
}

/// The issuer's name as the newest alta gives it.
fn issuer_name(pending: &[Pending]) -> &str {
    pending
        .iter()
        .rev()
        .find(|p| p.operation == Operation::Alta)
        .or(pending.last())
        .map_or("", |p| p.issuer_name.as_str())
}

/// The records of `chain` after the sequence number `through`.
fn records_after(chain: &str, through: &str) -> Query {
    // Sequence numbers are 12 digits: `through` + "0" sorts right after it.
    let range = SortKey::Between(format!("{through}0"), "9".repeat(13));
    Query::new(format!("{chain}#RECORDS"), range)
}

/// The chain's newest record after `through`, whatever its status.
async fn newest_record(
    ports: &Ports,
    chain: &str,
    through: &str,
) -> Result<Option<Pending>, TableError> {
    let query = records_after(chain, through).backward().limit(1);
    let page = ports.table.query(&query).await?;
    Ok(page.items.into_iter().next().and_then(decode))
}

/// Up to 1,000 records after `through`, in chain order, still pending.
async fn pending_records(
    ports: &Ports,
    chain: &str,
    through: &str,
) -> Result<Vec<Pending>, TableError> {
    let mut query = records_after(chain, through).limit(MAX_RECORDS);
    let mut pending = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in page.items {
            if item.s("status") != Some(RecordStatus::Pending.code()) {
                continue;
            }
            if let Some(record) = decode(item) {
                pending.push(record);
            }
            if pending.len() == MAX_RECORDS {
                return Ok(pending);
            }
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(pending),
        }
    }
}

fn decode(item: Item) -> Option<Pending> {
    let record: serde_json::Value = serde_json::from_str(item.s("record")?).ok()?;
    let id = &record["IDFactura"];
    let (number, date) = match item.s("operation")? {
        "Anulacion" => (
            &id["NumSerieFacturaAnulada"],
            &id["FechaExpedicionFacturaAnulada"],
        ),
        _ => (&id["NumSerieFactura"], &id["FechaExpedicionFactura"]),
    };
    let period = record["FechaOperacion"]
        .as_str()
        .or(date.as_str())
        .and_then(Period::of_date);
    Some(Pending {
        period,
        seq: item.key.sk.clone(),
        xml: item.s("xml")?.to_string(),
        hash: item.s("hash")?.to_string(),
        number: number.as_str()?.to_string(),
        date: date.as_str()?.to_string(),
        operation: match item.s("operation")? {
            "Anulacion" => Operation::Anulacion,
            _ => Operation::Alta,
        },
        invoice_id: u64::try_from(item.n("invoice_id")?).ok()?,
        account: item.s("account_id")?.parse().ok()?,
        issuer_name: item.s("issuer_name").unwrap_or_default().to_string(),
        simulated_error: item
            .n("simulated_code")
            .and_then(|code| u32::try_from(code).ok())
            .map(|code| RecordError {
                code,
                description: item
                    .s("simulated_description")
                    .unwrap_or_default()
                    .to_string(),
            }),
        key: item.key,
    })
}

fn matches(line: &AnswerLine, record: &Pending) -> bool {
    line.operation == record.operation
        && line.invoice.number == record.number
        && line.invoice.date == record.date
}

fn failure(e: AeatError) -> String {
    format!("aeat_unavailable: {e}")
}

fn read_answer(envelope: &str) -> Result<Answer, String> {
    match soap::read(envelope) {
        Ok(soap::Body::Content(content)) => {
            Answer::read(&content).map_err(|e| format!("aeat_unreadable_answer: {e}"))
        }
        Ok(soap::Body::Fault(fault)) => Err(format!("aeat_fault: {}", fault.message)),
        Err(e) => Err(format!("aeat_unreadable_answer: {e}")),
    }
}

/// The record's status from its answer line: a duplicate of a record the
/// AEAT holds counts as accepted.
fn status_of(line: &AnswerLine) -> RecordStatus {
    match (line.state, &line.duplicate) {
        (RecordState::Correcto, _) => RecordStatus::Accepted,
        (RecordState::AceptadoConErrores, _) => RecordStatus::AcceptedWithErrors,
        (RecordState::Incorrecto, Some(d)) if d.state == "AceptadaConErrores" => {
            RecordStatus::AcceptedWithErrors
        }
        (RecordState::Incorrecto, Some(_)) => RecordStatus::Accepted,
        (RecordState::Incorrecto, None) => RecordStatus::Rejected,
    }
}

/// What the AEAT said of one record: from its answer, or from a query.
struct Answered<'a> {
    status: RecordStatus,
    answer: AeatAnswer,
    /// The token of the answer's stored envelope, when there is one.
    xml: Option<&'a str>,
}

/// Stores one record's answer on the record and its invoice, with its event,
/// in one transaction (retried when the invoice changed meanwhile).
async fn apply(
    ports: &Ports,
    record: &Pending,
    answered: &Answered<'_>,
    now: DateTime<Utc>,
) -> Result<(), TableError> {
    let (status, aeat) = (answered.status, &answered.answer);
    let mode = store::chain_mode(&record.key.pk);
    let invoice_key = store::invoice_key_in(&record.account, mode, record.invoice_id);
    for _ in 0..5 {
        let Some((mut invoice, version)) =
            store::get_at(ports, &invoice_key)
                .await
                .map_err(|e| match e {
                    InvoiceError::Storage(t) => t,
                    other => TableError::Unavailable(format!("{other:?}")),
                })?
        else {
            return Ok(());
        };
        invoice.verifactu.status_reason = None;
        match record.operation {
            Operation::Alta => {
                invoice.verifactu.status = status;
                invoice.verifactu.answer = Some(aeat.clone());
            }
            Operation::Anulacion => {
                invoice.verifactu.cancellation_status = Some(status);
                invoice.verifactu.cancellation_answer = Some(aeat.clone());
            }
        }
        let kind = if status == RecordStatus::Rejected {
            EventType::VerifactuRejected
        } else {
            EventType::VerifactuAccepted
        };
        let data = json!({
            "invoice_id": invoice.id,
            "number": invoice.number,
            "operation": record.operation.as_str(),
            "hash": record.hash,
            "status": status,
            "answer": aeat,
        });
        let mut ops = vec![
            UpdateOp::set("status", status.code()),
            UpdateOp::set("answer", serde_json::to_string(&aeat).unwrap_or_default()),
        ];
        ops.extend(answered.xml.map(|key| UpdateOp::set("answer_xml", key)));
        let writes = vec![
            Write::Update {
                key: record.key.clone(),
                ops,
                condition: Some(Condition::equals("status", RecordStatus::Pending.code())),
            },
            store::replace_at(invoice_key.clone(), &invoice, version),
            outbox::record(&record.account, mode, kind, data, now),
        ];
        match ports.table.transact(writes).await {
            Ok(()) => return Ok(()),
            Err(TableError::ConditionFailed { index: Some(0), .. }) => return Ok(()),
            Err(TableError::ConditionFailed { .. } | TableError::Conflict) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(TableError::Conflict)
}

/// Backs off after a failure; `uncertain`: the message may have arrived,
/// so the AEAT is asked before the next one.
async fn retry_later(
    ports: &Ports,
    state_key: &Key,
    state: Option<&Item>,
    now: DateTime<Utc>,
    reason: String,
    uncertain: bool,
) -> Result<Outcome, TableError> {
    let failures = state.and_then(|s| s.n("failures")).unwrap_or(0) + 1;
    let wait = (FIRST_BACKOFF_SECONDS << (failures - 1).min(10)).min(MAX_BACKOFF_SECONDS);
    let at = now + Duration::seconds(wait);
    tracing::warn!(chain = crate::redact::short_hash(&state_key.pk), %reason, failures, "a VERI*FACTU message failed; retried later");
    ports
        .table
        .transact(vec![Write::Update {
            key: state_key.clone(),
            ops: vec![
                UpdateOp::set("next_at", at.to_rfc3339()),
                UpdateOp::set("failures", failures),
                UpdateOp::set("reason", reason.clone()),
                UpdateOp::set("uncertain", i64::from(uncertain)),
            ],
            condition: None,
        }])
        .await?;
    Ok(Outcome::Retrying { at, reason })
}

async fn note_reason(ports: &Ports, state_key: &Key, reason: &str) -> Result<(), TableError> {
    ports
        .table
        .transact(vec![Write::Update {
            key: state_key.clone(),
            ops: vec![UpdateOp::set("reason", reason)],
            condition: None,
        }])
        .await
}

/// Drops the chain from the pending list, unless a record came meanwhile.
async fn forget_chain(ports: &Ports, chain: &str, through: &str) -> Result<(), TableError> {
    let Ok(seq) = through.parse::<i64>() else {
        return Ok(());
    };
    let forget = Write::Delete {
        key: Key::new(PENDING_CHAINS, chain),
        condition: Some(Condition::equals("seq", seq)),
    };
    match ports.table.transact(vec![forget]).await {
        Ok(()) | Err(TableError::ConditionFailed { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(number: &str, simulated_error: Option<RecordError>) -> Pending {
        Pending {
            seq: "000000000001".into(),
            key: Key::new("CHAIN#test#acct_1#12345678Z#RECORDS", "000000000001"),
            xml: "<sf:RegistroAlta/>".into(),
            hash: "A".repeat(64),
            number: number.into(),
            date: "21-11-2026".into(),
            period: Period::new(2026, 11),
            operation: Operation::Alta,
            invoice_id: 1,
            account: AccountId::generate(),
            issuer_name: "Ana García Pérez".into(),
            simulated_error,
        }
    }

    fn asked_in(message: &str) -> Vec<SimulatedError> {
        let (header, _) = soap::read_with_header(message).unwrap();
        simulated_errors::read(header.as_ref()).unwrap()
    }

    #[test]
    fn answers_are_cut_in_parts_between_characters() {
        assert_eq!(parts("añb", 2), ["a", "ñ", "b"]);
        assert_eq!(parts("abcd", 2), ["ab", "cd"]);
        assert_eq!(parts("", 2), Vec::<&str>::new());
        let big = "é".repeat(ANSWER_PART_BYTES);
        assert_eq!(parts(&big, ANSWER_PART_BYTES).concat(), big);
    }

    #[test]
    fn only_test_messages_carry_the_errors_their_records_ask_for() {
        let error = RecordError {
            code: 1104,
            description: "El valor del campo NumSerieFactura es incorrecto.".into(),
        };
        let records = [
            pending("TEST-F2026-000001", Some(error.clone())),
            pending("TEST-F2026-000002", None),
        ];
        let test = message("CHAIN#test#acct_1#12345678Z", &records);
        assert_eq!(
            asked_in(&test),
            [SimulatedError {
                number: "TEST-F2026-000001".into(),
                operation: Operation::Alta,
                error,
            }]
        );
        let live = message("CHAIN#live#12345678Z", &records);
        assert!(live.contains("<env:Header/>"), "{live}");
        assert_eq!(asked_in(&live), []);
    }
}
