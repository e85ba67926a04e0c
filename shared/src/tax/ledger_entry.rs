//! What the ledger holds per issued live invoice: the figures the tax returns
//! need, per VAT rate group, signed (rectifying invoices may be negative).

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::indirect::IndirectTax;
use crate::invoice::kind::Kind;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateGroup {
    pub vat_rate: Decimal,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_rate: Decimal,
    pub surcharge_amount: Decimal,
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
    pub groups: Vec<RateGroup>,
    pub irpf_rate: Decimal,
    pub irpf_amount: Decimal,
    pub total: Decimal,
}

impl LedgerEntry {
    pub fn is_rectification(&self) -> bool {
        self.kind.is_rectifying()
    }

    pub fn base(&self) -> Decimal {
        self.groups.iter().map(|g| g.base).sum()
    }
}
