//! `calculate_withholding`: the IRPF withholding of an invoice and its total.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::vat::vat_rate;
use super::{ESTIMATE_NOTICE, ToolError};
use crate::tax::indirect::IndirectTax;
use crate::tax::money::Money;
use crate::tax::money::Percent;
use crate::tax::money::{Amount, optional_decimal_from_json};
use crate::tax::withholding::{WithholdingType, compute};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"base": 1000, "type": "professional"}))]
pub struct WithholdingRequest {
    /// The invoice's tax base (without VAT).
    #[schema(value_type = f64, minimum = 0, maximum = 999999999999.999999)]
    pub base: Amount,
    /// `professional` (15), `professional_new` (7), `professional_reduced` (7), `artistic_reduced` (7),
    /// `rental` (19), `courses_lectures` (15), `intellectual_property` (15), `image_rights` (24),
    /// `agricultural` (2), `livestock_pig_poultry` (1), `modules` (1), `board_member` (35),
    /// `board_member_small` (19) or `none` (0).
    #[serde(rename = "type")]
    #[schema(
        pattern = "^(professional|professional_new|professional_reduced|artistic_reduced|rental|courses_lectures|intellectual_property|image_rights|agricultural|livestock_pig_poultry|modules|board_member|board_member_small|none)$"
    )]
    pub kind: String,
    /// VAT percent of the invoice; default 21.
    #[serde(default, deserialize_with = "optional_decimal_from_json")]
    #[schema(value_type = Option<f64>)]
    pub vat_rate: Option<Decimal>,
    #[serde(default)]
    pub equivalence_surcharge: bool,
    /// Date of the operation, for the VAT rates of that day; default today (Europe/Madrid).
    pub date: Option<NaiveDate>,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[schema(example = json!({"base": 1000.0, "type": "professional", "withholding_rate": 15.0, "withholding_amount": 150.0,
    "vat_rate": 21.0, "vat_amount": 210.0, "surcharge_rate": 0.0, "surcharge_amount": 0.0, "total_invoice": 1060.0,
    "rule": "Professional activities (IAE section 2): 15 %",
    "estimate": "Estimate for the general regime, computed from the rules in force; not tax advice."}))]
pub struct WithholdingResponse {
    pub base: Money,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub withholding_rate: Percent,
    pub withholding_amount: Money,
    pub vat_rate: Percent,
    pub vat_amount: Money,
    pub surcharge_rate: Percent,
    pub surcharge_amount: Money,
    /// base + VAT + surcharge − withholding: what the customer pays.
    pub total_invoice: Money,
    /// The rule applied.
    pub rule: &'static str,
    pub estimate: &'static str,
}

pub fn calculate_withholding(
    req: &WithholdingRequest,
    today: NaiveDate,
) -> Result<WithholdingResponse, ToolError> {
    let kind: WithholdingType = req
        .kind
        .parse()
        .map_err(|e: String| ToolError::invalid("type", e))?;
    let vat = vat_rate(
        IndirectTax::Iva,
        req.vat_rate.unwrap_or(dec!(21)),
        req.date.unwrap_or(today),
        "vat_rate",
    )?;
    let w = compute(req.base.value(), kind, vat, req.equivalence_surcharge);
    Ok(WithholdingResponse {
        base: Money::from(w.vat.base),
        kind: kind.code(),
        withholding_rate: Percent::from(w.rate),
        withholding_amount: Money::from(w.amount),
        vat_rate: Percent::from(w.vat.vat_rate),
        vat_amount: Money::from(w.vat.vat_amount),
        surcharge_rate: Percent::from(w.vat.surcharge_rate),
        surcharge_amount: Money::from(w.vat.surcharge_amount),
        total_invoice: Money::from(w.total_invoice),
        rule: kind.rule(),
        estimate: ESTIMATE_NOTICE,
    })
}
