//! `caja` (reference §2.5, rules C1–C5): inflows, outflows and net flow per
//! month, the running balance (opening balance from `saldo`), negative days,
//! burn and runway, cash payments over the legal limit. Debe/haber columns
//! are read the way that reproduces `saldo`. The figures are computed first
//! (`CashFigures`), then the report is written from them.

use std::borrow::Cow;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{Nums, col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::normalize::fold;
use crate::analyses::report::{Horizon, Period, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{from_f64, monthly, to_f64};

/// Cash payments from this amount are forbidden with a business involved (Ley 7/2012 art. 7).
const CASH_LIMIT: Decimal = Decimal::from_parts(1000, 0, 0, false, 0);

/// One movement: signed amount (in > 0).
#[derive(Clone, Debug)]
pub struct Movement {
    pub date: Option<NaiveDate>,
    pub amount: Decimal,
    pub saldo: Option<Decimal>,
    pub cash: bool,
    pub opening: bool,
}

/// +1 for income words, −1 for expense words in a `tipo` cell.
fn sign_of(tipo: &str) -> Option<Decimal> {
    let t = fold(tipo);
    let t = t.trim();
    if [
        "ingreso", "entrada", "cobro", "e", "+", "abono", "haber", "venta", "in", "income",
    ]
    .iter()
    .any(|w| t == *w || t.starts_with(&format!("{w} ")))
    {
        Some(Decimal::ONE)
    } else if [
        "gasto", "salida", "pago", "s", "-", "−", "cargo", "debe", "compra", "out", "expense",
    ]
    .iter()
    .any(|w| t == *w || t.starts_with(&format!("{w} ")))
    {
        Some(Decimal::NEGATIVE_ONE)
    } else {
        None
    }
}

pub fn has_amount(f: &Frame) -> bool {
    f.has(Role::Entrada) || f.has(Role::Salida) || f.has(Role::Importe)
}

/// The columns of one frame a movement is read from.
struct CashColumns<'f> {
    cash_in: Nums,
    cash_out: Nums,
    amount: Nums,
    saldo: Nums,
    tipos: Option<Vec<Option<Cow<'f, str>>>>,
    concepts: Option<Vec<Option<Cow<'f, str>>>>,
    means: Option<Vec<Option<Cow<'f, str>>>>,
    dates: Option<Vec<Option<NaiveDate>>>,
    totals: Vec<bool>,
}

impl<'f> CashColumns<'f> {
    fn of(f: &'f Frame) -> Self {
        CashColumns {
            cash_in: col(f, Role::Entrada),
            cash_out: col(f, Role::Salida),
            amount: col(f, Role::Importe),
            saldo: col(f, Role::Saldo),
            tipos: f.texts(Role::Tipo),
            concepts: f.texts(Role::Concepto),
            means: f.texts(Role::Medio),
            dates: f.dates(Role::Fecha),
            totals: f.total_rows(),
        }
    }

    /// The movements, oldest first; `flip` reads the out column as money in
    /// (a cash book's debe/haber).
    fn movements(&self, flip: bool) -> Vec<Movement> {
        let mut movements: Vec<Movement> = (0..self.totals.len())
            .filter(|i| !self.totals[*i])
            .filter_map(|i| self.movement(i, flip))
            .collect();
        // bank exports often list the newest first: read them oldest first
        let first = movements.iter().find_map(|x| x.date);
        let last = movements.iter().rev().find_map(|x| x.date);
        if first > last {
            movements.reverse();
        }
        movements
    }

    fn movement(&self, i: usize, flip: bool) -> Option<Movement> {
        let concept = self
            .concepts
            .as_ref()
            .and_then(|c| c[i].as_ref())
            .map(|c| fold(c))
            .unwrap_or_default();
        let opening = concept.contains("saldo anterior") || concept.contains("saldo inicial");
        let signed = if self.cash_in[i].is_some() || self.cash_out[i].is_some() {
            let money_in = self.cash_in[i].unwrap_or_default().abs();
            let money_out = self.cash_out[i].unwrap_or_default().abs();
            Some(if flip {
                money_out - money_in
            } else {
                money_in - money_out
            })
        } else {
            self.amount[i].map(|x| {
                let sign = self
                    .tipos
                    .as_ref()
                    .and_then(|t| t[i].as_deref())
                    .and_then(sign_of);
                sign.map_or(x, |s| s * x.abs())
            })
        }?;
        let means = self
            .means
            .as_ref()
            .and_then(|m| m[i].as_ref())
            .map(|m| fold(m))
            .unwrap_or_default();
        Some(Movement {
            date: self.dates.as_ref().and_then(|d| d[i]),
            amount: signed,
            saldo: self.saldo[i],
            cash: means.contains("efectivo") || means == "caja" || means.contains("cash"),
            opening,
        })
    }
}

/// How many consecutive movements carry a `saldo` that the movement explains.
fn balances_that_fit(movements: &[Movement]) -> usize {
    movements
        .windows(2)
        .filter(|w| match (w[0].saldo, w[1].saldo) {
            (Some(a), Some(b)) => (a + w[1].amount - b).abs() <= Decimal::new(1, 2),
            _ => false,
        })
        .count()
}

/// The movements of one frame, its total rows, and whether the debe/haber
/// reading was flipped.
fn frame_movements(f: &Frame) -> (Vec<Movement>, usize, bool) {
    let columns = CashColumns::of(f);
    let debe_haber = f.column_header(Role::Salida).is_some_and(|h| h.has("debe"))
        && f.column_header(Role::Entrada)
            .is_some_and(|h| h.has("haber"));
    let bank = columns.movements(false);
    let skipped = f.len() - columns.totals.iter().filter(|t| !**t).count();
    if !debe_haber {
        return (bank, skipped, false);
    }
    let book = columns.movements(true);
    let has_saldo = bank.iter().any(|m| m.saldo.is_some());
    if !has_saldo || balances_that_fit(&book) > balances_that_fit(&bank) {
        (book, skipped, true)
    } else {
        (bank, skipped, false)
    }
}

/// Every movement of the frames, by date.
fn movements(b: &mut Builder, frames: &[Frame]) -> Vec<Movement> {
    let mut movements = Vec::new();
    for f in frames {
        let (read, skipped, flipped) = frame_movements(f);
        if flipped {
            b.note(
                "Debe y haber leídos como libro de caja (debe = entrada).".into(),
                "Debe/haber read as a cash book (debe = money in).".into(),
            );
        }
        let dropped = f.len() - skipped - read.len();
        b.note_frame(f, &[("total_row", skipped), ("no_amount", dropped)]);
        movements.extend(read);
    }
    movements.sort_by_key(|m| m.date);
    movements
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    if !frames.iter().any(has_amount) {
        missing(
            b,
            Module::Caja,
            frames,
            ("entradas, salidas o importe", "cash in, cash out or amount"),
        );
        return;
    }
    let movements = movements(b, frames);
    let dates: Vec<NaiveDate> = movements.iter().filter_map(|m| m.date).collect();
    note_odd_dates(b, &dates, as_of);
    let span = period(dates.iter().copied());
    b.quality.rows_analysed = movements.len() as u64;
    b.scope(movements.len(), sheet_total(frames), span);
    report(b, &CashFigures::of(&movements, span));
    b.actions
        .push(crate::analyses::actions::tax_calendar(b.lang));
    b.actions
        .push(crate::analyses::actions::compare(Module::Caja, b.lang));
}

/// Every figure the cash report quotes.
struct CashFigures {
    /// From opening-balance rows, else from the first `saldo`; None without either.
    opening_balance: Option<Decimal>,
    inflows: Decimal,
    outflows: Decimal,
    balance: RunningBalance,
    /// None without dates.
    negative_days: Option<NegativeDays>,
    /// None without dated movements.
    burn: Option<Burn>,
    cash_over_limit: Option<CashOverLimit>,
}

/// The balance run through the movements (from the opening balance, else 0).
struct RunningBalance {
    closing: Decimal,
    minimum: Option<Decimal>,
    /// Movements whose `saldo` differs from the running balance.
    mismatches: usize,
    /// The balance at the end of each day with movements.
    end_of_day: Vec<(NaiveDate, Decimal)>,
}

/// Calendar days ending with a negative balance, and the longest streak.
struct NegativeDays {
    days: i64,
    longest_streak: i64,
}

/// Monthly net flows and what they say about burn.
struct Burn {
    months: usize,
    /// Average monthly outflows.
    gross: Decimal,
    /// Average net outflow of the last 3 months (0 when cash came in).
    net: Decimal,
    /// Months the closing balance lasts at the net burn; None without burn.
    runway: Option<Decimal>,
    all_months_positive: bool,
    negative_months_last4: usize,
    worst_month_last4: Decimal,
}

/// Cash movements at or over the legal limit.
struct CashOverLimit {
    count: usize,
    amount: Decimal,
}

impl CashFigures {
    fn of(movements: &[Movement], span: Option<Period>) -> Self {
        let opening_rows: Decimal = movements
            .iter()
            .filter(|m| m.opening)
            .map(|m| m.amount)
            .sum();
        let flows: Vec<&Movement> = movements.iter().filter(|m| !m.opening).collect();
        let first_saldo = flows.iter().find_map(|m| m.saldo.map(|s| s - m.amount));
        let opening_balance = if opening_rows.is_zero() {
            first_saldo
        } else {
            Some(opening_rows)
        };
        let balance = RunningBalance::of(&flows, opening_balance.unwrap_or_default());
        CashFigures {
            opening_balance,
            inflows: flows
                .iter()
                .filter(|m| m.amount > Decimal::ZERO)
                .map(|m| m.amount)
                .sum(),
            outflows: flows
                .iter()
                .filter(|m| m.amount < Decimal::ZERO)
                .map(|m| -m.amount)
                .sum(),
            negative_days: span.map(|span| NegativeDays::of(&balance.end_of_day, span)),
            burn: Burn::of(&flows, balance.closing),
            cash_over_limit: CashOverLimit::of(&flows),
            balance,
        }
    }
}

impl RunningBalance {
    fn of(flows: &[&Movement], opening: Decimal) -> Self {
        let mut balance = opening;
        let mut mismatches = 0;
        let mut minimum: Option<Decimal> = None;
        let mut end_of_day: Vec<(NaiveDate, Decimal)> = Vec::new();
        for m in flows {
            balance += m.amount;
            if m.saldo
                .is_some_and(|s| (s - balance).abs() > Decimal::new(1, 2))
            {
                mismatches += 1;
            }
            if minimum.is_none_or(|lowest| balance < lowest) {
                minimum = Some(balance);
            }
            if let Some(d) = m.date {
                match end_of_day.last_mut() {
                    Some((last, v)) if *last == d => *v = balance,
                    _ => end_of_day.push((d, balance)),
                }
            }
        }
        RunningBalance {
            closing: balance,
            minimum,
            mismatches,
            end_of_day,
        }
    }
}

impl NegativeDays {
    fn of(end_of_day: &[(NaiveDate, Decimal)], span: Period) -> Self {
        let (mut days, mut streak, mut longest_streak) = (0i64, 0i64, 0i64);
        let mut next = 0;
        let mut current: Option<Decimal> = None;
        for d in span.from.iter_days().take_while(|d| *d <= span.to) {
            while next < end_of_day.len() && end_of_day[next].0 == d {
                current = Some(end_of_day[next].1);
                next += 1;
            }
            if current.is_some_and(|v| v < Decimal::ZERO) {
                days += 1;
                streak += 1;
                longest_streak = longest_streak.max(streak);
            } else {
                streak = 0;
            }
        }
        NegativeDays {
            days,
            longest_streak,
        }
    }
}

impl Burn {
    fn of(flows: &[&Movement], closing_balance: Decimal) -> Option<Self> {
        let net_by_month = monthly(flows.iter().filter_map(|m| m.date.map(|d| (d, m.amount))));
        if net_by_month.is_empty() {
            return None;
        }
        let out_by_month = monthly(
            flows
                .iter()
                .filter(|m| m.amount < Decimal::ZERO)
                .filter_map(|m| m.date.map(|d| (d, -m.amount))),
        );
        let months = Decimal::from(net_by_month.len());
        let last3 = &net_by_month[net_by_month.len().saturating_sub(3)..];
        let mean_net_flow: Decimal =
            last3.iter().map(|m| m.1).sum::<Decimal>() / Decimal::from(last3.len());
        let net = (-mean_net_flow).max(Decimal::ZERO);
        let last4 = &net_by_month[net_by_month.len().saturating_sub(4)..];
        Some(Burn {
            months: net_by_month.len(),
            gross: out_by_month.iter().map(|m| m.1).sum::<Decimal>() / months,
            net,
            runway: (net > Decimal::ZERO).then(|| closing_balance.max(Decimal::ZERO) / net),
            all_months_positive: net_by_month.iter().all(|m| m.1 > Decimal::ZERO),
            negative_months_last4: last4.iter().filter(|m| m.1 < Decimal::ZERO).count(),
            worst_month_last4: from_f64(last4.iter().map(|m| to_f64(m.1)).fold(f64::MAX, f64::min)),
        })
    }
}

impl CashOverLimit {
    fn of(flows: &[&Movement]) -> Option<Self> {
        let over: Vec<&&Movement> = flows
            .iter()
            .filter(|m| m.cash && m.amount.abs() >= CASH_LIMIT)
            .collect();
        (!over.is_empty()).then(|| CashOverLimit {
            count: over.len(),
            amount: over.iter().map(|m| m.amount.abs()).sum(),
        })
    }
}

fn report(b: &mut Builder, figures: &CashFigures) {
    if figures.opening_balance.is_none() {
        b.note(
            "Sin saldo: el saldo se calcula desde 0 (saldo inicial desconocido).".into(),
            "No balance column: the balance runs from 0 (opening balance unknown).".into(),
        );
    }
    write_flows(b, figures);
    if let Some(negative_days) = &figures.negative_days {
        let lowest = figures.balance.minimum.unwrap_or_default();
        write_negative_days(b, negative_days, lowest);
    }
    if let Some(burn) = &figures.burn {
        write_burn(b, burn, figures.balance.closing);
    }
    if let Some(over) = &figures.cash_over_limit {
        write_cash_over_limit(b, over);
    }
}

/// Inflows, outflows, net flow and closing balance (the headline), the
/// minimum balance and the balances that do not add up.
fn write_flows(b: &mut Builder, figures: &CashFigures) {
    let inflows = b.fig(
        "inflows",
        ("Entradas de caja", "Cash in"),
        figures.inflows,
        Unit::Eur,
    );
    let outflows = b.fig(
        "outflows",
        ("Salidas de caja", "Cash out"),
        figures.outflows,
        Unit::Eur,
    );
    let net_flow = b.fig(
        "net_flow",
        ("Flujo de caja neto", "Net cash flow"),
        figures.inflows - figures.outflows,
        Unit::Eur,
    );
    let balance = &figures.balance;
    let closing = b.fig(
        "balance",
        ("Saldo final", "Closing balance"),
        balance.closing,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Entraron {inflows} y salieron {outflows}: flujo de caja neto de {net_flow} y saldo final de {closing}."),
        format!("{inflows} came in and {outflows} went out: net cash flow of {net_flow} and a closing balance of {closing}."),
    ));
    if let Some(minimum) = balance.minimum {
        b.fig(
            "minimum_balance",
            ("Saldo mínimo", "Minimum balance"),
            minimum,
            Unit::Eur,
        );
    }
    if balance.mismatches > 0 {
        let n = b.fig(
            "balance_mismatches",
            ("Saldos que no cuadran", "Balances that do not add up"),
            balance.mismatches.into(),
            Unit::Count,
        );
        b.note(
            format!(
                "{n} saldos no cuadran con los movimientos: faltan filas o hay un signo cambiado."
            ),
            format!("{n} balances do not match the movements: rows missing or a sign error."),
        );
    }
}

