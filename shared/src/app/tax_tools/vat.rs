//! `calculate_vat`: VAT and equivalence surcharge on an amount, with or
//! without VAT included.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ESTIMATE_NOTICE, ToolError};
use crate::tax::indirect::IndirectTax;
use crate::tax::money::Money;
use crate::tax::money::Percent;
use crate::tax::money::{Amount, decimal_from_json};
use crate::tax::vat::{VatBreakdown, VatRate, from_total, on_base};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"amount": 121, "vat_rate": 21, "includes_vat": true, "equivalence_surcharge": false}))]
pub struct VatRequest {
    /// The base, or the VAT-included amount when `includes_vat` is true. A number or a decimal string.
    #[schema(value_type = f64, minimum = 0, maximum = 999999999999.999999)]
    pub amount: Amount,
    /// Percent: 21, 10, 4 or 0 today; historic rates (5, 2, 7.5, 18, 8, 16, 7) with a `date` inside their window.
    #[serde(deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub vat_rate: Decimal,
    /// True when `amount` already includes VAT (and surcharge): the base is back-calculated.
    #[serde(default)]
    pub includes_vat: bool,
    /// True when the customer is under the equivalence surcharge regime (recargo de equivalencia).
    #[serde(default)]
    pub equivalence_surcharge: bool,
    /// Date of the operation (YYYY-MM-DD), to use the rates of that day; default today (Europe/Madrid).
    pub date: Option<NaiveDate>,
    /// `iva` (default); `igic` (Canary Islands: 0, 3, 7, 9.5, 15, 20 %) or
    /// `ipsi` (Ceuta and Melilla: 0.5 to 10 %), which have no equivalence surcharge.
    #[serde(default)]
    pub tax: IndirectTax,
}

/// Base, VAT, surcharge and total; base + VAT + surcharge equals the total to the cent.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[schema(example = json!({"base": 100.0, "vat_rate": 21.0, "vat_amount": 21.0, "surcharge_rate": 0.0,
    "surcharge_amount": 0.0, "total": 121.0, "includes_vat": true, "date": "2026-11-21", "tax": "iva", "quota_difference": 0.0,
    "estimate": "Estimate for the general regime, computed from the rules in force; not tax advice."}))]
pub struct VatResponse {
    pub base: Money,
    pub vat_rate: Percent,
    pub vat_amount: Money,
    pub surcharge_rate: Percent,
    pub surcharge_amount: Money,
    pub total: Money,
    pub includes_vat: bool,
    pub date: NaiveDate,
    pub tax: IndirectTax,
    /// VAT amount minus round(base × rate). Back-calculation keeps base + VAT equal
    /// to the amount, so when no exact pair exists the quota absorbs a cent (e.g. 218.00 at 21 %).
    pub quota_difference: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub estimate: &'static str,
}

/// The rate as it applied on the date, or a 400 listing the rates that did.
pub fn vat_rate(
    tax: IndirectTax,
    rate: Decimal,
    date: NaiveDate,
    param: &'static str,
) -> Result<VatRate, ToolError> {
    tax.rate_on(rate, date).map_err(|valid| {
        let list: Vec<String> = valid.iter().map(|r| r.normalize().to_string()).collect();
        ToolError::invalid(
            param,
            format!(
                "{rate} % is not a {} rate on {date}; valid rates: {}",
                tax.label(),
                list.join(", ")
            ),
        )
    })
}

pub fn calculate_vat(req: &VatRequest, today: NaiveDate) -> Result<VatResponse, ToolError> {
    let date = req.date.unwrap_or(today);
    let rate = vat_rate(req.tax, req.vat_rate, date, "vat_rate")?;
    if req.equivalence_surcharge && !req.tax.has_surcharge() {
        return Err(ToolError::invalid(
            "equivalence_surcharge",
            format!(
                "the equivalence surcharge is a VAT regime, not of {}",
                req.tax.label()
            ),
        ));
    }
    let b: VatBreakdown = if req.includes_vat {
        from_total(req.amount.value(), rate, req.equivalence_surcharge)
    } else {
        on_base(req.amount.value(), rate, req.equivalence_surcharge)
    };
    let note = (!b.quota_difference.is_zero()).then(|| {
        format!(
            "{} has no exact base at {} %: the VAT quota takes {} so that the parts add up to the amount",
            b.total, b.vat_rate, b.quota_difference
        )
    });
    Ok(VatResponse {
        base: Money::from(b.base),
        vat_rate: Percent::from(b.vat_rate),
        vat_amount: Money::from(b.vat_amount),
        surcharge_rate: Percent::from(b.surcharge_rate),
        surcharge_amount: Money::from(b.surcharge_amount),
        total: Money::from(b.total),
        includes_vat: req.includes_vat,
        date,
        tax: req.tax,
        quota_difference: Money::from(b.quota_difference),
        note,
        estimate: ESTIMATE_NOTICE,
    })
}
