//! What an invoice amounts to once rectified, and the limits of a
//! rectification by differences (arts. 80 and 89 Ley 37/1992, art. 15
//! RD 1619/2012): a rectification corrects the amounts of an operation, so
//! no base, VAT or surcharge of a rate group goes below zero — a credit
//! never gives back more than the invoice, as rectified so far, charged.
//!
//! The current amounts are the original's, then each rectification in
//! order: one by differences adds its signed amounts, one by substitution
//! replaces them with its own.

use rust_decimal::Decimal;

use super::line::{Line, Treatment};
use super::model::{GroupView, Invoice};
use super::totals::{Group, Totals};

/// An invoice's amounts per (rate, surcharge, treatment) group, and its IRPF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Current {
    pub groups: Vec<Group>,
    pub irpf_amount: Decimal,
}

impl Current {
    pub fn base(&self) -> Decimal {
        self.groups.iter().map(|g| g.base).sum()
    }

    pub fn vat_amount(&self) -> Decimal {
        self.groups.iter().map(|g| g.vat_amount).sum()
    }

    pub fn surcharge_amount(&self) -> Decimal {
        self.groups.iter().map(|g| g.surcharge_amount).sum()
    }

    /// base + VAT + surcharge − IRPF: what the customer owes for it.
    pub fn total(&self) -> Decimal {
        self.base() + self.vat_amount() + self.surcharge_amount() - self.irpf_amount
    }

    /// These amounts as an invoice's totals, at `irpf_rate`.
    pub fn totals(&self, irpf_rate: Decimal) -> Totals {
        let (base, vat_amount, surcharge_amount) =
            (self.base(), self.vat_amount(), self.surcharge_amount());
        Totals {
            groups: self.groups.clone(),
            base,
            vat_amount,
            surcharge_amount,
            irpf_rate,
            irpf_amount: self.irpf_amount,
            total: self.total(),
        }
    }

    /// Nothing is left to credit: every amount is zero.
    pub fn is_nil(&self) -> bool {
        self.irpf_amount.is_zero()
            && self
                .groups
                .iter()
                .all(|g| g.base.is_zero() && g.vat_amount.is_zero() && g.surcharge_amount.is_zero())
    }

    /// These amounts with a rectification by differences added.
    pub fn plus(&self, change: &Totals) -> Current {
        let mut groups = self.groups.clone();
        for c in &change.groups {
            match groups.iter_mut().find(|g| same_group(g, c)) {
                Some(g) => {
                    g.base += c.base;
                    g.vat_amount += c.vat_amount;
                    g.surcharge_amount += c.surcharge_amount;
                }
                None => groups.push(c.clone()),
            }
        }
        Current {
            groups,
            irpf_amount: self.irpf_amount + change.irpf_amount,
        }
    }
}

fn same_group(a: &Group, b: &Group) -> bool {
    a.vat_rate == b.vat_rate && a.surcharge_rate == b.surcharge_rate && a.treatment == b.treatment
}

fn groups_of(breakdown: &[GroupView]) -> Vec<Group> {
    breakdown
        .iter()
        .map(|g| Group {
            vat_rate: g.vat_rate.value(),
            surcharge_rate: g.surcharge_rate.value(),
            treatment: Treatment::of_stored(g.exemption.as_deref()),
            base: g.base.value(),
            vat_amount: g.vat_amount.value(),
            surcharge_amount: g.surcharge_amount.value(),
        })
        .collect()
}

fn own(invoice: &Invoice) -> Current {
    Current {
        groups: groups_of(&invoice.breakdown),
        irpf_amount: invoice.irpf_amount.value(),
    }
}

/// The original's amounts after its rectifications, given in the order
/// they were issued.
pub fn current(original: &Invoice, rectifications: &[Invoice]) -> Current {
    rectifications
        .iter()
        .fold(own(original), |current, r| match &r.rectifies {
            Some(how) if how.method == "substitution" => own(r),
            _ => current.plus(&own(r).totals(r.irpf_rate.value())),
        })
}

/// A rectification by differences that would take an amount below zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exceeds {
    /// `base`, `vat_amount` or `surcharge_amount`.
    pub amount: &'static str,
    /// The group's VAT rate and treatment.
    pub vat_rate: Decimal,
    pub treatment: Treatment,
    /// The group's amount before the rectification.
    pub current: Decimal,
    /// What the rectification changes it by.
    pub change: Decimal,
}

impl Exceeds {
    pub fn message(&self) -> String {
        let what = match self.treatment {
            Treatment::Taxed => format!("the {} % group", self.vat_rate.normalize()),
            other => format!("the {} group", other.code()),
        };
        format!(
            "the rectification takes {what}'s {} below zero: the invoice's current {} is {} and \
             the rectification changes it by {}; a rectification corrects what was invoiced and \
             cannot give back more (arts. 80 and 89 Ley 37/1992, art. 15 RD 1619/2012)",
            self.amount,
            self.amount,
            self.current.round_dp(2),
            self.change.round_dp(2)
        )
    }
}

/// One of a group's amounts.
type Amount = fn(&Group) -> Decimal;

