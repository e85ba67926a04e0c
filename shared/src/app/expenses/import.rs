//! Importing from the AEAT the invoices suppliers registered with
//! VERI*FACTU naming the account as recipient (`ConsultaFactuSistemaFacturacion`
//! as `Destinatario`), one month at a time, into the book as drafts to
//! confirm. The AEAT's records carry no IRPF withholding and no category:
//! the draft says so. An invoice the book has already (same supplier,
//! number and date), one the supplier cancelled, and one in IGIC or IPSI
//! (not VAT) are left out, each with its reason. Each draft is committed on
//! its own, so an import of many never meets a transaction's limits, and a
//! second import of the same month adds only what is new.

use serde::Serialize;
use utoipa::ToSchema;

use super::{ExpenseError, create_checked};
use crate::app::keys::Caller;
use crate::app::verifactu::query::{AskError, ReceivedInvoice, received_invoices};
use crate::domain::madrid;
use crate::expense::{
    Category, Entry, Expense, ExpenseFields, LineInput, Source, Status, Treatment,
};
use crate::ports::Ports;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::{Money, Percent};
use crate::verifactu::aeat::query::{HeldState, Period};
use crate::verifactu::{Qualification, Treatment as RecordTreatment};

/// Why an invoice the AEAT holds was not imported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ExpenseImportSkipReason)]
pub enum Skipped {
    /// The book has it (same supplier, number and date): `expense_id`.
    AlreadyInBook,
    /// The supplier cancelled it.
    Cancelled,
    /// It is in IGIC or IPSI, which Modelo 303 does not take.
    NotVat,
    /// Its figures do not add up as a VAT invoice (the message says why).
    Unreadable,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ExpenseImportSkipped)]
pub struct LeftOut {
    pub supplier_tax_id: String,
    pub number: String,
    pub issue_date: chrono::NaiveDate,
    pub reason: Skipped,
    pub expense_id: Option<String>,
    pub message: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ExpenseImport)]
pub struct Imported {
    pub year: i32,
    pub period: u32,
    pub livemode: bool,
    /// How many records the AEAT holds for the account as recipient that month.
    pub records: usize,
    /// The drafts added to the book (with a test key: what would be added).
    pub imported: Vec<Expense>,
    pub skipped: Vec<LeftOut>,
}

#[derive(Debug)]
pub enum ImportError {
    Ask(AskError),
    Book(ExpenseError),
}

/// The fields of a draft from what the AEAT holds.
fn fields_of(invoice: &ReceivedInvoice) -> ExpenseFields {
    let reverse_charge = invoice
        .lines
        .iter()
        .any(|l| matches!(l.treatment, RecordTreatment::Qualified(Qualification::S2)));
    let lines = invoice
        .lines
        .iter()
        .map(|l| LineInput {
            rate: Percent::from(l.rate.unwrap_or_default()),
            base: Money::from(l.base),
            vat_amount: (!reverse_charge).then(|| Money::from(l.vat.unwrap_or_default())),
            surcharge_rate: l.surcharge_rate.map(Percent::from),
            surcharge_amount: l.surcharge.map(Money::from),
        })
        .collect();
    ExpenseFields {
        supplier_name: Some(
            invoice
                .issuer_name
                .clone()
                .unwrap_or_else(|| invoice.issuer_nif.clone()),
        ),
        supplier_tax_id: Some(invoice.issuer_nif.clone()),
        number: Some(invoice.number.clone()),
        issue_date: Some(invoice.issue_date),
        operation_date: invoice.operation_date,
        category: Some(Category::Other),
        treatment: Some(if reverse_charge {
            Treatment::ReverseCharge
        } else {
            Treatment::Domestic
        }),
        lines: Some(lines),
        total: invoice.total.filter(|_| !reverse_charge).map(Money::from),
        status: Some(Status::Draft),
        ..ExpenseFields::default()
    }
}

fn left_out(invoice: &ReceivedInvoice, reason: Skipped) -> LeftOut {
    LeftOut {
        supplier_tax_id: invoice.issuer_nif.clone(),
        number: invoice.number.clone(),
        issue_date: invoice.issue_date,
        reason,
        expense_id: None,
        message: None,
    }
}

