//! Figures as Spanish messages print them: `1.234,56`, `5,2`, `05/08/2026`,
//! the same formats as the invoice PDF's.

pub(crate) use crate::documents::pdf::format::{date, figure as amount, number as rate};

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;
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
