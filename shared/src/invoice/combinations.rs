//! Combinations the law does not allow on one invoice, each refused with
//! the field at fault and the article that rules it out.

use rust_decimal::Decimal;

use super::line::{Line, Treatment};
use super::party::{Party, in_eu};

/// Why a combination is refused: a 400 on `field` with `code`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub field: String,
    pub message: String,
}

/// A simplified invoice (a ticket, a qualified simplified invoice or an R5)
/// carries no intra-EU supply (E5), no operation located elsewhere by the
/// place-of-supply rules (N2) and no reverse charge (S2): RD 1619/2012
/// art. 4.4 requires a full invoice for them, which names the customer.
pub fn simplified_lines(lines: &[Line]) -> Result<(), Refusal> {
    let found = lines
        .iter()
        .enumerate()
        .find(|(_, l)| matches!(l.treatment, Treatment::E5 | Treatment::N2 | Treatment::S2));
    match found {
        None => Ok(()),
        Some((i, l)) => Err(Refusal {
            code: "simplified_invoice_not_allowed",
            field: format!("lines[{i}].exemption"),
            message: format!(
                "a simplified invoice cannot carry {} lines ({}): they need a full invoice with \
                 the customer's tax id and address (art. 4.4 RD 1619/2012)",
                l.treatment.code(),
                match l.treatment {
                    Treatment::E5 => "intra-EU supplies, art. 25 Ley 37/1992",
                    Treatment::N2 => "operations located outside Spain",
                    _ => "reverse charge, the customer accounts for the VAT",
                }
            ),
        }),
    }
}

/// A full invoice shows the customer's address (art. 6.1.e RD 1619/2012).
pub fn customer_address(customer: Option<&Party>) -> Result<(), Refusal> {
    if customer.is_some_and(|c| c.address.is_some()) {
        return Ok(());
    }
    Err(Refusal {
        code: "parameter_missing",
        field: "customer.address".into(),
        message: "a full invoice shows the customer's address (art. 6.1.e RD 1619/2012)".into(),
    })
}

/// An exempt intra-EU supply of goods (E5) is made to a customer
/// established in another member state who gives their VAT number
/// (art. 25.Uno Ley 37/1992): not to a Spanish customer, not outside the EU.
pub fn intra_eu_supply(lines: &[Line], customer: Option<&Party>) -> Result<(), Refusal> {
    let Some(i) = lines.iter().position(|l| l.treatment == Treatment::E5) else {
        return Ok(());
    };
    let why = match customer {
        None => "the invoice names no customer",
        Some(c) if c.country == "ES" => "the customer is established in Spain",
        Some(c) if !in_eu(&c.country) => {
            "the customer is established outside the EU (an export is E2)"
        }
        Some(c) if c.tax_id.is_none() => "the customer gives no VAT number",
        Some(_) => return Ok(()),
    };
    Err(Refusal {
        code: "exemption_not_applicable",
        field: format!("lines[{i}].exemption"),
        message: format!(
            "E5 (exempt intra-EU supply) is for a customer established in another EU member \
             state with a VAT number; here {why} (art. 25 Ley 37/1992)"
        ),
    })
}

/// The equivalence surcharge is charged on goods supplied to a retailer
/// (arts. 148 and 154 Ley 37/1992); IRPF withholding is on professional
/// income (art. 101 Ley 35/2006, art. 75 RD 439/2007), which a supply of
/// goods to a retailer is not: one invoice carries one or the other.
pub fn surcharge_with_withholding(surcharge: bool, irpf_rate: Decimal) -> Result<(), Refusal> {
    if !surcharge || irpf_rate.is_zero() {
        return Ok(());
    }
    Err(Refusal {
        code: "surcharge_with_withholding",
        field: "irpf_rate".into(),
        message: "the equivalence surcharge is charged on goods supplied to a retailer (arts. \
                  148 and 154 Ley 37/1992); IRPF is withheld on professional income (art. 101 \
                  Ley 35/2006), which such a supply is not: send one or the other"
            .into(),
    })
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;
    use crate::invoice::party::PartyInput;

    fn line(treatment: Treatment) -> Line {
        Line {
            description: "x".into(),
            quantity: dec!(1),
            unit_price: dec!(10),
            discount_percent: dec!(0),
            vat_rate: if treatment == Treatment::Taxed {
                dec!(21)
            } else {
                dec!(0)
            },
            surcharge_rate: dec!(0),
            treatment,
        }
    }

    fn party(country: &str, tax_id: Option<&str>, address: Option<&str>) -> Party {
        Party::parse(PartyInput {
            name: Some("Cliente".into()),
            tax_id: tax_id.map(Into::into),
            address: address.map(Into::into),
            country: Some(country.into()),
            ..Default::default()
        })
        .unwrap()
    }

    #[test]
    fn simplified_invoices_refuse_what_art_4_4_reserves_to_full_ones() {
        for t in [Treatment::E5, Treatment::N2, Treatment::S2] {
            let refused = simplified_lines(&[line(Treatment::Taxed), line(t)]).unwrap_err();
            assert_eq!(refused.field, "lines[1].exemption");
            assert!(refused.message.contains("art. 4.4 RD 1619/2012"));
        }
        for t in [
            Treatment::Taxed,
            Treatment::E1,
            Treatment::E2,
            Treatment::N1,
        ] {
            assert_eq!(simplified_lines(&[line(t)]), Ok(()), "{t:?}");
        }
    }

    #[test]
    fn a_full_invoice_needs_the_customers_address() {
        assert_eq!(
            customer_address(Some(&party("ES", Some("B64717838"), None)))
                .unwrap_err()
                .field,
            "customer.address"
        );
        assert!(customer_address(None).is_err());
        let addressed = party("ES", Some("B64717838"), Some("Calle Real 4"));
        assert_eq!(customer_address(Some(&addressed)), Ok(()));
    }

    #[test]
    fn e5_only_to_a_business_in_another_member_state() {
        let e5 = [line(Treatment::Taxed), line(Treatment::E5)];
        let french = party("FR", Some("FR40303265045"), Some("1 rue X"));
        assert_eq!(intra_eu_supply(&e5, Some(&french)), Ok(()));
        for (customer, why) in [
            (Some(party("ES", Some("B64717838"), None)), "Spain"),
            (Some(party("US", Some("123456789"), None)), "outside the EU"),
            (Some(party("FR", None, None)), "no VAT number"),
            (None, "no customer"),
        ] {
            let refused = intra_eu_supply(&e5, customer.as_ref()).unwrap_err();
            assert_eq!(refused.field, "lines[1].exemption");
            assert!(refused.message.contains(why), "{}", refused.message);
            assert!(refused.message.contains("art. 25 Ley 37/1992"));
        }
        assert_eq!(intra_eu_supply(&[line(Treatment::E2)], None), Ok(()));
    }

    #[test]
    fn surcharge_and_withholding_do_not_go_together() {
        assert_eq!(
            surcharge_with_withholding(true, dec!(15))
                .unwrap_err()
                .field,
            "irpf_rate"
        );
        assert_eq!(surcharge_with_withholding(true, dec!(0)), Ok(()));
        assert_eq!(surcharge_with_withholding(false, dec!(15)), Ok(()));
    }
}
