//! `quarter_summary`: a quarter of both live books (issued invoices and
//! expenses), with the Modelo 303 boxes, the Modelo 130 inputs and the
//! Modelo 111/115 figures they give, and what was counted.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::books::{self, CountedExpense, CountedInvoice, counted_expense, counted_invoice};
use super::model130::IrpfBooks;
use super::model303::boxes_of;
use super::{ESTIMATE_NOTICE, ToolError, check_quarter, check_year};
use crate::app::keys::Caller;
use crate::expense::Expense;
use crate::ports::Ports;
use crate::tax::model303::model_303;
use crate::tax::money::Money;
use crate::tax::money::Percent;
use crate::tax::money::as_number;
use crate::tax::withheld::{boxes_111, boxes_115, model_111, model_115};

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct RateLine {
    pub rate: Percent,
    pub base: Money,
    pub amount: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Box303 {
    #[serde(rename = "box")]
    pub number: &'static str,
    pub label: String,
    /// An amount in euros, or a rate in percent for the rate boxes.
    #[serde(serialize_with = "as_number")]
    #[schema(value_type = f64)]
    pub value: Decimal,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Totals {
    pub base: Money,
    pub vat: Money,
    pub surcharge: Money,
    pub irpf_withheld: Money,
    /// base + VAT + surcharge − IRPF.
    pub total: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Model130Inputs {
    /// Σ invoice bases from 1 January to the quarter's end (box 01).
    pub income_year_to_date: Money,
    /// Σ deductible cost of the confirmed expenses in the same span, capital
    /// goods by their amortisation (box 02 without the simplified
    /// estimation's allowance for hard-to-justify expenses).
    pub expenses_year_to_date: Money,
    /// Σ IRPF withheld by clients in the same span (box 06).
    pub withholdings_year_to_date: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[schema(example = json!({"year": 2026, "quarter": 2, "from": "2026-04-01", "to": "2026-06-30", "livemode": true,
    "invoice_count": 2, "rectification_count": 0, "expense_count": 1,
    "vat": [{"rate": 21.0, "base": 1000.0, "amount": 210.0}, {"rate": 10.0, "base": 200.0, "amount": 20.0}],
    "surcharge": [], "igic": [], "ipsi": [], "totals": {"base": 1200.0, "vat": 230.0, "surcharge": 0.0, "irpf_withheld": 180.0, "total": 1250.0},
    "model_303": [{"box": "04", "label": "Output VAT 10 %: base", "value": 200.0},
        {"box": "06", "label": "Output VAT 10 %: quota", "value": 20.0},
        {"box": "07", "label": "Output VAT 21 %: base", "value": 1000.0},
        {"box": "09", "label": "Output VAT 21 %: quota", "value": 210.0},
        {"box": "27", "label": "Total output VAT and surcharge", "value": 230.0},
        {"box": "28", "label": "Input VAT on domestic purchases of current goods and services: base", "value": 200.0},
        {"box": "29", "label": "Input VAT on domestic purchases of current goods and services: quota", "value": 42.0},
        {"box": "45", "label": "Total input VAT deducted", "value": 42.0},
        {"box": "46", "label": "General regime result (27 − 45)", "value": 188.0}],
    "model_130": {"income_year_to_date": 1200.0, "expenses_year_to_date": 200.0, "withholdings_year_to_date": 180.0},
    "model_111": [{"box": "07", "label": "Economic activities: recipients", "value": 1.0},
        {"box": "08", "label": "Economic activities: amounts paid", "value": 200.0},
        {"box": "09", "label": "Economic activities: withholdings", "value": 30.0}],
    "model_115": [], "invoices": [], "expenses": [], "notes": [],
    "estimate": "Estimate for the general regime, computed from the rules in force; not tax advice."}))]
pub struct QuarterResponse {
    pub year: i32,
    pub quarter: u8,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub livemode: bool,
    /// Ordinary invoices (F1, F2) that accrued in the quarter (LIVA art. 75).
    pub invoice_count: usize,
    /// Rectifying invoices (R1–R5), which go to the modification boxes 14/15 and 25/26.
    pub rectification_count: usize,
    /// Confirmed expenses received in the quarter (input VAT).
    pub expense_count: usize,
    /// Output VAT of the taxed lines of ordinary invoices per rate: base and
    /// quota (exempt, not-subject and reverse-charge lines are in boxes 59,
    /// 60, 120 and 122 of `model_303`).
    pub vat: Vec<RateLine>,
    /// Equivalence surcharge per rate.
    pub surcharge: Vec<RateLine>,
    /// IGIC per rate (issuers in the Canary Islands; rectifying invoices
    /// signed in): declared to the Canary Islands' tax agency in Modelo 420
    /// (quarterly) and 425 (yearly), never in Modelo 303.
    pub igic: Vec<RateLine>,
    /// IPSI per rate (issuers in Ceuta or Melilla): declared to the city,
    /// never in Modelo 303.
    pub ipsi: Vec<RateLine>,
    /// Every invoice's base, its VAT, IGIC or IPSI (`vat`), surcharge and IRPF.
    pub totals: Totals,
    /// Modelo 303: output boxes (01–09 per rate, 10–13 self-assessed,
    /// 14/15, surcharge rows, 25/26, 27 total), input boxes (28–41, 45), the
    /// result (46–71, with nothing carried from earlier quarters; see
    /// `POST /api/v1/tax/model-303`) and the additional information (59,
    /// 60, 120, 122, 62/63 and 74/75 of the cash-accounting regime).
    pub model_303: Vec<Box303>,
    pub model_130: Model130Inputs,
    /// Modelo 111: IRPF the account withheld from professionals and other
    /// activities, from the expenses paid in the quarter (`paid_date`, RIRPF
    /// art. 78.1; expenses stored before it existed: their issue date)
    /// (boxes 07–09, 28, 30).
    pub model_111: Vec<Box303>,
    /// Modelo 115: IRPF withheld on rent (boxes 01–03, 05).
    pub model_115: Vec<Box303>,
    /// The issued invoices counted.
    pub invoices: Vec<CountedInvoice>,
    /// The confirmed expenses counted for VAT (received in the quarter).
    pub expenses: Vec<CountedExpense>,
    pub notes: Vec<String>,
    pub estimate: &'static str,
}

fn lines(
    map: &std::collections::BTreeMap<Decimal, crate::tax::quarter::RateTotals>,
) -> Vec<RateLine> {
    map.iter()
        .rev()
        .map(|(rate, t)| RateLine {
            rate: Percent::from(*rate),
            base: Money::from(t.base),
            amount: Money::from(t.amount),
        })
        .collect()
}

pub async fn quarter_summary(
    ports: &Ports,
    caller: &Caller,
    year: i32,
    quarter: u8,
) -> Result<QuarterResponse, ToolError> {
    let year = check_year(year)?;
    let quarter = check_quarter(quarter)?;
    let mut notes = Vec::new();
    let b = books::read(ports, caller, year, quarter, &mut notes).await?;
    let s = books::vat_summary(&b);
    if b.invoices.is_empty() && caller.mode.is_live() {
        notes.push("The ledger has no invoices in this quarter.".into());
    }
    if !s.igic.is_empty() {
        notes.push("IGIC goes to the Canary Islands' tax agency (ATC) in Modelo 420, not in Modelo 303: see `igic`.".into());
    }
    if !s.ipsi.is_empty() {
        notes.push(
            "IPSI goes to the city of Ceuta or Melilla, not in Modelo 303: see `ipsi`.".into(),
        );
    }
    let vat_expenses: Vec<&Expense> = b.expenses_vat.iter().collect();
    let form = model_303(&s, &vat_expenses, year, quarter, Decimal::ZERO);
    let paid: Vec<&Expense> = b.expenses_paid.iter().collect();
    if b.unpaid_withholdings > 0 {
        notes.push(format!(
            "{} expense(s) with IRPF withheld are not paid yet: Modelos 111 and 115 declare a withholding in the quarter it is paid (RIRPF art. 78.1); record the paid_date.",
            b.unpaid_withholdings
        ));
    }
    Ok(QuarterResponse {
        year,
        quarter,
        from: b.from,
        to: b.to,
        livemode: caller.mode.is_live(),
        invoice_count: s.invoice_count,
        rectification_count: s.rectification_count,
        expense_count: b.expenses_vat.len(),
        vat: lines(&s.vat),
        surcharge: lines(&s.surcharge),
        igic: lines(&s.igic),
        ipsi: lines(&s.ipsi),
        totals: Totals {
            base: Money::from(s.base),
            vat: Money::from(s.vat_amount),
            surcharge: Money::from(s.surcharge_amount),
            irpf_withheld: Money::from(s.irpf_withheld),
            total: Money::from(s.total),
        },
        model_303: boxes_of(
            form.boxes
                .into_iter()
                .chain(books::cash_purchases(&b))
                .collect(),
        ),
        model_130: Model130Inputs {
            income_year_to_date: Money::from(
                b.invoices_year.iter().map(|e| e.base()).sum::<Decimal>(),
            ),
            expenses_year_to_date: Money::from(
                IrpfBooks {
                    invoices: &b.invoices_year,
                    expenses: &b.expenses_year,
                    assets: &b.assets,
                }
                .costs_at(b.to),
            ),
            withholdings_year_to_date: Money::from(
                b.invoices_year
                    .iter()
                    .map(|e| e.irpf_amount)
                    .sum::<Decimal>(),
            ),
        },
        model_111: boxes_of(boxes_111(&model_111(&paid))),
        model_115: boxes_of(boxes_115(&model_115(&paid))),
        invoices: b.invoices.iter().map(counted_invoice).collect(),
        expenses: b
            .expenses_vat
            .iter()
            .map(|e| counted_expense(e, e.vat_date_as(b.cash_accounting)))
            .collect(),
        notes,
        estimate: ESTIMATE_NOTICE,
    })
}
