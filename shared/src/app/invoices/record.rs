//! The VERI*FACTU records of an invoice: its registration, from the same
//! totals as everything else (when issued, or rebuilt from the stored
//! invoice to correct it), and its cancellation.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Europe::Madrid;

use rust_decimal::Decimal;

use super::error::InvoiceError;
use super::store::ChainHead;
use crate::invoice::kind::Kind;
use crate::invoice::line::Treatment;
use crate::invoice::model::{Invoice, InvoiceLink, Rectifies};
use crate::invoice::party::{Party, in_eu};
use crate::invoice::totals::{Group, Totals};
use crate::tax::indirect::IndirectTax;
use crate::verifactu::status::RecordStatus;
use crate::verifactu::validation;
use crate::verifactu::{
    BreakdownLine, BuiltRecord, Cancellation, Correction, Exemption, InvoiceRef, PreviousRecord,
    Qualification, Recipient, Rectification, RectificationMethod, RectifiedAmounts, Registration,
    Simplification, SystemInfo, Treatment as RecordTreatment,
};

/// ClaveRegimen: 18 with the equivalence surcharge; 02 for exports (E2,
/// E3), which the AEAT refuses under 01 for IVA and IGIC (error 1199);
/// 07 for the taxed (S1) and domestic exempt (E1, E6) lines of an invoice
/// under the cash-accounting regime (the only ones 07 admits, error 1203;
/// the regime excludes exports, intra-EU supplies and reverse charge, LIVA
/// art. 163 nonies.Cuatro); 01 otherwise.
fn regime(g: &Group, tax: IndirectTax, cash_accounting: bool) -> &'static str {
    if !g.surcharge_rate.is_zero() {
        "18"
    } else if matches!(g.treatment, Treatment::E2 | Treatment::E3) && tax != IndirectTax::Ipsi {
        "02"
    } else if cash_accounting
        && matches!(
            g.treatment,
            Treatment::Taxed | Treatment::E1 | Treatment::E6
        )
    {
        "07"
    } else {
        "01"
    }
}

fn breakdown_line(g: &Group, tax: IndirectTax, cash_accounting: bool) -> BreakdownLine {
    let (treatment, taxed) = match g.treatment {
        Treatment::Taxed => (RecordTreatment::Qualified(Qualification::S1), true),
        Treatment::S2 => (RecordTreatment::Qualified(Qualification::S2), false),
        Treatment::N1 => (RecordTreatment::Qualified(Qualification::N1), false),
        Treatment::N2 => (RecordTreatment::Qualified(Qualification::N2), false),
        Treatment::E1 => (RecordTreatment::Exempt(Exemption::E1), false),
        Treatment::E2 => (RecordTreatment::Exempt(Exemption::E2), false),
        Treatment::E3 => (RecordTreatment::Exempt(Exemption::E3), false),
        Treatment::E4 => (RecordTreatment::Exempt(Exemption::E4), false),
        Treatment::E5 => (RecordTreatment::Exempt(Exemption::E5), false),
        Treatment::E6 => (RecordTreatment::Exempt(Exemption::E6), false),
    };
    let surcharged = !g.surcharge_rate.is_zero();
    // The AEAT requires an S2 line's TipoImpositivo and CuotaRepercutida,
    // both 0 (error 1198): the recipient charges the tax.
    let (rate, vat) = match g.treatment {
        Treatment::S2 => (Some(Decimal::ZERO), Some(Decimal::ZERO)),
        _ => (taxed.then_some(g.vat_rate), taxed.then_some(g.vat_amount)),
    };
    BreakdownLine {
        regime: regime(g, tax, cash_accounting).into(),
        tax,
        treatment,
        rate,
        base: g.base,
        vat,
        surcharge_rate: surcharged.then_some(g.surcharge_rate),
        surcharge: surcharged.then_some(g.surcharge_amount),
    }
}

fn recipient(customer: &Party) -> Option<Recipient> {
    let id = customer.tax_id.clone()?;
    Some(if customer.country == "ES" {
        Recipient::Nif {
            name: customer.name.clone(),
            nif: id,
        }
    } else {
        let eu = in_eu(&customer.country);
        Recipient::Foreign {
            name: customer.name.clone(),
            country: customer.country.clone(),
            id_type: if eu { "02" } else { "04" }.into(),
            id: if eu {
                vat_number(&customer.country, id)
            } else {
                id
            },
        }
    })
}

