//! The statistics every module shares: shares and concentration (top, HHI,
//! Pareto, ABC), monthly series, OLS trend, robust outliers.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

pub const HUNDRED: Decimal = Decimal::ONE_HUNDRED;

/// `part` as % of `whole` (0 when whole is 0).
pub fn pct(part: Decimal, whole: Decimal) -> Decimal {
    if whole.is_zero() {
        Decimal::ZERO
    } else {
        part * HUNDRED / whole
    }
}

pub fn ratio(a: Decimal, b: Decimal) -> Option<Decimal> {
    (!b.is_zero()).then(|| a / b)
}

pub fn to_f64(x: Decimal) -> f64 {
    x.to_f64().unwrap_or(0.0)
}

pub fn from_f64(x: f64) -> Decimal {
    Decimal::try_from(x).unwrap_or_default()
}

/// Totals per key, largest first (ties by key), positive totals only.
pub fn ranked(totals: &BTreeMap<String, Decimal>) -> Vec<(String, Decimal)> {
    let mut v: Vec<(String, Decimal)> = totals
        .iter()
        .filter(|(_, x)| **x > Decimal::ZERO)
        .map(|(k, x)| (k.clone(), *x))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// Concentration of a ranked list (reference §2.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Concentration {
    pub count: usize,
    pub top1_name: String,
    /// Shares in %.
    pub top1: Decimal,
    pub top5: Decimal,
    /// Σ (100·sᵢ)², 0–10 000.
    pub hhi: Decimal,
    /// 10 000 / HHI.
    pub effective: Decimal,
    /// The fewest items whose cumulative share reaches 80 %.
    pub pareto_k: usize,
    /// Their cumulative share (≥ 80 %).
    pub pareto_share: Decimal,
}

pub fn concentration(ranked: &[(String, Decimal)]) -> Option<Concentration> {
    let total: Decimal = ranked.iter().map(|(_, x)| *x).sum();
    if total <= Decimal::ZERO {
        return None;
    }
    let shares: Vec<Decimal> = ranked.iter().map(|(_, x)| pct(*x, total)).collect();
    let hhi: Decimal = shares.iter().map(|s| s * s).sum();
    let mut cumulative = Decimal::ZERO;
    let mut pareto_k = ranked.len();
    let mut pareto_share = HUNDRED;
    for (i, s) in shares.iter().enumerate() {
        cumulative += s;
        if cumulative >= Decimal::from(80) {
            pareto_k = i + 1;
            pareto_share = cumulative;
            break;
        }
    }
    Some(Concentration {
        count: ranked.len(),
        top1_name: ranked[0].0.clone(),
        top1: shares[0],
        top5: shares.iter().take(5).sum(),
        hhi,
        effective: Decimal::from(10_000) / hhi,
        pareto_k,
        pareto_share,
    })
}

/// ABC classes: A while the cumulative share before the item is < 80 %,
/// B < 95 %, C the rest.
pub fn abc(ranked: &[(String, Decimal)]) -> Vec<char> {
    let total: Decimal = ranked.iter().map(|(_, x)| *x).sum();
    let mut before = Decimal::ZERO;
    ranked
        .iter()
        .map(|(_, x)| {
            let share = pct(before, total);
            before += x;
            if share < Decimal::from(80) {
                'A'
            } else if share < Decimal::from(95) {
                'B'
            } else {
                'C'
            }
        })
        .collect()
}

/// The first day of a date's month.
pub fn month_of(date: NaiveDate) -> NaiveDate {
    date.with_day(1).unwrap_or(date)
}

/// Totals per calendar month, every month between the first and the last
/// present (months without rows are 0).
pub fn monthly(points: impl Iterator<Item = (NaiveDate, Decimal)>) -> Vec<(NaiveDate, Decimal)> {
    let mut map: BTreeMap<NaiveDate, Decimal> = BTreeMap::new();
    for (d, x) in points {
        *map.entry(month_of(d)).or_default() += x;
    }
    let (Some(first), Some(last)) = (map.keys().next().copied(), map.keys().next_back().copied())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut m = first;
    while m <= last {
        out.push((m, map.get(&m).copied().unwrap_or_default()));
        m = next_month(m);
    }
    out
}

