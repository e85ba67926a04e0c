//! Amortisation of capital goods for IRPF (LIRPF art. 28.1 → LIS art. 12):
//! linear, per asset, from its entry into service, with the coefficients of
//! the simplified table of estimación directa simplificada (RIRPF art. 30.1;
//! table approved by Orden de 27 de marzo de 1998, as published in the
//! AEAT's "Manual de actividades económicas", §3.5.4 "Tabla de amortización
//! simplificada"). A year's amortisation is proportional to the days the
//! asset was in service in it, and the total never exceeds the asset's value.

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::money::round2;

/// The groups of the simplified table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssetKind {
    /// Group 1: Buildings and other constructions: 3 %, 68 years.
    Buildings,
    /// Group 2: Installations, furniture, fixtures and the rest of tangible fixed
    /// assets: 10 %, 20 years (the table's residual group).
    Furniture,
    /// Group 3: Machinery: 12 %, 18 years.
    Machinery,
    /// Group 4: Means of transport: 16 %, 14 years.
    Vehicles,
    /// Group 5: Data-processing equipment, systems and software: 26 %, 10 years.
    Computers,
    /// Group 6: Tools and implements: 30 %, 8 years.
    Tools,
    /// Group 7: Cattle, pigs, sheep and goats: 16 %, 14 years.
    Livestock,
    /// Group 8: Horses and non-citrus fruit trees: 8 %, 25 years.
    HorsesAndFruitTrees,
    /// Group 9: Citrus fruit trees and vineyards: 4 %, 50 years.
    CitrusAndVineyards,
    /// Group 10: Olive groves: 2 %, 100 years.
    OliveGroves,
}

impl AssetKind {
    /// (maximum linear coefficient in percent, maximum period in years).
    fn table(self) -> (Decimal, u32) {
        match self {
            AssetKind::Buildings => (dec!(3), 68),
            AssetKind::Furniture => (dec!(10), 20),
            AssetKind::Machinery => (dec!(12), 18),
            AssetKind::Vehicles => (dec!(16), 14),
            AssetKind::Computers => (dec!(26), 10),
            AssetKind::Tools => (dec!(30), 8),
            AssetKind::Livestock => (dec!(16), 14),
            AssetKind::HorsesAndFruitTrees => (dec!(8), 25),
            AssetKind::CitrusAndVineyards => (dec!(4), 50),
            AssetKind::OliveGroves => (dec!(2), 100),
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            AssetKind::Buildings => "buildings",
            AssetKind::Furniture => "furniture",
            AssetKind::Machinery => "machinery",
            AssetKind::Vehicles => "vehicles",
            AssetKind::Computers => "computers",
            AssetKind::Tools => "tools",
            AssetKind::Livestock => "livestock",
            AssetKind::HorsesAndFruitTrees => "horses_and_fruit_trees",
            AssetKind::CitrusAndVineyards => "citrus_and_vineyards",
            AssetKind::OliveGroves => "olive_groves",
        }
    }

    pub fn max_rate(self) -> Decimal {
        self.table().0
    }

    pub fn max_years(self) -> u32 {
        self.table().1
    }

    /// A rate is allowed when it is at most the maximum coefficient and the
    /// asset is written off within the maximum period (rate × years ≥ 100).
    pub fn allows(self, rate: Decimal) -> bool {
        rate <= self.max_rate() && rate * Decimal::from(self.max_years()) >= Decimal::ONE_HUNDRED
    }
}

/// How one asset is amortised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The amortisable value (acquisition cost for IRPF).
    pub base: Decimal,
    /// Percent per year.
    pub annual_rate: Decimal,
    /// Entry into service.
    pub start: NaiveDate,
}

fn days_in_year(year: i32) -> i64 {
    if NaiveDate::from_ymd_opt(year, 2, 29).is_some() {
        366
    } else {
        365
    }
}

/// The share of the base for the days of `year` the asset was in service,
/// up to `to`.
fn year_share(plan: &Plan, year: i32, to: NaiveDate) -> Decimal {
    let first = NaiveDate::from_ymd_opt(year, 1, 1)
        .expect("valid year")
        .max(plan.start);
    let last = NaiveDate::from_ymd_opt(year, 12, 31)
        .expect("valid year")
        .min(to);
    if last < first {
        return Decimal::ZERO;
    }
    let days = (last - first).num_days() + 1;
    plan.annual_rate / Decimal::ONE_HUNDRED * Decimal::from(days)
        / Decimal::from(days_in_year(year))
}

