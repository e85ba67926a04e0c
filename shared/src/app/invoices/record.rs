//! The VERI*FACTU registration record of an invoice, from the same totals as
//! everything else.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Europe::Madrid;

use super::store::ChainHead;
use crate::invoice::line::Treatment;
use crate::invoice::party::{Party, in_eu};
use crate::invoice::totals::{Group, Totals};
use crate::verifactu::{
    BreakdownLine, Exemption, InvoiceRef, PreviousRecord, Qualification, Recipient, Rectification,
    Registration, SystemInfo, Treatment as RecordTreatment,
};

fn breakdown_line(g: &Group) -> BreakdownLine {
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
    BreakdownLine {
        regime: if surcharged { "18" } else { "01" }.into(),
        treatment,
        rate: taxed.then_some(g.vat_rate),
        base: g.base,
        vat: taxed.then_some(g.vat_amount),
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
        let id_type = if in_eu(&customer.country) { "02" } else { "04" };
        Recipient::Foreign {
            name: customer.name.clone(),
            country: customer.country.clone(),
            id_type: id_type.into(),
            id,
        }
    })
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
    pub kind: &'a str,
    pub customer: Option<&'a Party>,
    pub descriptions: Vec<&'a str>,
    pub totals: &'a Totals,
    pub rectification: Option<Rectification>,
    pub previous: Option<&'a ChainHead>,
    pub system: &'a SystemInfo,
    pub now: DateTime<Utc>,
}

pub fn registration(input: RecordInput) -> Registration {
    let previous = input.previous.map(|head| PreviousRecord {
        invoice: InvoiceRef {
            issuer_nif: input.issuer_nif.into(),
            number: head.number.clone(),
            issue_date: head.issue_date,
        },
        hash: head.hash.clone(),
    });
    Registration {
        invoice: InvoiceRef {
            issuer_nif: input.issuer_nif.into(),
            number: input.number.into(),
            issue_date: input.issue_date,
        },
        issuer_name: input.issuer_name.into(),
        correction: None,
        kind: input.kind.into(),
        rectification: input.rectification,
        operation_date: input.operation_date.filter(|d| *d != input.issue_date),
        description: description(&input.descriptions),
        recipients: input.customer.and_then(recipient).into_iter().collect(),
        breakdown: input.totals.groups.iter().map(breakdown_line).collect(),
        total_vat: input.totals.vat_amount + input.totals.surcharge_amount,
        total: input.totals.gross(),
        previous,
        system: input.system.clone(),
        generated_at: madrid_time(input.now),
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
