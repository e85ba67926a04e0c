//! `ventas` (reference §2.1, rules V1–V12): revenue, ticket, customers and
//! their concentration, monthly trend, products (ABC), margin, discounts,
//! returns, repeat customers, receivables. The figures are computed first
//! (`SalesFigures`), then the report is written from them.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::{Hash, Hasher};

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{Names, by_name, col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::format;
use crate::analyses::report::{Horizon, Period, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{
    self, Concentration, HUNDRED, abc, complete_months, concentration, from_f64, monthly, pct,
    ranked, to_f64,
};

/// One sale line, net of VAT.
#[derive(Clone, Debug, Default)]
pub struct Line<'a> {
    pub date: Option<NaiveDate>,
    pub doc: Option<Cow<'a, str>>,
    pub customer: Option<usize>,
    pub product: Option<usize>,
    pub qty: Option<Decimal>,
    pub revenue: Decimal,
    pub with_vat: Decimal,
    pub cost: Option<Decimal>,
    pub discount: Decimal,
    pub below_cost: bool,
    pub paid: Option<bool>,
    pub due: Option<NaiveDate>,
}

/// The lines of all frames, with customer and product names.
pub struct Sales<'a> {
    pub lines: Vec<Line<'a>>,
    pub customers: Names<'a>,
    pub products: Names<'a>,
    pub vat_included: bool,
    pub has_cost: bool,
}

/// Reads the sale lines of the frames; `skipped` gets per-frame counts.
pub fn lines<'a>(
    frames: &'a [Frame<'a>],
    skipped: &mut Vec<Vec<(&'static str, usize)>>,
) -> Sales<'a> {
    let mut sales = Sales {
        lines: Vec::with_capacity(frames.iter().map(Frame::len).sum()),
        customers: Names::default(),
        products: Names::default(),
        vat_included: false,
        has_cost: false,
    };
    for f in frames {
        let (total_rows, no_amount) = frame_lines(f, &mut sales);
        skipped.push(vec![("total_row", total_rows), ("no_amount", no_amount)]);
    }
    sales
}

/// The numbers of one row as read; the VAT rate as a fraction.
struct RowNumbers {
    base: Option<Decimal>,
    amount: Option<Decimal>,
    total: Option<Decimal>,
    qty: Option<Decimal>,
    price: Option<Decimal>,
    discount: Option<Decimal>,
    vat_rate: Option<Decimal>,
    vat_amount: Option<Decimal>,
    cost: Option<Decimal>,
}

/// How a frame's headers say its numbers are meant.
struct Reading {
    discount_is_pct: bool,
    price_with_vat: bool,
    cost_is_total: bool,
}

/// A line's amounts; `vat_included` when the revenue could only come from a
/// total with nothing to take its VAT off.
struct Amounts {
    revenue: Decimal,
    with_vat: Decimal,
    cost: Option<Decimal>,
    discount: Decimal,
    vat_included: bool,
}

/// The revenue is the base, else the amount, else quantity × price less
/// discount, else the total less VAT; None when none is there.
fn line_amounts(row: &RowNumbers, reading: &Reading) -> Option<Amounts> {
    let list = match (row.qty, row.price) {
        (Some(q), Some(p)) => Some(q * p),
        _ => None,
    };
    let discount = match (row.discount, list) {
        (Some(d), Some(l)) if reading.discount_is_pct => l * d / HUNDRED,
        (Some(d), _) if !reading.discount_is_pct => d,
        _ => Decimal::ZERO,
    };
    let from_price = list.map(|l| {
        let net = l - discount;
        if reading.price_with_vat {
            net / (Decimal::ONE + row.vat_rate.unwrap_or(Decimal::new(21, 2)))
        } else {
            net
        }
    });
    let from_total = row.total.map(|t| match (row.vat_amount, row.vat_rate) {
        (Some(c), _) => t - c,
        (None, Some(r)) => t / (Decimal::ONE + r),
        (None, None) => t,
    });
    let net = row.base.or(row.amount).or(from_price);
    let revenue = net.or(from_total)?;
    let with_vat = row
        .total
        .or(row.vat_amount.map(|c| revenue + c))
        .or(row.vat_rate.map(|r| revenue * (Decimal::ONE + r)))
        .unwrap_or(revenue);
    let cost = row.cost.map(|c| match row.qty {
        Some(q) if !reading.cost_is_total => q * c,
        _ => c,
    });
    Some(Amounts {
        revenue,
        with_vat,
        cost,
        discount,
        vat_included: net.is_none() && row.vat_amount.is_none() && row.vat_rate.is_none(),
    })
}