/// Imports `period` (a month) as drafts; a test key answers what would be
/// imported and keeps nothing.
pub async fn import_from_aeat(
    ports: &Ports,
    caller: &Caller,
    period: Period,
) -> Result<Imported, ImportError> {
    let invoices = received_invoices(ports, caller, period)
        .await
        .map_err(ImportError::Ask)?;
    let today = madrid::date(ports.clock.now());
    let mut imported = Vec::new();
    let mut skipped = Vec::new();
    for invoice in &invoices {
        if invoice.state == HeldState::Cancelled {
            skipped.push(left_out(invoice, Skipped::Cancelled));
            continue;
        }
        if invoice.lines.iter().any(|l| l.tax != IndirectTax::Iva) {
            skipped.push(left_out(invoice, Skipped::NotVat));
            continue;
        }
        let mut entry = match Entry::parse(fields_of(invoice), today) {
            Ok(entry) => entry,
            Err(e) => {
                skipped.push(LeftOut {
                    message: Some(format!("{}: {}", e.field, e.message)),
                    ..left_out(invoice, Skipped::Unreadable)
                });
                continue;
            }
        };
        entry.notes.push(
            "Imported from the AEAT's records: they carry no IRPF withholding and no category; check both, then confirm.".into(),
        );
        if entry.treatment == Treatment::ReverseCharge {
            entry.notes.push(
                "Reverse charge: the supplier's record has no VAT rate; set the rate you self-assess.".into(),
            );
        }
        let (expense, writes) = match create_checked(ports, caller, entry, Source::Aeat, None).await
        {
            Ok(created) => created,
            Err(ExpenseError::Duplicate(existing)) => {
                skipped.push(LeftOut {
                    expense_id: Some(existing),
                    ..left_out(invoice, Skipped::AlreadyInBook)
                });
                continue;
            }
            Err(e) => return Err(ImportError::Book(e)),
        };
        match ports.table.transact(writes).await {
            Ok(()) => imported.push(expense),
            Err(crate::ports::table::TableError::ConditionFailed { .. }) => {
                skipped.push(left_out(invoice, Skipped::AlreadyInBook));
            }
            Err(e) => return Err(ImportError::Book(e.into())),
        }
    }
    Ok(Imported {
        year: period.year(),
        period: period.month(),
        livemode: caller.mode.is_live(),
        records: invoices.len(),
        imported,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verifactu::BreakdownLine;
    use chrono::NaiveDate;
    use rust_decimal::dec;

    fn received(
        treatment: RecordTreatment,
        rate: Option<rust_decimal::Decimal>,
    ) -> ReceivedInvoice {
        ReceivedInvoice {
            issuer_nif: "B12345674".into(),
            issuer_name: None,
            number: "F-1".into(),
            issue_date: NaiveDate::from_ymd_opt(2026, 11, 10).unwrap(),
            operation_date: None,
            kind: Some(crate::invoice::kind::Kind::F1),
            lines: vec![BreakdownLine {
                tax: IndirectTax::Iva,
                regime: "01".into(),
                treatment,
                rate,
                base: dec!(100),
                vat: rate,
                surcharge_rate: None,
                surcharge: None,
            }],
            total_tax: rate,
            total: Some(dec!(100) + rate.unwrap_or_default()),
            state: HeldState::Correct,
            hash: None,
        }
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 28).unwrap()
    }

    #[test]
    fn a_registered_invoice_becomes_a_draft_named_after_its_nif_when_the_aeat_gives_no_name() {
        let invoice = received(
            RecordTreatment::Qualified(Qualification::S1),
            Some(dec!(21)),
        );
        let entry = Entry::parse(fields_of(&invoice), today()).unwrap();
        assert_eq!(entry.status, Status::Draft);
        assert_eq!(entry.supplier.name, "B12345674");
        assert_eq!(entry.total, Money::from(dec!(121)));
        assert_eq!(entry.treatment, Treatment::Domestic);
    }

    #[test]
    fn a_reverse_charge_invoice_is_self_assessed_without_the_suppliers_total() {
        let invoice = received(RecordTreatment::Qualified(Qualification::S2), None);
        let entry = Entry::parse(fields_of(&invoice), today()).unwrap();
        assert_eq!(entry.treatment, Treatment::ReverseCharge);
        assert_eq!(entry.total, Money::from(dec!(100)));
    }
}
