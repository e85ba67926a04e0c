//! Both books of a quarter, as the tax forms take them: the live ledger of
//! issued invoices and the confirmed expenses, and the list of what was
//! counted, so that every figure can be traced to its documents.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::ToolError;
use crate::app::accounts::{self, AccountError};
use crate::app::expenses;
use crate::app::keys::Caller;
use crate::app::{collections, ledger};
use crate::expense::{Expense, Status};
use crate::ports::Ports;
use crate::ports::table::TableError;
use crate::tax::cash_accounting::uncollected;
use crate::tax::indirect::IndirectTax;
use crate::tax::ledger_entry::{LedgerEntry, RateGroup};
use crate::tax::model303::{cash_purchase_boxes, deduction_boxes};
use crate::tax::money::Money;
use crate::tax::quarter::{QuarterSummary, ReturnBox, add_collected, quarter_dates, summarize};
use crate::tax::withheld::{paid_between, unpaid_with_withholding};

/// An issued invoice a figure counted.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct CountedInvoice {
    pub id: String,
    pub number: String,
    pub issue_date: NaiveDate,
    /// When its VAT accrued (LIVA art. 75: the operation date; an intra-EU
    /// supply of goods, the 15th of the next month or the earlier invoice
    /// date): the date that placed it in the period.
    pub accrual_date: NaiveDate,
    pub base: Money,
    /// VAT, IGIC or IPSI.
    pub vat: Money,
    pub surcharge: Money,
    pub irpf_withheld: Money,
}

/// An expense a figure counted.
#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct CountedExpense {
    pub id: String,
    pub supplier: String,
    pub supplier_tax_id: String,
    pub number: String,
    /// The date that placed it in the period: for VAT the received date, or
    /// the accrual date of self-assessed VAT; for IRPF the operation (else
    /// issue) date.
    pub date: NaiveDate,
    /// Modelo 303: the boxes of its deduction (base, quota).
    pub boxes: [&'static str; 2],
    pub deductible_base: Money,
    pub deductible_vat: Money,
    /// Modelo 130: its deductible cost.
    pub deductible_expense: Money,
    /// IRPF the account withheld from the supplier (Modelo 111 or 115).
    pub irpf_withheld: Money,
}

pub fn counted_invoice(e: &LedgerEntry) -> CountedInvoice {
    CountedInvoice {
        id: e.invoice_id.clone(),
        number: e.number.clone(),
        issue_date: e.issue_date,
        accrual_date: e.accrual(),
        base: Money::from(e.base()),
        vat: Money::from(e.groups.iter().map(|g| g.vat_amount).sum::<Decimal>()),
        surcharge: Money::from(e.groups.iter().map(|g| g.surcharge_amount).sum::<Decimal>()),
        irpf_withheld: Money::from(e.irpf_amount),
    }
}

pub fn counted_expense(e: &Expense, date: NaiveDate) -> CountedExpense {
    CountedExpense {
        id: e.id.clone(),
        supplier: e.entry.supplier.name.clone(),
        supplier_tax_id: e.entry.supplier.tax_id.clone(),
        number: e.entry.number.clone(),
        date,
        boxes: deduction_boxes(e),
        deductible_base: e.entry.deductible.base,
        deductible_vat: e.entry.deductible.vat,
        deductible_expense: e.entry.deductible.expense,
        irpf_withheld: e.entry.irpf_amount,
    }
}

/// What both books hold for a quarter and its year so far.
pub struct Books {
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// Invoices that accrued in the quarter.
    pub invoices: Vec<LedgerEntry>,
    /// Taxed groups of invoices under the cash-accounting regime whose VAT
    /// accrued in the quarter: the collections dated in it and, in the
    /// fourth quarter, what invoices of the year before left unpaid (LIVA
    /// art. 163 terdecies.Uno).
    pub cash_collected: Vec<RateGroup>,
    /// Invoices that accrued from 1 January to the quarter's end.
    pub invoices_year: Vec<LedgerEntry>,
    /// Confirmed expenses charged VAT whose VAT falls in the quarter
    /// (`Expense::vat_date`); those charged IGIC or IPSI are not here.
    pub expenses_vat: Vec<Expense>,
    /// Confirmed expenses the cash-accounting regime applies to or affects
    /// whose VAT the general rule places in the quarter (boxes 74/75).
    pub expenses_cash_regime: Vec<Expense>,
    /// The account is opted into the cash-accounting regime (as now: the
    /// option binds for three years, LIVA art. 163 undecies): its domestic
    /// purchases are deducted when paid (art. 163 quaterdecies.Uno).
    pub cash_accounting: bool,
    /// Confirmed expenses whose cost falls from 1 January to the quarter's end.
    pub expenses_year: Vec<Expense>,
    /// Confirmed expenses paid in the quarter (Modelos 111 and 115).
    pub expenses_paid: Vec<Expense>,
    /// Confirmed expenses issued up to the quarter's end with IRPF withheld
    /// and not paid yet.
    pub unpaid_withholdings: usize,
    /// Confirmed capital goods in service by the quarter's end, of any year.
    pub assets: Vec<Expense>,
}

/// The oldest year an asset still being amortised can come from (olive
/// groves: 100 years, simplified amortisation table).
const ASSET_YEARS: i32 = 100;

/// The output side of the quarter: its invoices, with the VAT collected
/// under the cash-accounting regime in the output boxes.
pub fn vat_summary(b: &Books) -> QuarterSummary {
    let mut s = summarize(&b.invoices);
    add_collected(&mut s, &b.cash_collected);
    s
}

