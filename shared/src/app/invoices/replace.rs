//! A full invoice replacing simplified ones (F3): the tickets it replaces,
//! checked and read, whose lines it takes; once it is issued they name it.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use super::error::InvoiceError;
use super::lifecycle::invoice_groups;
use super::store;
use crate::app::keys::Caller;
use crate::invoice::kind::Kind;
use crate::invoice::line::{Line, Treatment};
use crate::invoice::model::{HistoryEvent, HistoryKind, Invoice, InvoiceLink};
use crate::invoice::status::Status;
use crate::invoice::totals::Prices;
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::tax::ledger_entry::RateGroup;

pub const MAX_REPLACED: usize = 100;

/// The tickets an F3 replaces, as read (with their versions).
pub struct Replaced {
    pub invoices: Vec<(Invoice, i64)>,
    pub lines: Vec<Line>,
    pub prices: Prices,
}

fn bad(message: impl Into<String>) -> InvoiceError {
    InvoiceError::invalid("parameter_invalid", "replaces".into(), message)
}

/// A stored line as it was issued: its price as given (with VAT when the
/// invoice's prices included it).
pub fn issued_line(line: &crate::invoice::model::LineView, sign: Decimal) -> Line {
    Line {
        description: line.description.clone(),
        quantity: sign * line.quantity,
        unit_price: line.unit_price_with_vat.unwrap_or(line.unit_price).value(),
        discount_percent: line.discount_percent.value(),
        vat_rate: line.vat_rate.value(),
        surcharge_rate: line.surcharge_rate.value(),
        treatment: Treatment::of_stored(line.exemption.as_deref()),
    }
}

pub fn prices_of(invoice: &Invoice) -> Prices {
    if invoice.prices_include_vat {
        Prices::VatIncluded
    } else {
        Prices::WithoutVat
    }
}

/// Reads and checks the tickets: the caller's own F2 tickets, issued, not
/// cancelled, rectified or replaced, all with prices meant alike.
pub async fn read(ports: &Ports, caller: &Caller, ids: &[u64]) -> Result<Replaced, InvoiceError> {
    if ids.is_empty() || ids.len() > MAX_REPLACED {
        return Err(bad(format!("replaces lists 1–{MAX_REPLACED} invoice ids")));
    }
    if ids.iter().collect::<HashSet<_>>().len() != ids.len() {
        return Err(bad("replaces lists an invoice twice"));
    }
    let mut invoices = Vec::with_capacity(ids.len());
    for &id in ids {
        let (invoice, version) = match store::get(ports, caller, id).await {
            Ok(found) => found,
            Err(InvoiceError::NotFound(_)) => return Err(bad(format!("no invoice {id}"))),
            Err(e) => return Err(e),
        };
        let why = if invoice.kind != Kind::F2 || invoice.without_recipient_id {
            Some("is not a simplified invoice (F2 ticket)")
        } else if invoice.status == Status::Cancelled {
            Some("is cancelled")
        } else if invoice.replaced_by.is_some() {
            Some("was already replaced")
        } else if !invoice.rectified_by.is_empty() {
            Some("was rectified")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(bad(format!("invoice {} {why}", invoice.number)));
        }
        invoices.push((invoice, version));
    }
    let prices = prices_of(&invoices[0].0);
    if invoices.iter().any(|(i, _)| prices_of(i) != prices) {
        return Err(bad(
            "the tickets mix prices with and without VAT; replace each kind in its own invoice",
        ));
    }
    let lines = invoices
        .iter()
        .flat_map(|(i, _)| i.lines.iter().map(|l| issued_line(l, Decimal::ONE)))
        .collect();
    Ok(Replaced {
        invoices,
        lines,
        prices,
    })
}

/// What the replaced tickets already put in the ledger, per group.
pub fn ledger_of(replaced: &Replaced) -> Vec<RateGroup> {
    let mut sum: Vec<RateGroup> = Vec::new();
    for (invoice, _) in &replaced.invoices {
        for g in invoice_groups(invoice) {
            match sum.iter_mut().find(|s| {
                s.vat_rate == g.vat_rate
                    && s.surcharge_rate == g.surcharge_rate
                    && s.treatment == g.treatment
            }) {
                Some(s) => {
                    s.base += g.base;
                    s.vat_amount += g.vat_amount;
                    s.surcharge_amount += g.surcharge_amount;
                }
                None => sum.push(g),
            }
        }
    }
    sum
}

pub fn link(invoice: &Invoice) -> InvoiceLink {
    InvoiceLink {
        id: invoice.id,
        number: invoice.number.clone(),
        issue_date: invoice.issue_date,
    }
}

/// The writes that mark each ticket as replaced by `by`.
pub fn mark(
    caller: &Caller,
    replaced: Vec<(Invoice, i64)>,
    by: &Invoice,
    now: DateTime<Utc>,
) -> Vec<Write> {
    replaced
        .into_iter()
        .map(|(mut ticket, version)| {
            ticket.replaced_by = Some(link(by));
            ticket.events.push(HistoryEvent {
                kind: HistoryKind::Replaced,
                at: now,
                detail: Some(format!("{} by {}", ticket.number, by.number)),
            });
            store::replace(caller, &ticket, version)
        })
        .collect()
}
