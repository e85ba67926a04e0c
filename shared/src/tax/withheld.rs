//! IRPF the account withheld from its suppliers, for the quarterly returns
//! that pay it in: Modelo 111 (professionals and other activities, boxes
//! 07–09) and Modelo 115 (rent of premises, boxes 01–03). The withholding
//! is due when the income is paid (RIRPF art. 78.1), so a return counts the
//! expenses paid in its quarter, whatever their invoice date.

use std::collections::BTreeSet;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::quarter::ReturnBox;
use crate::expense::{Category, Expense};

/// The recipients, the bases and the amounts withheld of one return.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Withheld {
    pub recipients: usize,
    pub base: Decimal,
    pub withheld: Decimal,
}

fn sum(expenses: &[&Expense], rent: bool) -> Withheld {
    let chosen: Vec<&&Expense> = expenses
        .iter()
        .filter(|e| !e.entry.irpf_amount.is_zero() && (e.entry.category == Category::Rent) == rent)
        .collect();
    let recipients: BTreeSet<&str> = chosen
        .iter()
        .map(|e| e.entry.supplier.tax_id.as_str())
        .collect();
    Withheld {
        recipients: recipients.len(),
        base: chosen.iter().map(|e| e.bases()).sum(),
        withheld: chosen.iter().map(|e| e.entry.irpf_amount.value()).sum(),
    }
}

/// The expenses whose withholding falls from `from` to `to`, both inclusive.
pub fn paid_between(expenses: &[Expense], from: NaiveDate, to: NaiveDate) -> Vec<&Expense> {
    expenses
        .iter()
        .filter(|e| e.withholding_date().is_some_and(|d| d >= from && d <= to))
        .collect()
}

/// How many expenses issued up to `to` with IRPF withheld are not paid yet:
/// no return declares them until they are.
pub fn unpaid_with_withholding(expenses: &[Expense], to: NaiveDate) -> usize {
    expenses
        .iter()
        .filter(|e| {
            e.withholding_date().is_none()
                && e.entry.issue_date <= to
                && !e.entry.irpf_amount.is_zero()
        })
        .count()
}

/// Modelo 111's figures: every expense with IRPF withheld but rent.
pub fn model_111(expenses: &[&Expense]) -> Withheld {
    sum(expenses, false)
}

/// Modelo 115's figures: rent with IRPF withheld.
pub fn model_115(expenses: &[&Expense]) -> Withheld {
    sum(expenses, true)
}

fn row(number: &'static str, label: &str, value: Decimal) -> ReturnBox {
    ReturnBox {
        number,
        label: label.into(),
        value,
    }
}

pub fn boxes_111(w: &Withheld) -> Vec<ReturnBox> {
    vec![
        row(
            "07",
            "Economic activities: recipients",
            Decimal::from(w.recipients),
        ),
        row("08", "Economic activities: amounts paid", w.base),
        row("09", "Economic activities: withholdings", w.withheld),
        row("28", "Total withholdings", w.withheld),
        row("30", "Result", w.withheld),
    ]
}

