//! The indirect tax an issuer charges, by where it is established: VAT (IVA)
//! in the Peninsula and the Balearic Islands, IGIC in the Canary Islands,
//! IPSI in Ceuta and Melilla (`shared/reference/tax-depth.md` §3), with the
//! codes each format gives it and the rates it may carry.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::vat::{self, VatRate};

#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum IndirectTax {
    #[default]
    Iva,
    Igic,
    Ipsi,
}

/// IGIC rates (Ley 4/2012 de Canarias arts. 51–61, as tax-depth.md §3 reads
/// them): 0, 3 reduced, 7 general, 9.5 and 15 increased, 20 special. They are
/// tabulated from 2020; their earlier history is not.
const IGIC_RATES: [Decimal; 6] = [dec!(20), dec!(15), dec!(9.5), dec!(7), dec!(3), dec!(0)];
const IGIC_FROM: NaiveDate = NaiveDate::from_ymd_opt(2020, 1, 1).expect("a date");

/// IPSI rates: each city's ordinance sets them within Ley 8/1991's bands;
/// the ones Ceuta's and Melilla's ordinances use, 0.5 % to 10 %.
const IPSI_RATES: [Decimal; 9] = [
    dec!(10),
    dec!(8),
    dec!(6),
    dec!(4),
    dec!(3),
    dec!(2),
    dec!(1),
    dec!(0.5),
    dec!(0),
];

impl IndirectTax {
    /// The tax of an issuer established at this Spanish postal code: its
    /// first two digits are the province (35 Las Palmas, 38 Santa Cruz de
    /// Tenerife, 51 Ceuta, 52 Melilla).
    pub fn of_postal_code(postal_code: &str) -> IndirectTax {
        match postal_code.trim().get(..2) {
            Some("35" | "38") => IndirectTax::Igic,
            Some("51" | "52") => IndirectTax::Ipsi,
            _ => IndirectTax::Iva,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            IndirectTax::Iva => "iva",
            IndirectTax::Igic => "igic",
            IndirectTax::Ipsi => "ipsi",
        }
    }

    pub fn parse(code: &str) -> Option<IndirectTax> {
        [IndirectTax::Iva, IndirectTax::Igic, IndirectTax::Ipsi]
            .into_iter()
            .find(|t| t.code() == code)
    }

    /// As documents print it.
    pub fn label(self) -> &'static str {
        match self {
            IndirectTax::Iva => "IVA",
            IndirectTax::Igic => "IGIC",
            IndirectTax::Ipsi => "IPSI",
        }
    }

    /// VERI*FACTU `Impuesto` (list L1) and Facturae `TaxTypeCode`.
    pub fn aeat_code(self) -> &'static str {
        match self {
            IndirectTax::Iva => "01",
            IndirectTax::Igic => "03",
            IndirectTax::Ipsi => "02",
        }
    }

    /// The EN 16931 category (UNTDID 5305) of a taxed line: `S` standard
    /// rated VAT, `L` IGIC, `M` IPSI.
    pub fn taxed_category(self) -> &'static str {
        match self {
            IndirectTax::Iva => "S",
            IndirectTax::Igic => "L",
            IndirectTax::Ipsi => "M",
        }
    }

    /// The equivalence surcharge exists only with VAT.
    pub fn has_surcharge(self) -> bool {
        self == IndirectTax::Iva
    }

    /// The rates in force on `date`, highest first.
    pub fn rates_on(self, date: NaiveDate) -> Vec<Decimal> {
        match self {
            IndirectTax::Iva => vat::rates_on(date),
            IndirectTax::Igic if date >= IGIC_FROM => IGIC_RATES.to_vec(),
            IndirectTax::Igic => Vec::new(),
            IndirectTax::Ipsi => IPSI_RATES.to_vec(),
        }
    }

    /// The rate (with its equivalence surcharge: VAT only) if the tax has it
    /// on `date`, else the rates it has then.
    pub fn rate_on(self, rate: Decimal, date: NaiveDate) -> Result<VatRate, Vec<Decimal>> {
        if self == IndirectTax::Iva {
            return vat::rate_on(rate, date);
        }
        let rates = self.rates_on(date);
        if rates.contains(&rate.normalize()) {
            Ok(VatRate {
                rate: rate.normalize(),
                surcharge: Decimal::ZERO,
            })
        } else {
            Err(rates)
        }
    }

    /// Every rate the tax has had.
    pub fn all_rates(self) -> Vec<Decimal> {
        match self {
            IndirectTax::Iva => vat::all_rates(),
            IndirectTax::Igic => IGIC_RATES.to_vec(),
            IndirectTax::Ipsi => IPSI_RATES.to_vec(),
        }
    }
}

/// Every rate of every tax, once each.
pub fn every_rate() -> Vec<Decimal> {
    let mut rates: Vec<Decimal> = Vec::new();
    for tax in [IndirectTax::Iva, IndirectTax::Igic, IndirectTax::Ipsi] {
        for rate in tax.all_rates() {
            if !rates.contains(&rate) {
                rates.push(rate);
            }
        }
    }
    rates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issuers_postal_code_says_its_tax() {
        assert_eq!(IndirectTax::of_postal_code("35001"), IndirectTax::Igic);
        assert_eq!(IndirectTax::of_postal_code("38200"), IndirectTax::Igic);
        assert_eq!(IndirectTax::of_postal_code("51001"), IndirectTax::Ipsi);
        assert_eq!(IndirectTax::of_postal_code("52006"), IndirectTax::Ipsi);
        assert_eq!(IndirectTax::of_postal_code("28013"), IndirectTax::Iva);
        assert_eq!(
            IndirectTax::of_postal_code("07001"),
            IndirectTax::Iva,
            "Balearics: VAT"
        );
        assert_eq!(IndirectTax::of_postal_code(""), IndirectTax::Iva);
    }

    #[test]
    fn rates_and_codes() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        assert!(IndirectTax::Igic.rates_on(day).contains(&dec!(7)));
        assert!(!IndirectTax::Igic.rates_on(day).contains(&dec!(21)));
        assert!(IndirectTax::Ipsi.rates_on(day).contains(&dec!(0.5)));
        assert_eq!(
            (IndirectTax::Igic.aeat_code(), IndirectTax::Ipsi.aeat_code()),
            ("03", "02")
        );
        assert_eq!(IndirectTax::Igic.taxed_category(), "L");
        assert!(every_rate().contains(&dec!(9.5)) && every_rate().contains(&dec!(21)));
        assert_eq!(IndirectTax::parse("igic"), Some(IndirectTax::Igic));
    }
}
