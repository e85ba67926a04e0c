//! Modelo 303 from the book of expenses: the VAT the account self-assesses
//! on intra-EU and reverse-charge purchases (boxes 10–13), the input VAT it
//! deducts (28–41, total 45), and the result (46, then 64–71 with the
//! amounts to offset carried from earlier quarters). The output side from
//! the issued invoices is `quarter::model_303_boxes`. Box numbers as the
//! 2026 form numbers them (`docs/tax-boxes.md` gives the source of each).
//! Expenses charged IGIC or IPSI are never here: that tax is deducted in
//! the Canary Islands' Modelo 420 or the cities' returns.

use rust_decimal::Decimal;

use super::indirect::IndirectTax;
use super::quarter::{QuarterSummary, RateTotals, ReturnBox, additional_boxes, model_303_boxes};
use crate::expense::{Expense, Treatment};

/// The VAT self-assessed on purchases: it is output VAT (box 27) and, as far
/// as it is deductible, input VAT too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfAssessed {
    /// Intra-EU acquisitions of goods and services (boxes 10/11).
    pub intra_eu: RateTotals,
    /// Other reverse-charge purchases: Spanish ones (LIVA art. 84.Uno.2º.e–g)
    /// and services from outside the EU (art. 84.Uno.2º.a; boxes 12/13).
    pub reverse_charge: RateTotals,
}

pub fn self_assessed(expenses: &[&Expense]) -> SelfAssessed {
    let mut s = SelfAssessed::default();
    for e in expenses {
        let totals = match e.entry.treatment {
            Treatment::IntraEuGoods | Treatment::IntraEuServices => &mut s.intra_eu,
            Treatment::ReverseCharge | Treatment::NonEuServices => &mut s.reverse_charge,
            Treatment::Domestic | Treatment::Import => continue,
        };
        totals.base += e.bases();
        totals.amount += e.vat();
    }
    s
}

/// The (base, quota) boxes where an expense's deduction goes. Intra-EU
/// acquisitions of goods and of services deduct in 36/37 (38/39 capital
/// goods): the 2026 form's "adquisiciones intracomunitarias de bienes y
/// servicios", OCA map 2024-10 lines 36/37 (`p_iva21_sp_in`, intra-EU
/// services, with the goods). Domestic, reverse-charge and non-EU services
/// deduct in 28/29 (30/31), OCA lines 28/29 (`p_iva21_sp_ex`, `p_iva21_isp`).
pub fn deduction_boxes(e: &Expense) -> [&'static str; 2] {
    if e.bases().is_sign_negative() {
        return ["40", "41"];
    }
    match (e.entry.treatment, e.entry.capital_good) {
        (Treatment::Import, false) => ["32", "33"],
        (Treatment::Import, true) => ["34", "35"],
        (Treatment::IntraEuGoods | Treatment::IntraEuServices, false) => ["36", "37"],
        (Treatment::IntraEuGoods | Treatment::IntraEuServices, true) => ["38", "39"],
        (_, false) => ["28", "29"],
        (_, true) => ["30", "31"],
    }
}

const INPUT_ROWS: [(&str, &str, &str); 7] = [
    (
        "28",
        "29",
        "Input VAT on domestic purchases of current goods and services",
    ),
    (
        "30",
        "31",
        "Input VAT on domestic purchases of capital goods",
    ),
    ("32", "33", "Input VAT on imports of current goods"),
    ("34", "35", "Input VAT on imports of capital goods"),
    (
        "36",
        "37",
        "Input VAT on intra-EU acquisitions of current goods and services",
    ),
    (
        "38",
        "39",
        "Input VAT on intra-EU acquisitions of capital goods",
    ),
    ("40", "41", "Rectification of deductions"),
];

fn row(number: &'static str, label: String, value: Decimal) -> ReturnBox {
    ReturnBox {
        number,
        label,
        value,
    }
}

/// Boxes 28 to 41 (each pair: the deducted base and quota) and 45, their
/// total. Expenses deducting nothing (equivalence surcharge, a 0 % share)
/// still count in their row's base only as far as their share goes.
pub fn input_boxes(expenses: &[&Expense]) -> Vec<ReturnBox> {
    let mut boxes = Vec::new();
    let mut total = Decimal::ZERO;
    for (base_box, quota_box, label) in INPUT_ROWS {
        let mut t = RateTotals::default();
        for e in expenses
            .iter()
            .filter(|e| deduction_boxes(e) == [base_box, quota_box])
        {
            t.base += e.entry.deductible.base.value();
            t.amount += e.entry.deductible.vat.value();
        }
        boxes.push(row(base_box, format!("{label}: base"), t.base));
        boxes.push(row(quota_box, format!("{label}: quota"), t.amount));
        total += t.amount;
    }
    boxes.push(row("45", "Total input VAT deducted".into(), total));
    boxes
}

