//! Recording payments and refunds against an invoice (`POST
//! /invoices/{id}/payments`, the MCP tool `record_payment`), and the
//! payment side of `POST /invoices/{id}/status` with `paid` or `unpaid`.
//! Each is a new version of the invoice (conditional on the version read)
//! with its payment list, history, due-date index items and events, in one
//! transaction.
//!
//! Decisions:
//! - Payments are positive, refunds negative; the amount paid never goes
//!   below 0 (400 `refund_exceeds_paid`) nor above the total (400
//!   `overpayment`). Dated from the issue date to today (Madrid).
//! - Cancelled invoices and invoices with nothing to collect (balance 0 or
//!   negative) take none but refunds of what was paid (409 `invalid_state`).
//!   The balance is the invoice's net of its rectifications (see
//!   `invoice::payments`): rectifying invoices take none, their rectified
//!   invoice does.
//! - Every payment and refund sends `invoice.payment_received` (refunds with
//!   a negative `payment.amount`). The payment that completes the total
//!   sends `invoice.paid` and sets the status `paid` (when the status allows
//!   it: not from `rejected`); a refund below the total of a `paid` invoice
//!   sets it back to `unpaid` with `invoice.unpaid`.
//! - Status `paid` records a payment of what is outstanding, dated today,
//!   method `other`; status `unpaid` records a refund of everything paid,
//!   dated today, method `other`: status and payments always agree.
//! - An invoice marked `paid` before payments were recorded gets that
//!   payment written out (the total, on the day it was marked, method
//!   `other`) before anything else is recorded.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde_json::json;

use super::error::InvoiceError;
use super::issue::event_data;
use super::{due_index, store};
use crate::app::keys::Caller;
use crate::app::outbox;
use crate::domain::madrid;
use crate::invoice::model::{HistoryEvent, HistoryKind, Invoice};
use crate::invoice::payments::{
    self as rules, PaymentEntry, PaymentMethod, PaymentRefusal, open_instalments,
};
use crate::invoice::status::Status;
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::tax::money::Money;
use crate::tax::money::as_number;
use crate::webhooks::event_type::EventType;

pub const PAYMENT_RECEIVED: EventType = EventType::InvoicePaymentReceived;
/// The longest payment reference kept (a SEPA remittance is 140).
pub const MAX_REFERENCE: usize = 140;

/// A payment to record.
#[derive(Clone, Debug, PartialEq)]
pub struct NewPayment {
    /// Negative for a refund.
    pub amount: Decimal,
    /// Default today (Madrid).
    pub date: Option<NaiveDate>,
    pub method: PaymentMethod,
    pub reference: Option<String>,
}

/// Records a payment or refund against invoice `id`.
pub async fn record(
    ports: &Ports,
    caller: &Caller,
    id: u64,
    payment: NewPayment,
) -> Result<(Invoice, Vec<Write>), InvoiceError> {
    let (mut invoice, version) = store::get(ports, caller, id).await?;
    let now = ports.clock.now();
    let before = open_instalments(&invoice);
    let paid_before = rules::amount_paid(&invoice);
    let mut events = Vec::new();
    apply(&mut invoice, payment, now, &mut events)?;
    let mut writes = commit(caller, &mut invoice, version, &before, events, now);
    writes.extend(collection(caller, &invoice, paid_before));
    Ok((invoice, writes))
}

/// The payment side of a status change to `paid` or `unpaid` (see the
/// module's decisions): the writes, or None when `to` is another status.
pub fn by_status(
    caller: &Caller,
    invoice: &mut Invoice,
    version: i64,
    to: Status,
    now: DateTime<Utc>,
) -> Result<Option<Vec<Write>>, InvoiceError> {
    let settle = match to {
        Status::Paid => {
            Money::from((rules::payable(invoice) - rules::amount_paid(invoice)).max(Decimal::ZERO))
        }
        Status::Unpaid => Money::from(-rules::amount_paid(invoice)),
        _ => return Ok(None),
    };
    let before = open_instalments(invoice);
    let paid_before = rules::amount_paid(invoice);
    let mut events = Vec::new();
    let mut collected = None;
    let refund = settle.is_sign_negative() && invoice.rectifies.is_none();
    if (rules::collectible(invoice) || refund) && !settle.is_zero() {
        let payment = NewPayment {
            amount: settle.value(),
            date: None,
            method: PaymentMethod::Other,
            reference: None,
        };
        apply(invoice, payment, now, &mut events)?;
        collected = collection(caller, invoice, paid_before);
    }
    if invoice.status != to {
        invoice.status = to;
        history(invoice, to.into(), now, None);
        events.push((super::lifecycle::status_event(to), event_data(invoice)));
    }
    let mut writes = commit(caller, invoice, version, &before, events, now);
    writes.extend(collected);
    Ok(Some(writes))
}

