//! Quarters: their first and last days, and the quarter summary from the
//! ledger (output VAT and surcharge per rate, IRPF withheld by clients, and
//! the Modelo 303 boxes they feed).

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use rust_decimal::dec;

use super::indirect::IndirectTax;
use super::ledger_entry::LedgerEntry;
use super::model303::SelfAssessed;

/// The first and last day of a quarter.
pub fn quarter_dates(year: i32, quarter: u8) -> (chrono::NaiveDate, chrono::NaiveDate) {
    use chrono::NaiveDate;
    let first_month = u32::from(quarter - 1) * 3 + 1;
    let start = NaiveDate::from_ymd_opt(year, first_month, 1).expect("valid quarter start");
    let next = if quarter == 4 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(year, first_month + 3, 1)
    };
    (
        start,
        next.expect("valid quarter end")
            .pred_opt()
            .expect("a day before"),
    )
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RateTotals {
    pub base: Decimal,
    pub amount: Decimal,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuarterSummary {
    /// Ordinary invoices (F1, F2) per VAT rate.
    pub vat: BTreeMap<Decimal, RateTotals>,
    /// Ordinary invoices per surcharge rate.
    pub surcharge: BTreeMap<Decimal, RateTotals>,
    /// Rectifying invoices (R1–R5): the modifications of boxes 14/15 and 25/26.
    pub rectified_vat: RateTotals,
    pub rectified_surcharge: RateTotals,
    /// IGIC of every invoice (rectifying ones signed) per rate: Modelo 420 of
    /// the Canary Islands, not 303.
    pub igic: BTreeMap<Decimal, RateTotals>,
    /// IPSI per rate, declared to Ceuta or Melilla, not in Modelo 303.
    pub ipsi: BTreeMap<Decimal, RateTotals>,
    pub irpf_withheld: Decimal,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_amount: Decimal,
    pub total: Decimal,
    pub invoice_count: usize,
    pub rectification_count: usize,
}

fn add(totals: &mut RateTotals, base: Decimal, amount: Decimal) {
    totals.base += base;
    totals.amount += amount;
}

pub fn summarize(entries: &[LedgerEntry]) -> QuarterSummary {
    let mut s = QuarterSummary::default();
    for entry in entries {
        if entry.is_rectification() {
            s.rectification_count += 1;
        } else {
            s.invoice_count += 1;
        }
        for g in &entry.groups {
            let other = match entry.tax {
                IndirectTax::Iva => None,
                IndirectTax::Igic => Some(&mut s.igic),
                IndirectTax::Ipsi => Some(&mut s.ipsi),
            };
            if let Some(per_rate) = other {
                add(
                    per_rate.entry(g.vat_rate.normalize()).or_default(),
                    g.base,
                    g.vat_amount,
                );
            } else if entry.is_rectification() {
                add(&mut s.rectified_vat, g.base, g.vat_amount);
                if !g.surcharge_rate.is_zero() {
                    add(&mut s.rectified_surcharge, g.base, g.surcharge_amount);
                }
            } else {
                add(
                    s.vat.entry(g.vat_rate.normalize()).or_default(),
                    g.base,
                    g.vat_amount,
                );
                if !g.surcharge_rate.is_zero() {
                    add(
                        s.surcharge.entry(g.surcharge_rate.normalize()).or_default(),
                        g.base,
                        g.surcharge_amount,
                    );
                }
            }
            s.base += g.base;
            s.vat_amount += g.vat_amount;
            s.surcharge_amount += g.surcharge_amount;
        }
        s.irpf_withheld += entry.irpf_amount;
        s.total += entry.total;
    }
    s
}

/// One box of a return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnBox {
    pub number: &'static str,
    pub label: String,
    pub value: Decimal,
}

/// The (base, rate, quota) boxes of Modelo 303 for a VAT rate.
fn vat_boxes(rate: Decimal) -> Option<[&'static str; 3]> {
    Some(match rate {
        r if r == dec!(0) => ["150", "151", "152"],
        r if r == dec!(2) => ["165", "166", "167"],
        r if r == dec!(4) => ["01", "02", "03"],
        r if r == dec!(5) || r == dec!(7.5) => ["153", "154", "155"],
        r if r == dec!(10) => ["04", "05", "06"],
        r if r == dec!(21) => ["07", "08", "09"],
        _ => return None,
    })
}

