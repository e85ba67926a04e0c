//! Quarters: their first and last days, and the quarter summary from the
//! ledger (output VAT and surcharge per rate, IRPF withheld by clients, and
//! the Modelo 303 boxes they feed).

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use rust_decimal::dec;

use super::indirect::IndirectTax;
use super::ledger_entry::{LedgerEntry, RateGroup};
use super::model303::SelfAssessed;
use crate::invoice::line::Treatment;
use crate::invoice::party::in_eu;

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
    /// Taxed groups (S1) of ordinary invoices (F1, F2) per VAT rate.
    pub vat: BTreeMap<Decimal, RateTotals>,
    /// Ordinary invoices per surcharge rate.
    pub surcharge: BTreeMap<Decimal, RateTotals>,
    /// Taxed groups of rectifying invoices (R1–R5): the modifications of
    /// boxes 14/15 and 25/26.
    pub rectified_vat: RateTotals,
    pub rectified_surcharge: RateTotals,
    /// Bases of exempt, not-subject and reverse-charge groups per box of
    /// Modelo 303 (59, 60, 120, 122), rectifying invoices signed in; the
    /// groups with no box (E1, E6, N1) are only in `base`.
    pub untaxed: BTreeMap<&'static str, Decimal>,
    /// Taxed groups of invoices under the cash-accounting regime that
    /// accrued in the quarter by the general rule (LIVA art. 75), collected
    /// or not: boxes 62/63. Their VAT is in `vat` as it is collected.
    pub cash_regime: RateTotals,
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

