//! `caja` (reference §2.5, rules C1–C5): inflows, outflows and net flow per
//! month, the running balance (opening balance from `saldo`), negative days,
//! burn and runway, cash payments over the legal limit. Debe/haber columns
//! are read the way that reproduces `saldo`.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::normalize::fold;
use crate::analyses::report::{Horizon, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{monthly, to_f64};

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

/// Movements of one frame and whether the debe/haber reading was flipped.
fn frame_movements(f: &Frame) -> (Vec<Movement>, usize, bool) {
    let (inc, out, amount, saldo) = (
        col(f, Role::Entrada),
        col(f, Role::Salida),
        col(f, Role::Importe),
        col(f, Role::Saldo),
    );
    let tipos = f.texts(Role::Tipo);
    let concepts = f.texts(Role::Concepto);
    let medios = f.texts(Role::Medio);
    let dates = f.dates(Role::Fecha);
    let totals = f.total_rows();
    let debe_haber = f.column_header(Role::Salida).is_some_and(|h| h.has("debe"))
        && f.column_header(Role::Entrada)
            .is_some_and(|h| h.has("haber"));
    let read = |flip: bool| -> Vec<Movement> {
        (0..f.len())
            .filter(|i| !totals[*i])
            .filter_map(|i| {
                let concept = concepts
                    .as_ref()
                    .and_then(|c| c[i].as_ref())
                    .map(|c| fold(c))
                    .unwrap_or_default();
                let opening =
                    concept.contains("saldo anterior") || concept.contains("saldo inicial");
                let signed = if inc[i].is_some() || out[i].is_some() {
                    let (a, b) = (
                        inc[i].unwrap_or_default().abs(),
                        out[i].unwrap_or_default().abs(),
                    );
                    Some(if flip { b - a } else { a - b })
                } else {
                    amount[i].map(|x| {
                        let sign = tipos
                            .as_ref()
                            .and_then(|t| t[i].as_deref())
                            .and_then(sign_of);
                        sign.map_or(x, |s| s * x.abs())
                    })
                }?;
                let medio = medios
                    .as_ref()
                    .and_then(|m| m[i].as_ref())
                    .map(|m| fold(m))
                    .unwrap_or_default();
                Some(Movement {
                    date: dates.as_ref().and_then(|d| d[i]),
                    amount: signed,
                    saldo: saldo[i],
                    cash: medio.contains("efectivo") || medio == "caja" || medio.contains("cash"),
                    opening,
                })
            })
            .collect()
    };
    // bank exports often list the newest first: read them oldest first
    let oldest_first = |mut m: Vec<Movement>| {
        let first = m.iter().find_map(|x| x.date);
        let last = m.iter().rev().find_map(|x| x.date);
        if first > last {
            m.reverse();
        }
        m
    };
    let bank = oldest_first(read(false));
    let skipped = f.len() - totals.iter().filter(|t| !**t).count();
    if !debe_haber {
        return (bank, skipped, false);
    }
    let book = oldest_first(read(true));
    let fits = |m: &[Movement]| {
        m.windows(2)
            .filter(|w| match (w[0].saldo, w[1].saldo) {
                (Some(a), Some(b)) => (a + w[1].amount - b).abs() <= Decimal::new(1, 2),
                _ => false,
            })
            .count()
    };
    let has_saldo = bank.iter().any(|m| m.saldo.is_some());
    if !has_saldo || fits(&book) > fits(&bank) {
        (book, skipped, true)
    } else {
        (bank, skipped, false)
    }
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
    let mut moves = Vec::new();
    for f in frames {
        let (m, skipped, flipped) = frame_movements(f);
        if flipped {
            b.note(
                "Debe y haber leídos como libro de caja (debe = entrada).".into(),
                "Debe/haber read as a cash book (debe = money in).".into(),
            );
        }
        let dropped = f.len() - skipped - m.len();
        b.note_frame(f, &[("total_row", skipped), ("no_amount", dropped)]);
        moves.extend(m);
    }
    moves.sort_by_key(|m| m.date);
    let dates: Vec<NaiveDate> = moves.iter().filter_map(|m| m.date).collect();
    note_odd_dates(b, &dates, as_of);
    let span = period(dates.iter().copied());
    b.quality.rows_analysed = moves.len() as u64;
    b.scope(moves.len(), sheet_total(frames), span);

    let opening_rows: Decimal = moves.iter().filter(|m| m.opening).map(|m| m.amount).sum();
    let flows: Vec<&Movement> = moves.iter().filter(|m| !m.opening).collect();
    let first_saldo = flows.iter().find_map(|m| m.saldo.map(|s| s - m.amount));
    let b0 = if opening_rows.is_zero() {
        first_saldo
    } else {
        Some(opening_rows)
    };
    if b0.is_none() {
        b.note(
            "Sin saldo: el saldo se calcula desde 0 (saldo inicial desconocido).".into(),
            "No balance column: the balance runs from 0 (opening balance unknown).".into(),
        );
    }
    let inflow: Decimal = flows
        .iter()
        .filter(|m| m.amount > Decimal::ZERO)
        .map(|m| m.amount)
        .sum();
    let outflow: Decimal = flows
        .iter()
        .filter(|m| m.amount < Decimal::ZERO)
        .map(|m| -m.amount)
        .sum();
    let i_shown = b.fig(
        "inflows",
        ("Entradas de caja", "Cash in"),
        inflow,
        Unit::Eur,
    );
    let o_shown = b.fig(
        "outflows",
        ("Salidas de caja", "Cash out"),
        outflow,
        Unit::Eur,
    );
    let nf_shown = b.fig(
        "net_flow",
        ("Flujo de caja neto", "Net cash flow"),
        inflow - outflow,
        Unit::Eur,
    );
    // running balance, mismatches with the given saldo, minimum
    let mut balance = b0.unwrap_or_default();
    let mut mismatches = 0;
    let mut min: Option<(Decimal, Option<NaiveDate>)> = None;
    let mut end_of_day: Vec<(NaiveDate, Decimal)> = Vec::new();
    for m in &flows {
        balance += m.amount;
        if m.saldo
            .is_some_and(|s| (s - balance).abs() > Decimal::new(1, 2))
        {
            mismatches += 1;
        }
        if min.is_none_or(|(v, _)| balance < v) {
            min = Some((balance, m.date));
        }
        if let Some(d) = m.date {
            match end_of_day.last_mut() {
                Some((last, v)) if *last == d => *v = balance,
                _ => end_of_day.push((d, balance)),
            }
        }
    }
    let bal_shown = b.fig(
        "balance",
        ("Saldo final", "Closing balance"),
        balance,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Entraron {i_shown} y salieron {o_shown}: flujo de caja neto de {nf_shown} y saldo final de {bal_shown}."),
        format!("{i_shown} came in and {o_shown} went out: net cash flow of {nf_shown} and a closing balance of {bal_shown}."),
    ));
    if let Some((v, _)) = min {
        b.fig(
            "minimum_balance",
            ("Saldo mínimo", "Minimum balance"),
            v,
            Unit::Eur,
        );
    }
    if mismatches > 0 {
        let n = b.fig(
            "balance_mismatches",
            ("Saldos que no cuadran", "Balances that do not add up"),
            mismatches.into(),
            Unit::Count,
        );
        b.note(
            format!(
                "{n} saldos no cuadran con los movimientos: faltan filas o hay un signo cambiado."
            ),
            format!("{n} balances do not match the movements: rows missing or a sign error."),
        );
    }
    negative_days(b, &end_of_day, span, min.map_or(Decimal::ZERO, |m| m.0));
    burn(b, &flows, balance);
    cash_limit(b, &flows);
    b.actions
        .push(crate::analyses::actions::tax_calendar(b.lang));
    b.actions
        .push(crate::analyses::actions::compare(Module::Caja, b.lang));
}

