//! Rectifying invoices (art. 15 RD 1619/2012): a new invoice in the R series
//! that references the original, by substitution (the correct full amounts,
//! with the rectified amounts reported) or by differences (the signed
//! difference). The ledger gets the difference either way.
//!
//! Both are measured against the invoice's current amounts — the original
//! as its earlier rectifications left it (`invoice::rectification`): a
//! rectification by differences never takes a group's base, VAT or
//! surcharge below zero (400 `rectification_exceeds_invoice`), a credit of
//! the whole invoice credits what is left, and a substitution replaces the
//! current amounts, which its record reports as rectified. The original's
//! balance (`rectifications_total`) follows, in the same transaction.

use rust_decimal::Decimal;

use super::error::InvoiceError;
use super::issue::{Draft, check_totals, finalize, ledger_groups, today};
use super::request::{self, LineRequest, RectifyRequest};
use super::{due_index, record, replace, store};
use crate::app::keys::Caller;
use crate::invoice::combinations;
use crate::invoice::kind::Kind;
use crate::invoice::line::Line;
use crate::invoice::model::{HistoryEvent, HistoryKind, Invoice, LineView, RectifiedBy, Rectifies};
use crate::invoice::payments::{self, open_instalments};
use crate::invoice::rectification::{self, Current};
use crate::invoice::series::Numbered;
use crate::invoice::status::Status;
use crate::invoice::totals::{self, Prices, Totals};
use crate::invoice::warnings;
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::tax::ledger_entry::RateGroup;
use crate::tax::money::Money;
use crate::verifactu::{RectificationMethod, SystemInfo};

fn bad(param: &str, message: impl Into<String>) -> InvoiceError {
    InvoiceError::invalid("parameter_invalid", param.into(), message)
}

/// The original's lines, negated, prices meant as the original's: a credit
/// for the whole invoice.
fn credit_lines(original: &[LineView]) -> Vec<Line> {
    original
        .iter()
        .map(|l| replace::issued_line(l, Decimal::NEGATIVE_ONE))
        .collect()
}

/// new − old per (rate, surcharge) group.
pub(super) fn difference(new: &[RateGroup], old: &[RateGroup]) -> Vec<RateGroup> {
    let mut out: Vec<RateGroup> = new.to_vec();
    for o in old {
        match out.iter_mut().find(|g| {
            g.vat_rate == o.vat_rate
                && g.surcharge_rate == o.surcharge_rate
                && g.treatment == o.treatment
        }) {
            Some(g) => {
                g.base -= o.base;
                g.vat_amount -= o.vat_amount;
                g.surcharge_amount -= o.surcharge_amount;
            }
            None => out.push(RateGroup {
                vat_rate: o.vat_rate,
                base: -o.base,
                vat_amount: -o.vat_amount,
                surcharge_rate: o.surcharge_rate,
                surcharge_amount: -o.surcharge_amount,
                treatment: o.treatment,
            }),
        }
    }
    out
}

fn exceeds(param: &str, message: String) -> InvoiceError {
    InvoiceError::invalid("rectification_exceeds_invoice", param.into(), message)
}

/// The invoice's rectifications, in the order they were issued.
async fn rectifications_of(
    ports: &Ports,
    caller: &Caller,
    original: &Invoice,
) -> Result<Vec<Invoice>, InvoiceError> {
    let mut read = Vec::with_capacity(original.rectified_by.len());
    for r in &original.rectified_by {
        read.push(store::get(ports, caller, r.id).await?.0);
    }
    Ok(read)
}

/// A credit of the whole invoice: its lines negated while it is not
/// rectified, else exactly what its rectifications left (refused once
/// nothing is left).
fn whole_credit(
    original: &Invoice,
    current: &Current,
) -> Result<(Vec<Line>, Prices, Totals), InvoiceError> {
    if original.rectified_by.is_empty() {
        let lines = credit_lines(&original.lines);
        let prices = replace::prices_of(original);
        let totals = totals::compute_with(&lines, original.irpf_rate.value(), prices);
        return Ok((lines, prices, totals));
    }
    let description = format!(
        "Abono del importe pendiente de la factura {}",
        original.number
    );
    match rectification::remaining_credit(current, original.irpf_rate.value(), &description) {
        Some((lines, totals)) => Ok((lines, Prices::WithoutVat, totals)),
        None => Err(exceeds(
            "method",
            format!(
                "invoice {} is already credited in full: nothing is left to rectify \
                 (arts. 80 and 89 Ley 37/1992, art. 15 RD 1619/2012)",
                original.number
            ),
        )),
    }
}

/// The request's lines, checked as the original's were: an R5 rectifies a
/// simplified invoice, so it carries no E5, N2 or S2 line (art. 4.4
/// RD 1619/2012), and E5 stays for a customer in another member state.
fn lines_for(
    requests: &[LineRequest],
    original: &Invoice,
    signed: bool,
) -> Result<Vec<Line>, InvoiceError> {
    let surcharge = original.surcharge_amount != Money::from(Decimal::ZERO);
    let lines = request::lines(
        requests,
        original.operation_date.unwrap_or(original.issue_date),
        surcharge,
        signed,
        original.tax,
    )?;
    if original.is_simplified() && !original.qualified_simplified {
        combinations::simplified_lines(&lines)?;
    }
    combinations::intra_eu_supply(&lines, original.customer.as_ref())?;
    Ok(lines)
}

