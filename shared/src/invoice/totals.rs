//! The one totals computation of an invoice, used by the response, the ledger,
//! the documents and the VERI*FACTU record alike. Line base = quantity × unit
//! price − discount, rounded to cents; per (rate, surcharge, treatment) group:
//! base = Σ line bases, VAT = round(base × rate), surcharge = round(base × its
//! rate); IRPF = round(Σ bases × IRPF rate); total = base + VAT + surcharge − IRPF.
//! Rounding: half away from zero, to cents, per group.
//!
//! With prices that include VAT (as shops print them) the line amounts are
//! VAT-inclusive and each group's total is fixed instead: base =
//! round(Σ amounts ÷ (1 + rate)), VAT = Σ amounts − base, so the invoice adds
//! up to what its prices say.

use rust_decimal::Decimal;

use super::line::{Line, Treatment};
use crate::tax::money::{percent_of, round2};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub vat_rate: Decimal,
    pub surcharge_rate: Decimal,
    pub treatment: Treatment,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_amount: Decimal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Totals {
    pub groups: Vec<Group>,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_amount: Decimal,
    pub irpf_rate: Decimal,
    pub irpf_amount: Decimal,
    /// base + VAT + surcharge − IRPF: what the customer pays.
    pub total: Decimal,
}

impl Totals {
    /// base + VAT + surcharge: VERI*FACTU's ImporteTotal (IRPF is not part of it).
    pub fn gross(&self) -> Decimal {
        self.base + self.vat_amount + self.surcharge_amount
    }
}

/// quantity × unit price, less the discount, rounded to cents.
pub fn line_base(line: &Line) -> Decimal {
    let gross = line.quantity * line.unit_price;
    let discount = percent_of(gross, line.discount_percent);
    round2(gross - discount)
}

/// How a line's unit price is meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prices {
    WithoutVat,
    /// Not with the equivalence surcharge (a simplified invoice shows none).
    VatIncluded,
}

/// Groups lines in order of first appearance and computes every total.
pub fn compute(lines: &[Line], irpf_rate: Decimal) -> Totals {
    compute_with(lines, irpf_rate, Prices::WithoutVat)
}

/// `compute`, with prices meant as `prices` says.
pub fn compute_with(lines: &[Line], irpf_rate: Decimal, prices: Prices) -> Totals {
    let mut groups: Vec<Group> = Vec::new();
    for line in lines {
        let amount = line_base(line);
        match groups.iter_mut().find(|g| {
            g.vat_rate == line.vat_rate
                && g.surcharge_rate == line.surcharge_rate
                && g.treatment == line.treatment
        }) {
            Some(group) => group.base += amount,
            None => groups.push(Group {
                vat_rate: line.vat_rate,
                surcharge_rate: line.surcharge_rate,
                treatment: line.treatment,
                base: amount,
                vat_amount: Decimal::ZERO,
                surcharge_amount: Decimal::ZERO,
            }),
        }
    }
    for g in &mut groups {
        match prices {
            Prices::WithoutVat => {
                g.vat_amount = round2(percent_of(g.base, g.vat_rate));
                g.surcharge_amount = round2(percent_of(g.base, g.surcharge_rate));
            }
            Prices::VatIncluded => {
                let inclusive = g.base;
                g.base = without_vat(inclusive, g.vat_rate);
                g.vat_amount = inclusive - g.base;
            }
        }
    }
    let base: Decimal = groups.iter().map(|g| g.base).sum();
    let vat_amount: Decimal = groups.iter().map(|g| g.vat_amount).sum();
    let surcharge_amount: Decimal = groups.iter().map(|g| g.surcharge_amount).sum();
    let irpf_amount = round2(percent_of(base, irpf_rate));
    Totals {
        groups,
        base,
        vat_amount,
        surcharge_amount,
        irpf_rate,
        irpf_amount,
        total: base + vat_amount + surcharge_amount - irpf_amount,
    }
}

/// A VAT-inclusive amount's base at `rate`, rounded to cents.
fn without_vat(inclusive: Decimal, rate: Decimal) -> Decimal {
    round2(inclusive * Decimal::ONE_HUNDRED / (Decimal::ONE_HUNDRED + rate))
}