pub fn boxes_115(w: &Withheld) -> Vec<ReturnBox> {
    vec![
        row("01", "Recipients", Decimal::from(w.recipients)),
        row("02", "Base of the withholdings", w.base),
        row("03", "Withholdings", w.withheld),
        row("05", "Result", w.withheld),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expense::{Entry, Expense, ExpenseFields, LineInput, Source};
    use crate::tax::money::{Money, Percent};
    use chrono::{NaiveDate, Utc};
    use rust_decimal::dec;

    fn expense(nif: &str, number: &str, category: Category, irpf: Decimal) -> Expense {
        dated(
            nif,
            number,
            category,
            irpf,
            (2026, 10, 1),
            Some((2026, 10, 1)),
        )
    }

    fn dated(
        nif: &str,
        number: &str,
        category: Category,
        irpf: Decimal,
        issued: (i32, u32, u32),
        paid: Option<(i32, u32, u32)>,
    ) -> Expense {
        let day = |(y, m, d): (i32, u32, u32)| NaiveDate::from_ymd_opt(y, m, d);
        let fields = ExpenseFields {
            supplier_name: Some("Proveedor".into()),
            supplier_tax_id: Some(nif.into()),
            number: Some(number.into()),
            issue_date: day(issued),
            paid_date: paid.and_then(day),
            category: Some(category),
            irpf_rate: Some(Percent::from(irpf)),
            lines: Some(vec![LineInput {
                rate: Percent::from(dec!(21)),
                base: Money::from(dec!(1000)),
                vat_amount: None,
                surcharge_rate: None,
                surcharge_amount: None,
            }]),
            ..ExpenseFields::default()
        };
        Expense {
            id: format!("exp_{number}"),
            object: "expense".into(),
            livemode: true,
            source: Source::Typed,
            entry: Entry::parse(fields, NaiveDate::from_ymd_opt(2026, 12, 31).unwrap()).unwrap(),
            document: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    #[test]
    fn a_supplier_counts_once_and_rent_goes_to_115() {
        let fees = [
            expense("B12345674", "1", Category::ProfessionalServices, dec!(15)),
            expense("B12345674", "2", Category::ProfessionalServices, dec!(15)),
            expense("B64717838", "3", Category::Other, dec!(7)),
            expense("B10000024", "4", Category::Rent, dec!(19)),
            expense("B10000024", "5", Category::Software, dec!(0)),
        ];
        let all: Vec<&Expense> = fees.iter().collect();
        assert_eq!(
            model_111(&all),
            Withheld {
                recipients: 2,
                base: dec!(3000),
                withheld: dec!(370),
            }
        );
        assert_eq!(
            model_115(&all),
            Withheld {
                recipients: 1,
                base: dec!(1000),
                withheld: dec!(190),
            }
        );
    }

    #[test]
    fn the_withholding_counts_in_the_quarter_it_was_paid() {
        // RIRPF art. 78.1: a professional's invoice of 10-03 paid on 15-04 is
        // declared in the second quarter's Modelo 111, not the first's.
        let q1 = |y| {
            (
                NaiveDate::from_ymd_opt(y, 1, 1).unwrap(),
                NaiveDate::from_ymd_opt(y, 3, 31).unwrap(),
            )
        };
        let q2 = |y| {
            (
                NaiveDate::from_ymd_opt(y, 4, 1).unwrap(),
                NaiveDate::from_ymd_opt(y, 6, 30).unwrap(),
            )
        };
        let book = [
            dated(
                "B12345674",
                "1",
                Category::ProfessionalServices,
                dec!(15),
                (2026, 3, 10),
                Some((2026, 4, 15)),
            ),
            dated(
                "B64717838",
                "2",
                Category::ProfessionalServices,
                dec!(15),
                (2026, 3, 12),
                None,
            ),
        ];
        let (from, to) = q1(2026);
        assert!(paid_between(&book, from, to).is_empty());
        assert_eq!(unpaid_with_withholding(&book, to), 1);
        let (from, to) = q2(2026);
        let paid = paid_between(&book, from, to);
        assert_eq!(
            model_111(&paid),
            Withheld {
                recipients: 1,
                base: dec!(1000),
                withheld: dec!(150),
            }
        );
    }

    #[test]
    fn an_expense_stored_before_payments_were_recorded_counts_on_its_issue_date() {
        let mut old = dated(
            "B12345674",
            "1",
            Category::Rent,
            dec!(19),
            (2026, 3, 10),
            None,
        );
        old.entry.paid_date = crate::expense::Paid::NotRecorded;
        let book = [old];
        let march = NaiveDate::from_ymd_opt(2026, 3, 31).unwrap();
        let paid = paid_between(&book, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(), march);
        assert_eq!(model_115(&paid).withheld, dec!(190));
        assert_eq!(unpaid_with_withholding(&book, march), 0);
    }
}
