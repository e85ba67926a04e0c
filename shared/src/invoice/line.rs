//! An invoice line once validated: exact decimals, a rate in force, and how
//! the line is taxed.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::party::{Party, in_eu};

/// How a line is taxed. `Taxed` lines carry VAT at their rate; the others are
/// at rate 0 and say why, as the invoice and the VERI*FACTU record must.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Treatment {
    Taxed,
    /// Exempt, art. 20 LIVA (health, education, finance…).
    E1,
    /// Exempt, art. 21 (exports).
    E2,
    /// Exempt, art. 22.
    E3,
    /// Exempt, arts. 23 and 24.
    E4,
    /// Exempt, art. 25 (intra-EU supplies).
    E5,
    /// Exempt, other reasons.
    E6,
    /// Not subject (arts. 7, 14 and others).
    N1,
    /// Not subject by the place-of-supply rules.
    N2,
    /// Reverse charge (inversión del sujeto pasivo): the customer accounts for the VAT.
    S2,
}

impl Treatment {
    pub const EXEMPTIONS: [Treatment; 9] = [
        Treatment::E1,
        Treatment::E2,
        Treatment::E3,
        Treatment::E4,
        Treatment::E5,
        Treatment::E6,
        Treatment::N1,
        Treatment::N2,
        Treatment::S2,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Treatment::Taxed => "S1",
            Treatment::E1 => "E1",
            Treatment::E2 => "E2",
            Treatment::E3 => "E3",
            Treatment::E4 => "E4",
            Treatment::E5 => "E5",
            Treatment::E6 => "E6",
            Treatment::N1 => "N1",
            Treatment::N2 => "N2",
            Treatment::S2 => "S2",
        }
    }

    pub fn parse_exemption(code: &str) -> Option<Treatment> {
        Self::EXEMPTIONS.into_iter().find(|t| t.code() == code)
    }

    /// The treatment of a stored line or group: its exemption code, or taxed.
    pub fn of_stored(exemption: Option<&str>) -> Treatment {
        exemption
            .and_then(Treatment::parse_exemption)
            .unwrap_or(Treatment::Taxed)
    }

    /// The wording an invoice must carry for this treatment (RD 1619/2012 art. 6.1.j, m).
    pub fn wording(self) -> Option<&'static str> {
        Some(match self {
            Treatment::Taxed => return None,
            Treatment::E1 => "Operación exenta de IVA (art. 20 Ley 37/1992)",
            Treatment::E2 => "Exportación exenta de IVA (art. 21 Ley 37/1992)",
            Treatment::E3 => "Operación exenta de IVA (art. 22 Ley 37/1992)",
            Treatment::E4 => "Operación exenta de IVA (arts. 23 y 24 Ley 37/1992)",
            Treatment::E5 => "Entrega intracomunitaria exenta de IVA (art. 25 Ley 37/1992)",
            Treatment::E6 => "Operación exenta de IVA",
            Treatment::N1 => "Operación no sujeta a IVA (art. 7 Ley 37/1992)",
            Treatment::N2 => "Operación no sujeta a IVA por reglas de localización",
            Treatment::S2 => "Inversión del sujeto pasivo",
        })
    }

    /// The wording on an invoice to `customer`. A service located in
    /// another member state whose customer, a business there, owes the VAT
    /// (N2 to an EU business, arts. 69 and 70 Ley 37/1992, art. 196
    /// Directive 2006/112/EC) is reverse charged: the invoice says
    /// «inversión del sujeto pasivo» (RD 1619/2012 art. 6.1.m).
    pub fn wording_to(self, customer: Option<&Party>) -> Option<&'static str> {
        let eu_business =
            customer.is_some_and(|c| c.country != "ES" && in_eu(&c.country) && c.tax_id.is_some());
        if self == Treatment::N2 && eu_business {
            return Some(
                "Operación no sujeta a IVA por reglas de localización; inversión del sujeto pasivo",
            );
        }
        self.wording()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub description: String,
    pub quantity: Decimal,
    pub unit_price: Decimal,
    pub discount_percent: Decimal,
    pub vat_rate: Decimal,
    /// The equivalence surcharge rate for this line (0 when the customer is not under it).
    pub surcharge_rate: Decimal,
    pub treatment: Treatment,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoice::party::PartyInput;

    fn party(country: &str, tax_id: Option<&str>) -> Party {
        Party::parse(PartyInput {
            name: Some("Cliente".into()),
            tax_id: tax_id.map(Into::into),
            country: Some(country.into()),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn a_service_to_an_eu_business_says_reverse_charge() {
        // Art. 6.1.m RD 1619/2012: «inversión del sujeto pasivo» when the
        // customer owes the tax, as an EU business does for a service
        // located in its state (art. 69.Uno.1º Ley 37/1992).
        let german = party("DE", Some("DE123456789"));
        let wording = Treatment::N2.wording_to(Some(&german)).unwrap();
        assert!(wording.contains("inversión del sujeto pasivo"), "{wording}");
        for other in [party("US", Some("123")), party("DE", None)] {
            assert_eq!(
                Treatment::N2.wording_to(Some(&other)),
                Treatment::N2.wording()
            );
        }
        assert_eq!(
            Treatment::E1.wording_to(Some(&german)),
            Treatment::E1.wording()
        );
    }
}