/// The unit price without VAT of a line whose price included it: its base
/// over its quantity and discount, to 6 decimals (its price when the
/// discount is 100 %).
pub fn unit_price_of(line: &Line, base: Decimal) -> Decimal {
    let units =
        line.quantity * (Decimal::ONE_HUNDRED - line.discount_percent) / Decimal::ONE_HUNDRED;
    let net = if units.is_zero() {
        line.unit_price * Decimal::ONE_HUNDRED / (Decimal::ONE_HUNDRED + line.vat_rate)
    } else {
        base / units
    };
    net.round_dp_with_strategy(6, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        .normalize()
}

/// Each line's base. Without VAT in the prices, `line_base`; with it, each
/// line's amount without VAT, the last line of each group taking the
/// rounding so that a group's line bases add up to its base.
pub fn line_bases(lines: &[Line], totals: &Totals, prices: Prices) -> Vec<Decimal> {
    let mut bases: Vec<Decimal> = lines.iter().map(line_base).collect();
    if prices == Prices::WithoutVat {
        return bases;
    }
    for group in &totals.groups {
        let members: Vec<usize> = (0..lines.len())
            .filter(|&i| {
                lines[i].vat_rate == group.vat_rate
                    && lines[i].surcharge_rate == group.surcharge_rate
                    && lines[i].treatment == group.treatment
            })
            .collect();
        for &i in &members {
            bases[i] = without_vat(bases[i], group.vat_rate);
        }
        if let Some(&last) = members.last() {
            let others: Decimal = members[..members.len() - 1].iter().map(|&i| bases[i]).sum();
            bases[last] = group.base - others;
        }
    }
    bases
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn line(quantity: Decimal, price: Decimal, rate: Decimal, re: Decimal) -> Line {
        Line {
            description: "x".into(),
            quantity,
            unit_price: price,
            discount_percent: Decimal::ZERO,
            vat_rate: rate,
            surcharge_rate: re,
            treatment: Treatment::Taxed,
        }
    }

    #[test]
    fn reference_examples() {
        let t = compute(&[line(dec!(1), dec!(1000), dec!(21), dec!(0))], dec!(15));
        assert_eq!(
            (t.vat_amount, t.irpf_amount, t.total),
            (dec!(210.00), dec!(150.00), dec!(1060.00))
        );
        let t = compute(&[line(dec!(1), dec!(1000), dec!(21), dec!(5.2))], dec!(0));
        assert_eq!((t.surcharge_amount, t.total), (dec!(52.00), dec!(1262.00)));
        let mixed = compute(
            &[
                line(dec!(1), dec!(1000), dec!(21), dec!(5.2)),
                line(dec!(1), dec!(500), dec!(10), dec!(1.4)),
            ],
            dec!(0),
        );
        assert_eq!(mixed.total, dec!(1819.00));
        let t = compute(&[line(dec!(1), dec!(1234.56), dec!(21), dec!(0))], dec!(15));
        assert_eq!(
            (t.vat_amount, t.irpf_amount, t.total),
            (dec!(259.26), dec!(185.18), dec!(1308.64))
        );
        assert_eq!(t.gross(), dec!(1493.82));
    }

    #[test]
    fn rounding_is_per_rate_group_not_per_line() {
        let t = compute(
            &[
                line(dec!(1), dec!(2.50), dec!(21), dec!(0)),
                line(dec!(1), dec!(2.50), dec!(21), dec!(0)),
            ],
            dec!(0),
        );
        assert_eq!(t.groups.len(), 1);
        assert_eq!(
            t.vat_amount,
            dec!(1.05),
            "5.00 × 21 % = 1.05, not 0.53 + 0.53"
        );
        let t = compute(&[line(dec!(1), dec!(0.50), dec!(21), dec!(0))], dec!(0));
        assert_eq!(t.vat_amount, dec!(0.11));
    }

    #[test]
    fn prices_with_vat_add_up_to_what_the_ticket_says() {
        let lines = [
            line(dec!(1), dec!(0.10), dec!(21), dec!(0)),
            line(dec!(1), dec!(0.10), dec!(21), dec!(0)),
            line(dec!(1), dec!(0.10), dec!(21), dec!(0)),
            line(dec!(2), dec!(1.25), dec!(10), dec!(0)),
        ];
        let t = compute_with(&lines, dec!(0), Prices::VatIncluded);
        assert_eq!(t.total, dec!(2.80), "0.30 + 2.50, as printed");
        assert_eq!(
            (t.groups[0].base, t.groups[0].vat_amount),
            (dec!(0.25), dec!(0.05)),
            "0.30 / 1.21 = 0.2479"
        );
        assert_eq!(
            (t.groups[1].base, t.groups[1].vat_amount),
            (dec!(2.27), dec!(0.23))
        );
        let bases = line_bases(&lines, &t, Prices::VatIncluded);
        assert_eq!(bases, [dec!(0.08), dec!(0.08), dec!(0.09), dec!(2.27)]);
        let without = compute(&lines, dec!(0));
        assert_eq!(without.total, dec!(3.11), "the same prices without VAT");
    }

    #[test]
    fn discounts_and_fractions_round_each_line_to_cents() {
        let mut l = line(dec!(3), dec!(19.99), dec!(21), dec!(0));
        l.discount_percent = dec!(10);
        assert_eq!(line_base(&l), dec!(53.97), "59.97 − 5.997 = 53.973");
        assert_eq!(
            line_base(&line(dec!(0.333), dec!(10), dec!(21), dec!(0))),
            dec!(3.33)
        );
        let t = compute(&[l, line(dec!(2), dec!(10), dec!(10), dec!(0))], dec!(7));
        assert_eq!(t.groups.len(), 2);
        assert_eq!(
            (t.base, t.vat_amount),
            (dec!(73.97), dec!(11.33) + dec!(2.00))
        );
        assert_eq!(t.irpf_amount, dec!(5.18));
        assert_eq!(t.total, t.base + t.vat_amount - t.irpf_amount);
    }
}
