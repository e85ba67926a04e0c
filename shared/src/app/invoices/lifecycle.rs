//! After issuing: list, cancel and status changes. Each change is a new
//! version of the invoice (conditional on the version read), an entry in its
//! history and an event in the outbox, in one transaction.

use chrono::NaiveDate;

use super::error::InvoiceError;
use super::issue::event_data;
use super::payments;
use super::record;
use super::store;
use crate::app::keys::Caller;
use crate::app::{ledger, outbox};
use crate::invoice::kind::Kind;
use crate::invoice::model::{HistoryEvent, HistoryKind, Invoice};
use crate::invoice::payments::PaymentStatus;
use crate::invoice::status::Status;
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::tax::ledger_entry::{LedgerEntry, RateGroup, accrual_of};
use crate::verifactu::SystemInfo;
use crate::verifactu::aeat::Operation;
use crate::verifactu::status::RecordStatus;
use crate::webhooks::event_type::EventType;

/// List filters.
#[derive(Debug, Default, PartialEq)]
pub struct Filters {
    pub status: Option<Status>,
    pub customer_id: Option<String>,
    pub kind: Option<Kind>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// The derived payment status (as of today, Madrid).
    pub payment_status: Option<PaymentStatus>,
}

impl Filters {
    fn keep(&self, i: &Invoice) -> bool {
        self.status.is_none_or(|s| i.status == s)
            && self
                .customer_id
                .as_ref()
                .is_none_or(|c| i.customer_id.as_ref() == Some(c))
            && self.kind.is_none_or(|k| i.kind == k)
            && self.from.is_none_or(|d| i.issue_date >= d)
            && self.to.is_none_or(|d| i.issue_date <= d)
            && self.payment_status.is_none_or(|p| i.payment_status == p)
    }
}

/// Invoices matching the filters, newest first, after the invoice `starting_after`.
pub async fn list(
    ports: &Ports,
    caller: &Caller,
    filters: &Filters,
    limit: usize,
    starting_after: Option<u64>,
) -> Result<(Vec<Invoice>, bool), InvoiceError> {
    let mut cursor = starting_after.map(store::invoice_sk);
    let mut found = Vec::new();
    // Unfiltered, the first `limit` invoices and one more (whether more
    // follow) answer: each read invoice is decoded, about 20 µs. Filtered,
    // how many are passed over is unknown, and pages are read whole.
    let size = if *filters == Filters::default() {
        limit + 1
    } else {
        100
    };
    loop {
        let (page, next) = store::page(ports, caller, cursor, size).await?;
        for invoice in page {
            if filters.keep(&invoice) {
                if found.len() == limit {
                    return Ok((found, true));
                }
                found.push(invoice);
            }
        }
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok((found, false)),
        }
    }
}

/// The event of an invoice reaching `status`.
pub(super) fn status_event(status: Status) -> EventType {
    match status {
        Status::Issued => EventType::InvoiceIssued,
        Status::Accepted => EventType::InvoiceAccepted,
        Status::Rejected => EventType::InvoiceRejected,
        Status::Paid => EventType::InvoicePaid,
        Status::Unpaid => EventType::InvoiceUnpaid,
        Status::Cancelled => EventType::InvoiceCancelled,
    }
}

fn history(
    invoice: &mut Invoice,
    kind: HistoryKind,
    at: chrono::DateTime<chrono::Utc>,
    detail: Option<String>,
) {
    invoice.events.push(HistoryEvent { kind, at, detail });
}

/// Sets a payment or acceptance status, following the transition table.
pub async fn set_status(
    ports: &Ports,
    caller: &Caller,
    id: u64,
    to: Status,
) -> Result<(Invoice, Vec<Write>), InvoiceError> {
    let (mut invoice, version) = store::get(ports, caller, id).await?;
    if invoice.status == to {
        return Ok((invoice, Vec::new()));
    }
    if !invoice.status.can_become(to) {
        let allowed: Vec<&str> = invoice.status.next().iter().map(|s| s.code()).collect();
        return Err(InvoiceError::InvalidState(format!(
            "an invoice in state {} cannot become {}; allowed: {}",
            invoice.status.code(),
            to.code(),
            if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            }
        )));
    }
    let now = ports.clock.now();
    if let Some(writes) = payments::by_status(caller, &mut invoice, version, to, now)? {
        return Ok((invoice, writes));
    }
    invoice.status = to;
    history(&mut invoice, to.into(), now, None);
    let writes = vec![
        store::replace(caller, &invoice, version),
        outbox::record(
            &caller.account_id,
            caller.mode,
            status_event(to),
            event_data(&invoice),
            now,
        ),
    ];
    Ok((invoice, writes))
}