/// The (base, rate, quota) boxes of Modelo 303 for a surcharge rate; the 0.5 %
/// row moved from 16–18 to 168–170 with the fourth quarter of 2024.
fn surcharge_boxes(rate: Decimal, year: i32, quarter: u8) -> Option<[&'static str; 3]> {
    let new_layout = (year, quarter) >= (2024, 4);
    Some(match rate {
        r if r == dec!(5.2) => ["22", "23", "24"],
        r if r == dec!(1.4) => ["19", "20", "21"],
        r if r == dec!(1.75) => ["156", "157", "158"],
        r if r == dec!(0.26) || (r == dec!(0.5) && new_layout) => ["168", "169", "170"],
        r if r == dec!(0.5) || r == dec!(0.62) || r == dec!(1) || r.is_zero() => ["16", "17", "18"],
        _ => return None,
    })
}

fn push_row(
    boxes: &mut Vec<ReturnBox>,
    numbers: [&'static str; 3],
    what: &str,
    rate: Decimal,
    t: &RateTotals,
) {
    boxes.push(ReturnBox {
        number: numbers[0],
        label: format!("{what} {rate} %: base"),
        value: t.base,
    });
    boxes.push(ReturnBox {
        number: numbers[1],
        label: format!("{what} {rate} %: rate"),
        value: rate,
    });
    boxes.push(ReturnBox {
        number: numbers[2],
        label: format!("{what} {rate} %: quota"),
        value: t.amount,
    });
}

/// The Modelo 303 output boxes the quarter's invoices and the VAT
/// self-assessed on purchases fill, and box 27 (total output VAT). Rates
/// without a box of their own are left out of the boxes (they still count
/// in the summary totals).
pub fn model_303_boxes(
    s: &QuarterSummary,
    purchases: &SelfAssessed,
    year: i32,
    quarter: u8,
) -> Vec<ReturnBox> {
    let mut boxes = Vec::new();
    let mut total = Decimal::ZERO;
    for (rate, t) in &s.vat {
        if let Some(numbers) = vat_boxes(*rate) {
            push_row(&mut boxes, numbers, "Output VAT", *rate, t);
            total += t.amount;
        }
    }
    for (numbers, what, t) in [
        (
            ["10", "11"],
            "Intra-EU acquisitions of goods and services",
            &purchases.intra_eu,
        ),
        (
            ["12", "13"],
            "Other reverse-charge purchases",
            &purchases.reverse_charge,
        ),
    ] {
        boxes.push(ReturnBox {
            number: numbers[0],
            label: format!("{what}: base"),
            value: t.base,
        });
        boxes.push(ReturnBox {
            number: numbers[1],
            label: format!("{what}: quota"),
            value: t.amount,
        });
        total += t.amount;
    }
    boxes.push(ReturnBox {
        number: "14",
        label: "Modifications: base".into(),
        value: s.rectified_vat.base,
    });
    boxes.push(ReturnBox {
        number: "15",
        label: "Modifications: quota".into(),
        value: s.rectified_vat.amount,
    });
    total += s.rectified_vat.amount;
    for (rate, t) in &s.surcharge {
        if let Some(numbers) = surcharge_boxes(*rate, year, quarter) {
            push_row(&mut boxes, numbers, "Equivalence surcharge", *rate, t);
            total += t.amount;
        }
    }
    boxes.push(ReturnBox {
        number: "25",
        label: "Surcharge modifications: base".into(),
        value: s.rectified_surcharge.base,
    });
    boxes.push(ReturnBox {
        number: "26",
        label: "Surcharge modifications: quota".into(),
        value: s.rectified_surcharge.amount,
    });
    total += s.rectified_surcharge.amount;
    boxes.push(ReturnBox {
        number: "27",
        label: "Total output VAT and surcharge".into(),
        value: total,
    });
    boxes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoice::kind::Kind;
    use crate::tax::ledger_entry::RateGroup;

    fn group(
        vat_rate: Decimal,
        base: Decimal,
        vat: Decimal,
        re_rate: Decimal,
        re: Decimal,
    ) -> RateGroup {
        RateGroup {
            vat_rate,
            base,
            vat_amount: vat,
            surcharge_rate: re_rate,
            surcharge_amount: re,
        }
    }

    fn entry(kind: &str, groups: Vec<RateGroup>, irpf: Decimal) -> LedgerEntry {
        let total = groups
            .iter()
            .map(|g| g.base + g.vat_amount + g.surcharge_amount)
            .sum::<Decimal>()
            - irpf;
        LedgerEntry {
            tax: Default::default(),
            invoice_id: "inv_1".into(),
            number: "F2026-1".into(),
            kind: Kind::parse(kind).unwrap(),
            issue_date: "2026-05-05".parse().unwrap(),
            groups,
            irpf_rate: dec!(15),
            irpf_amount: irpf,
            total,
        }
    }

    fn value(boxes: &[ReturnBox], number: &str) -> Decimal {
        boxes
            .iter()
            .find(|b| b.number == number)
            .map(|b| b.value)
            .unwrap_or_else(|| panic!("no box {number}"))
    }

    #[test]
    fn a_quarter_adds_up_per_rate_and_fills_303() {
        let entries = vec![
            entry(
                "F1",
                vec![group(dec!(21), dec!(1000), dec!(210), dec!(0), dec!(0))],
                dec!(150),
            ),
            entry(
                "F1",
                vec![
                    group(dec!(21), dec!(1000), dec!(210), dec!(5.2), dec!(52)),
                    group(dec!(10), dec!(500), dec!(50), dec!(1.4), dec!(7)),
                ],
                dec!(0),
            ),
            entry(
                "F2",
                vec![group(dec!(4), dec!(10), dec!(0.40), dec!(0), dec!(0))],
                dec!(0),
            ),
            entry(
                "R1",
                vec![group(dec!(21), dec!(-100), dec!(-21), dec!(0), dec!(0))],
                dec!(-15),
            ),
        ];
        let s = summarize(&entries);
        assert_eq!((s.invoice_count, s.rectification_count), (3, 1));
        assert_eq!(
            s.vat[&dec!(21)],
            RateTotals {
                base: dec!(2000),
                amount: dec!(420)
            }
        );
        assert_eq!(
            s.surcharge[&dec!(5.2)],
            RateTotals {
                base: dec!(1000),
                amount: dec!(52)
            }
        );
        assert_eq!(s.irpf_withheld, dec!(135));
        assert_eq!(s.total, dec!(1060) + dec!(1819) + dec!(10.40) - dec!(106));

        let boxes = model_303_boxes(&s, &SelfAssessed::default(), 2026, 2);
        assert_eq!(value(&boxes, "07"), dec!(2000));
        assert_eq!(value(&boxes, "08"), dec!(21));
        assert_eq!(value(&boxes, "09"), dec!(420));
        assert_eq!(
            (value(&boxes, "04"), value(&boxes, "06")),
            (dec!(500), dec!(50))
        );
        assert_eq!(
            (value(&boxes, "01"), value(&boxes, "03")),
            (dec!(10), dec!(0.40))
        );
        assert_eq!(
            (value(&boxes, "14"), value(&boxes, "15")),
            (dec!(-100), dec!(-21))
        );
        assert_eq!(
            (value(&boxes, "22"), value(&boxes, "24")),
            (dec!(1000), dec!(52))
        );
        assert_eq!(
            (value(&boxes, "19"), value(&boxes, "21")),
            (dec!(500), dec!(7))
        );
        assert_eq!(
            value(&boxes, "27"),
            dec!(420) + dec!(50) + dec!(0.40) - dec!(21) + dec!(52) + dec!(7)
        );
    }

    #[test]
    fn surcharge_rows_follow_the_layout_of_the_period() {
        assert_eq!(
            surcharge_boxes(dec!(0.5), 2026, 1),
            Some(["168", "169", "170"])
        );
        assert_eq!(
            surcharge_boxes(dec!(0.5), 2024, 3),
            Some(["16", "17", "18"])
        );
        assert_eq!(surcharge_boxes(dec!(3), 2026, 1), None);
    }

    #[test]
    fn an_empty_ledger_gives_zeros() {
        let s = summarize(&[]);
        let boxes = model_303_boxes(&s, &SelfAssessed::default(), 2026, 1);
        assert_eq!(value(&boxes, "27"), dec!(0));
        assert_eq!(s.invoice_count, 0);
    }
}