/// An EU customer's tax id as a NIF-IVA: with its country's VAT prefix
/// (EL for Greece), which the AEAT checks against CodigoPais (error 1122).
fn vat_number(country: &str, id: String) -> String {
    let prefix = if country == "GR" { "EL" } else { country };
    if id.starts_with(prefix) {
        id
    } else {
        format!("{prefix}{id}")
    }
}

/// The first AEAT record rule a built record breaks on `today`, as the
/// request's 400 (`aeat_rule_<code>`, `param` the AEAT element): nothing is
/// written for a record the AEAT would refuse.
pub fn check(built: &BuiltRecord, today: NaiveDate) -> Result<(), InvoiceError> {
    match validation::first_of_xml(&built.xml, today) {
        None => Ok(()),
        Some(v) => Err(InvoiceError::invalid(
            v.api_code,
            v.element.to_string(),
            v.message,
        )),
    }
}

/// DescripcionOperacion: the line descriptions, up to 500 characters.
fn description(descriptions: &[&str]) -> String {
    let joined = descriptions.join("; ");
    joined.chars().take(500).collect()
}

pub struct RecordInput<'a> {
    pub issuer_nif: &'a str,
    pub issuer_name: &'a str,
    pub number: &'a str,
    pub issue_date: NaiveDate,
    pub operation_date: Option<NaiveDate>,
    pub kind: Kind,
    pub customer: Option<&'a Party>,
    pub descriptions: Vec<&'a str>,
    pub totals: &'a Totals,
    pub tax: IndirectTax,
    /// Issued under the cash-accounting regime: ClaveRegimen 07.
    pub cash_accounting: bool,
    pub rectification: Option<Rectification>,
    pub simplification: Simplification,
    pub previous: Option<&'a ChainHead>,
    pub system: &'a SystemInfo,
    pub now: DateTime<Utc>,
}

/// The chain's head as the previous record of a new one of `issuer_nif`.
fn previous_record(issuer_nif: &str, head: Option<&ChainHead>) -> Option<PreviousRecord> {
    head.map(|head| PreviousRecord {
        invoice: InvoiceRef {
            issuer_nif: issuer_nif.into(),
            number: head.number.clone(),
            issue_date: head.issue_date,
        },
        hash: head.hash.clone(),
    })
}

pub fn registration(input: RecordInput) -> Registration {
    let previous = previous_record(input.issuer_nif, input.previous);
    Registration {
        invoice: InvoiceRef {
            issuer_nif: input.issuer_nif.into(),
            number: input.number.into(),
            issue_date: input.issue_date,
        },
        issuer_name: input.issuer_name.into(),
        correction: None,
        kind: input.kind,
        rectification: input.rectification,
        simplification: input.simplification,
        operation_date: input.operation_date.filter(|d| *d != input.issue_date),
        description: description(&input.descriptions),
        recipients: input.customer.and_then(recipient).into_iter().collect(),
        breakdown: input
            .totals
            .groups
            .iter()
            .map(|g| breakdown_line(g, input.tax, input.cash_accounting))
            .collect(),
        total_vat: input.totals.vat_amount + input.totals.surcharge_amount,
        total: input.totals.gross(),
        previous,
        system: input.system.clone(),
        generated_at: madrid_time(input.now),
    }
}

/// Another invoice of the issuer as a record names it.
pub fn invoice_ref(issuer_nif: &str, invoice: &InvoiceLink) -> InvoiceRef {
    InvoiceRef {
        issuer_nif: issuer_nif.into(),
        number: invoice.number.clone(),
        issue_date: invoice.issue_date,
    }
}

