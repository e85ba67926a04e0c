//! Figures as Spanish messages print them: `1.234,56`, `5,2`, `05/08/2026`.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::tax::money::round2;

/// An amount with two decimals, a comma and dots between thousands.
pub fn amount(x: Decimal) -> String {
    let s = format!("{:.2}", round2(x));
    let (sign, digits) = s.strip_prefix('-').map_or(("", s.as_str()), |d| ("-", d));
    let (int, frac) = digits.split_once('.').unwrap_or((digits, "00"));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(c);
    }
    format!("{sign}{grouped},{frac}")
}

/// A rate without trailing zeros: `21`, `5,2`.
pub fn rate(x: Decimal) -> String {
    x.normalize().to_string().replace('.', ",")
}

pub fn date(d: NaiveDate) -> String {
    d.format("%d/%m/%Y").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    #[test]
    fn spanish_figures() {
        assert_eq!(amount(dec!(1639.29)), "1.639,29");
        assert_eq!(amount(dec!(-231.975)), "-231,98");
        assert_eq!(amount(dec!(1234567)), "1.234.567,00");
        assert_eq!(amount(dec!(0.5)), "0,50");
        assert_eq!(rate(dec!(5.20)), "5,2");
        assert_eq!(rate(dec!(21.00)), "21");
        assert_eq!(
            date(NaiveDate::from_ymd_opt(2026, 8, 5).unwrap()),
            "05/08/2026"
        );
    }
}