/// Issues the rectifying invoice; returns it, the updated original, and the writes.
pub async fn rectify(
    ports: &Ports,
    caller: &Caller,
    system: &SystemInfo,
    id: u64,
    req: RectifyRequest,
) -> Result<(Invoice, Vec<Write>), InvoiceError> {
    let (mut original, version) = store::get(ports, caller, id).await?;
    if let Some(by) = &original.replaced_by {
        return Err(InvoiceError::InvalidState(format!(
            "invoice {} was replaced by {}; rectify that one",
            original.number, by.number
        )));
    }
    if original.status == Status::Cancelled || original.kind.is_rectifying() {
        return Err(InvoiceError::InvalidState(format!(
            "invoice {} is {}; only issued ordinary invoices can be rectified",
            original.number,
            if original.status == Status::Cancelled {
                "cancelled"
            } else {
                "itself rectifying"
            }
        )));
    }
    // A qualified simplified invoice names its customer, so it is rectified
    // as a full one: R5 records carry no recipient.
    let simplified = original.is_simplified() && !original.qualified_simplified;
    let valid_codes: &[Kind] = if simplified {
        &[Kind::R5]
    } else {
        &[Kind::R1, Kind::R2, Kind::R3, Kind::R4]
    };
    let Some(reason_code) = Kind::parse(&req.reason_code).filter(|k| valid_codes.contains(k))
    else {
        return Err(bad(
            "reason_code",
            format!(
                "a {} invoice is rectified with {}",
                original.kind,
                Kind::list(valid_codes)
            ),
        ));
    };
    let description =
        request::text(&req.description, 500, "description", true)?.unwrap_or_default();
    let rectifications = rectifications_of(ports, caller, &original).await?;
    let current = rectification::current(&original, &rectifications);
    let (method, lines, prices, totals) = match (req.method.as_str(), &req.lines) {
        ("substitution", Some(l)) => {
            if original
                .rectified_by
                .iter()
                .any(|r| r.method == "substitution")
            {
                return Err(InvoiceError::InvalidState(
                    "the invoice was already substituted".into(),
                ));
            }
            let lines = lines_for(l, &original, false)?;
            let prices = replace::prices_of(&original);
            let totals = totals::compute_with(&lines, original.irpf_rate.value(), prices);
            (RectificationMethod::Substitution, lines, prices, totals)
        }
        ("substitution", None) => {
            return Err(InvoiceError::invalid(
                "parameter_missing",
                "lines".into(),
                "a substitution needs the correct lines",
            ));
        }
        ("differences", Some(l)) => {
            let lines = lines_for(l, &original, true)?;
            let prices = replace::prices_of(&original);
            let totals = totals::compute_with(&lines, original.irpf_rate.value(), prices);
            rectification::check_differences(&current, &totals)
                .map_err(|e| exceeds("lines", e.message()))?;
            (RectificationMethod::Differences, lines, prices, totals)
        }
        ("differences", None) => {
            let (lines, prices, totals) = whole_credit(&original, &current)?;
            (RectificationMethod::Differences, lines, prices, totals)
        }
        (other, _) => {
            return Err(bad(
                "method",
                format!("{other:?} is not substitution or differences"),
            ));
        }
    };
    check_totals(&totals)?;
    let current_totals = current.totals(original.irpf_rate.value());
    let (ledger, ledger_irpf, after) = match method {
        RectificationMethod::Substitution => (
            difference(&ledger_groups(&totals), &ledger_groups(&current_totals)),
            totals.irpf_amount - current.irpf_amount,
            Current {
                groups: totals.groups.clone(),
                irpf_amount: totals.irpf_amount,
            },
        ),
        RectificationMethod::Differences => (
            ledger_groups(&totals),
            totals.irpf_amount,
            current.plus(&totals),
        ),
    };
    let method_name = match method {
        RectificationMethod::Substitution => "substitution",
        RectificationMethod::Differences => "differences",
    };
    let rectifies = Rectifies {
        id: original.id,
        number: original.number.clone(),
        issue_date: original.issue_date,
        reason_code,
        method: method_name.into(),
        description: description.clone(),
        rectified_base: Money::from(current.base()),
        rectified_vat: Money::from(current.vat_amount()),
        rectified_surcharge: Money::from(current.surcharge_amount()),
    };
    let draft = Draft {
        kind: reason_code,
        series: req.series.clone(),
        numbered: if simplified {
            Numbered::RectifyingSimplified
        } else {
            Numbered::Rectifying
        },
        issue_date: today(ports),
        operation_date: None,
        due_date: None,
        instalments: Vec::new(),
        customer: original.customer.clone(),
        customer_id: original.customer_id.clone(),
        lines,
        prices,
        tax: original.tax,
        totals,
        qualified_simplified: false,
        without_recipient_id: false,
        replaced: Vec::new(),
        notes: Some(description),
        payment: original.payment.clone(),
        rectification: Some(record::rectification(&rectifies, &original.issuer.tax_id)),
        rectifies: Some(rectifies),
        ledger_groups: ledger,
        ledger_irpf,
        simulated_error: None,
        warnings: warnings::rectification(
            reason_code,
            original.operation_date.unwrap_or(original.issue_date),
            today(ports),
        ),
    };
    let (rectifying, mut writes) = finalize(ports, caller, system, draft).await?;
    let open_before = open_instalments(&original);
    original.rectifications_total = Money::from(after.total()) - original.total;
    payments::refresh(
        &mut original,
        crate::domain::madrid::date(rectifying.created_at),
    );
    original.rectified_by.push(RectifiedBy {
        id: rectifying.id,
        number: rectifying.number.clone(),
        method: method_name.into(),
    });
    original.events.push(HistoryEvent {
        kind: HistoryKind::Rectified,
        at: rectifying.created_at,
        detail: Some(format!(
            "{} by {} ({method_name})",
            original.number, rectifying.number
        )),
    });
    writes.push(store::replace(caller, &original, version));
    writes.extend(due_index::changes(
        &open_before,
        &original,
        caller.mode,
        &caller.account_id,
    ));
    Ok((rectifying, writes))
}