/// Boxes 74/75 (additional information): base and quota of the purchases
/// the cash-accounting regime applies to or affects that would have been
/// deductible in the quarter by the general rule, paid or not. `expenses`:
/// those whose `general_vat_date` is in the quarter; only the ones the
/// regime applies to or affects count (`Expense::under_cash_regime`: from a
/// supplier under it, or any domestic purchase of a buyer under it; 2026
/// form and its instructions).
pub fn cash_purchase_boxes(expenses: &[&Expense], buyer_in_regime: bool) -> Vec<ReturnBox> {
    let mut t = RateTotals::default();
    for e in expenses
        .iter()
        .filter(|e| e.under_cash_regime(buyer_in_regime))
    {
        t.base += e.bases();
        t.amount += e.vat();
    }
    vec![
        row(
            "74",
            "Purchases under the cash-accounting regime, by the general accrual rule: base".into(),
            t.base,
        ),
        row(
            "75",
            "Purchases under the cash-accounting regime, by the general accrual rule: quota".into(),
            t.amount,
        ),
    ]
}

/// What the return ends in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pay,
    /// Negative: carried to later quarters (or, in the fourth, refunded on request).
    Offset,
    Zero,
}

impl Outcome {
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Pay => "pay",
            Outcome::Offset => "offset",
            Outcome::Zero => "zero",
        }
    }
}

/// Box 46 (27 − 45) and the result: 64 (the general regime's alone), 65/66
/// (100 % to the State), 110/78/87 (amounts to offset from earlier quarters:
/// pending, applied, left), 69 and 71.
pub fn result_boxes(
    output: Decimal,
    input: Decimal,
    carried_forward: Decimal,
) -> (Vec<ReturnBox>, Outcome) {
    let general = output - input;
    let applied = carried_forward.min(general.max(Decimal::ZERO));
    let result = general - applied;
    let boxes = vec![
        row("46", "General regime result (27 − 45)".into(), general),
        row("64", "Sum of results".into(), general),
        row(
            "65",
            "Share attributable to the State, %".into(),
            Decimal::ONE_HUNDRED,
        ),
        row("66", "Attributable to the State".into(), general),
        row(
            "110",
            "Amounts to offset pending from earlier periods".into(),
            carried_forward,
        ),
        row(
            "78",
            "Amounts to offset from earlier periods applied".into(),
            applied,
        ),
        row(
            "87",
            "Amounts to offset left for later periods".into(),
            carried_forward - applied,
        ),
        row("69", "Result (66 − 78)".into(), result),
        row("71", "Result of the return".into(), result),
    ];
    let outcome = if result.is_zero() {
        Outcome::Zero
    } else if result.is_sign_positive() {
        Outcome::Pay
    } else {
        Outcome::Offset
    };
    (boxes, outcome)
}

/// A whole return: its boxes, box 71 and what it ends in.
pub struct Model303 {
    pub boxes: Vec<ReturnBox>,
    pub result: Decimal,
    pub outcome: Outcome,
}

