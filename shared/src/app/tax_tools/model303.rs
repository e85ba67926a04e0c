//! `estimate_model_303`: the quarterly VAT return from both books: output
//! VAT from the issued invoices and the VAT self-assessed on purchases,
//! input VAT from the confirmed expenses as far as it is deductible, and
//! the result, with every invoice and expense it counted.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::books::{self, CountedExpense, CountedInvoice, counted_expense, counted_invoice};
use super::quarter::Box303;
use super::{ESTIMATE_NOTICE, ToolError, check_quarter, check_year};
use crate::app::keys::Caller;
use crate::expense::Expense;
use crate::ports::Ports;
use crate::tax::model303::model_303;
use crate::tax::money::{Amount, Money};
use crate::tax::quarter::ReturnBox;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"year": 2026, "quarter": 4, "carried_forward": 0}))]
pub struct Model303Request {
    #[schema(minimum = 2000, maximum = 2100)]
    pub year: i32,
    /// 1 to 4.
    #[schema(minimum = 1, maximum = 4)]
    pub quarter: u8,
    /// Amounts to offset left from earlier quarters (box 110); default 0.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub carried_forward: Option<Amount>,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[schema(example = json!({"year": 2026, "quarter": 4, "from": "2026-10-01", "to": "2026-12-31", "livemode": true,
    "boxes": [{"box": "07", "label": "Output VAT 21 %: base", "value": 3000.0},
        {"box": "08", "label": "Output VAT 21 %: rate", "value": 21.0},
        {"box": "09", "label": "Output VAT 21 %: quota", "value": 630.0},
        {"box": "27", "label": "Total output VAT and surcharge", "value": 630.0},
        {"box": "28", "label": "Input VAT on domestic purchases of current goods and services: base", "value": 400.0},
        {"box": "29", "label": "Input VAT on domestic purchases of current goods and services: quota", "value": 84.0},
        {"box": "45", "label": "Total input VAT deducted", "value": 84.0},
        {"box": "46", "label": "General regime result (27 − 45)", "value": 546.0},
        {"box": "71", "label": "Result of the return", "value": 546.0}],
    "result": 546.0, "outcome": "pay",
    "invoices": [{"id": "inv_019aa3b7c2e41f0c2a9d8e7b", "number": "F2026-000031", "issue_date": "2026-10-14", "accrual_date": "2026-10-14",
        "base": 3000.0, "vat": 630.0, "surcharge": 0.0, "irpf_withheld": 450.0}],
    "expenses": [{"id": "exp_019aa3b7c2e41f0c2a9d8e7c", "supplier": "Gestoría López SL", "supplier_tax_id": "B12345674",
        "number": "2026/0412", "date": "2026-10-05", "boxes": ["28", "29"], "deductible_base": 400.0,
        "deductible_vat": 84.0, "deductible_expense": 400.0, "irpf_withheld": 60.0}],
    "notes": [], "not_handled": ["Prorrata (box 44)"],
    "estimate": "Estimate for the general regime, computed from the rules in force; not tax advice."}))]
pub struct Model303Response {
    pub year: i32,
    pub quarter: u8,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub livemode: bool,
    /// Output boxes (01–27), input boxes (28–45), the result (46–71) and
    /// the additional information: 59 (intra-EU supplies of goods and
    /// services), 60 (exports and assimilated), 120 (not subject by the
    /// place-of-supply rules), 122 (reverse charge), 62/63 (supplies under
    /// the cash-accounting regime by the general accrual rule) and 74/75
    /// (purchases from suppliers under it); see docs/tax-boxes.md. Under the
    /// cash-accounting regime 01–09 carry the VAT collected in the quarter
    /// and, in the fourth, what was left unpaid from the year before's
    /// operations (LIVA art. 163 terdecies).
    pub boxes: Vec<Box303>,
    /// Box 71.
    pub result: Money,
    /// `pay`, `offset` (negative: carried to later quarters, or refunded on
    /// request in the fourth) or `zero`.
    pub outcome: &'static str,
    /// The issued invoices counted (accrual date in the quarter, LIVA art. 75).
    pub invoices: Vec<CountedInvoice>,
    /// The confirmed expenses counted (VAT charged and received in the
    /// quarter, or self-assessed VAT accrued in it), with the boxes each
    /// went to.
    pub expenses: Vec<CountedExpense>,
    pub notes: Vec<String>,
    /// Parts of the form the estimate leaves at 0.
    pub not_handled: Vec<&'static str>,
    pub estimate: &'static str,
}

/// The parts of Modelo 303 no figure here fills.
pub const NOT_HANDLED: [&str; 7] = [
    "Prorrata: input VAT of businesses with exempt operations (box 44)",
    "Special regime for agriculture, livestock and fishing (box 42)",
    "Regularisation of capital goods (box 43)",
    "Simplified regime and other special regimes (boxes 47–58, 76)",
    "Import VAT deferred to the return (box 77)",
    "Supplementary returns (box 70)",
    "One-stop shop (OSS) sales to consumers in other EU states (boxes 123/124)",
];

pub fn boxes_of(boxes: Vec<ReturnBox>) -> Vec<Box303> {
    boxes
        .into_iter()
        .map(|b| Box303 {
            number: b.number,
            label: b.label,
            value: b.value,
        })
        .collect()
}

pub async fn estimate_model_303(
    ports: &Ports,
    caller: &Caller,
    req: &Model303Request,
) -> Result<Model303Response, ToolError> {
    let year = check_year(req.year)?;
    let quarter = check_quarter(req.quarter)?;
    let mut notes = Vec::new();
    let b = books::read(ports, caller, year, quarter, &mut notes).await?;
    let carried = req.carried_forward.map(Amount::value).unwrap_or_default();
    let expenses: Vec<&Expense> = b.expenses_vat.iter().collect();
    let form = model_303(&books::vat_summary(&b), &expenses, year, quarter, carried);
    if b.invoices
        .iter()
        .any(|e| e.tax != crate::tax::indirect::IndirectTax::Iva)
    {
        notes.push("IGIC and IPSI invoices are declared to the Canary Islands or to Ceuta and Melilla, not in Modelo 303; they are left out of the boxes.".into());
    }
    if !b.cash_collected.is_empty() {
        notes.push("Cash-accounting regime: boxes 01–09 carry the VAT collected in the quarter (and, in the fourth, what invoices of the year before left unpaid on 31 December), not the VAT of the invoices issued under it, which is in 62/63 (LIVA art. 163 terdecies).".into());
    }
    if b.expenses_vat
        .iter()
        .any(|e| e.surcharge() != Decimal::ZERO)
    {
        notes.push("Expenses with equivalence surcharge deduct no VAT (LIVA art. 154.Dos): they are in the list with 0 deducted.".into());
    }
    Ok(Model303Response {
        year,
        quarter,
        from: b.from,
        to: b.to,
        livemode: caller.mode.is_live(),
        boxes: boxes_of(
            form.boxes
                .into_iter()
                .chain(books::cash_purchases(&b))
                .collect(),
        ),
        result: Money::from(form.result),
        outcome: form.outcome.code(),
        invoices: b.invoices.iter().map(counted_invoice).collect(),
        expenses: b
            .expenses_vat
            .iter()
            .map(|e| counted_expense(e, e.vat_date_as(b.cash_accounting)))
            .collect(),
        notes,
        not_handled: NOT_HANDLED.to_vec(),
        estimate: ESTIMATE_NOTICE,
    })
}
