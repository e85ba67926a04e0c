//! VAT (IVA) and the equivalence surcharge (recargo de equivalencia): rates by
//! date, forward computation and back-calculation from a VAT-included amount.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;

use super::money::{percent_of, round2};

struct RateWindow {
    rate: Decimal,
    surcharge: Decimal,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
}

const fn day(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Spanish VAT rates with the surcharge that goes with each, and the dates
/// they applied (Ley 37/1992 arts. 90–91, 161; the temporary rates of
/// 2022–2024). The 5 % rate carried a 0.5 % surcharge while it applied to
/// energy alone (RDL 11/2022, 01-07-2022 to 31-12-2022) and 0.62 % from
/// 2023, when RDL 20/2022 extended it to oils and pasta with that surcharge
/// (`shared/reference/spanish-tax.md` §2.4).
const RATES: [RateWindow; 12] = [
    RateWindow {
        rate: dec!(21),
        surcharge: dec!(5.2),
        from: day(2012, 9, 1),
        to: None,
    },
    RateWindow {
        rate: dec!(10),
        surcharge: dec!(1.4),
        from: day(2012, 9, 1),
        to: None,
    },
    RateWindow {
        rate: dec!(4),
        surcharge: dec!(0.5),
        from: None,
        to: None,
    },
    RateWindow {
        rate: dec!(0),
        surcharge: dec!(0),
        from: None,
        to: None,
    },
    RateWindow {
        rate: dec!(7.5),
        surcharge: dec!(1),
        from: day(2024, 10, 1),
        to: day(2024, 12, 31),
    },
    RateWindow {
        rate: dec!(2),
        surcharge: dec!(0.26),
        from: day(2024, 10, 1),
        to: day(2024, 12, 31),
    },
    RateWindow {
        rate: dec!(5),
        surcharge: dec!(0.5),
        from: day(2022, 7, 1),
        to: day(2022, 12, 31),
    },
    RateWindow {
        rate: dec!(5),
        surcharge: dec!(0.62),
        from: day(2023, 1, 1),
        to: day(2024, 9, 30),
    },
    RateWindow {
        rate: dec!(18),
        surcharge: dec!(4),
        from: day(2010, 7, 1),
        to: day(2012, 8, 31),
    },
    RateWindow {
        rate: dec!(8),
        surcharge: dec!(1),
        from: day(2010, 7, 1),
        to: day(2012, 8, 31),
    },
    RateWindow {
        rate: dec!(16),
        surcharge: dec!(4),
        from: None,
        to: day(2010, 6, 30),
    },
    RateWindow {
        rate: dec!(7),
        surcharge: dec!(1),
        from: None,
        to: day(2010, 6, 30),
    },
];

impl RateWindow {
    fn applies_on(&self, date: NaiveDate) -> bool {
        self.from.is_none_or(|f| date >= f) && self.to.is_none_or(|t| date <= t)
    }
}

/// A VAT rate valid on some date, with its equivalence surcharge rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VatRate {
    pub rate: Decimal,
    pub surcharge: Decimal,
}

/// Every rate that has applied on some date: today's first, then the historic ones.
pub fn all_rates() -> Vec<Decimal> {
    let mut rates: Vec<Decimal> = Vec::new();
    for window in &RATES {
        if !rates.contains(&window.rate) {
            rates.push(window.rate);
        }
    }
    rates
}

/// The rates that applied on `date`, highest first.
pub fn rates_on(date: NaiveDate) -> Vec<Decimal> {
    let mut rates: Vec<Decimal> = RATES
        .iter()
        .filter(|w| w.applies_on(date))
        .map(|w| w.rate)
        .collect();
    rates.sort_by(|a, b| b.cmp(a));
    rates
}

