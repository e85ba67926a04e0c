//! Figures as shown: rounding per unit (money 2 dp half away from zero, %
//! 1 dp, days 0 dp, months and hours 1 dp) and es/en display ("1.234,56 €" /
//! "€1,234.56", "42,5 %" / "42.5%", "ene 2025" / "Jan 2025").

use chrono::{Datelike, NaiveDate};
use rust_decimal::{Decimal, RoundingStrategy};

use super::report::Unit;
use super::request::Lang;

pub fn round(value: Decimal, unit: Unit) -> Decimal {
    let dp = match unit {
        Unit::Eur => 2,
        Unit::Pct | Unit::Months | Unit::Hours => 1,
        Unit::Days | Unit::Count => 0,
    };
    value
        .round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero)
        .normalize()
}

/// Digits with grouping: es "1.234,5", en "1,234.5"; exactly `dp` decimals.
pub fn number(value: Decimal, dp: u32, lang: Lang) -> String {
    let rounded = value.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero);
    let text = format!("{:.*}", dp as usize, rounded.abs());
    let (int_part, frac) = text.split_once('.').unwrap_or((&text, ""));
    let (group, decimal) = match lang {
        Lang::Es => ('.', ','),
        Lang::En => (',', '.'),
    };
    let mut grouped = String::new();
    for (i, c) in int_part.chars().enumerate() {
        if i > 0 && (int_part.len() - i) % 3 == 0 {
            grouped.push(group);
        }
        grouped.push(c);
    }
    let sign = if rounded.is_sign_negative() && !rounded.is_zero() {
        "-"
    } else {
        ""
    };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}{decimal}{frac}")
    }
}

/// A figure with its unit, as the texts print it.
pub fn show(value: Decimal, unit: Unit, lang: Lang) -> String {
    match (unit, lang) {
        (Unit::Eur, Lang::Es) => format!("{} €", number(value, 2, lang)),
        (Unit::Eur, Lang::En) => {
            let n = number(value.abs(), 2, lang);
            if value.is_sign_negative() && !round(value, unit).is_zero() {
                format!("-€{n}")
            } else {
                format!("€{n}")
            }
        }
        (Unit::Pct, Lang::Es) => format!("{} %", number(value, 1, lang)),
        (Unit::Pct, Lang::En) => format!("{}%", number(value, 1, lang)),
        (Unit::Days, Lang::Es) => format!("{} días", number(value, 0, lang)),
        (Unit::Days, Lang::En) => format!("{} days", number(value, 0, lang)),
        (Unit::Months, Lang::Es) => format!("{} meses", number(value, 1, lang)),
        (Unit::Months, Lang::En) => format!("{} months", number(value, 1, lang)),
        (Unit::Hours, _) => format!("{} h", number(value, 1, lang)),
        (Unit::Count, _) => number(value, 0, lang),
    }
}

const MONTHS_ES: [&str; 12] = [
    "ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic",
];
const MONTHS_EN: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// "ene 2025" / "Jan 2025".
pub fn month(date: NaiveDate, lang: Lang) -> String {
    let names = match lang {
        Lang::Es => MONTHS_ES,
        Lang::En => MONTHS_EN,
    };
    format!("{} {}", names[date.month0() as usize], date.year())
}

/// "ene 2025 – mar 2025", or one month when both fall in it.
pub fn period(from: NaiveDate, to: NaiveDate, lang: Lang) -> String {
    if (from.year(), from.month()) == (to.year(), to.month()) {
        month(from, lang)
    } else {
        format!("{} – {}", month(from, lang), month(to, lang))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    #[test]
    fn spanish_and_english_display() {
        assert_eq!(show(dec!(1234.555), Unit::Eur, Lang::Es), "1.234,56 €");
        assert_eq!(show(dec!(1234.555), Unit::Eur, Lang::En), "€1,234.56");
        assert_eq!(
            show(dec!(-1234567.5), Unit::Eur, Lang::Es),
            "-1.234.567,50 €"
        );
        assert_eq!(show(dec!(-12), Unit::Eur, Lang::En), "-€12.00");
        assert_eq!(show(dec!(42.45), Unit::Pct, Lang::Es), "42,5 %");
        assert_eq!(show(dec!(42.45), Unit::Pct, Lang::En), "42.5%");
        assert_eq!(show(dec!(12.5), Unit::Days, Lang::Es), "13 días");
        assert_eq!(show(dec!(2.25), Unit::Months, Lang::En), "2.3 months");
        assert_eq!(show(dec!(1500), Unit::Count, Lang::Es), "1.500");
        assert_eq!(show(dec!(-0.001), Unit::Eur, Lang::Es), "0,00 €");
        assert_eq!(round(dec!(0.105), Unit::Eur), dec!(0.11));
        assert_eq!(round(dec!(-2.25), Unit::Pct), dec!(-2.3));
    }

    #[test]
    fn months() {
        let d = |m| NaiveDate::from_ymd_opt(2025, m, 3).unwrap();
        assert_eq!(period(d(1), d(3), Lang::Es), "ene 2025 – mar 2025");
        assert_eq!(period(d(1), d(1), Lang::En), "Jan 2025");
    }
}