/// Every box of the return from the quarter's issued invoices (`invoices`)
/// and the expenses whose VAT falls in it (those charged IGIC or IPSI are
/// left out), then the additional information (59, 60, 120, 122).
pub fn model_303(
    invoices: &QuarterSummary,
    expenses: &[&Expense],
    year: i32,
    quarter: u8,
    carried_forward: Decimal,
) -> Model303 {
    let value = |boxes: &[ReturnBox], number: &str| {
        boxes
            .iter()
            .find(|b| b.number == number)
            .map_or(Decimal::ZERO, |b| b.value)
    };
    let expenses: Vec<&Expense> = expenses
        .iter()
        .copied()
        .filter(|e| e.entry.tax == IndirectTax::Iva)
        .collect();
    let expenses = &expenses[..];
    let mut boxes = model_303_boxes(invoices, &self_assessed(expenses), year, quarter);
    let output = value(&boxes, "27");
    let input = input_boxes(expenses);
    let deducted = value(&input, "45");
    boxes.extend(input);
    let (result_boxes, outcome) = result_boxes(output, deducted, carried_forward);
    let result = value(&result_boxes, "71");
    boxes.extend(result_boxes);
    boxes.extend(additional_boxes(invoices));
    Model303 {
        boxes,
        result,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expense::{Category, Entry, ExpenseFields, LineInput, Source};
    use crate::tax::money::{Money, Percent};
    use chrono::{NaiveDate, Utc};
    use rust_decimal::dec;

    fn expense(treatment: Treatment, capital_good: bool, base: Decimal) -> Expense {
        let (country, tax_id) = match treatment {
            Treatment::IntraEuGoods | Treatment::IntraEuServices => ("DE", "DE123456789"),
            Treatment::NonEuServices => ("US", "US123456789"),
            _ => ("ES", "B12345674"),
        };
        let fields = ExpenseFields {
            supplier_name: Some("Proveedor".into()),
            supplier_tax_id: Some(tax_id.into()),
            supplier_country: Some(country.into()),
            number: Some("1".into()),
            issue_date: NaiveDate::from_ymd_opt(2026, 10, 1),
            category: Some(Category::Other),
            treatment: Some(treatment),
            capital_good: Some(capital_good),
            lines: Some(vec![LineInput {
                rate: Percent::from(dec!(21)),
                base: Money::from(base),
                vat_amount: None,
                surcharge_rate: None,
                surcharge_amount: None,
            }]),
            ..ExpenseFields::default()
        };
        let today = NaiveDate::from_ymd_opt(2026, 12, 31).unwrap();
        Expense {
            id: "exp_1".into(),
            object: "expense".into(),
            livemode: true,
            source: Source::Typed,
            entry: Entry::parse(fields, today).unwrap(),
            document: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        }
    }

    fn value(boxes: &[ReturnBox], number: &str) -> Decimal {
        boxes.iter().find(|b| b.number == number).unwrap().value
    }

    #[test]
    fn each_treatment_deducts_in_its_own_boxes() {
        // OCA l10n_es_aeat_mod303 map 2024-10: lines 36/37 take intra-EU
        // goods and services (p_iva21_ic_bc, p_iva21_sp_in), 38/39 intra-EU
        // capital goods; 28/29 domestic, reverse charge and services from
        // outside the EU (p_iva21_isp, p_iva21_sp_ex); 30/31 their capital
        // goods (p_iva21_isp_bi). The 2026 form: box 36 "adquisiciones
        // intracomunitarias de bienes y servicios corrientes".
        let cases = [
            (Treatment::Domestic, false, ["28", "29"]),
            (Treatment::Domestic, true, ["30", "31"]),
            (Treatment::IntraEuServices, false, ["36", "37"]),
            (Treatment::IntraEuServices, true, ["38", "39"]),
            (Treatment::ReverseCharge, false, ["28", "29"]),
            (Treatment::NonEuServices, false, ["28", "29"]),
            (Treatment::NonEuServices, true, ["30", "31"]),
            (Treatment::Import, false, ["32", "33"]),
            (Treatment::Import, true, ["34", "35"]),
            (Treatment::IntraEuGoods, false, ["36", "37"]),
            (Treatment::IntraEuGoods, true, ["38", "39"]),
        ];
        for (treatment, capital, boxes) in cases {
            assert_eq!(
                deduction_boxes(&expense(treatment, capital, dec!(100))),
                boxes,
                "{treatment:?}"
            );
        }
        assert_eq!(
            deduction_boxes(&expense(Treatment::Domestic, false, dec!(-100))),
            ["40", "41"]
        );
    }

    #[test]
    fn self_assessed_vat_is_both_output_and_input() {
        let eu = expense(Treatment::IntraEuGoods, false, dec!(1000));
        let isp = expense(Treatment::ReverseCharge, false, dec!(500));
        let domestic = expense(Treatment::Domestic, false, dec!(200));
        let all = [&eu, &isp, &domestic];
        let s = self_assessed(&all);
        assert_eq!(
            (s.intra_eu.base, s.intra_eu.amount),
            (dec!(1000), dec!(210))
        );
        assert_eq!(
            (s.reverse_charge.base, s.reverse_charge.amount),
            (dec!(500), dec!(105))
        );
        let boxes = input_boxes(&all);
        assert_eq!(value(&boxes, "37"), dec!(210));
        // 105 (reverse charge) + 42 (domestic)
        assert_eq!(value(&boxes, "29"), dec!(147));
        assert_eq!(value(&boxes, "45"), dec!(357));
    }

    #[test]
    fn services_from_outside_the_eu_are_self_assessed_in_12_13() {
        // LIVA arts. 69.Uno.1º and 84.Uno.2º.a: the Spanish business buying
        // a service from a supplier not established in the EU is the taxable
        // person; OCA map 2024-10 lines 12/13 (p_iva21_sp_ex) and 28/29.
        let cloud = expense(Treatment::NonEuServices, false, dec!(300));
        let s = self_assessed(&[&cloud]);
        assert_eq!(
            (s.reverse_charge.base, s.reverse_charge.amount),
            (dec!(300), dec!(63))
        );
        assert_eq!(s.intra_eu, RateTotals::default());
        let form = model_303(&QuarterSummary::default(), &[&cloud], 2026, 4, dec!(0));
        assert_eq!(
            (value(&form.boxes, "12"), value(&form.boxes, "13")),
            (dec!(300), dec!(63))
        );
        assert_eq!(value(&form.boxes, "29"), dec!(63));
        assert_eq!(value(&form.boxes, "71"), dec!(0));
    }

    #[test]
    fn an_expense_charged_igic_is_not_in_modelo_303() {
        // IGIC is deducted in the Canary Islands' Modelo 420 (Ley 20/1991),
        // never in the State's 303.
        let mut canary = expense(Treatment::Domestic, false, dec!(100));
        canary.entry.tax = IndirectTax::Igic;
        let form = model_303(&QuarterSummary::default(), &[&canary], 2026, 4, dec!(0));
        assert_eq!(value(&form.boxes, "28"), dec!(0));
        assert_eq!(value(&form.boxes, "45"), dec!(0));
    }

    #[test]
    fn a_supplier_under_the_cash_regime_is_deducted_when_paid_and_in_74_75() {
        // LIVA art. 163 quinquiesdecies.Uno: the buyer deducts the VAT of a
        // supplier under the regime when it pays, or on 31 December of the
        // year after the operation. Received 01-10-2026 (Q4), 100 + 21 %.
        let mut e = expense(Treatment::Domestic, false, dec!(100));
        e.entry.supplier_cash_accounting = true;
        let day = |s: &str| s.parse::<NaiveDate>().unwrap();
        e.entry.paid_date = crate::expense::Paid::from_date(None);
        assert_eq!(e.general_vat_date(), day("2026-10-01"));
        assert_eq!(e.vat_date(), day("2027-12-31"));
        e.entry.paid_date = crate::expense::Paid::from_date(Some(day("2027-02-03")));
        assert_eq!(e.vat_date(), day("2027-02-03"));
        // Boxes 74/75 of Q4 2026, by the general rule: 100 / 21.
        let boxes = cash_purchase_boxes(&[&e], false);
        assert_eq!(
            (value(&boxes, "74"), value(&boxes, "75")),
            (dec!(100), dec!(21))
        );
        let mut other = expense(Treatment::Domestic, false, dec!(50));
        assert_eq!(value(&cash_purchase_boxes(&[&other], false), "74"), dec!(0));
        // A buyer under the regime (art. 163 quaterdecies.Uno): every
        // domestic purchase waits for its payment and is in 74/75; an
        // intra-EU acquisition is outside the regime (art. 163 nonies.Cuatro).
        other.entry.paid_date = crate::expense::Paid::from_date(Some(day("2026-11-20")));
        assert_eq!(other.vat_date_as(true), day("2026-11-20"));
        let eu = expense(Treatment::IntraEuServices, false, dec!(10));
        assert_eq!(eu.vat_date_as(true), eu.general_vat_date());
        let boxes = cash_purchase_boxes(&[&other, &eu], true);
        assert_eq!(
            (value(&boxes, "74"), value(&boxes, "75")),
            (dec!(50), dec!(10.50))
        );
    }

    #[test]
    fn earlier_amounts_to_offset_apply_up_to_the_positive_result() {
        let (boxes, outcome) = result_boxes(dec!(1000), dec!(400), dec!(250));
        assert_eq!(value(&boxes, "46"), dec!(600));
        assert_eq!(value(&boxes, "78"), dec!(250));
        assert_eq!(value(&boxes, "87"), dec!(0));
        assert_eq!(value(&boxes, "71"), dec!(350));
        assert_eq!(outcome, Outcome::Pay);

        let (boxes, outcome) = result_boxes(dec!(100), dec!(400), dec!(250));
        assert_eq!(value(&boxes, "78"), dec!(0));
        assert_eq!(value(&boxes, "87"), dec!(250));
        assert_eq!(value(&boxes, "71"), dec!(-300));
        assert_eq!(outcome, Outcome::Offset);
    }
}