/// The record's reference to the invoice a rectifying invoice rectifies
/// (ImporteRectificacion with the rectified amounts for a substitution).
pub fn rectification(rectifies: &Rectifies, issuer_nif: &str) -> Rectification {
    let substitution = rectifies.method == "substitution";
    Rectification {
        method: if substitution {
            RectificationMethod::Substitution
        } else {
            RectificationMethod::Differences
        },
        rectified: vec![InvoiceRef {
            issuer_nif: issuer_nif.into(),
            number: rectifies.number.clone(),
            issue_date: rectifies.issue_date,
        }],
        rectified_amounts: substitution.then(|| RectifiedAmounts {
            base: rectifies.rectified_base.value(),
            vat: rectifies.rectified_vat.value(),
            surcharge: (!rectifies.rectified_surcharge.is_zero())
                .then_some(rectifies.rectified_surcharge.value()),
        }),
    }
}

/// The invoice's stored figures as totals (its breakdown is what was hashed).
fn stored_totals(invoice: &Invoice) -> Totals {
    let groups = invoice
        .breakdown
        .iter()
        .map(|g| Group {
            vat_rate: g.vat_rate.value(),
            surcharge_rate: g.surcharge_rate.value(),
            treatment: Treatment::of_stored(g.exemption.as_deref()),
            base: g.base.value(),
            vat_amount: g.vat_amount.value(),
            surcharge_amount: g.surcharge_amount.value(),
        })
        .collect();
    Totals {
        groups,
        base: invoice.base.value(),
        vat_amount: invoice.vat_amount.value(),
        surcharge_amount: invoice.surcharge_amount.value(),
        irpf_rate: invoice.irpf_rate.value(),
        irpf_amount: invoice.irpf_amount.value(),
        total: invoice.total.value(),
    }
}

/// The registration of a stored invoice made again, at the chain's head
/// `previous` and at `now`, under `issuer_name`: the same invoice, lines
/// and totals, so the same fingerprint inputs but the previous hash and
/// the time.
pub fn registration_of(
    invoice: &Invoice,
    issuer_name: &str,
    correction: Option<Correction>,
    previous: Option<&ChainHead>,
    system: &SystemInfo,
    now: DateTime<Utc>,
) -> Registration {
    let issuer_nif = invoice.issuer.tax_id.as_str();
    let registration = registration(RecordInput {
        issuer_nif,
        issuer_name,
        number: &invoice.number,
        issue_date: invoice.issue_date,
        operation_date: invoice.operation_date,
        kind: invoice.kind,
        customer: invoice.customer.as_ref(),
        descriptions: invoice
            .lines
            .iter()
            .map(|l| l.description.as_str())
            .collect(),
        totals: &stored_totals(invoice),
        tax: invoice.tax,
        cash_accounting: invoice.cash_accounting,
        rectification: invoice
            .rectifies
            .as_ref()
            .map(|r| rectification(r, issuer_nif)),
        simplification: Simplification {
            qualified: invoice.qualified_simplified,
            without_recipient: invoice.without_recipient_id,
            replaced: invoice
                .replaces
                .iter()
                .map(|r| invoice_ref(issuer_nif, r))
                .collect(),
        },
        previous,
        system,
        now,
    });
    Registration {
        correction,
        ..registration
    }
}

/// The invoice's RegistroAnulacion at the chain's head `previous`;
/// `after_rejection`: the AEAT rejected an earlier one.
pub fn cancellation(
    invoice: &Invoice,
    after_rejection: bool,
    previous: Option<&ChainHead>,
    system: &SystemInfo,
    now: DateTime<Utc>,
) -> Cancellation {
    let issuer_nif = invoice.issuer.tax_id.as_str();
    Cancellation {
        invoice: InvoiceRef {
            issuer_nif: issuer_nif.into(),
            number: invoice.number.clone(),
            issue_date: invoice.issue_date,
        },
        // The AEAT rejected its registration, so it holds none to cancel.
        without_registration: invoice.verifactu.status == RecordStatus::Rejected,
        after_rejection,
        previous: previous_record(issuer_nif, previous),
        system: system.clone(),
        generated_at: madrid_time(now),
    }
}

/// FechaHoraHusoGenRegistro: the moment in Madrid time with its offset.
pub fn madrid_time(now: DateTime<Utc>) -> chrono::DateTime<chrono::FixedOffset> {
    now.with_timezone(&Madrid).fixed_offset()
}

/// The ImporteTotal string of a built record (what the QR code carries).
pub fn total_text(record: &serde_json::Value) -> String {
    record["ImporteTotal"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}