/// Reads one frame's lines into `sales`; returns the total rows and the
/// rows without an amount.
fn frame_lines<'a>(f: &'a Frame<'a>, sales: &mut Sales<'a>) -> (usize, usize) {
    let (base, amount, total) = (
        col(f, Role::Base),
        col(f, Role::Importe),
        col(f, Role::Total),
    );
    let (qty, price, discount) = (
        col(f, Role::Cantidad),
        col(f, Role::Precio),
        col(f, Role::Descuento),
    );
    let (vat_rate, vat_amount, cost) = (
        col(f, Role::TipoIva),
        col(f, Role::CuotaIva),
        col(f, Role::Coste),
    );
    let dates = f.dates(Role::Fecha);
    let due = f.dates(Role::Vencimiento);
    let mut docs = f.texts(Role::Documento);
    let paid = f.bools(Role::Estado);
    let mut customers = f.per_text(Role::Cliente);
    let mut products = f.per_text(Role::Producto);
    let reading = Reading {
        discount_is_pct: f
            .column_header(Role::Descuento)
            .is_some_and(|h| h.hints.rate),
        price_with_vat: f
            .column_header(Role::Precio)
            .is_some_and(|h| h.has("pvp") && !h.has("sin") && !h.has("neto")),
        cost_is_total: f.column_header(Role::Coste).is_some_and(|h| h.has("total")),
    };
    sales.has_cost |= f.has(Role::Coste);
    let totals = f.total_rows();
    let (mut total_rows, mut no_amount) = (0, 0);
    for i in 0..f.len() {
        if totals[i] {
            total_rows += 1;
            continue;
        }
        let row = RowNumbers {
            base: base[i],
            amount: amount[i],
            total: total[i],
            qty: qty[i],
            price: price[i],
            discount: discount[i],
            vat_rate: vat_rate[i].map(|r| r / HUNDRED),
            vat_amount: vat_amount[i],
            cost: cost[i],
        };
        let Some(amounts) = line_amounts(&row, &reading) else {
            no_amount += 1;
            continue;
        };
        sales.vat_included |= amounts.vat_included;
        let revenue = amounts.revenue;
        sales.lines.push(Line {
            date: dates.as_ref().and_then(|d| d[i]),
            doc: docs.as_mut().and_then(|d| d[i].take()),
            customer: customers
                .as_mut()
                .and_then(|c| c.get(i, |t| sales.customers.id(t))),
            product: products
                .as_mut()
                .and_then(|p| p.get(i, |t| sales.products.id(t))),
            qty: row.qty,
            revenue,
            with_vat: amounts.with_vat,
            cost: amounts.cost,
            discount: amounts.discount,
            below_cost: amounts
                .cost
                .is_some_and(|c| revenue > Decimal::ZERO && revenue < c),
            paid: paid.as_ref().and_then(|p| p[i]),
            due: due.as_ref().and_then(|d| d[i]),
        });
    }
    (total_rows, no_amount)
}

pub fn has_amount(f: &Frame) -> bool {
    f.has(Role::Importe)
        || f.has(Role::Base)
        || f.has(Role::Total)
        || (f.has(Role::Cantidad) && f.has(Role::Precio))
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    if !frames.iter().any(has_amount) {
        missing(b, Module::Ventas, frames, ("importe", "amount"));
        return;
    }
    let mut skipped = Vec::new();
    let sales = lines(frames, &mut skipped);
    for (f, s) in frames.iter().zip(&skipped) {
        b.note_frame(f, s);
    }
    let lines = &sales.lines;
    b.quality.rows_analysed = lines.len() as u64;
    let dates: Vec<NaiveDate> = lines.iter().filter_map(|x| x.date).collect();
    note_odd_dates(b, &dates, as_of);
    let span = period(dates.iter().copied());
    b.scope(lines.len(), sheet_total(frames), span);
    if sales.vat_included {
        b.note(
            "Importes con IVA: no hay base imponible ni tipo de IVA.".into(),
            "Amounts include VAT: there is no taxable base or VAT rate.".into(),
        );
    }
    let repeated = repeated_lines(lines);
    if repeated > 0 {
        b.note(
            format!("{repeated} líneas repetidas (misma fecha, documento e importe): se han contado, revísalas."),
            format!("{repeated} repeated lines (same date, document and amount): counted, check them."),
        );
    }
    super::note_outliers(b, lines.iter().map(|x| x.revenue));
    report(b, &SalesFigures::of(&sales, span, as_of));
    b.actions
        .push(crate::analyses::actions::compare(Module::Ventas, b.lang));
    b.actions
        .push(crate::analyses::actions::analyze(Module::Caja, b.lang));
}

/// A line's date, document and amount: equal keys are repeated lines.
/// Hashed without the amount (hashing a `Decimal` normalises it), which
/// keeps equal keys hashing alike.
#[derive(PartialEq, Eq)]
struct Repeat<'a>(Option<NaiveDate>, Option<&'a str>, Decimal);

impl Hash for Repeat<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.0, self.1).hash(state);
    }
}

/// Lines with a document that repeat an earlier line's date, document and amount.
fn repeated_lines(lines: &[Line]) -> usize {
    let mut seen = HashSet::with_capacity(lines.len());
    lines
        .iter()
        .filter(|x| x.doc.is_some())
        .filter(|x| !seen.insert(Repeat(x.date, x.doc.as_deref(), x.revenue)))
        .count()
}

/// Every figure the sales report quotes.
struct SalesFigures {
    revenue: Decimal,
    /// Distinct documents, else lines.
    operations: usize,
    average_ticket: Decimal,
    units: Option<UnitsSold>,
    customers: Option<Customers>,
    /// None without dates.
    trend: Option<Trend>,
    products: Option<Products>,
    margin: Option<Margin>,
    discounts: Option<Discounts>,
    returns: Option<Returns>,
    receivables: Option<Receivables>,
}

struct UnitsSold {
    units: Decimal,
    average_price: Decimal,
}

struct Customers {
    concentration: Concentration,
    top1_revenue: Decimal,
    /// Share of customers buying on two or more dates, with 5 dated customers or more.
    repeat_rate: Option<Decimal>,
}

struct Trend {
    /// Last complete month against the one before.
    month_over_month: Option<Decimal>,
    /// Last complete month against the same month a year earlier.
    year_over_year: Option<Decimal>,
    /// Last 12 months against the first 12, with 24 months or more.
    compound_annual_growth: Option<Decimal>,
    last_3_months: Option<QuarterChange>,
    /// OLS slope of the monthly sales as % of the mean month.
    monthly_trend: Option<Decimal>,
    seasonal_peak: Option<Peak>,
}

/// The last 3 complete months against the 3 before.
struct QuarterChange {
    pct: Decimal,
    eur: Decimal,
}

struct Peak {
    month: NaiveDate,
    sales: Decimal,
}