pub fn next_month(m: NaiveDate) -> NaiveDate {
    m.checked_add_months(chrono::Months::new(1)).unwrap_or(m)
}

/// The complete months of a series: a first month whose data starts after the
/// 7th, or a last month whose data ends before the 22nd, is left out.
pub fn complete_months(
    series: &[(NaiveDate, Decimal)],
    first: NaiveDate,
    last: NaiveDate,
) -> Vec<(NaiveDate, Decimal)> {
    series
        .iter()
        .filter(|(m, _)| {
            let partial_first = *m == month_of(first) && first.day() > 7;
            let partial_last = *m == month_of(last) && last.day() < 22;
            !partial_first && !partial_last
        })
        .copied()
        .collect()
}

/// OLS slope of y over 0, 1, 2 …
pub fn ols_slope(ys: &[f64]) -> f64 {
    let n = ys.len() as f64;
    let mean_x = (n - 1.0) / 2.0;
    let mean_y = ys.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in ys.iter().enumerate() {
        let dx = i as f64 - mean_x;
        sxy += dx * (y - mean_y);
        sxx += dx * dx;
    }
    if sxx == 0.0 { 0.0 } else { sxy / sxx }
}

/// Coefficient of variation σ/μ (population σ).
pub fn cv(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Values with modified z-score 0.6745 (x − median) / MAD above 3.5.
pub fn outliers(xs: &[f64]) -> usize {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let med = median(&sorted);
    let mut dev: Vec<f64> = xs.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let mad = median(&dev);
    if mad == 0.0 {
        return 0;
    }
    xs.iter()
        .filter(|x| (0.6745 * (**x - med) / mad).abs() > 3.5)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn list(v: &[(&str, Decimal)]) -> Vec<(String, Decimal)> {
        v.iter().map(|(k, x)| (k.to_string(), *x)).collect()
    }

    #[test]
    fn concentration_by_hand() {
        // shares 50, 30, 20 → HHI 2500 + 900 + 400 = 3800; effective 2.63
        let c = concentration(&list(&[
            ("a", dec!(500)),
            ("b", dec!(300)),
            ("c", dec!(200)),
        ]))
        .unwrap();
        assert_eq!(c.top1, dec!(50));
        assert_eq!(c.hhi, dec!(3800));
        assert_eq!(c.effective.round_dp(2), dec!(2.63));
        assert_eq!(c.pareto_k, 2);
        assert_eq!(c.top5, dec!(100));
    }

    #[test]
    fn abc_uses_the_share_before_the_item() {
        // cumulative before: 0, 70, 85, 95 → A A B C
        let classes = abc(&list(&[
            ("a", dec!(70)),
            ("b", dec!(15)),
            ("c", dec!(10)),
            ("d", dec!(5)),
        ]));
        assert_eq!(classes, ['A', 'A', 'B', 'C']);
    }

    #[test]
    fn trend_and_spread() {
        assert!((ols_slope(&[10.0, 12.0, 14.0, 16.0]) - 2.0).abs() < 1e-12);
        assert!((cv(&[1.0, 3.0]) - 0.5).abs() < 1e-12);
        assert_eq!(outliers(&[10.0, 11.0, 9.0, 10.0, 10.5, 100.0]), 1);
    }

    #[test]
    fn months_fill_gaps_and_drop_partial_ends() {
        let d = |m, day| NaiveDate::from_ymd_opt(2025, m, day).unwrap();
        let series =
            monthly([(d(1, 15), dec!(1)), (d(3, 2), dec!(2)), (d(4, 10), dec!(4))].into_iter());
        assert_eq!(series.len(), 4);
        assert_eq!(series[1].1, dec!(0));
        let complete = complete_months(&series, d(1, 15), d(4, 10));
        assert_eq!(complete.len(), 2);
    }
}
