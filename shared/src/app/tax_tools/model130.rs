//! `estimate_model_130`: the quarterly IRPF instalment, box by box. Income and
//! withholdings the request leaves out come from the account's ledger of
//! issued invoices, expenses from its book of expenses (capital goods by
//! their amortisation), and boxes 05 and 15 from this service's own returns
//! of the earlier quarters; the response lists what it counted.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::books::{self, CountedExpense, CountedInvoice, counted_expense, counted_invoice};
use super::{ESTIMATE_NOTICE, ToolError, check_quarter, check_year};
use crate::app::keys::Caller;
use crate::expense::Expense;
use crate::expense::model::default_asset_kind;
use crate::ports::Ports;
use crate::tax::amortisation::{self, Asset, AssetKind};
use crate::tax::ledger_entry::LedgerEntry;
use crate::tax::model130::{EarlierQuarters, Estimation, Model130Input, YearToDate, compute};
use crate::tax::money::{Amount, MAX_INTEGER_DIGITS, decimal_from_json};
use crate::tax::money::{Money, Percent};
use crate::tax::quarter::quarter_dates;

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
    /// Deductible expenses, year to date, without the allowance for hard-to-justify expenses (box 02
    /// adds it in simplified estimation); default: the deductible cost of the confirmed expenses in
    /// the book, dated (operation, else issue date) from 1 January to the quarter's end, with capital
    /// goods at their amortisation of the year so far.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub expenses: Option<Amount>,
    /// Withholdings borne, year to date (box 06); default: the IRPF withheld on the ledger's invoices.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999999.999999)]
    pub withholdings: Option<Amount>,
    /// The year-to-date figures of each earlier quarter of the year (quarter − 1 entries), from which
    /// boxes 05 and 15 are computed. Alternative to `previous_payments` / `negative_results_pending`.
    /// When neither is sent, the earlier quarters' figures come from the books, as this service's own
    /// Modelo 130 of each of them computes them.
    pub previous_quarters: Option<Vec<QuarterFigures>>,
    /// Box 05 directly: the instalments of earlier quarters (what was actually filed).
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
    /// `simplified` (default: estimación directa simplificada, box 02 adds 5 % of the net income for
    /// provisions and hard-to-justify expenses, at most 2,000 € a year, RIRPF art. 30, rule 2.ª; 7 % in
    /// 2023) or `normal`.
    pub direct_estimation: Option<Estimation>,
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

/// A capital good whose amortisation box 02 counts.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct CountedAsset {
    /// The expense (`exp_…`).
    pub id: String,
    pub supplier: String,
    pub number: String,
    pub kind: AssetKind,
    pub annual_rate: Percent,
    /// Entry into service.
    pub start_date: NaiveDate,
    /// The amortisable value.
    pub base: Money,
    /// Written off at once in the year it entered service (LIS art. 12.3.e)
    /// when the year's low-value assets stay within 25,000 €.
    pub low_value: bool,
    /// Its amortisation from 1 January (or its entry into service) to the quarter's end.
    pub year_to_date: Money,
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
    "expenses_source": "request", "withholdings_source": "request", "previous_quarters_source": "none",
    "direct_estimation": "normal", "hard_to_justify_allowance": 0.0,
    "invoices": [], "expenses": [], "amortisation": [], "notes": [],
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
    /// Where boxes 05 and 15 came from: `request` (`previous_quarters` or the boxes), `books` (this
    /// service's Modelo 130 of each earlier quarter, from the books) or `none` (first quarter).
    pub previous_quarters_source: &'static str,
    /// `simplified` or `normal`.
    pub direct_estimation: &'static str,
    /// Provisions and hard-to-justify expenses included in box 02 (simplified estimation).
    pub hard_to_justify_allowance: Money,
    /// The issued invoices of the year so far behind income and withholdings
    /// taken from the ledger.
    pub invoices: Vec<CountedInvoice>,
    /// The current expenses behind box 02 when it comes from the book.
    pub expenses: Vec<CountedExpense>,
    /// The capital goods behind box 02 when it comes from the book: their amortisation.
    pub amortisation: Vec<CountedAsset>,
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

