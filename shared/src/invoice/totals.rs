//! The one totals computation of an invoice, used by the response, the ledger,
//! the documents and the VERI*FACTU record alike. Line base = quantity × unit
//! price − discount, rounded to cents; per (rate, surcharge, treatment) group:
//! base = Σ line bases, VAT = round(base × rate), surcharge = round(base × its
//! rate); IRPF = round(Σ bases × IRPF rate); total = base + VAT + surcharge − IRPF.
//! Rounding: half away from zero, to cents, per group.

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

/// Groups lines in order of first appearance and computes every total.
pub fn compute(lines: &[Line], irpf_rate: Decimal) -> Totals {
    let mut groups: Vec<Group> = Vec::new();
    for line in lines {
        let base = line_base(line);
        match groups.iter_mut().find(|g| {
            g.vat_rate == line.vat_rate
                && g.surcharge_rate == line.surcharge_rate
                && g.treatment == line.treatment
        }) {
            Some(group) => group.base += base,
            None => groups.push(Group {
                vat_rate: line.vat_rate,
                surcharge_rate: line.surcharge_rate,
                treatment: line.treatment,
                base,
                vat_amount: Decimal::ZERO,
                surcharge_amount: Decimal::ZERO,
            }),
        }
    }
    for g in &mut groups {
        g.vat_amount = round2(percent_of(g.base, g.vat_rate));
        g.surcharge_amount = round2(percent_of(g.base, g.surcharge_rate));
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