/// Calendar days ending with a negative balance, and the longest streak.
fn negative_days(
    b: &mut Builder,
    end_of_day: &[(NaiveDate, Decimal)],
    span: Option<crate::analyses::report::Period>,
    lowest: Decimal,
) {
    let Some(span) = span else { return };
    let (mut days, mut streak, mut longest) = (0i64, 0i64, 0i64);
    let mut k = 0;
    let mut current: Option<Decimal> = None;
    for d in span.from.iter_days().take_while(|d| *d <= span.to) {
        while k < end_of_day.len() && end_of_day[k].0 == d {
            current = Some(end_of_day[k].1);
            k += 1;
        }
        if current.is_some_and(|v| v < Decimal::ZERO) {
            days += 1;
            streak += 1;
            longest = longest.max(streak);
        } else {
            streak = 0;
        }
    }
    let shown = b.fig(
        "negative_days",
        ("Días en negativo", "Days with negative balance"),
        days.into(),
        Unit::Days,
    );
    if days > 0 {
        let longest = b.fig(
            "longest_negative_streak",
            ("Racha negativa más larga", "Longest negative streak"),
            longest.into(),
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
                "Esta semana: mueve pagos a después de los cobros y pide una póliza de crédito."
                    .into(),
                "This week: move payments after collections and arrange a credit line.".into(),
            ),
        );
    }
}