/// What box 02 and the earlier quarters read from the books.
pub struct IrpfBooks<'a> {
    /// Issued invoices from 1 January to the quarter's end.
    pub invoices: &'a [LedgerEntry],
    /// Confirmed expenses whose cost falls from 1 January to the quarter's end.
    pub expenses: &'a [Expense],
    /// Confirmed capital goods in service by the quarter's end, of any year.
    pub assets: &'a [Expense],
}

impl IrpfBooks<'_> {
    /// Year-to-date figures at `at` (a quarter's end).
    fn figures_at(&self, at: NaiveDate) -> YearToDate {
        let invoices = self.invoices.iter().filter(|e| e.accrual() <= at);
        YearToDate {
            income: invoices.clone().map(LedgerEntry::base).sum(),
            expenses: self.costs_at(at),
            withholdings: invoices.map(|e| e.irpf_amount).sum(),
        }
    }

    /// Box 02 before the allowance: current expenses in full, capital goods
    /// by their amortisation of the year to `at`.
    pub fn costs_at(&self, at: NaiveDate) -> Decimal {
        let current: Decimal = self
            .expenses
            .iter()
            .filter(|e| !e.entry.capital_good && e.cost_date() <= at)
            .map(|e| e.entry.deductible.expense.value())
            .sum();
        current + self.amortised(at).iter().map(|(_, a)| a).sum::<Decimal>()
    }

    /// Each capital good with its amortisation of the year to `at`.
    fn amortised(&self, at: NaiveDate) -> Vec<(&Expense, Decimal)> {
        let (expenses, assets): (Vec<&Expense>, Vec<Asset>) = self
            .assets
            .iter()
            .filter_map(|e| Some((e, e.asset()?)))
            .unzip();
        expenses
            .into_iter()
            .zip(amortisation::year_to_date_of(&assets, at))
            .collect()
    }
}

fn counted_asset(e: &Expense, year_to_date: Decimal) -> Option<CountedAsset> {
    let plan = e.amortisation_plan()?;
    Some(CountedAsset {
        id: e.id.clone(),
        supplier: e.entry.supplier.name.clone(),
        number: e.entry.number.clone(),
        kind: e
            .entry
            .amortisation
            .map_or_else(|| default_asset_kind(e.entry.category), |a| a.kind),
        annual_rate: Percent::from(plan.annual_rate),
        start_date: plan.start,
        base: Money::from(plan.base),
        low_value: e.entry.amortisation.is_some_and(|a| a.low_value),
        year_to_date: Money::from(year_to_date),
    })
}

fn requested_earlier_quarters(req: &Model130Request) -> Result<Option<EarlierQuarters>, ToolError> {
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
        Some(figures) => Ok(Some(EarlierQuarters::Figures(
            figures.iter().map(ytd).collect(),
        ))),
        None if direct => Ok(Some(EarlierQuarters::Boxes {
            previous_payments: req.previous_payments.map(Amount::value).unwrap_or_default(),
            negative_pending: req
                .negative_results_pending
                .map(Amount::value)
                .unwrap_or_default(),
        })),
        None => Ok(None),
    }
}

/// The earlier quarters' year-to-date figures as the books give them.
fn derived_earlier_quarters(book: &IrpfBooks, year: i32, quarter: u8) -> EarlierQuarters {
    EarlierQuarters::Figures(
        (1..quarter)
            .map(|q| book.figures_at(quarter_dates(year, q).1))
            .collect(),
    )
}

