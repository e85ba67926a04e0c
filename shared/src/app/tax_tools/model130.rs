//! `estimate_model_130`: the quarterly IRPF instalment, box by box. Income and
//! withholdings the request leaves out come from the account's ledger of
//! issued invoices, expenses from its book of expenses; the response lists
//! what it counted.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::books::{self, CountedExpense, CountedInvoice, counted_expense, counted_invoice};
use super::{ESTIMATE_NOTICE, ToolError, check_quarter, check_year};
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::tax::model130::{EarlierQuarters, Model130Input, YearToDate, compute};
use crate::tax::money::Money;
use crate::tax::money::{Amount, MAX_INTEGER_DIGITS, decimal_from_json};

/// Year-to-date figures at the end of an earlier quarter.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuarterFigures {
    #[schema(value_type = f64, minimum = 0, maximum = 999999999999.999999)]
    pub income: Amount,
    #[schema(value_type = f64, minimum = 0, maximum = 999999999999.999999)]
    pub expenses: Amount,
    #[serde(default = "zero")]
    #[schema(value_type = f64, minimum = 0, maximum = 999999999999.999999)]
    pub withholdings: Amount,
}

fn zero() -> Amount {
    Amount::new(Decimal::ZERO).expect("zero is an amount")
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"year": 2026, "quarter": 2, "income": 20000, "expenses": 7000, "withholdings": 1200,
    "previous_quarters": [{"income": 12000, "expenses": 3000, "withholdings": 720}],
    "previous_year_net_income": 15000}))]
pub struct Model130Request {
    #[schema(minimum = 2000, maximum = 2100)]
    pub year: i32,
    /// 1 to 4.
    #[schema(minimum = 1, maximum = 4)]
    pub quarter: u8,
    /// Computable income from 1 January to the end of the quarter (box 01); default: the ledger's invoice bases.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub income: Option<Amount>,
    /// Deductible expenses, year to date (box 02); default: the deductible cost of the confirmed
    /// expenses in the book, dated (operation, else issue date) from 1 January to the quarter's end.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub expenses: Option<Amount>,
    /// Withholdings borne, year to date (box 06); default: the IRPF withheld on the ledger's invoices.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub withholdings: Option<Amount>,
    /// The year-to-date figures of each earlier quarter of the year (quarter − 1 entries), from which
    /// boxes 05 and 15 are computed. Alternative to `previous_payments` / `negative_results_pending`.
    pub previous_quarters: Option<Vec<QuarterFigures>>,
    /// Box 05 directly: the instalments of earlier quarters.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub previous_payments: Option<Amount>,
    /// Negative results (box 19) of earlier quarters not yet used, as a positive amount (box 15 source).
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub negative_results_pending: Option<Amount>,
    /// Net income from activities of the previous year, for the box 13 reduction (may be negative).
    #[serde(default, deserialize_with = "signed_amount")]
    #[schema(value_type = Option<f64>)]
    pub previous_year_net_income: Option<Decimal>,
    /// The taxpayer keeps the transitional main-home loan deduction (box 16).
    #[serde(default)]
    pub housing_loan: bool,
    /// Box 18: paid in an earlier return for the same quarter (complementary returns).
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub paid_in_earlier_return: Option<Amount>,
}