/// ABC of the products by revenue, with 3 products or more.
struct Products {
    count: usize,
    class_a: usize,
    class_c_items_share: Decimal,
    class_c_value_share: Decimal,
    class_c_value: Decimal,
}

/// Over the lines with a cost.
struct Margin {
    cogs: Decimal,
    gross_margin: Decimal,
    gross_margin_pct: Decimal,
    /// None when the cost is 0.
    markup: Option<Decimal>,
    below_cost_lines: usize,
    below_cost_loss: Decimal,
}

struct Discounts {
    amount: Decimal,
    /// On gross sales (revenue + discounts).
    rate: Decimal,
}

struct Returns {
    amount: Decimal,
    rate: Decimal,
}

/// Amounts with VAT of the unpaid lines.
struct Receivables {
    pending: Decimal,
    overdue: Decimal,
    overdue_60: Decimal,
    overdue_60_share: Decimal,
    days_sales_outstanding: Option<Decimal>,
}

impl SalesFigures {
    fn of(sales: &Sales, span: Option<Period>, as_of: NaiveDate) -> Self {
        let lines = &sales.lines;
        let revenue: Decimal = lines.iter().map(|x| x.revenue).sum();
        let mut docs = HashSet::with_capacity(lines.len());
        docs.extend(lines.iter().filter_map(|x| x.doc.as_deref()));
        let operations = if docs.is_empty() {
            lines.len()
        } else {
            docs.len()
        };
        let units: Decimal = lines.iter().filter_map(|x| x.qty).sum();
        SalesFigures {
            revenue,
            operations,
            average_ticket: stats::ratio(revenue, operations.into()).unwrap_or_default(),
            units: (lines.iter().any(|x| x.qty.is_some()) && !units.is_zero()).then(|| UnitsSold {
                units,
                average_price: revenue / units,
            }),
            customers: Customers::of(sales),
            trend: span.map(|span| Trend::of(lines, span)),
            products: Products::of(sales, revenue),
            margin: Margin::of(sales, revenue),
            discounts: Discounts::of(lines, revenue),
            returns: Returns::of(lines, revenue),
            receivables: Receivables::of(lines, revenue, span, as_of),
        }
    }
}

impl Customers {
    fn of(sales: &Sales) -> Option<Self> {
        let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
        for x in &sales.lines {
            if let Some(c) = x.customer {
                *totals.entry(c).or_default() += x.revenue;
            }
        }
        if totals.is_empty() {
            return None;
        }
        let ranked = ranked(&by_name(&sales.customers, &totals));
        let concentration = concentration(&ranked)?;
        Some(Customers {
            concentration,
            top1_revenue: ranked[0].1,
            repeat_rate: repeat_rate(sales),
        })
    }
}

fn repeat_rate(sales: &Sales) -> Option<Decimal> {
    let mut days: BTreeMap<usize, BTreeSet<NaiveDate>> = BTreeMap::new();
    for x in &sales.lines {
        if let (Some(c), Some(d)) = (x.customer, x.date) {
            days.entry(c).or_default().insert(d);
        }
    }
    if days.len() < 5 {
        return None;
    }
    let repeaters = days.values().filter(|d| d.len() >= 2).count();
    Some(pct(repeaters.into(), days.len().into()))
}

impl Trend {
    fn of(lines: &[Line], span: Period) -> Self {
        let series = monthly(lines.iter().filter_map(|x| x.date.map(|d| (d, x.revenue))));
        let months = complete_months(&series, span.from, span.to);
        let sales: Vec<f64> = months.iter().map(|m| to_f64(m.1)).collect();
        let mean = sales.iter().sum::<f64>() / sales.len() as f64;
        Trend {
            month_over_month: month_over_month(&months),
            year_over_year: year_over_year(&months),
            compound_annual_growth: compound_annual_growth(&months),
            last_3_months: QuarterChange::of(&months),
            monthly_trend: (months.len() >= 4 && mean > 0.0)
                .then(|| from_f64(stats::ols_slope(&sales) / mean * 100.0)),
            seasonal_peak: Peak::of(&months, &sales, mean),
        }
    }
}

fn month_over_month(months: &[(NaiveDate, Decimal)]) -> Option<Decimal> {
    let n = months.len();
    (n >= 2 && months[n - 2].1 > Decimal::ZERO)
        .then(|| (months[n - 1].1 / months[n - 2].1 - Decimal::ONE) * HUNDRED)
}

fn year_over_year(months: &[(NaiveDate, Decimal)]) -> Option<Decimal> {
    let (last_month, now) = months.last()?;
    let target = last_month.checked_sub_months(chrono::Months::new(12))?;
    let (_, then) = months.iter().find(|(x, _)| *x == target)?;
    (*then > Decimal::ZERO).then(|| (*now / *then - Decimal::ONE) * HUNDRED)
}

fn compound_annual_growth(months: &[(NaiveDate, Decimal)]) -> Option<Decimal> {
    let n = months.len();
    if n < 24 {
        return None;
    }
    let first: Decimal = months[..12].iter().map(|m| m.1).sum();
    let latest: Decimal = months[n - 12..].iter().map(|m| m.1).sum();
    if first <= Decimal::ZERO || latest <= Decimal::ZERO {
        return None;
    }
    let years = (n - 12) as f64 / 12.0;
    let cagr = (to_f64(latest) / to_f64(first)).powf(1.0 / years) - 1.0;
    Some(from_f64(cagr * 100.0))
}

impl QuarterChange {
    /// None with fewer than 6 months or nothing in the earlier 3.
    fn of(months: &[(NaiveDate, Decimal)]) -> Option<Self> {
        let n = months.len();
        if n < 6 {
            return None;
        }
        let last: Decimal = months[n - 3..].iter().map(|m| m.1).sum();
        let previous: Decimal = months[n - 6..n - 3].iter().map(|m| m.1).sum();
        (previous > Decimal::ZERO).then(|| QuarterChange {
            pct: (last / previous - Decimal::ONE) * HUNDRED,
            eur: last - previous,
        })
    }
}

