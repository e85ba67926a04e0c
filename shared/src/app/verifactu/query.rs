//! Asking the AEAT which VERI*FACTU records it holds
//! (`ConsultaFactuSistemaFacturacion`): every page of one month's records
//! of the account's issuer NIF, as their issuer or as their recipient. Live
//! keys ask the AEAT with the account's certificate; test keys ask the
//! simulator. No quota: nothing is issued.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::app::accounts::{self, AccountError};
use crate::app::keys::Caller;
use crate::app::verifactu::certificates::{self, Unusable};
use crate::domain::account::Mode;
use crate::invoice::kind::Kind;
use crate::ports::aeat::ClientIdentity;
use crate::ports::table::TableError;
use crate::ports::{Aeat, Ports};
use crate::verifactu::BreakdownLine;
use crate::verifactu::aeat::query::{
    self, HeldRecord, HeldState, Party, Period, Query, Side, parse_date,
};

#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error("the account could not be read: {0:?}")]
    Account(AccountError),
    /// The account has no issuer NIF (and name) to ask for.
    #[error("the account's issuer has no NIF or name")]
    NoIssuer,
    /// A live key, and the account's certificate cannot be used.
    #[error("{}", .0.reason())]
    Certificate(Unusable),
    /// The AEAT could not be asked or its answer read: `aeat_unavailable:
    /// …`, `aeat_fault: …` or `aeat_unreadable_answer: …`.
    #[error("{0}")]
    Aeat(String),
    #[error(transparent)]
    Storage(#[from] TableError),
}

/// Whom to ask, and as whom: the service (the AEAT, or the simulator) and
/// the TLS identity, for the caller's mode.
pub struct Asker<'a> {
    pub aeat: &'a dyn Aeat,
    pub identity: Option<ClientIdentity>,
    pub party: Party,
}

/// The account's issuer and the service its key's mode asks: the AEAT
/// with the account's certificate for live keys, the simulator for test ones.
pub async fn asker<'a>(ports: &'a Ports, caller: &Caller) -> Result<Asker<'a>, AskError> {
    let account = accounts::get(ports, &caller.account_id)
        .await
        .map_err(AskError::Account)?;
    let (Some(nif), Some(name)) = (account.issuer.nif, account.issuer.name) else {
        return Err(AskError::NoIssuer);
    };
    let party = Party {
        nif: nif.to_string(),
        name,
    };
    match caller.mode {
        Mode::Test => Ok(Asker {
            aeat: ports.aeat_test.as_ref(),
            identity: None,
            party,
        }),
        Mode::Live => {
            let identity = certificates::identity(ports, &caller.account_id)
                .await?
                .map_err(AskError::Certificate)?;
            let aeat = ports.aeat_live.as_deref().ok_or_else(|| {
                AskError::Aeat("aeat_unavailable: this host reaches no live AEAT".into())
            })?;
            Ok(Asker {
                aeat,
                identity: Some(identity),
                party,
            })
        }
    }
}

/// Every record the AEAT holds for `party` of `period` as `side`, page
/// after page; `Err` says why not (`aeat_unavailable: …`, `aeat_fault: …`,
/// `aeat_unreadable_answer: …`).
pub async fn ask_all(
    aeat: &dyn Aeat,
    identity: Option<&ClientIdentity>,
    side: Side,
    party: &Party,
    period: Period,
) -> Result<Vec<HeldRecord>, String> {
    let mut records = Vec::new();
    let mut after = None;
    loop {
        let message = Query {
            side,
            asker: party.clone(),
            period,
            number: None,
            counterpart: None,
            after: after.clone(),
        }
        .envelope();
        let envelope = aeat
            .send(message, identity)
            .await
            .map_err(|e| format!("aeat_unavailable: {e}"))?;
        let answer = query::read_answer(&envelope)?;
        records.extend(answer.records);
        match answer.next {
            Some(next) if Some(&next) == after.as_ref() => {
                return Err(
                    "aeat_unreadable_answer: the next page starts where this one did".into(),
                );
            }
            Some(next) => after = Some(next),
            None => return Ok(records),
        }
    }
}

/// Every record the AEAT holds of the caller's issuer NIF for `period`, as
/// `side`.
pub async fn held_records(
    ports: &Ports,
    caller: &Caller,
    side: Side,
    period: Period,
) -> Result<Vec<HeldRecord>, AskError> {
    let asker = asker(ports, caller).await?;
    ask_all(
        asker.aeat,
        asker.identity.as_ref(),
        side,
        &asker.party,
        period,
    )
    .await
    .map_err(AskError::Aeat)
}

/// An invoice a supplier reported to the AEAT with the account as its
/// recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedInvoice {
    pub issuer_nif: String,
    /// Absent when the AEAT does not return it.
    pub issuer_name: Option<String>,
    pub number: String,
    pub issue_date: NaiveDate,
    pub operation_date: Option<NaiveDate>,
    /// TipoFactura (F1, F2, R1…); absent for a cancellation the AEAT
    /// holds without the registration.
    pub kind: Option<Kind>,
    /// The Desglose: tax, regime, qualification or exemption, rate, base,
    /// quota, equivalence surcharge rate and quota.
    pub lines: Vec<BreakdownLine>,
    /// CuotaTotal.
    pub total_tax: Option<Decimal>,
    /// ImporteTotal.
    pub total: Option<Decimal>,
    /// `Cancelled`: the supplier cancelled it.
    pub state: HeldState,
    /// The supplier's record's Huella.
    pub hash: Option<String>,
}

impl ReceivedInvoice {
    fn of(record: HeldRecord) -> Result<ReceivedInvoice, String> {
        let date = |text: &str| {
            parse_date(text)
                .ok_or_else(|| format!("aeat_unreadable_answer: {text:?} is not a dd-mm-yyyy date"))
        };
        Ok(ReceivedInvoice {
            issue_date: date(&record.invoice.date)?,
            operation_date: record
                .data
                .operation_date
                .as_deref()
                .map(date)
                .transpose()?,
            issuer_nif: record.invoice.nif,
            issuer_name: record.data.issuer_name,
            number: record.invoice.number,
            kind: record.data.kind,
            lines: record.data.breakdown,
            total_tax: record.data.total_vat,
            total: record.data.total,
            state: record.state,
            hash: record.data.hash,
        })
    }
}

/// The invoices the AEAT holds with the caller's account's issuer NIF as
/// recipient, filed under `period` (the month of the operation date, or
/// else of the issue date), every page: for importing received invoices.
pub async fn received_invoices(
    ports: &Ports,
    caller: &Caller,
    period: Period,
) -> Result<Vec<ReceivedInvoice>, AskError> {
    held_records(ports, caller, Side::Recipient, period)
        .await?
        .into_iter()
        .map(ReceivedInvoice::of)
        .collect::<Result<_, _>>()
        .map_err(AskError::Aeat)
}