fn burn(b: &mut Builder, flows: &[&Movement], balance: Decimal) {
    let series = monthly(flows.iter().filter_map(|m| m.date.map(|d| (d, m.amount))));
    if series.is_empty() {
        return;
    }
    let outs = monthly(
        flows
            .iter()
            .filter(|m| m.amount < Decimal::ZERO)
            .filter_map(|m| m.date.map(|d| (d, -m.amount))),
    );
    let months = Decimal::from(series.len());
    let gross: Decimal = outs.iter().map(|m| m.1).sum::<Decimal>() / months;
    b.fig(
        "gross_burn",
        ("Salidas medias al mes", "Average monthly outflows"),
        gross,
        Unit::Eur,
    );
    let last3 = &series[series.len().saturating_sub(3)..];
    let mean_nf: Decimal = last3.iter().map(|m| m.1).sum::<Decimal>() / Decimal::from(last3.len());
    let net_burn = (-mean_nf).max(Decimal::ZERO);
    let all_positive = series.iter().all(|m| m.1 > Decimal::ZERO);
    let last4 = &series[series.len().saturating_sub(4)..];
    let negative_months = last4.iter().filter(|m| m.1 < Decimal::ZERO).count();
    if net_burn > Decimal::ZERO {
        let burn_shown = b.fig(
            "net_burn",
            ("Consumo de caja mensual", "Monthly burn"),
            net_burn,
            Unit::Eur,
        );
        let runway = balance.max(Decimal::ZERO) / net_burn;
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
                balance,
                b.pick(
                    format!("Caja para {runway_shown} aun con el consumo actual."),
                    format!("Cash for {runway_shown} even at the current burn."),
                ),
            );
        }
    } else if all_positive && series.len() >= 2 {
        let n = b.fig(
            "positive_months",
            ("Meses con flujo positivo", "Months with positive flow"),
            series.len().into(),
            Unit::Count,
        );
        b.strength(
            "C3",
            balance,
            b.pick(
                format!("Flujo de caja positivo los {n} meses: no consume caja."),
                format!("Positive cash flow in all {n} months: no cash burn."),
            ),
        );
    }
    if negative_months >= 3 {
        let n = b.fig(
            "negative_months_last4",
            (
                "Meses negativos de los últimos 4",
                "Negative months of the last 4",
            ),
            negative_months.into(),
            Unit::Count,
        );
        let worst = last4.iter().map(|m| to_f64(m.1)).fold(f64::MAX, f64::min);
        b.priority(
            "C4",
            Severity::High,
            crate::analyses::stats::from_f64(worst),
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

fn cash_limit(b: &mut Builder, flows: &[&Movement]) {
    let over: Vec<&&Movement> = flows
        .iter()
        .filter(|m| m.cash && m.amount.abs() >= CASH_LIMIT)
        .collect();
    if over.is_empty() {
        return;
    }
    let n = b.fig(
        "cash_over_limit",
        (
            "Pagos en efectivo de 1.000 € o más",
            "Cash payments of €1,000 or more",
        ),
        over.len().into(),
        Unit::Count,
    );
    let amount: Decimal = over.iter().map(|m| m.amount.abs()).sum();
    let shown = b.fig(
        "cash_over_limit_amount",
        (
            "Importe en efectivo sobre el límite",
            "Cash amount over the limit",
        ),
        amount,
        Unit::Eur,
    );
    b.priority(
        "C5",
        Severity::High,
        amount,
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