impl Peak {
    /// With 12 months or more: the best month when it is over twice the
    /// mean or the months vary widely (coefficient of variation over 0.35).
    fn of(months: &[(NaiveDate, Decimal)], sales: &[f64], mean: f64) -> Option<Self> {
        if months.len() < 12 {
            return None;
        }
        let (peak_index, peak) =
            sales.iter().enumerate().fold(
                (0, f64::MIN),
                |acc, (i, y)| if *y > acc.1 { (i, *y) } else { acc },
            );
        (mean > 0.0 && (peak > 2.0 * mean || stats::cv(sales) > 0.35)).then(|| Peak {
            month: months[peak_index].0,
            sales: from_f64(peak),
        })
    }
}

impl Products {
    fn of(sales: &Sales, revenue: Decimal) -> Option<Self> {
        let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
        for x in &sales.lines {
            if let Some(p) = x.product {
                *totals.entry(p).or_default() += x.revenue;
            }
        }
        if totals.len() < 3 {
            return None;
        }
        let ranked = ranked(&by_name(&sales.products, &totals));
        let classes = abc(&ranked);
        let class_c_items = classes.iter().filter(|c| **c == 'C').count();
        let class_c_value: Decimal = ranked
            .iter()
            .zip(&classes)
            .filter(|(_, c)| **c == 'C')
            .map(|(x, _)| x.1)
            .sum();
        Some(Products {
            count: ranked.len(),
            class_a: classes.iter().filter(|c| **c == 'A').count(),
            class_c_items_share: pct(class_c_items.into(), ranked.len().into()),
            class_c_value_share: pct(class_c_value, revenue),
            class_c_value,
        })
    }
}

impl Margin {
    /// None without a cost column or without revenue.
    fn of(sales: &Sales, revenue: Decimal) -> Option<Self> {
        if !sales.has_cost || revenue <= Decimal::ZERO {
            return None;
        }
        let costed: Vec<&Line> = sales.lines.iter().filter(|x| x.cost.is_some()).collect();
        let cogs: Decimal = costed.iter().filter_map(|x| x.cost).sum();
        let revenue_costed: Decimal = costed.iter().map(|x| x.revenue).sum();
        let gross_margin = revenue_costed - cogs;
        let below: Vec<&&Line> = costed.iter().filter(|x| x.below_cost).collect();
        Some(Margin {
            cogs,
            gross_margin,
            gross_margin_pct: pct(gross_margin, revenue_costed),
            markup: (!cogs.is_zero()).then(|| pct(gross_margin, cogs)),
            below_cost_lines: below.len(),
            below_cost_loss: below
                .iter()
                .map(|x| x.cost.unwrap_or_default() - x.revenue)
                .sum(),
        })
    }
}

impl Discounts {
    fn of(lines: &[Line], revenue: Decimal) -> Option<Self> {
        let amount: Decimal = lines.iter().map(|x| x.discount).sum();
        (amount > Decimal::ZERO).then(|| Discounts {
            amount,
            rate: pct(amount, revenue + amount),
        })
    }
}

impl Returns {
    fn of(lines: &[Line], revenue: Decimal) -> Option<Self> {
        let amount: Decimal = lines
            .iter()
            .filter(|x| x.revenue < Decimal::ZERO)
            .map(|x| -x.revenue)
            .sum();
        (amount > Decimal::ZERO && revenue > Decimal::ZERO).then(|| Returns {
            amount,
            rate: pct(amount, revenue),
        })
    }
}

impl Receivables {
    /// None when no line says whether it was paid.
    fn of(
        lines: &[Line],
        revenue: Decimal,
        span: Option<Period>,
        as_of: NaiveDate,
    ) -> Option<Self> {
        if !lines.iter().any(|x| x.paid.is_some()) {
            return None;
        }
        let unpaid: Vec<&Line> = lines.iter().filter(|x| x.paid == Some(false)).collect();
        let pending: Decimal = unpaid.iter().map(|x| x.with_vat).sum();
        let overdue_60: Decimal = unpaid
            .iter()
            .filter(|x| x.due.is_some_and(|d| (as_of - d).num_days() > 60))
            .map(|x| x.with_vat)
            .sum();
        let sales_with_vat: Decimal = lines.iter().map(|x| x.with_vat).sum();
        let days = span.map_or(0, |s| (s.to - s.from).num_days() + 1);
        Some(Receivables {
            pending,
            overdue: unpaid
                .iter()
                .filter(|x| x.due.is_some_and(|d| d < as_of))
                .map(|x| x.with_vat)
                .sum(),
            overdue_60,
            overdue_60_share: pct(overdue_60, revenue),
            days_sales_outstanding: (days > 0 && sales_with_vat > Decimal::ZERO)
                .then(|| pending / sales_with_vat * Decimal::from(days)),
        })
    }
}

fn report(b: &mut Builder, figures: &SalesFigures) {
    write_revenue(b, figures);
    if let Some(customers) = &figures.customers {
        write_customers(b, customers, figures.revenue);
        if let Some(rate) = customers.repeat_rate {
            write_repeat_rate(b, rate);
        }
    }
    if let Some(trend) = &figures.trend {
        write_trend(b, trend);
    }
    if let Some(products) = &figures.products {
        write_products(b, products);
    }
    if let Some(margin) = &figures.margin {
        write_margin(b, margin);
    }
    if let Some(discounts) = &figures.discounts {
        write_discounts(b, discounts);
    }
    if let Some(returns) = &figures.returns {
        b.fig(
            "returns",
            ("Devoluciones y abonos", "Returns and credit notes"),
            returns.amount,
            Unit::Eur,
        );
        b.fig(
            "returns_rate",
            ("Devoluciones sobre ventas", "Returns on sales"),
            returns.rate,
            Unit::Pct,
        );
    }
    if let Some(receivables) = &figures.receivables {
        write_receivables(b, receivables);
    }
}