fn negated(groups: &[RateGroup]) -> Vec<RateGroup> {
    groups
        .iter()
        .map(|g| RateGroup {
            vat_rate: g.vat_rate,
            base: -g.base,
            vat_amount: -g.vat_amount,
            surcharge_rate: g.surcharge_rate,
            surcharge_amount: -g.surcharge_amount,
            treatment: g.treatment,
        })
        .collect()
}

/// The invoice's own figures as ledger groups.
pub fn invoice_groups(invoice: &Invoice) -> Vec<RateGroup> {
    invoice
        .breakdown
        .iter()
        .map(|g| RateGroup {
            vat_rate: g.vat_rate.value(),
            base: g.base.value(),
            vat_amount: g.vat_amount.value(),
            surcharge_rate: g.surcharge_rate.value(),
            surcharge_amount: g.surcharge_amount.value(),
            treatment: crate::invoice::line::Treatment::of_stored(g.exemption.as_deref()),
        })
        .collect()
}

/// Cancels an invoice issued by mistake: final state, a reversing ledger entry,
/// a RegistroAnulacion in the chain (SinRegistroPrevio when the AEAT rejected
/// the invoice's registration) and `invoice.cancelled`.
pub async fn cancel(
    ports: &Ports,
    caller: &Caller,
    system: &SystemInfo,
    id: u64,
    reason: Option<String>,
) -> Result<(Invoice, Vec<Write>), InvoiceError> {
    let (mut invoice, version) = store::get(ports, caller, id).await?;
    if invoice.status == Status::Cancelled {
        return Err(InvoiceError::InvalidState(
            "the invoice is already cancelled".into(),
        ));
    }
    if !invoice.rectified_by.is_empty() {
        return Err(InvoiceError::InvalidState(
            "the invoice has been rectified; rectify it again instead of cancelling".into(),
        ));
    }
    if let Some(by) = &invoice.replaced_by {
        return Err(InvoiceError::InvalidState(format!(
            "the invoice was replaced by {}; rectify that one instead",
            by.number
        )));
    }
    if !invoice.replaces.is_empty() {
        return Err(InvoiceError::InvalidState(
            "an invoice replacing simplified ones stands for them; rectify it instead of cancelling"
                .into(),
        ));
    }
    let now = ports.clock.now();
    let chain = store::chain_pk(caller, &invoice.issuer.tax_id);
    let (head, owner) = tokio::try_join!(
        store::chain_head(ports, &chain),
        store::chain_owner(ports, caller, &invoice.issuer.tax_id),
    )?;
    let built = record::cancellation(&invoice, false, head.as_ref(), system, now).build();
    record::check(&built, crate::domain::madrid::date(now))?;
    invoice.status = Status::Cancelled;
    invoice.verifactu.cancellation = Some(built.json.clone());
    invoice.verifactu.cancellation_status = Some(RecordStatus::Pending);
    history(&mut invoice, HistoryKind::Cancelled, now, reason);
    crate::invoice::payments::refresh(&mut invoice, crate::domain::madrid::date(now));
    let mut writes = vec![store::replace(caller, &invoice, version)];
    writes.extend(store::append(
        &chain,
        head.as_ref(),
        &built,
        &store::RecordOwner {
            account: &caller.account_id,
            invoice_id: invoice.id,
            number: &invoice.number,
            issue_date: invoice.issue_date,
            issuer_name: &invoice.issuer.name,
            operation: Operation::Anulacion,
            simulated_error: None,
        },
    ));
    writes.extend(owner);
    if caller.mode.is_live() {
        let groups = negated(&invoice_groups(&invoice));
        let entry = LedgerEntry {
            invoice_id: invoice.id.to_string(),
            number: format!("{}-ANULADA", invoice.number),
            kind: invoice.kind,
            tax: invoice.tax,
            issue_date: invoice.issue_date,
            operation_date: invoice.operation_date,
            accrual_date: Some(accrual_of(
                invoice.kind,
                invoice.issue_date,
                invoice.operation_date,
                &groups,
            )),
            customer_country: invoice.customer.as_ref().map(|c| c.country.clone()),
            cash_accounting: invoice.cash_accounting,
            total: (-invoice.total).value(),
            groups,
            irpf_rate: invoice.irpf_rate.value(),
            irpf_amount: (-invoice.irpf_amount).value(),
        };
        writes.push(ledger::record(&caller.account_id, &entry));
    }
    writes.push(outbox::record(
        &caller.account_id,
        caller.mode,
        EventType::InvoiceCancelled,
        event_data(&invoice),
        now,
    ));
    Ok((invoice, writes))
}