/// The rate `rate` as it applied on `date`, or the list of rates that did.
pub fn rate_on(rate: Decimal, date: NaiveDate) -> Result<VatRate, Vec<Decimal>> {
    RATES
        .iter()
        .find(|w| w.rate == rate.normalize() && w.applies_on(date))
        .map(|w| VatRate {
            rate: w.rate,
            surcharge: w.surcharge,
        })
        .ok_or_else(|| rates_on(date))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VatBreakdown {
    pub base: Decimal,
    pub vat_rate: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_rate: Decimal,
    pub surcharge_amount: Decimal,
    pub total: Decimal,
    /// VAT amount minus round(base × rate): non-zero only when a VAT-included
    /// amount has no exact base/quota pair and the quota absorbed the cent.
    pub quota_difference: Decimal,
}

/// VAT (and surcharge) on a base.
pub fn on_base(base: Decimal, rate: VatRate, with_surcharge: bool) -> VatBreakdown {
    let base = round2(base);
    let surcharge_rate = if with_surcharge {
        rate.surcharge
    } else {
        Decimal::ZERO
    };
    let vat_amount = round2(percent_of(base, rate.rate));
    let surcharge_amount = round2(percent_of(base, surcharge_rate));
    VatBreakdown {
        base,
        vat_rate: rate.rate,
        vat_amount,
        surcharge_rate,
        surcharge_amount,
        total: base + vat_amount + surcharge_amount,
        quota_difference: Decimal::ZERO,
    }
}

/// Splits a VAT-included amount so that base + VAT (+ surcharge) equals it to
/// the cent: base = round(amount / (1 + rates)), surcharge = round(base × its
/// rate), and the VAT quota takes the rest (it may differ by a cent from
/// round(base × rate), which `quota_difference` reports).
pub fn from_total(total: Decimal, rate: VatRate, with_surcharge: bool) -> VatBreakdown {
    let total = round2(total);
    let surcharge_rate = if with_surcharge {
        rate.surcharge
    } else {
        Decimal::ZERO
    };
    let divisor = Decimal::ONE + (rate.rate + surcharge_rate) / Decimal::ONE_HUNDRED;
    let base = round2(total / divisor);
    let surcharge_amount = round2(percent_of(base, surcharge_rate));
    let vat_amount = total - base - surcharge_amount;
    VatBreakdown {
        base,
        vat_rate: rate.rate,
        vat_amount,
        surcharge_rate,
        surcharge_amount,
        total,
        quota_difference: vat_amount - round2(percent_of(base, rate.rate)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    fn rate(r: Decimal) -> VatRate {
        rate_on(r, today()).unwrap()
    }

    #[test]
    fn rates_in_force_and_historic_windows() {
        assert_eq!(rates_on(today()), [dec!(21), dec!(10), dec!(4), dec!(0)]);
        let oct_2024 = NaiveDate::from_ymd_opt(2024, 10, 15).unwrap();
        assert_eq!(
            rates_on(oct_2024),
            [dec!(21), dec!(10), dec!(7.5), dec!(4), dec!(2), dec!(0)]
        );
        assert_eq!(
            rate_on(dec!(5), NaiveDate::from_ymd_opt(2023, 3, 1).unwrap())
                .unwrap()
                .surcharge,
            dec!(0.62)
        );
        assert!(rate_on(dec!(5), NaiveDate::from_ymd_opt(2024, 10, 1).unwrap()).is_err());
        assert_eq!(
            rate_on(dec!(18), NaiveDate::from_ymd_opt(2011, 1, 1).unwrap())
                .unwrap()
                .surcharge,
            dec!(4)
        );
        assert_eq!(
            rate_on(dec!(16), NaiveDate::from_ymd_opt(2009, 1, 1).unwrap())
                .unwrap()
                .rate,
            dec!(16)
        );
        assert_eq!(rate_on(dec!(21.0), today()).unwrap().rate, dec!(21));
        assert_eq!(
            rate_on(dec!(18), today()).unwrap_err(),
            [dec!(21), dec!(10), dec!(4), dec!(0)]
        );
    }

    #[test]
    fn the_5_percent_surcharge_was_0_5_in_2022_and_0_62_from_2023() {
        // spanish-tax.md §2.4: 0.5 % for 5 %-rated energy 01-07→31-12-2022;
        // 0.62 % from 01-01-2023 (RDL 20/2022) to 30-09-2024.
        let on = |y, m, d| rate_on(dec!(5), NaiveDate::from_ymd_opt(y, m, d).unwrap());
        assert_eq!(on(2022, 7, 1).unwrap().surcharge, dec!(0.5));
        assert_eq!(on(2022, 12, 31).unwrap().surcharge, dec!(0.5));
        assert_eq!(on(2023, 1, 1).unwrap().surcharge, dec!(0.62));
        assert_eq!(on(2024, 9, 30).unwrap().surcharge, dec!(0.62));
        assert!(on(2022, 6, 30).is_err());
        assert_eq!(all_rates().iter().filter(|r| **r == dec!(5)).count(), 1);
    }

    #[test]
    fn surcharge_rates_follow_the_vat_rate() {
        assert_eq!(rate(dec!(21)).surcharge, dec!(5.2));
        assert_eq!(rate(dec!(10)).surcharge, dec!(1.4));
        assert_eq!(rate(dec!(4)).surcharge, dec!(0.5));
        assert_eq!(rate(dec!(0)).surcharge, dec!(0));
    }

    #[test]
    fn forward_rounding_vectors() {
        assert_eq!(
            on_base(dec!(0.50), rate(dec!(21)), false).vat_amount,
            dec!(0.11)
        );
        assert_eq!(
            on_base(dec!(2.50), rate(dec!(21)), false).vat_amount,
            dec!(0.53)
        );
        assert_eq!(
            on_base(dec!(5.00), rate(dec!(21)), false).vat_amount,
            dec!(1.05)
        );
        let re = on_base(dec!(1000), rate(dec!(21)), true);
        assert_eq!(
            (re.vat_amount, re.surcharge_amount, re.total),
            (dec!(210.00), dec!(52.00), dec!(1262.00))
        );
        let mixed = on_base(dec!(500), rate(dec!(10)), true);
        assert_eq!(
            (mixed.vat_amount, mixed.surcharge_amount),
            (dec!(50.00), dec!(7.00))
        );
    }

    #[test]
    fn back_calculation_vectors_reconcile_to_the_cent() {
        for (total, base, vat, difference) in [
            (dec!(121.00), dec!(100.00), dec!(21.00), dec!(0)),
            (dec!(219.00), dec!(180.99), dec!(38.01), dec!(0)),
            (dec!(218.00), dec!(180.17), dec!(37.83), dec!(-0.01)),
            (dec!(100.00), dec!(82.64), dec!(17.36), dec!(0.01)),
            (dec!(10.00), dec!(8.26), dec!(1.74), dec!(0.01)),
        ] {
            let b = from_total(total, rate(dec!(21)), false);
            assert_eq!(
                (b.base, b.vat_amount, b.quota_difference),
                (base, vat, difference),
                "{total}"
            );
            assert_eq!(b.base + b.vat_amount + b.surcharge_amount, total);
        }
        let re = from_total(dec!(1262.00), rate(dec!(21)), true);
        assert_eq!(
            (re.base, re.vat_amount, re.surcharge_amount),
            (dec!(1000.00), dec!(210.00), dec!(52.00))
        );
    }
}