/// Revenue, sales and average ticket (the headline), units and average price.
fn write_revenue(b: &mut Builder, figures: &SalesFigures) {
    let revenue = b.fig(
        "revenue",
        ("Facturación", "Revenue"),
        figures.revenue,
        Unit::Eur,
    );
    let operations = b.fig(
        "operations",
        ("Operaciones", "Sales"),
        figures.operations.into(),
        Unit::Count,
    );
    let ticket = b.fig(
        "average_ticket",
        ("Ticket medio", "Average ticket"),
        figures.average_ticket,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!(
            "Facturación de {revenue} en {operations} operaciones, con un ticket medio de {ticket}."
        ),
        format!(
            "Revenue of {revenue} from {operations} sales, with an average ticket of {ticket}."
        ),
    ));
    if let Some(units) = &figures.units {
        b.fig("units", ("Unidades", "Units"), units.units, Unit::Count);
        b.fig(
            "average_price",
            ("Precio medio", "Average price"),
            units.average_price,
            Unit::Eur,
        );
    }
}

/// V1 (largest customer over 30 %), V2 (concentrated base), V3 (diversified base).
fn write_customers(b: &mut Builder, customers: &Customers, revenue: Decimal) {
    let c = &customers.concentration;
    let count = b.fig(
        "customers",
        ("Clientes", "Customers"),
        c.count.into(),
        Unit::Count,
    );
    let top1 = b.fig(
        "top1_share",
        ("Peso del mayor cliente", "Largest customer share"),
        c.top1,
        Unit::Pct,
    );
    let top5 = b.fig(
        "top5_share",
        ("Peso de los 5 mayores", "Top 5 share"),
        c.top5,
        Unit::Pct,
    );
    let hhi = b.fig("hhi", ("Índice HHI", "HHI"), c.hhi, Unit::Count);
    let pareto_customers = b.fig(
        "pareto_customers",
        ("Clientes que hacen el 80 %", "Customers making 80%"),
        c.pareto_k.into(),
        Unit::Count,
    );
    let pareto = b.fig(
        "pareto_share",
        (
            "Peso de los clientes del 80 %",
            "Share of the 80% customers",
        ),
        c.pareto_share,
        Unit::Pct,
    );
    if c.top1 > Decimal::from(30) {
        write_largest_customer(b, customers, &top1);
    }
    if c.top5 > Decimal::from(70) || c.hhi > Decimal::from(2500) {
        let effective = b.fig(
            "effective_customers",
            ("Clientes equivalentes", "Equivalent customers"),
            c.effective,
            Unit::Count,
        );
        b.priority(
            "V2",
            Severity::Medium,
            revenue * c.top5 / HUNDRED / Decimal::from(5),
            b.pick(
                format!("Cartera concentrada: los cinco mayores clientes suman el {top5} (índice HHI {hhi}), equivale a {effective} clientes del mismo tamaño."),
                format!("Concentrated customer base: the top five make {top5} (HHI {hhi}), like {effective} customers of equal size."),
            ),
            Horizon::Quarter,
            b.pick(
                "Este trimestre: haz crecer las cuentas medianas y lanza una oferta por recomendación.".into(),
                "This quarter: grow mid-size accounts and launch a referral offer.".into(),
            ),
        );
    }
    if c.hhi < Decimal::from(1000) && c.count >= 20 {
        b.strength(
            "V3",
            revenue,
            b.pick(
                format!("Cartera diversificada: {count} clientes e índice HHI de {hhi}; {pareto_customers} clientes hacen el {pareto} de las ventas (principio de Pareto)."),
                format!("Diversified customers: {count} customers and an HHI of {hhi}; {pareto_customers} customers make {pareto} of sales (Pareto principle)."),
            ),
        );
    }
}

/// V1: the largest customer makes over 30 % of sales (over 50 %: high).
fn write_largest_customer(b: &mut Builder, customers: &Customers, top1: &str) {
    let c = &customers.concentration;
    let at_stake = b.fig(
        "top1_revenue",
        ("Ventas del mayor cliente", "Largest customer revenue"),
        customers.top1_revenue,
        Unit::Eur,
    );
    let severity = if c.top1 > Decimal::from(50) {
        Severity::High
    } else {
        Severity::Medium
    };
    let name = &c.top1_name;
    b.priority(
        "V1",
        severity,
        customers.top1_revenue,
        b.pick(
            format!("«{name}» concentra el {top1} de las ventas: si lo pierdes, la facturación bajaría {at_stake}."),
            format!("«{name}» makes {top1} of sales: losing it would cut revenue by {at_stake}."),
        ),
        Horizon::Quarter,
        b.pick(
            format!("Este trimestre: asegura a «{name}» con contrato o anticipo y busca 5 clientes parecidos para bajar su peso de {top1}."),
            format!("This quarter: secure «{name}» with a contract or advance payment and list 5 lookalike prospects to bring its {top1} share down."),
        ),
    );
}

/// V11: half the customers or more buy again.
fn write_repeat_rate(b: &mut Builder, rate: Decimal) {
    let shown = b.fig(
        "repeat_rate",
        ("Clientes que repiten", "Repeat customers"),
        rate,
        Unit::Pct,
    );
    if rate >= Decimal::from(50) {
        b.strength(
            "V11",
            Decimal::ZERO,
            b.pick(
                format!("Clientes que repiten: el {shown} compra en dos o más fechas."),
                format!("Loyal repeat customers: {shown} buy on two or more dates."),
            ),
        );
    }
}