/// Checks a rectification by differences against the current amounts.
pub fn check_differences(current: &Current, change: &Totals) -> Result<(), Exceeds> {
    let after = current.plus(change);
    for g in &after.groups {
        let before = current.groups.iter().find(|c| same_group(c, g));
        let was = |f: fn(&Group) -> Decimal| before.map_or(Decimal::ZERO, f);
        let checks: [(&'static str, Amount); 3] = [
            ("base", |g| g.base),
            ("vat_amount", |g| g.vat_amount),
            ("surcharge_amount", |g| g.surcharge_amount),
        ];
        for (amount, of) in checks {
            if of(g) < Decimal::ZERO {
                return Err(Exceeds {
                    amount,
                    vat_rate: g.vat_rate,
                    treatment: g.treatment,
                    current: was(of),
                    change: of(g) - was(of),
                });
            }
        }
    }
    Ok(())
}

/// The credit of everything that is left: one line per group with an
/// amount, its base negated, and totals that are exactly the current
/// amounts negated (recomputing VAT on a remainder could be a cent off),
/// at the invoice's IRPF rate.
/// None when nothing is left.
pub fn remaining_credit(
    current: &Current,
    irpf_rate: Decimal,
    description: &str,
) -> Option<(Vec<Line>, Totals)> {
    if current.is_nil() {
        return None;
    }
    let left: Vec<&Group> = current
        .groups
        .iter()
        .filter(|g| !(g.base.is_zero() && g.vat_amount.is_zero() && g.surcharge_amount.is_zero()))
        .collect();
    let lines = left
        .iter()
        .map(|g| Line {
            description: description.into(),
            quantity: Decimal::NEGATIVE_ONE,
            unit_price: g.base,
            discount_percent: Decimal::ZERO,
            vat_rate: g.vat_rate,
            surcharge_rate: g.surcharge_rate,
            treatment: g.treatment,
        })
        .collect();
    let credit = Current {
        groups: left
            .iter()
            .map(|g| Group {
                base: -g.base,
                vat_amount: -g.vat_amount,
                surcharge_amount: -g.surcharge_amount,
                ..(*g).clone()
            })
            .collect(),
        irpf_amount: -current.irpf_amount,
    };
    Some((lines, credit.totals(irpf_rate)))
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;
    use crate::invoice::totals::compute;

    fn taxed(rate: Decimal, base: Decimal, vat: Decimal) -> Group {
        Group {
            vat_rate: rate,
            surcharge_rate: Decimal::ZERO,
            treatment: Treatment::Taxed,
            base,
            vat_amount: vat,
            surcharge_amount: Decimal::ZERO,
        }
    }

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

    /// 1,000 € at 21 % (VAT 210) and 500 € at 10 % (VAT 50), IRPF 15 % (225).
    fn invoice() -> Current {
        Current {
            groups: vec![
                taxed(dec!(21), dec!(1000), dec!(210)),
                taxed(dec!(10), dec!(500), dec!(50)),
            ],
            irpf_amount: dec!(225),
        }
    }

    #[test]
    fn a_credit_within_each_group_is_allowed_and_adds_up() {
        // Art. 15 RD 1619/2012: a rectification by differences states the
        // correction; crediting 400 € of the 21 % group leaves 600 € + 126 €.
        let credit = compute(&[line(dec!(-1), dec!(400), dec!(21), dec!(0))], dec!(15));
        assert_eq!(check_differences(&invoice(), &credit), Ok(()));
        let after = invoice().plus(&credit);
        assert_eq!(
            (after.groups[0].base, after.groups[0].vat_amount),
            (dec!(600), dec!(126))
        );
        assert_eq!(after.irpf_amount, dec!(165), "225 − 400 × 15 %");
        assert_eq!(after.total(), dec!(600) + dec!(126) + dec!(550) - dec!(165));
    }

    #[test]
    fn a_credit_beyond_a_group_is_refused_even_when_the_invoice_total_covers_it() {
        // The 10 % group has 500 €: crediting 600 € of it corrects an amount
        // that was never charged (arts. 80, 89 LIVA), although the invoice
        // as a whole (1,500 €) would cover it.
        let credit = compute(&[line(dec!(-1), dec!(600), dec!(10), dec!(0))], dec!(0));
        let refused = check_differences(&invoice(), &credit).unwrap_err();
        assert_eq!(
            (refused.amount, refused.current, refused.change),
            ("base", dec!(500), dec!(-600))
        );
        assert!(refused.message().contains("art. 15 RD 1619/2012"));
        // A rate the invoice never charged has nothing to credit.
        let other = compute(&[line(dec!(-1), dec!(1), dec!(4), dec!(0))], dec!(0));
        assert_eq!(
            check_differences(&invoice(), &other).unwrap_err().current,
            dec!(0)
        );
    }

    #[test]
    fn a_surcharge_is_checked_on_its_own() {
        // 100 € at 21 % with 5.2 % surcharge: 21 € VAT and 5.20 € surcharge.
        let current = Current {
            groups: vec![Group {
                surcharge_rate: dec!(5.2),
                surcharge_amount: dec!(5.20),
                ..taxed(dec!(21), dec!(100), dec!(21))
            }],
            irpf_amount: dec!(0),
        };
        let mut credit = compute(&[line(dec!(-1), dec!(100), dec!(21), dec!(5.2))], dec!(0));
        assert_eq!(check_differences(&current, &credit), Ok(()));
        credit.groups[0].surcharge_amount = dec!(-5.21);
        assert_eq!(
            check_differences(&current, &credit).unwrap_err().amount,
            "surcharge_amount"
        );
    }

    #[test]
    fn the_remaining_credit_is_exactly_what_is_left_and_nothing_once_credited() {
        let credited = compute(&[line(dec!(-1), dec!(333.33), dec!(21), dec!(0))], dec!(15));
        let left = invoice().plus(&credited);
        let (lines, totals) = remaining_credit(&left, dec!(15), "Resto").unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            (totals.groups[0].base, totals.groups[0].vat_amount),
            (dec!(-666.67), dec!(-140.00)),
            "210 − 70.00 (333.33 × 21 % = 69.9993 → 70.00)"
        );
        assert_eq!(totals.irpf_amount, dec!(-175.00), "225 − 50.00");
        let after = left.plus(&totals);
        assert!(after.is_nil());
        assert_eq!(remaining_credit(&after, dec!(15), "Resto"), None);
    }
}