/// `amount`, but never past what is left to write off (`room`, of the
/// base's sign: a credit note's asset is negative).
fn capped(amount: Decimal, room: Decimal) -> Decimal {
    if room.is_sign_negative() {
        amount.max(room).min(Decimal::ZERO)
    } else {
        amount.min(room).max(Decimal::ZERO)
    }
}

/// Each year's amortisation, in cents, from the entry into service through
/// `to`: (written off before `to`'s year, `to`'s year so far).
fn split(plan: &Plan, to: NaiveDate) -> (Decimal, Decimal) {
    if to < plan.start {
        return (Decimal::ZERO, Decimal::ZERO);
    }
    let mut done = Decimal::ZERO;
    for year in plan.start.year()..to.year() {
        let end = NaiveDate::from_ymd_opt(year, 12, 31).expect("valid year");
        done += capped(
            round2(plan.base * year_share(plan, year, end)),
            plan.base - done,
        );
    }
    let this_year = round2(plan.base * year_share(plan, to.year(), to));
    (done, capped(this_year, plan.base - done))
}

/// Amortisation accumulated from the entry into service through `to`.
pub fn accumulated(plan: &Plan, to: NaiveDate) -> Decimal {
    let (before, this_year) = split(plan, to);
    before + this_year
}

/// The amortisation of `to`'s year from 1 January through `to`.
pub fn year_to_date(plan: &Plan, to: NaiveDate) -> Decimal {
    split(plan, to).1
}

/// LIS art. 12.3.e: new tangible items worth at most 300 € each may be
/// written off freely, up to 25,000 € a year.
const LOW_VALUE_LIMIT: Decimal = dec!(25000);

/// An asset, and whether its items are new and worth at most 300 € each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Asset {
    pub plan: Plan,
    pub low_value: bool,
}

/// Which low-value assets are written off at once: in order of entry into
/// service, while their year's total stays within 25,000 €. An asset that
/// would pass the limit follows its plan.
fn written_off(assets: &[Asset]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..assets.len()).filter(|&i| assets[i].low_value).collect();
    order.sort_by_key(|&i| (assets[i].plan.start, i));
    let mut used: std::collections::BTreeMap<i32, Decimal> = std::collections::BTreeMap::new();
    let mut free = vec![false; assets.len()];
    for i in order {
        let plan = assets[i].plan;
        let year = used.entry(plan.start.year()).or_default();
        if *year + plan.base <= LOW_VALUE_LIMIT {
            *year += plan.base;
            free[i] = true;
        }
    }
    free
}