pub async fn estimate_model_130(
    ports: &Ports,
    caller: &Caller,
    req: &Model130Request,
) -> Result<Model130Response, ToolError> {
    let year = check_year(req.year)?;
    let quarter = check_quarter(req.quarter)?;
    let mut notes = Vec::new();
    let requested = requested_earlier_quarters(req)?;
    let derive_earlier = requested.is_none() && quarter > 1;
    let needs_books = derive_earlier
        || req.income.is_none()
        || req.withholdings.is_none()
        || req.expenses.is_none();
    let to = quarter_dates(year, quarter).1;
    let b = if needs_books {
        Some(books::read(ports, caller, year, quarter, &mut notes).await?)
    } else {
        None
    };
    let book = IrpfBooks {
        invoices: b.as_ref().map_or(&[][..], |b| &b.invoices_year),
        expenses: b.as_ref().map_or(&[][..], |b| &b.expenses_year),
        assets: b.as_ref().map_or(&[][..], |b| &b.assets),
    };
    let from_ledger = req.income.is_none() || req.withholdings.is_none();
    let invoices: Vec<CountedInvoice> = if from_ledger {
        if book.invoices.is_empty() && caller.mode.is_live() {
            notes.push(format!(
                "The ledger has no invoices from 1 January to {to}: ledger figures are 0."
            ));
        }
        book.invoices.iter().map(counted_invoice).collect()
    } else {
        Vec::new()
    };
    let (expenses, amortisation): (Vec<CountedExpense>, Vec<CountedAsset>) = if req
        .expenses
        .is_none()
    {
        let current: Vec<&Expense> = book
            .expenses
            .iter()
            .filter(|e| !e.entry.capital_good)
            .collect();
        notes.push(format!(
                "No expenses given: box 02 is the deductible cost of the {} confirmed expense(s) of the book dated from 1 January to {}, and the amortisation of {} capital good(s) (LIRPF art. 28.1, LIS art. 12.1).",
                current.len(),
                to,
                book.assets.len()
            ));
        (
            current
                .into_iter()
                .map(|e| counted_expense(e, e.cost_date()))
                .collect(),
            book.amortised(to)
                .into_iter()
                .filter_map(|(e, amount)| counted_asset(e, amount))
                .collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let books_now = book.figures_at(to);
    let (earlier, previous_quarters_source) = match requested {
        Some(given) => (given, "request"),
        None if derive_earlier => {
            notes.push(format!(
                "Boxes 05 and 15 come from this service's Modelo 130 of quarters 1 to {}, recomputed from the books; send previous_payments and negative_results_pending to use the amounts actually filed.",
                quarter - 1
            ));
            (derived_earlier_quarters(&book, year, quarter), "books")
        }
        None => (EarlierQuarters::Figures(Vec::new()), "none"),
    };
    let estimation = req.direct_estimation.unwrap_or_default();
    let input = Model130Input {
        year,
        quarter,
        current: YearToDate {
            income: req.income.map_or(books_now.income, Amount::value),
            expenses: req.expenses.map_or(books_now.expenses, Amount::value),
            withholdings: req
                .withholdings
                .map_or(books_now.withholdings, Amount::value),
        },
        earlier,
        previous_year_net_income: req.previous_year_net_income,
        housing_loan: req.housing_loan,
        paid_in_earlier_return: req
            .paid_in_earlier_return
            .map(Amount::value)
            .unwrap_or_default(),
        estimation,
    };
    let result = compute(&input);
    if estimation == Estimation::Simplified {
        notes.push(format!(
            "Simplified direct estimation: box 02 includes {} € of provisions and hard-to-justify expenses, {} % of the net income before them, at most 2,000 € a year (RIRPF art. 30, rule 2.ª); send direct_estimation normal if the activity is in normal direct estimation.",
            Money::from(result.allowance),
            estimation.allowance_rate(year)
        ));
    }
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
        previous_quarters_source,
        direct_estimation: estimation.code(),
        hard_to_justify_allowance: Money::from(result.allowance),
        invoices,
        expenses,
        amortisation,
        notes,
        estimate: ESTIMATE_NOTICE,
    })
}