/// The VAT the invoice's last payment made accrue, when it is a live
/// invoice under the cash-accounting regime (see `app::collections`).
fn collection(caller: &Caller, invoice: &Invoice, paid_before: Decimal) -> Option<Write> {
    if !caller.mode.is_live() {
        return None;
    }
    crate::app::collections::of_last_payment(invoice, paid_before)
        .map(|c| crate::app::collections::record(&caller.account_id, &c))
}

fn history(invoice: &mut Invoice, kind: HistoryKind, at: DateTime<Utc>, detail: Option<String>) {
    invoice.events.push(HistoryEvent { kind, at, detail });
}

fn refused(e: PaymentRefusal) -> InvoiceError {
    match e {
        PaymentRefusal::State(message) => InvoiceError::InvalidState(message),
        PaymentRefusal::Invalid {
            code,
            field,
            message,
        } => InvoiceError::invalid(code, field.into(), message),
    }
}

/// Writes out the payment of an invoice marked `paid` before payments were recorded.
fn materialise_legacy(invoice: &mut Invoice) {
    if let Some(date) = rules::legacy_paid_date(invoice) {
        let marked = invoice
            .events
            .iter()
            .rev()
            .find(|e| e.kind == HistoryKind::Paid);
        let created_at = marked.map_or(invoice.created_at, |e| e.at);
        invoice.payments.push(PaymentEntry {
            id: crate::ids::new_id("pay"),
            amount: Money::from(invoice.total.value()),
            date,
            method: PaymentMethod::Other,
            reference: None,
            created_at,
        });
    }
}

/// Adds the payment to the invoice, with its history and events.
fn apply(
    invoice: &mut Invoice,
    payment: NewPayment,
    now: DateTime<Utc>,
    events: &mut Vec<(EventType, serde_json::Value)>,
) -> Result<(), InvoiceError> {
    let today = madrid::date(now);
    let date = payment.date.unwrap_or(today);
    rules::check(invoice, payment.amount, date, today).map_err(refused)?;
    let reference = payment
        .reference
        .as_deref()
        .map(|r| super::request::text(r, MAX_REFERENCE, "reference", false))
        .transpose()?
        .flatten();
    materialise_legacy(invoice);
    let was_paid = rules::amount_paid(invoice) >= rules::payable(invoice);
    let entry = PaymentEntry {
        id: crate::ids::new_id("pay"),
        amount: Money::from(payment.amount.normalize()),
        date,
        method: payment.method,
        reference,
        created_at: now,
    };
    let kind = if entry.amount.is_sign_negative() {
        HistoryKind::Refund
    } else {
        HistoryKind::Payment
    };
    let detail = format!(
        "{} {} on {date} ({})",
        entry.id,
        entry.amount,
        entry.method.code()
    );
    history(invoice, kind, now, Some(detail));
    invoice.payments.push(entry.clone());
    rules::refresh(invoice, today);
    let mut data = event_data(invoice);
    data["payment"] = json!(entry);
    data["payment_status"] = json!(invoice.payment_status);
    data["amount_paid"] = amount(&invoice.amount_paid.value());
    data["amount_due"] = amount(&invoice.amount_due.value());
    events.push((PAYMENT_RECEIVED, data));
    let now_paid = rules::amount_paid(invoice) >= rules::payable(invoice);
    if now_paid && !was_paid {
        if invoice.status.can_become(Status::Paid) {
            invoice.status = Status::Paid;
            history(invoice, HistoryKind::Paid, now, None);
        }
        events.push((EventType::InvoicePaid, event_data(invoice)));
    } else if was_paid && !now_paid && invoice.status == Status::Paid {
        invoice.status = Status::Unpaid;
        history(invoice, HistoryKind::Unpaid, now, None);
        events.push((EventType::InvoiceUnpaid, event_data(invoice)));
    }
    Ok(())
}

fn amount(x: &Decimal) -> serde_json::Value {
    as_number(x, serde_json::value::Serializer).expect("amounts serialise")
}

/// The invoice's next version, its due-date index changes and its events.
fn commit(
    caller: &Caller,
    invoice: &mut Invoice,
    version: i64,
    before: &[usize],
    events: Vec<(EventType, serde_json::Value)>,
    now: DateTime<Utc>,
) -> Vec<Write> {
    rules::refresh(invoice, madrid::date(now));
    let mut writes = vec![store::replace(caller, invoice, version)];
    writes.extend(due_index::changes(
        before,
        invoice,
        caller.mode,
        &caller.account_id,
    ));
    for (kind, data) in events {
        writes.push(outbox::record(
            &caller.account_id,
            caller.mode,
            kind,
            data,
            now,
        ));
    }
    writes
}