/// Boxes 74/75 of the quarter.
pub fn cash_purchases(b: &Books) -> Vec<ReturnBox> {
    let expenses: Vec<&Expense> = b.expenses_cash_regime.iter().collect();
    cash_purchase_boxes(&expenses, b.cash_accounting)
}

/// The VAT accruing from `from` to `to` (quarter `quarter` of `year`) under
/// the cash-accounting regime: collections in the span, and in the fourth
/// quarter the rest of the year before's invoices (their deadline is 31
/// December of this year). Collections are read from two years before, as
/// a payment may precede its operation.
async fn cash_collected(
    ports: &Ports,
    caller: &Caller,
    (year, quarter): (i32, u8),
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<RateGroup>, ToolError> {
    if !caller.mode.is_live() {
        return Ok(Vec::new());
    }
    let day = |y: i32, m: u32, d: u32| NaiveDate::from_ymd_opt(y, m, d).expect("valid date");
    let fourth = quarter == 4;
    let earliest = if fourth { day(year - 2, 1, 1) } else { from };
    let all = collections::between(ports, &caller.account_id, earliest, to)
        .await
        .map_err(ToolError::storage)?;
    let mut groups: Vec<RateGroup> = all
        .iter()
        .filter(|c| c.date >= from)
        .flat_map(|c| c.groups.iter().cloned())
        .collect();
    if fourth {
        let year_before = ledger::between(
            ports,
            &caller.account_id,
            day(year - 1, 1, 1),
            day(year - 1, 12, 31),
        )
        .await
        .map_err(ToolError::storage)?;
        for entry in year_before.iter().filter(|e| e.defers_vat()) {
            groups.extend(uncollected(entry, &all));
        }
    }
    Ok(groups)
}

/// Reads both books. Test keys have neither: every list is empty, and a
/// note says so.
pub async fn read(
    ports: &Ports,
    caller: &Caller,
    year: i32,
    quarter: u8,
    notes: &mut Vec<String>,
) -> Result<Books, ToolError> {
    let (from, to) = quarter_dates(year, quarter);
    let january = NaiveDate::from_ymd_opt(year, 1, 1).expect("valid year");
    if !caller.mode.is_live() {
        notes.push(
            "Test keys have no ledger and no book of expenses: test invoices never reach the ledger and test expenses are not kept."
                .into(),
        );
    }
    let invoices_year = if caller.mode.is_live() {
        ledger::between(ports, &caller.account_id, january, to)
            .await
            .map_err(ToolError::storage)?
    } else {
        Vec::new()
    };
    // An invoice received or paid after the year it was issued in still
    // counts in the quarter it arrived (VAT) or was paid (111/115), and a
    // capital good is amortised for years: read the book as far back as an
    // asset can still be amortised.
    let earliest = NaiveDate::from_ymd_opt(year - ASSET_YEARS, 1, 1).expect("valid year");
    let all = expenses::between(ports, caller, earliest, to)
        .await
        .map_err(ToolError::storage)?;
    let cash_accounting = match accounts::get(ports, &caller.account_id).await {
        Ok(account) => account.cash_accounting,
        Err(AccountError::Table(e)) => return Err(ToolError::storage(e)),
        Err(e) => return Err(ToolError::storage(TableError::Unavailable(e.to_string()))),
    };
    let in_span = |d: NaiveDate, start: NaiveDate| d >= start && d <= to;
    let drafts = all
        .iter()
        .filter(|e| {
            e.entry.status == Status::Draft && in_span(e.vat_date_as(cash_accounting), from)
        })
        .count();
    let confirmed: Vec<Expense> = all
        .into_iter()
        .filter(|e| e.entry.status == Status::Confirmed)
        .collect();
    let other_tax = confirmed
        .iter()
        .filter(|e| {
            e.entry.tax != IndirectTax::Iva && in_span(e.vat_date_as(cash_accounting), from)
        })
        .count();
    if other_tax > 0 {
        notes.push(format!(
            "{other_tax} expense(s) of the quarter charged IGIC or IPSI are left out of Modelo 303: that tax is deducted in the Canary Islands' Modelo 420 or the cities' returns. They still count as cost for IRPF."
        ));
    }
    if drafts > 0 {
        notes.push(format!(
            "{drafts} draft expense(s) of the quarter (imported from the AEAT) are not counted until confirmed."
        ));
    }
    let expenses_paid = paid_between(&confirmed, from, to)
        .into_iter()
        .cloned()
        .collect();
    let unpaid_withholdings = unpaid_with_withholding(&confirmed, to);
    let assets = confirmed
        .iter()
        .filter(|e| e.entry.capital_good && e.cost_date() <= to)
        .cloned()
        .collect();
    let cash_collected = cash_collected(ports, caller, (year, quarter), from, to).await?;
    Ok(Books {
        cash_collected,
        cash_accounting,
        from,
        to,
        expenses_paid,
        unpaid_withholdings,
        assets,
        invoices: invoices_year
            .iter()
            .filter(|e| e.accrual() >= from)
            .cloned()
            .collect(),
        invoices_year,
        expenses_cash_regime: confirmed
            .iter()
            .filter(|e| e.under_cash_regime(cash_accounting) && in_span(e.general_vat_date(), from))
            .cloned()
            .collect(),
        expenses_vat: confirmed
            .iter()
            .filter(|e| {
                e.entry.tax == IndirectTax::Iva && in_span(e.vat_date_as(cash_accounting), from)
            })
            .cloned()
            .collect(),
        expenses_year: confirmed
            .into_iter()
            .filter(|e| in_span(e.cost_date(), january))
            .collect(),
    })
}