/// Growth rates, V4/V5 (last 3 months down or up 10 %), the monthly trend
/// and V10 (seasonality).
fn write_trend(b: &mut Builder, trend: &Trend) {
    if let Some(mom) = trend.month_over_month {
        b.fig(
            "mom",
            ("Variación del último mes", "Month over month"),
            mom,
            Unit::Pct,
        );
    }
    if let Some(yoy) = trend.year_over_year {
        b.fig(
            "yoy",
            (
                "Variación interanual del último mes",
                "Year over year (last month)",
            ),
            yoy,
            Unit::Pct,
        );
    }
    if let Some(cagr) = trend.compound_annual_growth {
        b.fig(
            "cagr",
            ("Crecimiento anual compuesto", "Compound annual growth"),
            cagr,
            Unit::Pct,
        );
    }
    if let Some(change) = &trend.last_3_months {
        write_quarter_change(b, change);
    }
    if let Some(monthly_trend) = trend.monthly_trend {
        b.fig(
            "trend_month",
            ("Tendencia mensual", "Monthly trend"),
            monthly_trend,
            Unit::Pct,
        );
    }
    if let Some(peak) = &trend.seasonal_peak {
        let month = format::month(peak.month, b.lang);
        let peak_shown = b.fig(
            "peak_month",
            ("Ventas del mes pico", "Peak month sales"),
            peak.sales,
            Unit::Eur,
        );
        b.priority(
            "V10",
            Severity::Low,
            Decimal::ZERO,
            b.pick(
                format!("Estacionalidad: pico en {month} con {peak_shown}."),
                format!("Strong seasonality: peak in {month} with {peak_shown}."),
            ),
            Horizon::Quarter,
            b.pick(
                "Este trimestre: ahorra en los meses fuertes y prepara campañas para los flojos."
                    .into(),
                "This quarter: save in peak months and plan campaigns for the valley.".into(),
            ),
        );
    }
}

/// V4: the last 3 months down 10 % or more; V5: up 10 % or more.
fn write_quarter_change(b: &mut Builder, change: &QuarterChange) {
    let shown = b.fig(
        "change_3m",
        (
            "Últimos 3 meses frente a los 3 anteriores",
            "Last 3 months vs previous 3",
        ),
        change.pct,
        Unit::Pct,
    );
    let diff = b.fig(
        "change_3m_eur",
        (
            "Diferencia de los últimos 3 meses",
            "Last 3 months difference",
        ),
        change.eur,
        Unit::Eur,
    );
    if change.pct <= Decimal::from(-10) {
        b.priority(
            "V4",
            Severity::High,
            change.eur,
            b.pick(
                format!("Ventas {shown} en el último trimestre frente al anterior ({diff})."),
                format!("Sales {shown} in the last quarter against the one before ({diff})."),
            ),
            Horizon::Week,
            b.pick(
                "Esta semana: llama a los mayores clientes que han dejado de comprar y compara precio y volumen con el periodo anterior.".into(),
                "This week: call the biggest customers who stopped buying and split price from volume against the previous period.".into(),
            ),
        );
    } else if change.pct >= Decimal::from(10) {
        b.strength(
            "V5",
            change.eur,
            b.pick(
                format!("Ventas +{shown} en el último trimestre frente al anterior ({diff})."),
                format!("Sales up {shown} in the last quarter against the one before ({diff})."),
            ),
        );
    }
}

/// V8: over half the products in class C making under 5 % of sales.
fn write_products(b: &mut Builder, products: &Products) {
    b.fig(
        "products",
        ("Productos", "Products"),
        products.count.into(),
        Unit::Count,
    );
    b.fig(
        "class_a_products",
        ("Productos clase A", "Class A products"),
        products.class_a.into(),
        Unit::Count,
    );
    if products.class_c_items_share <= Decimal::from(50)
        || products.class_c_value_share >= Decimal::from(5)
    {
        return;
    }
    let items = b.fig(
        "class_c_items_share",
        ("Productos clase C", "Class C products"),
        products.class_c_items_share,
        Unit::Pct,
    );
    let value = b.fig(
        "class_c_value_share",
        ("Ventas de la clase C", "Class C sales"),
        products.class_c_value_share,
        Unit::Pct,
    );
    b.priority(
        "V8",
        Severity::Low,
        products.class_c_value,
        b.pick(
            format!("Cola larga de productos poco vendidos: el {items} de los productos (clase C del análisis ABC) hace solo el {value} de las ventas."),
            format!("Long tail of slow sellers: {items} of products (class C in the ABC analysis) make only {value} of sales."),
        ),
        Horizon::Quarter,
        b.pick(
            "Este trimestre: elimina o agrupa la cola de productos clase C y empuja los de clase A.".into(),
            "This quarter: prune or bundle the class C tail and push class A items.".into(),
        ),
    );
}

/// Gross margin and markup; V6: lines sold below cost.
fn write_margin(b: &mut Builder, margin: &Margin) {
    b.fig(
        "cogs",
        ("Coste de ventas", "Cost of goods sold"),
        margin.cogs,
        Unit::Eur,
    );
    b.fig(
        "gross_margin",
        ("Margen bruto", "Gross margin"),
        margin.gross_margin,
        Unit::Eur,
    );
    b.fig(
        "gross_margin_pct",
        ("Margen bruto %", "Gross margin %"),
        margin.gross_margin_pct,
        Unit::Pct,
    );
    if let Some(markup) = margin.markup {
        b.fig(
            "markup",
            ("Recargo sobre coste", "Markup"),
            markup,
            Unit::Pct,
        );
    }
    if margin.below_cost_lines == 0 {
        return;
    }
    let lines = b.fig(
        "below_cost_lines",
        ("Líneas bajo coste", "Lines below cost"),
        margin.below_cost_lines.into(),
        Unit::Count,
    );
    let shown = b.fig(
        "below_cost_loss",
        ("Pérdida en líneas bajo coste", "Loss on lines below cost"),
        margin.below_cost_loss,
        Unit::Eur,
    );
    b.priority(
        "V6",
        Severity::High,
        margin.below_cost_loss,
        b.pick(
            format!("Vendes por debajo de coste en {lines} líneas: pierdes {shown}."),
            format!("Selling below cost on {lines} lines: {shown} lost."),
        ),
        Horizon::Week,
        b.pick(
            format!("Esta semana: sube el precio o deja de vender esas {lines} líneas y limita los descuentos."),
            format!("This week: reprice or drop those {lines} lines and cap discounts."),
        ),
    );
}