/// The Modelo 303 box of the base of a group that bears no Spanish VAT
/// (`docs/tax-boxes.md` gives the source of each): intra-EU supplies of
/// goods (E5) and services to a business in another EU state (N2) in 59;
/// exports and the operations assimilated to them (E2, E3, E4: LIVA arts.
/// 21–24) in 60; other services located outside Spain (N2) in 120; domestic
/// reverse charge (S2) in 122. Exempt without the right to deduct (E1, E6)
/// and not subject by art. 7 (N1) go to none.
pub fn untaxed_box(treatment: Treatment, customer_country: Option<&str>) -> Option<&'static str> {
    let to_eu_business = customer_country.is_some_and(|c| c != "ES" && in_eu(c));
    match treatment {
        Treatment::E5 => Some("59"),
        Treatment::N2 if to_eu_business => Some("59"),
        Treatment::E2 | Treatment::E3 | Treatment::E4 => Some("60"),
        Treatment::N2 => Some("120"),
        Treatment::S2 => Some("122"),
        Treatment::Taxed | Treatment::E1 | Treatment::E6 | Treatment::N1 => None,
    }
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
            } else if g.treatment != Treatment::Taxed {
                if let Some(number) = untaxed_box(g.treatment, entry.customer_country.as_deref()) {
                    *s.untaxed.entry(number).or_default() += g.base;
                }
            } else if entry.defers_vat() {
                add(&mut s.cash_regime, g.base, g.vat_amount);
            } else if entry.is_rectification() {
                add(&mut s.rectified_vat, g.base, g.vat_amount);
                if !g.surcharge_rate.is_zero() {
                    add(&mut s.rectified_surcharge, g.base, g.surcharge_amount);
                }
            } else {
                add_taxed(&mut s, g);
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

/// Adds the taxed groups whose VAT accrued in the quarter under the
/// cash-accounting regime (collections, and what was left unpaid on its
/// deadline: `tax::cash_accounting`) to the output VAT and surcharge per rate.
pub fn add_collected(s: &mut QuarterSummary, groups: &[RateGroup]) {
    for g in groups.iter().filter(|g| g.treatment == Treatment::Taxed) {
        add_taxed(s, g);
    }
}

/// A taxed group into the output VAT per rate, and its surcharge per rate.
fn add_taxed(s: &mut QuarterSummary, g: &RateGroup) {
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

/// One box of a return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnBox {
    pub number: &'static str,
    pub label: String,
    pub value: Decimal,
}

/// The (base, rate, quota) boxes of Modelo 303 for a taxed VAT rate. The
/// rows are the same in every layout since 2023 (OCA `l10n_es_aeat_mod303`
/// maps 2023 and 2024-10); 2 % and 7.5 % only applied in 2024 Q4.
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

/// The (base, rate, quota) boxes of Modelo 303 for a surcharge rate. Up to
/// 2024 Q3 the row 16–18 takes 0 %, 0.5 % and 0.62 % (OCA map 2023); from
/// 2024 Q4 (and in 2025 and 2026, whose forms keep that layout) 0.26 % and
/// 0.5 % share 168–170 and 16–18 takes 0 %, 0.62 % and 1 % (OCA map 2024-10).
fn surcharge_boxes(rate: Decimal, year: i32, quarter: u8) -> Option<[&'static str; 3]> {
    let from_2024_q4 = (year, quarter) >= (2024, 4);
    Some(match rate {
        r if r == dec!(5.2) => ["22", "23", "24"],
        r if r == dec!(1.4) => ["19", "20", "21"],
        r if r == dec!(1.75) => ["156", "157", "158"],
        r if r == dec!(0.26) && from_2024_q4 => ["168", "169", "170"],
        r if r == dec!(0.5) && from_2024_q4 => ["168", "169", "170"],
        r if r == dec!(0.5) => ["16", "17", "18"],
        r if r.is_zero() || r == dec!(0.62) || r == dec!(1) => ["16", "17", "18"],
        _ => return None,
    })
}

/// The rates and totals that share one (base, rate, quota) row of the form.
struct Row {
    numbers: [&'static str; 3],
    rates: Vec<Decimal>,
    totals: RateTotals,
}

fn add_to_row(rows: &mut Vec<Row>, numbers: [&'static str; 3], rate: Decimal, t: &RateTotals) {
    let row = match rows.iter().position(|r| r.numbers == numbers) {
        Some(i) => &mut rows[i],
        None => {
            rows.push(Row {
                numbers,
                rates: Vec::new(),
                totals: RateTotals::default(),
            });
            rows.last_mut().expect("just pushed")
        }
    };
    row.rates.push(rate);
    add(&mut row.totals, t.base, t.amount);
}

/// Each row once: base, rate (when one rate fills it; a row several rates
/// share has no single rate to state) and quota. Returns the quotas' sum.
fn push_rows(boxes: &mut Vec<ReturnBox>, what: &str, rows: Vec<Row>) -> Decimal {
    let mut total = Decimal::ZERO;
    for row in rows {
        let rates = row
            .rates
            .iter()
            .map(|r| format!("{r} %"))
            .collect::<Vec<_>>()
            .join(" / ");
        boxes.push(ReturnBox {
            number: row.numbers[0],
            label: format!("{what} {rates}: base"),
            value: row.totals.base,
        });
        if let [rate] = row.rates[..] {
            boxes.push(ReturnBox {
                number: row.numbers[1],
                label: format!("{what} {rates}: rate"),
                value: rate,
            });
        }
        boxes.push(ReturnBox {
            number: row.numbers[2],
            label: format!("{what} {rates}: quota"),
            value: row.totals.amount,
        });
        total += row.totals.amount;
    }
    total
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
    let mut rows = Vec::new();
    for (rate, t) in &s.vat {
        if let Some(numbers) = vat_boxes(*rate) {
            add_to_row(&mut rows, numbers, *rate, t);
        }
    }
    let mut total = push_rows(&mut boxes, "Output VAT", rows);
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
    let mut rows = Vec::new();
    for (rate, t) in &s.surcharge {
        if let Some(numbers) = surcharge_boxes(*rate, year, quarter) {
            add_to_row(&mut rows, numbers, *rate, t);
        }
    }
    total += push_rows(&mut boxes, "Equivalence surcharge", rows);
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

/// The additional information of the form (not part of the result): the
/// bases of the operations that bear no Spanish VAT, rectifications signed
/// in, and 62/63: base and quota of the supplies under the cash-accounting
/// regime that accrued in the quarter by the general rule (art. 75),
/// whether collected or not (2026 form and its instructions).
pub fn additional_boxes(s: &QuarterSummary) -> Vec<ReturnBox> {
    let cash = [
        (
            "62",
            "Supplies under the cash-accounting regime, by the general accrual rule: base",
            s.cash_regime.base,
        ),
        (
            "63",
            "Supplies under the cash-accounting regime, by the general accrual rule: quota",
            s.cash_regime.amount,
        ),
    ]
    .map(|(number, label, value)| ReturnBox {
        number,
        label: label.into(),
        value,
    });
    let untaxed = [
        ("59", "Intra-EU supplies of goods and services"),
        ("60", "Exports and assimilated operations"),
        ("120", "Operations not subject by the place-of-supply rules"),
        (
            "122",
            "Operations subject with reverse charge (the customer accounts for the VAT)",
        ),
    ]
    .into_iter()
    .map(|(number, label)| ReturnBox {
        number,
        label: format!("{label}: base"),
        value: s.untaxed.get(number).copied().unwrap_or_default(),
    });
    untaxed.chain(cash).collect()
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
            treatment: Treatment::Taxed,
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
            operation_date: None,
            accrual_date: None,
            customer_country: None,
            cash_accounting: false,
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

    fn untaxed(treatment: Treatment, base: Decimal) -> RateGroup {
        RateGroup {
            treatment,
            ..group(dec!(0), base, dec!(0), dec!(0), dec!(0))
        }
    }

    fn to(country: &str, mut e: LedgerEntry) -> LedgerEntry {
        e.customer_country = Some(country.into());
        e
    }

    fn no_repeated_box(boxes: &[ReturnBox]) {
        let mut numbers: Vec<_> = boxes.iter().map(|b| b.number).collect();
        numbers.sort_unstable();
        let before = numbers.len();
        numbers.dedup();
        assert_eq!(numbers.len(), before, "a box appears twice: {boxes:?}");
    }

    #[test]
    fn each_exemption_and_qualification_lands_in_its_box() {
        // Boxes from the 2026 form and OCA l10n_es_aeat_mod303 map 2024-10
        // (docs/tax-boxes.md): 59 intra-EU supplies of goods (E5, art. 25)
        // and services to EU businesses; 60 exports and assimilated (arts.
        // 21–24); 120 not subject by place of supply; 122 reverse charge
        // (art. 84.Uno.2º); S1 at 0 % in 150–152; E1, E6, N1 in none.
        let entries = vec![
            to(
                "FR",
                entry("F1", vec![untaxed(Treatment::E5, dec!(1000))], dec!(0)),
            ),
            to(
                "DE",
                entry("F1", vec![untaxed(Treatment::N2, dec!(300))], dec!(0)),
            ),
            to(
                "US",
                entry("F1", vec![untaxed(Treatment::N2, dec!(200))], dec!(0)),
            ),
            to(
                "US",
                entry(
                    "F1",
                    vec![
                        untaxed(Treatment::E2, dec!(700)),
                        untaxed(Treatment::E3, dec!(50)),
                        untaxed(Treatment::E4, dec!(25)),
                    ],
                    dec!(0),
                ),
            ),
            to(
                "ES",
                entry("F1", vec![untaxed(Treatment::S2, dec!(400))], dec!(0)),
            ),
            to(
                "ES",
                entry(
                    "F1",
                    vec![
                        untaxed(Treatment::E1, dec!(80)),
                        untaxed(Treatment::E6, dec!(8)),
                        untaxed(Treatment::N1, dec!(9)),
                        group(dec!(0), dec!(60), dec!(0), dec!(0), dec!(0)),
                    ],
                    dec!(0),
                ),
            ),
        ];
        let s = summarize(&entries);
        let mut boxes = model_303_boxes(&s, &SelfAssessed::default(), 2026, 3);
        boxes.extend(additional_boxes(&s));
        no_repeated_box(&boxes);
        assert_eq!(value(&boxes, "59"), dec!(1300));
        assert_eq!(value(&boxes, "60"), dec!(775));
        assert_eq!(value(&boxes, "120"), dec!(200));
        assert_eq!(value(&boxes, "122"), dec!(400));
        assert_eq!(
            (value(&boxes, "150"), value(&boxes, "152")),
            (dec!(60), dec!(0))
        );
        assert_eq!(
            (value(&boxes, "14"), value(&boxes, "27")),
            (dec!(0), dec!(0))
        );
        // The bases of E1, E6 and N1 are in the totals, in no box.
        assert_eq!(s.base, dec!(2832));
    }

    #[test]
    fn a_rectified_exempt_line_goes_to_its_own_box_and_a_taxed_one_to_14() {
        // A rectification modifies the box the operation was declared in:
        // an export credited goes to 60 negative, never to 14/15 (which
        // carry the modified bases and quotas of taxed operations).
        let entries = vec![
            to(
                "US",
                entry("R1", vec![untaxed(Treatment::E2, dec!(-100))], dec!(0)),
            ),
            to(
                "ES",
                entry(
                    "R1",
                    vec![group(
                        dec!(21),
                        dec!(-50),
                        dec!(-10.5),
                        dec!(5.2),
                        dec!(-2.6),
                    )],
                    dec!(0),
                ),
            ),
        ];
        let s = summarize(&entries);
        let boxes = model_303_boxes(&s, &SelfAssessed::default(), 2026, 4);
        assert_eq!(
            (value(&boxes, "14"), value(&boxes, "15")),
            (dec!(-50), dec!(-10.5))
        );
        assert_eq!(
            (value(&boxes, "25"), value(&boxes, "26")),
            (dec!(-50), dec!(-2.6))
        );
        assert_eq!(value(&additional_boxes(&s), "60"), dec!(-100));
    }

    #[test]
    fn an_invoice_under_the_cash_regime_fills_62_63_and_its_collections_07_09() {
        // LIVA art. 163 terdecies: 1,000 + 21 % issued under the regime
        // accrues nothing in 07/09 until collected; boxes 62/63 of its
        // quarter take 1,000/210 (what art. 75 would have made accrue).
        // Half collected: 500/105 in 07/09 of the quarter of the payment.
        let mut e = entry(
            "F1",
            vec![group(dec!(21), dec!(1000), dec!(210), dec!(0), dec!(0))],
            dec!(0),
        );
        e.cash_accounting = true;
        let s = summarize(&[e]);
        let boxes = model_303_boxes(&s, &SelfAssessed::default(), 2026, 1);
        let extra = additional_boxes(&s);
        assert_eq!(
            (value(&extra, "62"), value(&extra, "63")),
            (dec!(1000), dec!(210))
        );
        assert!(boxes.iter().all(|b| b.number != "07"));
        assert_eq!(value(&boxes, "27"), dec!(0));

        let mut later = summarize(&[]);
        add_collected(
            &mut later,
            &[group(dec!(21), dec!(500), dec!(105), dec!(0), dec!(0))],
        );
        let boxes = model_303_boxes(&later, &SelfAssessed::default(), 2026, 2);
        assert_eq!(
            (value(&boxes, "07"), value(&boxes, "09")),
            (dec!(500), dec!(105))
        );
        assert_eq!(value(&additional_boxes(&later), "62"), dec!(0));
    }

    #[test]
    fn surcharges_sharing_a_row_fill_it_once() {
        // 2024 Q4: 0.26 % (2 % VAT) and 0.5 % (4 % VAT) share 168–170 (OCA
        // map 2024-10, line 168: s_req026, s_req05); 1 % (7.5 % VAT) is in
        // 16–18. One row each, never the same box twice.
        let entries = vec![entry(
            "F1",
            vec![
                group(dec!(2), dec!(100), dec!(2), dec!(0.26), dec!(0.26)),
                group(dec!(4), dec!(200), dec!(8), dec!(0.5), dec!(1)),
                group(dec!(7.5), dec!(100), dec!(7.5), dec!(1), dec!(1)),
            ],
            dec!(0),
        )];
        let s = summarize(&entries);
        let boxes = model_303_boxes(&s, &SelfAssessed::default(), 2024, 4);
        no_repeated_box(&boxes);
        assert_eq!(
            (value(&boxes, "168"), value(&boxes, "170")),
            (dec!(300), dec!(1.26))
        );
        assert!(
            boxes.iter().all(|b| b.number != "169"),
            "two rates, no single rate box"
        );
        assert_eq!(
            (
                value(&boxes, "16"),
                value(&boxes, "17"),
                value(&boxes, "18")
            ),
            (dec!(100), dec!(1), dec!(1))
        );
        // 2 + 8 + 7.5 + 0.26 + 1 + 1
        assert_eq!(value(&boxes, "27"), dec!(19.76));
    }
}
