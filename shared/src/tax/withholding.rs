//! IRPF withholding (retención) on invoices: the types and their rates for
//! 2026 (LIRPF art. 101; RIRPF arts. 80, 95, 100).

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use rust_decimal::dec;

use super::money::{percent_of, round2};
use super::vat::{VatBreakdown, VatRate, on_base};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WithholdingType {
    Professional,
    ProfessionalNew,
    ProfessionalReduced,
    ArtisticReduced,
    Rental,
    CoursesLectures,
    IntellectualProperty,
    ImageRights,
    Agricultural,
    LivestockPigPoultry,
    Modules,
    BoardMember,
    BoardMemberSmall,
    None,
}

impl WithholdingType {
    pub const ALL: [WithholdingType; 14] = [
        WithholdingType::Professional,
        WithholdingType::ProfessionalNew,
        WithholdingType::ProfessionalReduced,
        WithholdingType::ArtisticReduced,
        WithholdingType::Rental,
        WithholdingType::CoursesLectures,
        WithholdingType::IntellectualProperty,
        WithholdingType::ImageRights,
        WithholdingType::Agricultural,
        WithholdingType::LivestockPigPoultry,
        WithholdingType::Modules,
        WithholdingType::BoardMember,
        WithholdingType::BoardMemberSmall,
        WithholdingType::None,
    ];

    pub fn code(self) -> &'static str {
        match self {
            WithholdingType::Professional => "professional",
            WithholdingType::ProfessionalNew => "professional_new",
            WithholdingType::ProfessionalReduced => "professional_reduced",
            WithholdingType::ArtisticReduced => "artistic_reduced",
            WithholdingType::Rental => "rental",
            WithholdingType::CoursesLectures => "courses_lectures",
            WithholdingType::IntellectualProperty => "intellectual_property",
            WithholdingType::ImageRights => "image_rights",
            WithholdingType::Agricultural => "agricultural",
            WithholdingType::LivestockPigPoultry => "livestock_pig_poultry",
            WithholdingType::Modules => "modules",
            WithholdingType::BoardMember => "board_member",
            WithholdingType::BoardMemberSmall => "board_member_small",
            WithholdingType::None => "none",
        }
    }

    pub fn rate(self) -> Decimal {
        match self {
            WithholdingType::Professional
            | WithholdingType::CoursesLectures
            | WithholdingType::IntellectualProperty => dec!(15),
            WithholdingType::ProfessionalNew
            | WithholdingType::ProfessionalReduced
            | WithholdingType::ArtisticReduced => dec!(7),
            WithholdingType::Rental | WithholdingType::BoardMemberSmall => dec!(19),
            WithholdingType::ImageRights => dec!(24),
            WithholdingType::Agricultural => dec!(2),
            WithholdingType::LivestockPigPoultry | WithholdingType::Modules => dec!(1),
            WithholdingType::BoardMember => dec!(35),
            WithholdingType::None => dec!(0),
        }
    }

    /// The rule applied, in plain words.
    pub fn rule(self) -> &'static str {
        match self {
            WithholdingType::Professional => "Professional activities (IAE section 2): 15 %",
            WithholdingType::ProfessionalNew => {
                "New professional: 7 % in the year of starting and the two following years (the payer must be told in writing)"
            }
            WithholdingType::ProfessionalReduced => {
                "Municipal collectors, insurance brokers with external auxiliaries, lottery commercial delegates: 7 %"
            }
            WithholdingType::ArtisticReduced => {
                "Artistic and cultural activities under the 15,000 € / 75 % rule: 7 %"
            }
            WithholdingType::Rental => "Rental of urban property: 19 %",
            WithholdingType::CoursesLectures => {
                "Courses, lectures, seminars and literary or scientific works: 15 %"
            }
            WithholdingType::IntellectualProperty => "Intellectual property rights: 15 %",
            WithholdingType::ImageRights => "Assignment of image rights: 24 %",
            WithholdingType::Agricultural => "Agricultural, livestock and forestry activities: 2 %",
            WithholdingType::LivestockPigPoultry => "Pig fattening and poultry: 1 %",
            WithholdingType::Modules => {
                "Business activities in objective estimation (módulos): 1 %"
            }
            WithholdingType::BoardMember => "Directors and board members: 35 %",
            WithholdingType::BoardMemberSmall => {
                "Directors and board members, entity turnover under 100,000 €: 19 %"
            }
            WithholdingType::None => "No withholding: the payer is a consumer, or none applies",
        }
    }

    pub fn codes() -> Vec<&'static str> {
        Self::ALL.iter().map(|t| t.code()).collect()
    }
}

impl fmt::Display for WithholdingType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for WithholdingType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|t| t.code() == s)
            .ok_or_else(|| {
                format!(
                    "unknown withholding type {s:?}; valid types: {}",
                    Self::codes().join(", ")
                )
            })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Withholding {
    pub kind: WithholdingType,
    pub rate: Decimal,
    pub amount: Decimal,
    pub vat: VatBreakdown,
    /// base + VAT + surcharge − withholding.
    pub total_invoice: Decimal,
}

/// The invoice a base yields with this withholding, VAT rate and surcharge.
pub fn compute(
    base: Decimal,
    kind: WithholdingType,
    vat: VatRate,
    with_surcharge: bool,
) -> Withholding {
    let vat = on_base(base, vat, with_surcharge);
    let amount = round2(percent_of(vat.base, kind.rate()));
    Withholding {
        kind,
        rate: kind.rate(),
        amount,
        total_invoice: vat.total - amount,
        vat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tax::vat::rate_on;
    use chrono::NaiveDate;

    fn vat(rate: Decimal) -> VatRate {
        rate_on(rate, NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()).unwrap()
    }

    #[test]
    fn reference_examples() {
        let w = |base, kind, re| compute(base, kind, vat(dec!(21)), re);
        let p = w(dec!(1000), WithholdingType::Professional, false);
        assert_eq!(
            (p.vat.vat_amount, p.amount, p.total_invoice),
            (dec!(210.00), dec!(150.00), dec!(1060.00))
        );
        assert_eq!(
            w(dec!(1000), WithholdingType::ProfessionalNew, false).total_invoice,
            dec!(1140.00)
        );
        assert_eq!(
            w(dec!(1000), WithholdingType::Rental, false).total_invoice,
            dec!(1020.00)
        );
        let odd = w(dec!(1234.56), WithholdingType::Professional, false);
        assert_eq!(
            (odd.vat.vat_amount, odd.amount, odd.total_invoice),
            (dec!(259.26), dec!(185.18), dec!(1308.64))
        );
        let re = w(dec!(1000), WithholdingType::None, true);
        assert_eq!(re.total_invoice, dec!(1262.00));
    }

    #[test]
    fn types_parse_and_list_the_valid_ones() {
        assert_eq!(
            "board_member_small".parse(),
            Ok(WithholdingType::BoardMemberSmall)
        );
        let err = "freelance".parse::<WithholdingType>().unwrap_err();
        assert!(err.contains("professional, professional_new"), "{err}");
        assert_eq!(WithholdingType::ALL.len(), WithholdingType::codes().len());
    }
}