/// V9: discounts over 10 % of gross sales.
fn write_discounts(b: &mut Builder, discounts: &Discounts) {
    let shown = b.fig(
        "discount_rate",
        ("Descuentos sobre venta bruta", "Discounts on gross sales"),
        discounts.rate,
        Unit::Pct,
    );
    if discounts.rate <= Decimal::from(10) {
        return;
    }
    let amount = b.fig(
        "discounts",
        ("Descuentos", "Discounts"),
        discounts.amount,
        Unit::Eur,
    );
    b.priority(
        "V9",
        Severity::Medium,
        discounts.amount,
        b.pick(
            format!("Descuentos altos: {amount}, el {shown} de la venta bruta."),
            format!("High discounts: {amount}, {shown} of gross sales."),
        ),
        Horizon::Month,
        b.pick(
            "Este mes: escribe una política de descuentos con límites por cliente y producto."
                .into(),
            "This month: write a discount policy with limits per customer and product.".into(),
        ),
    );
}

/// V12: over 10 % of revenue overdue for 60 days, or a collection period
/// over 60 days.
fn write_receivables(b: &mut Builder, receivables: &Receivables) {
    let shown = b.fig(
        "pending",
        ("Pendiente de cobro", "Pending collection"),
        receivables.pending,
        Unit::Eur,
    );
    let dso = receivables.days_sales_outstanding;
    let dso_shown = dso.map(|d| {
        b.fig(
            "dso",
            ("Periodo medio de cobro", "Days sales outstanding"),
            d,
            Unit::Days,
        )
    });
    if receivables.overdue > Decimal::ZERO {
        b.fig(
            "overdue",
            ("Vencido sin cobrar", "Overdue"),
            receivables.overdue,
            Unit::Eur,
        );
    }
    let dso_high = dso.is_some_and(|d| d > Decimal::from(60));
    if receivables.overdue_60_share <= Decimal::from(10) && !dso_high {
        return;
    }
    let amount = b.fig(
        "overdue_60",
        ("Vencido hace más de 60 días", "Overdue over 60 days"),
        receivables.overdue_60,
        Unit::Eur,
    );
    let text = match (dso_shown, dso_high) {
        (Some(d), true) => b.pick(
            format!("{amount} vencidos hace más de dos meses y un periodo medio de cobro de {d}; pendiente total {shown}."),
            format!("{amount} overdue for over two months and days sales outstanding of {d}; {shown} pending in all."),
        ),
        _ => b.pick(
            format!("{amount} vencidos hace más de dos meses sin cobrar; pendiente total {shown}."),
            format!("{amount} overdue for over two months; {shown} pending in all."),
        ),
    };
    b.priority(
        "V12",
        Severity::High,
        receivables.overdue_60.max(receivables.pending),
        text,
        Horizon::Week,
        b.pick(
            format!("Esta semana: reclama {amount} vencidos; la ley permite intereses de demora y 40 € por factura (consúltalo con tu asesor)."),
            format!("This week: claim the {amount} overdue; the law allows late interest plus €40 per invoice (check with your adviser)."),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::modules::{figure, report_of};
    use crate::analyses::request::{Cell, Lang, Row, Sheet};
    use rust_decimal::dec;

    fn sheet(rows: &[(&str, &str, &str, Decimal, Decimal, Decimal)]) -> Sheet {
        Sheet {
            name: "ventas.xlsx".into(),
            rows: rows
                .iter()
                .map(|(fecha, doc, cliente, q, p, c)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(fecha.to_string())),
                        ("Factura".into(), Cell::Text(doc.to_string())),
                        ("Cliente".into(), Cell::Text(cliente.to_string())),
                        ("Cantidad".into(), Cell::Number(*q)),
                        ("Precio".into(), Cell::Number(*p)),
                        ("Coste unitario".into(), Cell::Number(*c)),
                    ])
                })
                .collect(),
            total_rows: None,
        }
    }

    #[test]
    fn revenue_ticket_concentration_and_margin_by_hand() {
        // lines: 2×100 (A), 1×50 (A, same invoice), 4×25 (B), 1×40 (C), 2×30 (A)
        // R = 200 + 50 + 100 + 40 + 60 = 450; invoices F1, F2, F3, F4 → ticket 112.50
        // customers A 310, B 100, C 40 → shares 68.89, 22.22, 8.89; HHI 4745.7 + 493.8 + 79.0 = 5318.5
        // cost 2×60 + 1×20 + 4×30 + 1×10 + 2×10 = 290 → GM 160, 35.6 %; B sells below cost (100 < 120)
        let s = sheet(&[
            ("02/01/2025", "F1", "Ana S.L.", dec!(2), dec!(100), dec!(60)),
            ("02/01/2025", "F1", "ANA SL", dec!(1), dec!(50), dec!(20)),
            ("10/01/2025", "F2", "Berta", dec!(4), dec!(25), dec!(30)),
            ("15/02/2025", "F3", "Carlos", dec!(1), dec!(40), dec!(10)),
            ("20/02/2025", "F4", "Ana", dec!(2), dec!(30), dec!(10)),
        ]);
        let r = report_of(
            &s,
            Module::Ventas,
            Lang::Es,
            NaiveDate::from_ymd_opt(2025, 3, 1).unwrap(),
            analyze,
        );
        assert_eq!(figure(&r, "revenue"), dec!(450));
        assert_eq!(figure(&r, "operations"), dec!(4));
        assert_eq!(figure(&r, "average_ticket"), dec!(112.5));
        assert_eq!(figure(&r, "customers"), dec!(3));
        assert_eq!(figure(&r, "top1_share"), dec!(68.9));
        assert_eq!(figure(&r, "hhi"), dec!(5319));
        assert_eq!(figure(&r, "gross_margin"), dec!(160));
        assert_eq!(figure(&r, "gross_margin_pct"), dec!(35.6));
        assert_eq!(figure(&r, "markup"), dec!(55.2));
        assert_eq!(figure(&r, "below_cost_lines"), dec!(1));
        assert_eq!(figure(&r, "below_cost_loss"), dec!(20));
        assert_eq!(figure(&r, "units"), dec!(10));
        assert_eq!(figure(&r, "average_price"), dec!(45));
        let ids: Vec<&str> = r.priorities.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["V1", "V6", "V2"]);
        assert!(r.summary.contains("450,00 €"), "{}", r.summary);
        assert!(
            r.priorities[0].text.contains("«Ana S.L.»"),
            "{}",
            r.priorities[0].text
        );
    }

    #[test]
    fn discounts_returns_receivables_repeat_and_growth_by_hand() {
        // gross 1000 − 10 % discount = 900 (Ana, 15/01); 500 − 20 % = 400 (Ana, 20/02, unpaid, due 01/03);
        // return −100 (Luis, 25/02); 300 (Eva, 10/03); 200 (Pío, 15/03); 100 (Sol, 25/03)
        // R = 1800; discounts 100 + 100 = 200 → 200 / 2000 = 10 %; returns 100 / 1800 = 5.6 %
        // repeat: Ana on two dates of 5 customers = 20 %; pending 400, 01/03 → 15/05 = 75 days overdue
        // DSO = 400 / 1800 × 70 days (15/01–25/03) = 15.6 → 16; months Jan 900, Feb 300, Mar 600: MoM +100 %
        let rows = [
            (
                "15/01/2025",
                "Ana",
                dec!(1000),
                dec!(10),
                "sí",
                "15/01/2025",
            ),
            ("20/02/2025", "Ana", dec!(500), dec!(20), "no", "01/03/2025"),
            (
                "25/02/2025",
                "Luis",
                dec!(-100),
                dec!(0),
                "sí",
                "25/02/2025",
            ),
            ("10/03/2025", "Eva", dec!(300), dec!(0), "sí", "10/03/2025"),
            ("15/03/2025", "Pío", dec!(200), dec!(0), "sí", "15/03/2025"),
            ("25/03/2025", "Sol", dec!(100), dec!(0), "sí", "25/03/2025"),
        ];
        let s = Sheet {
            name: "v".into(),
            rows: rows
                .iter()
                .map(|(d, c, p, dto, paid, due)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Cliente".into(), Cell::Text(c.to_string())),
                        ("Cantidad".into(), Cell::Number(dec!(1))),
                        ("Precio".into(), Cell::Number(*p)),
                        ("% Dto.".into(), Cell::Number(*dto)),
                        ("Cobrado".into(), Cell::Text(paid.to_string())),
                        ("Vencimiento".into(), Cell::Text(due.to_string())),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 5, 15).unwrap();
        let r = report_of(&s, Module::Ventas, Lang::Es, as_of, analyze);
        assert_eq!(figure(&r, "revenue"), dec!(1800));
        assert_eq!(figure(&r, "discount_rate"), dec!(10));
        assert_eq!(figure(&r, "returns"), dec!(100));
        assert_eq!(figure(&r, "returns_rate"), dec!(5.6));
        assert_eq!(figure(&r, "repeat_rate"), dec!(20));
        assert_eq!(figure(&r, "pending"), dec!(400));
        assert_eq!(figure(&r, "overdue_60"), dec!(400));
        assert_eq!(figure(&r, "dso"), dec!(16));
        assert_eq!(figure(&r, "mom"), dec!(100));
        assert!(
            r.priorities.iter().any(|p| p.id == "V12"),
            "400 of 1800 overdue > 60 days"
        );
    }

    #[test]
    fn three_months_against_the_previous_three() {
        // complete months Jan–Jun: 100 each Jan–Mar, 80 each Apr–Jun → −20 %
        let mut rows = Vec::new();
        for (m, amount) in [(1, 100), (2, 100), (3, 100), (4, 80), (5, 80), (6, 80)] {
            for day in ["01", "28"] {
                rows.push(Row(vec![
                    ("Fecha".into(), Cell::Text(format!("{day}/{m:02}/2025"))),
                    (
                        "Importe".into(),
                        Cell::Number(Decimal::from(amount) / dec!(2)),
                    ),
                ]));
            }
        }
        let s = Sheet {
            name: "v".into(),
            rows,
            total_rows: Some(100),
        };
        let r = report_of(
            &s,
            Module::Ventas,
            Lang::En,
            NaiveDate::from_ymd_opt(2025, 7, 1).unwrap(),
            analyze,
        );
        assert_eq!(figure(&r, "change_3m"), dec!(-20));
        assert_eq!(figure(&r, "rows_share"), dec!(12));
        assert_eq!(r.priorities[0].id, "V4");
        assert!(
            r.summary.starts_with(
                "Based on the 12 rows analysed out of 100 (12.0%), Jan 2025 – Jun 2025."
            ),
            "{}",
            r.summary
        );
    }
}
