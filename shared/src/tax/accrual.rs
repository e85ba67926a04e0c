//! When output VAT accrues (devengo, LIVA arts. 75–76): the date that places
//! an operation in a return. Deliveries and services accrue when they are
//! made (art. 75.Uno.1º–2º), whatever the invoice's date; an intra-EU supply
//! or acquisition of goods accrues on the 15th of the month after the
//! transport starts, or on the invoice's date when it is earlier
//! (arts. 75.Uno.8º and 76). A rectification is declared in the period it
//! is made (art. 89.Cinco): its own issue date.

use chrono::{Datelike, NaiveDate};

/// The 15th of the month after `day`'s.
fn fifteenth_of_next_month(day: NaiveDate) -> NaiveDate {
    let (year, month) = if day.month() == 12 {
        (day.year() + 1, 1)
    } else {
        (day.year(), day.month() + 1)
    };
    NaiveDate::from_ymd_opt(year, month, 15).expect("the 15th exists in every month")
}

/// An intra-EU movement of goods (art. 75.Uno.8º for the supply, art. 76 for
/// the acquisition): `transport` is the day it started.
pub fn intra_eu_goods(invoice: NaiveDate, transport: Option<NaiveDate>) -> NaiveDate {
    transport.map_or(invoice, |t| fifteenth_of_next_month(t).min(invoice))
}

/// Any other operation: the day it was made, else the invoice's date.
pub fn operation(invoice: NaiveDate, operation: Option<NaiveDate>) -> NaiveDate {
    operation.unwrap_or(invoice)
}

/// What kind of issued invoice the date is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issued {
    /// Every line is an intra-EU supply of goods (E5).
    IntraEuGoods,
    Ordinary,
    /// A rectifying invoice (R1–R5).
    Rectifying,
}

/// The accrual date of an issued invoice.
pub fn of_issued(kind: Issued, issue: NaiveDate, operation_date: Option<NaiveDate>) -> NaiveDate {
    match kind {
        Issued::Rectifying => issue,
        Issued::IntraEuGoods => intra_eu_goods(issue, operation_date),
        Issued::Ordinary => operation(issue, operation_date),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn an_invoice_issued_late_accrues_on_the_operation_date() {
        // LIVA art. 75.Uno.2º: services accrue when rendered. Operation 28-09,
        // invoice 12-10: third quarter.
        assert_eq!(
            of_issued(Issued::Ordinary, d("2026-10-12"), Some(d("2026-09-28"))),
            d("2026-09-28")
        );
        assert_eq!(
            of_issued(Issued::Ordinary, d("2026-10-12"), None),
            d("2026-10-12")
        );
    }

    #[test]
    fn an_intra_eu_supply_accrues_on_the_15th_of_the_next_month_or_the_earlier_invoice() {
        // LIVA art. 75.Uno.8º: transport from 28-09 → 15-10, unless invoiced before.
        assert_eq!(
            of_issued(Issued::IntraEuGoods, d("2026-10-20"), Some(d("2026-09-28"))),
            d("2026-10-15")
        );
        assert_eq!(
            of_issued(Issued::IntraEuGoods, d("2026-10-02"), Some(d("2026-09-28"))),
            d("2026-10-02")
        );
        // December's transport: 15 January of the next year.
        assert_eq!(
            intra_eu_goods(d("2027-02-01"), Some(d("2026-12-20"))),
            d("2027-01-15")
        );
    }

    #[test]
    fn a_rectification_is_declared_when_it_is_issued() {
        // LIVA art. 89.Cinco: in the return of the period of the rectification.
        assert_eq!(
            of_issued(Issued::Rectifying, d("2026-11-05"), Some(d("2026-06-01"))),
            d("2026-11-05")
        );
    }
}