/// Each asset's amortisation of `to`'s year from 1 January through `to`; a
/// low-value asset written off at once counts whole in the year it entered
/// service.
pub fn year_to_date_of(assets: &[Asset], to: NaiveDate) -> Vec<Decimal> {
    assets
        .iter()
        .zip(written_off(assets))
        .map(|(asset, free)| match free {
            true if asset.plan.start.year() == to.year() && asset.plan.start <= to => {
                asset.plan.base
            }
            true => Decimal::ZERO,
            false => year_to_date(&asset.plan, to),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn the_table_is_the_simplified_one() {
        // AEAT, Manual de actividades económicas §3.5.4 (Orden de 27-3-1998).
        assert_eq!(
            (
                AssetKind::Computers.max_rate(),
                AssetKind::Computers.max_years()
            ),
            (dec!(26), 10)
        );
        assert_eq!(
            (
                AssetKind::Buildings.max_rate(),
                AssetKind::Buildings.max_years()
            ),
            (dec!(3), 68)
        );
        assert_eq!(
            (AssetKind::Tools.max_rate(), AssetKind::Tools.max_years()),
            (dec!(30), 8)
        );
        assert_eq!(
            (
                AssetKind::Vehicles.max_rate(),
                AssetKind::Vehicles.max_years()
            ),
            (dec!(16), 14)
        );
    }

    #[test]
    fn a_rate_must_write_the_asset_off_within_the_maximum_period() {
        // Computers: at most 26 %, at least 100 / 10 = 10 %.
        assert!(AssetKind::Computers.allows(dec!(26)));
        assert!(AssetKind::Computers.allows(dec!(10)));
        assert!(!AssetKind::Computers.allows(dec!(26.01)));
        assert!(!AssetKind::Computers.allows(dec!(9.99)));
        // Buildings: 100 / 68 = 1.4706 %: 1.47 leaves the asset unpaid after 68 years.
        assert!(!AssetKind::Buildings.allows(dec!(1.47)));
        assert!(AssetKind::Buildings.allows(dec!(1.48)));
    }

    #[test]
    fn a_laptop_in_service_from_15_february_across_the_quarters() {
        // 1,200 € at 26 %: 312 € a year; 2026 has 365 days.
        let plan = Plan {
            base: dec!(1200),
            annual_rate: dec!(26),
            start: day(2026, 2, 15),
        };
        // Q1: 15-02 to 31-03 = 14 + 31 = 45 days → 312 × 45 / 365 = 38.4657… → 38.47.
        assert_eq!(year_to_date(&plan, day(2026, 3, 31)), dec!(38.47));
        // Q2: to 30-06 = 45 + 30 + 31 + 30 = 136 days → 116.2520… → 116.25.
        assert_eq!(year_to_date(&plan, day(2026, 6, 30)), dec!(116.25));
        // Q4: to 31-12 = 320 days → 273.5342… → 273.53.
        assert_eq!(year_to_date(&plan, day(2026, 12, 31)), dec!(273.53));
        // Before it entered service: nothing.
        assert_eq!(year_to_date(&plan, day(2026, 1, 31)), dec!(0));
    }

    #[test]
    fn later_years_take_a_full_year_until_the_value_is_written_off() {
        let plan = Plan {
            base: dec!(1200),
            annual_rate: dec!(26),
            start: day(2026, 2, 15),
        };
        // 2027: Q1 is 90 days, 312 × 90 / 365 = 76.9315… → 76.93; a full year, 312;
        // 2028 (leap, 366/366): 312.
        assert_eq!(year_to_date(&plan, day(2027, 3, 31)), dec!(76.93));
        assert_eq!(year_to_date(&plan, day(2027, 12, 31)), dec!(312));
        assert_eq!(year_to_date(&plan, day(2028, 12, 31)), dec!(312));
        // Written off: 273.53 + 312 × 3 = 1,209.53 > 1,200, so 2029 takes the
        // rest, 1,200 − 273.53 − 312 − 312 = 302.47, and 2030 nothing.
        assert_eq!(year_to_date(&plan, day(2029, 12, 31)), dec!(302.47));
        assert_eq!(year_to_date(&plan, day(2030, 6, 30)), dec!(0));
        assert_eq!(accumulated(&plan, day(2040, 1, 1)), dec!(1200));
    }

    #[test]
    fn a_credit_note_on_an_asset_amortises_negatively() {
        let plan = Plan {
            base: dec!(-100),
            annual_rate: dec!(10),
            start: day(2025, 1, 1),
        };
        assert_eq!(year_to_date(&plan, day(2025, 12, 31)), dec!(-10));
        assert_eq!(accumulated(&plan, day(2040, 12, 31)), dec!(-100));
    }

    #[test]
    fn low_value_items_are_written_off_at_once_up_to_25000_a_year() {
        // LIS art. 12.3.e (via LIRPF art. 28.1): items of at most 300 € each,
        // up to 25,000 € a year; what passes the limit is amortised as usual.
        let asset = |base, (m, d), low_value| Asset {
            plan: Plan {
                base,
                annual_rate: dec!(10),
                start: day(2026, m, d),
            },
            low_value,
        };
        let assets = [
            asset(dec!(24000), (3, 1), true),
            asset(dec!(2000), (5, 1), true),
            asset(dec!(250), (2, 1), true),
            asset(dec!(730), (1, 1), false),
        ];
        // Q1 (31-03): 250 (1-02) and 24,000 (1-03) written off; 24,250 used, so
        // the 2,000 of 1-05 does not fit and is amortised: not in service yet.
        // The 730 at 10 %: 73 × 90 / 365 = 18.
        assert_eq!(
            year_to_date_of(&assets, day(2026, 3, 31)),
            [dec!(24000), dec!(0), dec!(250), dec!(18)]
        );
        // Q2 (30-06): 2,000 × 10 % × 61 / 365 = 33.4246… → 33.42; 73 × 181 / 365 = 36.2.
        assert_eq!(
            year_to_date_of(&assets, day(2026, 6, 30)),
            [dec!(24000), dec!(33.42), dec!(250), dec!(36.2)]
        );
        // The next year, what was written off counts no more.
        assert_eq!(year_to_date_of(&assets, day(2027, 3, 31))[0], dec!(0));
    }
}
