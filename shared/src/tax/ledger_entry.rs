//! What the ledger holds per issued live invoice: the figures the tax returns
//! need, per VAT rate and treatment group, signed (rectifying invoices may be
//! negative), with the dates that place it in a return.
//!
//! Entries written before the treatment and the dates were kept still read:
//! a group without a treatment is taxed at its rate (S1), and an entry
//! without an accrual date accrues on its issue date.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::accrual::{self, Issued};
use super::indirect::IndirectTax;
use crate::invoice::kind::Kind;
use crate::invoice::line::Treatment;

fn taxed() -> Treatment {
    Treatment::Taxed
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateGroup {
    pub vat_rate: Decimal,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_rate: Decimal,
    pub surcharge_amount: Decimal,
    /// Taxed (S1), exempt (E1–E6), not subject (N1, N2) or reverse charge
    /// (S2): it decides the Modelo 303 box.
    #[serde(default = "taxed")]
    pub treatment: Treatment,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub invoice_id: String,
    pub number: String,
    pub kind: Kind,
    /// The tax of its amounts (entries from before IGIC and IPSI: VAT).
    #[serde(default)]
    pub tax: IndirectTax,
    pub issue_date: NaiveDate,
    /// When the operation was made, when the invoice says.
    #[serde(default)]
    pub operation_date: Option<NaiveDate>,
    /// When the VAT accrued (LIVA arts. 75–76): the return it belongs to.
    /// `None` on entries from before it was kept: the issue date.
    #[serde(default)]
    pub accrual_date: Option<NaiveDate>,
    /// The customer's country (ISO 3166-1 alpha-2), when the invoice names
    /// one: an N2 service to another EU state goes to box 59, any other to 120.
    #[serde(default)]
    pub customer_country: Option<String>,
    /// Issued under the cash-accounting regime: its taxed groups' VAT
    /// accrues as it is collected (`tax::cash_accounting`), and here only
    /// feeds boxes 62/63. Entries from before the regime: false.
    #[serde(default)]
    pub cash_accounting: bool,
    pub groups: Vec<RateGroup>,
    pub irpf_rate: Decimal,
    pub irpf_amount: Decimal,
    pub total: Decimal,
}

/// The accrual date of an issued invoice of `kind` with these groups.
pub fn accrual_of(
    kind: Kind,
    issue: NaiveDate,
    operation: Option<NaiveDate>,
    groups: &[RateGroup],
) -> NaiveDate {
    let issued = if kind.is_rectifying() {
        Issued::Rectifying
    } else if !groups.is_empty() && groups.iter().all(|g| g.treatment == Treatment::E5) {
        Issued::IntraEuGoods
    } else {
        Issued::Ordinary
    };
    accrual::of_issued(issued, issue, operation)
}

impl LedgerEntry {
    pub fn is_rectification(&self) -> bool {
        self.kind.is_rectifying()
    }

    pub fn base(&self) -> Decimal {
        self.groups.iter().map(|g| g.base).sum()
    }

    /// Whether its taxed groups' VAT waits for collection (rectifying
    /// invoices and other taxes follow the general rule).
    pub fn defers_vat(&self) -> bool {
        self.cash_accounting && !self.is_rectification() && self.tax == IndirectTax::Iva
    }

    /// The date that places the entry in a VAT return and in Modelo 130.
    pub fn accrual(&self) -> NaiveDate {
        self.accrual_date.unwrap_or(self.issue_date)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_stored_before_treatments_and_dates_reads_as_taxed_on_its_issue_date() {
        let old = r#"{"invoice_id":"inv_1","number":"F2026-1","kind":"F1","issue_date":"2026-05-05",
            "groups":[{"vat_rate":"0","base":"100","vat_amount":"0","surcharge_rate":"0","surcharge_amount":"0"}],
            "irpf_rate":"0","irpf_amount":"0","total":"100"}"#;
        let entry: LedgerEntry = serde_json::from_str(old).unwrap();
        assert_eq!(entry.groups[0].treatment, Treatment::Taxed);
        assert_eq!(entry.accrual(), "2026-05-05".parse().unwrap());
        assert_eq!(entry.customer_country, None);
        assert!(!entry.cash_accounting);
    }
}