/// C1: any day ending with a negative balance.
fn write_negative_days(b: &mut Builder, negative_days: &NegativeDays, lowest: Decimal) {
    let shown = b.fig(
        "negative_days",
        ("Días en negativo", "Days with negative balance"),
        negative_days.days.into(),
        Unit::Days,
    );
    if negative_days.days == 0 {
        return;
    }
    let longest = b.fig(
        "longest_negative_streak",
        ("Racha negativa más larga", "Longest negative streak"),
        negative_days.longest_streak.into(),
        Unit::Days,
    );
    b.priority(
        "C1",
        Severity::High,
        lowest.min(Decimal::ZERO),
        b.pick(
            format!("Saldo negativo {shown}, con una racha de {longest}."),
            format!("Negative balance for {shown}, with a streak of {longest}."),
        ),
        Horizon::Week,
        b.pick(
            "Esta semana: mueve pagos a después de los cobros y pide una póliza de crédito.".into(),
            "This week: move payments after collections and arrange a credit line.".into(),
        ),
    );
}

/// C2 and C3 (runway, or every month positive) and C4 (sustained burn).
fn write_burn(b: &mut Builder, burn: &Burn, closing_balance: Decimal) {
    b.fig(
        "gross_burn",
        ("Salidas medias al mes", "Average monthly outflows"),
        burn.gross,
        Unit::Eur,
    );
    if let Some(runway) = burn.runway {
        write_runway(b, burn.net, runway, closing_balance);
    } else if burn.all_months_positive && burn.months >= 2 {
        let n = b.fig(
            "positive_months",
            ("Meses con flujo positivo", "Months with positive flow"),
            burn.months.into(),
            Unit::Count,
        );
        b.strength(
            "C3",
            closing_balance,
            b.pick(
                format!("Flujo de caja positivo los {n} meses: no consume caja."),
                format!("Positive cash flow in all {n} months: no cash burn."),
            ),
        );
    }
    if burn.negative_months_last4 >= 3 {
        let n = b.fig(
            "negative_months_last4",
            (
                "Meses negativos de los últimos 4",
                "Negative months of the last 4",
            ),
            burn.negative_months_last4.into(),
            Unit::Count,
        );
        b.priority(
            "C4",
            Severity::High,
            burn.worst_month_last4,
            b.pick(
                format!("Consumes caja de forma continuada: {n} de los últimos meses con flujo negativo."),
                format!("Sustained burn: {n} of the last months with negative flow."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: haz un plan de caja mensual y ataca el mayor gasto.".into(),
                "This month: set a monthly cash plan and tackle the main cost.".into(),
            ),
        );
    }
}

/// C2: under 6 months of runway; C3: 12 months or more.
fn write_runway(b: &mut Builder, net_burn: Decimal, runway: Decimal, closing_balance: Decimal) {
    let burn_shown = b.fig(
        "net_burn",
        ("Consumo de caja mensual", "Monthly burn"),
        net_burn,
        Unit::Eur,
    );
    let runway_shown = b.fig(
        "runway",
        ("Autonomía de caja", "Cash runway"),
        runway,
        Unit::Months,
    );
    if runway < Decimal::from(6) {
        let severity = if runway < Decimal::from(3) {
            Severity::High
        } else {
            Severity::Medium
        };
        b.priority(
            "C2",
            severity,
            net_burn * Decimal::from(3),
            b.pick(
                format!("Caja para {runway_shown} al ritmo actual de consumo de caja ({burn_shown} al mes)."),
                format!("Cash for {runway_shown} at the current burn ({burn_shown} a month)."),
            ),
            Horizon::Week,
            b.pick(
                "Esta semana: recorta o aplaza gastos y adelanta cobros.".into(),
                "This week: cut or defer costs and collect faster.".into(),
            ),
        );
    } else if runway >= Decimal::from(12) {
        b.strength(
            "C3",
            closing_balance,
            b.pick(
                format!("Caja para {runway_shown} aun con el consumo actual."),
                format!("Cash for {runway_shown} even at the current burn."),
            ),
        );
    }
}

/// C5: cash payments at or over the legal limit.
fn write_cash_over_limit(b: &mut Builder, over: &CashOverLimit) {
    let n = b.fig(
        "cash_over_limit",
        (
            "Pagos en efectivo de 1.000 € o más",
            "Cash payments of €1,000 or more",
        ),
        over.count.into(),
        Unit::Count,
    );
    let shown = b.fig(
        "cash_over_limit_amount",
        (
            "Importe en efectivo sobre el límite",
            "Cash amount over the limit",
        ),
        over.amount,
        Unit::Eur,
    );
    b.priority(
        "C5",
        Severity::High,
        over.amount,
        b.pick(
            format!("Efectivo por encima del límite legal: {n} movimientos por {shown}."),
            format!("Cash over the legal limit: {n} movements for {shown}."),
        ),
        Horizon::Week,
        b.pick(
            "Esta semana: paga y cobra por banco cuando intervenga una empresa o profesional; la multa es del 25 % (consúltalo con tu asesor).".into(),
            "This week: pay and collect by bank when a business is involved; the fine is 25% (check with your adviser).".into(),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::modules::{figure, report_of};
    use crate::analyses::request::{Cell, Lang, Row, Sheet};
    use rust_decimal::dec;

    type Line<'a> = (&'a str, &'a str, Option<Decimal>, Option<Decimal>, Decimal);

    fn sheet(rows: &[Line], headers: (&str, &str)) -> Sheet {
        Sheet {
            name: "banco".into(),
            rows: rows
                .iter()
                .map(|(d, c, a, b, s)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Concepto".into(), Cell::Text(c.to_string())),
                        (headers.0.into(), a.map_or(Cell::Empty, Cell::Number)),
                        (headers.1.into(), b.map_or(Cell::Empty, Cell::Number)),
                        ("Saldo".into(), Cell::Number(*s)),
                    ])
                })
                .collect(),
            total_rows: None,
        }
    }

    #[test]
    fn balance_negative_days_and_burn_by_hand() {
        // B0 = first saldo − first movement = 1000 − (−200) = 1200
        // movements: −200 (1000), −1500 (−500) on 05/01, +300 (−200) on 08/01, +400 (200) on 10/01
        // negative days: 05, 06, 07, 08, 09 January = 5, one streak of 5
        let rows = [
            ("01/01/2025", "Alquiler", None, Some(dec!(200)), dec!(1000)),
            (
                "05/01/2025",
                "Proveedor",
                None,
                Some(dec!(1500)),
                dec!(-500),
            ),
            ("08/01/2025", "Cobro", Some(dec!(300)), None, dec!(-200)),
            ("10/01/2025", "Cobro", Some(dec!(400)), None, dec!(200)),
        ];
        let s = sheet(&rows, ("Ingresos", "Gastos"));
        let as_of = NaiveDate::from_ymd_opt(2025, 2, 1).unwrap();
        let r = report_of(&s, Module::Caja, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("inflows"), dec!(700));
        assert_eq!(v("outflows"), dec!(1700));
        assert_eq!(v("net_flow"), dec!(-1000));
        assert_eq!(v("balance"), dec!(200));
        assert_eq!(v("minimum_balance"), dec!(-500));
        assert_eq!(v("negative_days"), dec!(5));
        assert_eq!(v("longest_negative_streak"), dec!(5));
        assert_eq!(v("net_burn"), dec!(1000));
        assert_eq!(v("runway"), dec!(0.2));
        assert!(
            r.data_quality.notes.is_empty(),
            "{:?}",
            r.data_quality.notes
        );
        let ids: Vec<&str> = r.priorities.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            ids,
            ["C2", "C1"],
            "both high; the 3 months of burn weigh more than the −500"
        );
    }

    #[test]
    fn debe_haber_follow_the_balance() {
        // a cash book: debe = money in; saldo only adds up with that reading
        let rows = [
            ("01/01/2025", "Venta", Some(dec!(100)), None, dec!(100)),
            ("02/01/2025", "Compra", None, Some(dec!(40)), dec!(60)),
        ];
        let s = sheet(&rows, ("Debe", "Haber"));
        let frames = [crate::analyses::detect::frame(&s, Module::Caja)];
        let (moves, _, flipped) = frame_movements(&frames[0]);
        assert!(flipped);
        assert_eq!(moves[0].amount, dec!(100));
        assert_eq!(moves[1].amount, dec!(-40));
    }

    #[test]
    fn newest_first_statements_reconcile() {
        let rows = [
            ("03/02/2025", "Luz", None, Some(dec!(60)), dec!(940)),
            (
                "01/02/2025",
                "Transferencia",
                Some(dec!(1000)),
                None,
                dec!(1000),
            ),
        ];
        let s = sheet(&rows, ("Ingresos", "Gastos"));
        let as_of = NaiveDate::from_ymd_opt(2025, 3, 1).unwrap();
        let r = report_of(&s, Module::Caja, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("balance"), dec!(940));
        assert!(r.key_figures.iter().all(|f| f.id != "balance_mismatches"));
    }
}