fn signed_amount<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    let value = decimal_from_json(d)?;
    let limit = Decimal::from(10i64.pow(MAX_INTEGER_DIGITS));
    if value.abs() >= limit {
        return Err(serde::de::Error::custom(format!(
            "{value} has more than {MAX_INTEGER_DIGITS} integer digits"
        )));
    }
    Ok(Some(value))
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct ReturnBoxValue {
    /// Box number, two digits.
    #[serde(rename = "box")]
    pub number: String,
    pub label: &'static str,
    pub label_en: &'static str,
    pub value: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[schema(example = json!({"year": 2026, "quarter": 1, "boxes": [
    {"box": "01", "label": "Ingresos computables", "label_en": "Computable income", "value": 12000.0},
    {"box": "02", "label": "Gastos fiscalmente deducibles", "label_en": "Deductible expenses", "value": 3000.0},
    {"box": "03", "label": "Rendimiento neto", "label_en": "Net income", "value": 9000.0},
    {"box": "04", "label": "20 % del importe de la casilla 03", "label_en": "20% of box 03", "value": 1800.0},
    {"box": "06", "label": "Retenciones e ingresos a cuenta", "label_en": "Withholdings and payments on account", "value": 720.0},
    {"box": "19", "label": "Resultado de la autoliquidación", "label_en": "Result of the return", "value": 1080.0}],
    "result": 1080.0, "outcome": "pay", "meaning": "To pay", "income_source": "request",
    "expenses_source": "request", "withholdings_source": "request", "invoices": [], "expenses": [], "notes": [],
    "estimate": "Estimate for the general regime, computed from the rules in force; not tax advice."}))]
pub struct Model130Response {
    pub year: i32,
    pub quarter: u8,
    /// Boxes 01 to 19 (08–11, agriculture, are 0).
    pub boxes: Vec<ReturnBoxValue>,
    /// Box 19.
    pub result: Money,
    /// `pay`, `to_deduct` (negative in Q1–Q3, carried to later quarters), `negative` (Q4) or `zero`.
    pub outcome: &'static str,
    pub meaning: &'static str,
    /// Where income and withholdings came from: `request` or `ledger`.
    pub income_source: &'static str,
    /// Where the expenses came from: `request` or `book` (the confirmed expenses).
    pub expenses_source: &'static str,
    pub withholdings_source: &'static str,
    /// The issued invoices of the year so far behind income and withholdings
    /// taken from the ledger.
    pub invoices: Vec<CountedInvoice>,
    /// The expenses behind box 02 when it comes from the book.
    pub expenses: Vec<CountedExpense>,
    pub notes: Vec<String>,
    pub estimate: &'static str,
}

fn ytd(f: &QuarterFigures) -> YearToDate {
    YearToDate {
        income: f.income.value(),
        expenses: f.expenses.value(),
        withholdings: f.withholdings.value(),
    }
}

fn earlier_quarters(
    req: &Model130Request,
    notes: &mut Vec<String>,
) -> Result<EarlierQuarters, ToolError> {
    let direct = req.previous_payments.is_some() || req.negative_results_pending.is_some();
    match &req.previous_quarters {
        Some(_) if direct => Err(ToolError::invalid(
            "previous_quarters",
            "send either previous_quarters or previous_payments / negative_results_pending, not both",
        )),
        Some(figures) if figures.len() != usize::from(req.quarter - 1) => Err(ToolError::invalid(
            "previous_quarters",
            format!(
                "quarter {} needs {} earlier quarters, got {}",
                req.quarter,
                req.quarter - 1,
                figures.len()
            ),
        )),
        Some(figures) => Ok(EarlierQuarters::Figures(figures.iter().map(ytd).collect())),
        None => {
            if req.quarter > 1 && !direct {
                notes.push("No earlier quarters given: boxes 05 and 15 are taken as 0.".into());
            }
            Ok(EarlierQuarters::Boxes {
                previous_payments: req.previous_payments.map(Amount::value).unwrap_or_default(),
                negative_pending: req
                    .negative_results_pending
                    .map(Amount::value)
                    .unwrap_or_default(),
            })
        }
    }
}

pub async fn estimate_model_130(
    ports: &Ports,
    caller: &Caller,
    req: &Model130Request,
) -> Result<Model130Response, ToolError> {
    let year = check_year(req.year)?;
    let quarter = check_quarter(req.quarter)?;
    let mut notes = Vec::new();
    let earlier = earlier_quarters(req, &mut notes)?;
    let needs_books = req.income.is_none() || req.withholdings.is_none() || req.expenses.is_none();
    let b = if needs_books {
        Some(books::read(ports, caller, year, quarter, &mut notes).await?)
    } else {
        None
    };
    let from_ledger = req.income.is_none() || req.withholdings.is_none();
    let invoices: Vec<CountedInvoice> = match &b {
        Some(b) if from_ledger => {
            if b.invoices_year.is_empty() && caller.mode.is_live() {
                notes.push(format!(
                    "The ledger has no invoices from 1 January to {}: ledger figures are 0.",
                    b.to
                ));
            }
            b.invoices_year.iter().map(counted_invoice).collect()
        }
        _ => Vec::new(),
    };
    let expenses: Vec<CountedExpense> = match &b {
        Some(b) if req.expenses.is_none() => {
            notes.push(format!(
                "No expenses given: box 02 is the deductible cost of the {} confirmed expense(s) of the book dated from 1 January to {}.",
                b.expenses_year.len(),
                b.to
            ));
            b.expenses_year
                .iter()
                .map(|e| counted_expense(e, e.cost_date()))
                .collect()
        }
        _ => Vec::new(),
    };
    let income: Decimal = invoices.iter().map(|i| i.base.value()).sum();
    let withheld: Decimal = invoices.iter().map(|i| i.irpf_withheld.value()).sum();
    let costs: Decimal = expenses.iter().map(|e| e.deductible_expense.value()).sum();
    let input = Model130Input {
        year,
        quarter,
        current: YearToDate {
            income: req.income.map_or(income, Amount::value),
            expenses: req.expenses.map_or(costs, Amount::value),
            withholdings: req.withholdings.map_or(withheld, Amount::value),
        },
        earlier,
        previous_year_net_income: req.previous_year_net_income,
        housing_loan: req.housing_loan,
        paid_in_earlier_return: req
            .paid_in_earlier_return
            .map(Amount::value)
            .unwrap_or_default(),
    };
    let result = compute(&input);
    let source = |given: bool, book: &'static str| if given { "request" } else { book };
    Ok(Model130Response {
        year,
        quarter,
        boxes: result
            .boxes
            .iter()
            .map(|b| ReturnBoxValue {
                number: format!("{:02}", b.number),
                label: b.label_es,
                label_en: b.label_en,
                value: Money::from(b.value),
            })
            .collect(),
        result: Money::from(result.result),
        outcome: result.outcome.code(),
        meaning: result.outcome.meaning_en(),
        income_source: source(req.income.is_some(), "ledger"),
        expenses_source: source(req.expenses.is_some(), "book"),
        withholdings_source: source(req.withholdings.is_some(), "ledger"),
        invoices,
        expenses,
        notes,
        estimate: ESTIMATE_NOTICE,
    })
}
