//! Which invoice a request makes (RD 1619/2012 arts. 4, 6, 7 and the
//! VERI*FACTU invoice types): a full invoice (F1), a simplified one (F2
//! ticket), a qualified simplified one (F1 with `FacturaSimplificadaArt7273`),
//! a full one without the customer's identification (F2 with
//! `FacturaSinIdentifDestinatarioArt61d`) or one replacing tickets (F3).

use rust_decimal::Decimal;

use super::error::InvoiceError;
use crate::invoice::combinations;
use crate::invoice::kind::Kind;
use crate::invoice::line::{Line, Treatment};
use crate::invoice::party::Party;
use crate::invoice::series::Numbered;

/// What the request asks for, besides its lines.
pub struct Asked<'a> {
    pub customer: Option<&'a Party>,
    /// The request's `simplified`.
    pub simplified: Option<bool>,
    pub replaces_tickets: bool,
    pub lines: &'a [Line],
    /// Σ bases + VAT + surcharge.
    pub gross: Decimal,
    pub irpf_rate: Decimal,
    /// The most a simplified invoice may amount to for this account.
    pub limit: Decimal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// TipoFactura.
    pub kind: Kind,
    pub numbered: Numbered,
    pub qualified_simplified: bool,
    pub without_recipient_id: bool,
}

fn customer_required(message: impl Into<String>) -> InvoiceError {
    InvoiceError::invalid("customer_required", "customer.tax_id".into(), message)
}

/// The form the request makes, once the lines and the customer fit it: a
/// simplified invoice carries no E5, N2 or S2 line (art. 4.4), a full one
/// names the customer's address (art. 6.1.e; not the art. 6.1.d invoice
/// without the customer's identification, for operations abroad).
pub fn decide(asked: &Asked) -> Result<Form, InvoiceError> {
    let form = form_of(asked)?;
    if form.numbered == Numbered::Simplified {
        combinations::simplified_lines(asked.lines)?;
    } else if !form.without_recipient_id {
        combinations::customer_address(asked.customer)?;
    }
    Ok(form)
}

fn form_of(asked: &Asked) -> Result<Form, InvoiceError> {
    let identified = asked.customer.is_some_and(|c| c.tax_id.is_some());
    let withholds = !asked.irpf_rate.is_zero();
    if withholds && !identified {
        return Err(customer_required(
            "a withholding needs an identified business customer (tax id)",
        ));
    }
    let form = |kind, numbered, qualified_simplified, without_recipient_id| Form {
        kind,
        numbered,
        qualified_simplified,
        without_recipient_id,
    };
    if asked.replaces_tickets {
        if !identified {
            return Err(customer_required(
                "an invoice replacing simplified ones (F3) names the customer with their tax id",
            ));
        }
        if asked.simplified == Some(true) {
            return Err(InvoiceError::invalid(
                "parameter_invalid",
                "simplified".into(),
                "an invoice replacing simplified ones is a full invoice",
            ));
        }
        return Ok(form(Kind::F3, Numbered::Full, false, false));
    }
    match (asked.simplified, identified) {
        (None | Some(false), true) => Ok(form(Kind::F1, Numbered::Full, false, false)),
        (None | Some(true), false) => {
            within_limit(asked, customer_required)?;
            Ok(form(Kind::F2, Numbered::Simplified, false, false))
        }
        (Some(true), true) => {
            if asked.customer.is_none_or(|c| c.address.is_none()) {
                return Err(InvoiceError::invalid(
                    "parameter_missing",
                    "customer.address".into(),
                    "a qualified simplified invoice (art. 7.2/7.3) shows the customer's tax id and address",
                ));
            }
            within_limit(asked, |m| {
                InvoiceError::invalid("parameter_invalid", "simplified".into(), m)
            })?;
            Ok(form(Kind::F1, Numbered::Simplified, true, false))
        }
        (Some(false), false) => {
            let abroad = asked.lines.iter().all(|l| l.treatment == Treatment::N2);
            if asked.customer.is_none() || !abroad {
                return Err(customer_required(
                    "a full invoice names the customer with their tax id; it may go without (art. 6.1.d) only for a named customer and operations not located in Spain (every line N2)",
                ));
            }
            Ok(form(Kind::F2, Numbered::Full, false, true))
        }
    }
}

fn within_limit(asked: &Asked, error: impl Fn(String) -> InvoiceError) -> Result<(), InvoiceError> {
    if asked.gross > asked.limit {
        return Err(error(format!(
            "the total {} is over {} €, the limit of a simplified invoice: a full invoice needs the customer's tax id",
            asked.gross, asked.limit
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::account::SIMPLIFIED_LIMIT;
    use crate::invoice::party::PartyInput;
    use rust_decimal::dec;

    fn party(tax_id: Option<&str>, address: Option<&str>) -> Party {
        Party::parse(PartyInput {
            name: Some("Taller Ana SL".into()),
            tax_id: tax_id.map(Into::into),
            address: address.map(Into::into),
            postal_code: None,
            city: None,
            country: None,
            email: None,
        })
        .unwrap()
    }

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

    fn decide_for(
        customer: Option<&Party>,
        simplified: Option<bool>,
        gross: Decimal,
    ) -> Result<Form, InvoiceError> {
        let lines = [line(Treatment::Taxed)];
        decide(&Asked {
            customer,
            simplified,
            replaces_tickets: false,
            lines: &lines,
            gross,
            irpf_rate: dec!(0),
            limit: SIMPLIFIED_LIMIT,
        })
    }

    fn code(r: Result<Form, InvoiceError>) -> (&'static str, String) {
        match r {
            Err(InvoiceError::Invalid { code, param, .. }) => (code, param),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_request_decides_the_invoice_type() {
        let identified = party(Some("B64717838"), Some("Calle Real 4"));
        let f = decide_for(Some(&identified), None, dec!(5000)).unwrap();
        assert_eq!((f.kind, f.numbered), (Kind::F1, Numbered::Full));
        let f = decide_for(None, None, dec!(400)).unwrap();
        assert_eq!((f.kind, f.numbered), (Kind::F2, Numbered::Simplified));
        let f = decide_for(Some(&identified), Some(true), dec!(100)).unwrap();
        assert_eq!(
            (f.kind, f.numbered, f.qualified_simplified),
            (Kind::F1, Numbered::Simplified, true)
        );
    }

    #[test]
    fn simplified_invoices_keep_to_their_limit() {
        let identified = party(Some("B64717838"), Some("Calle Real 4"));
        assert_eq!(
            code(decide_for(None, None, dec!(400.01))).0,
            "customer_required"
        );
        assert_eq!(
            code(decide_for(Some(&identified), Some(true), dec!(400.01))),
            ("parameter_invalid", "simplified".to_string())
        );
        let lines = [line(Treatment::Taxed)];
        let retail = Asked {
            customer: None,
            simplified: None,
            replaces_tickets: false,
            lines: &lines,
            gross: dec!(2999),
            irpf_rate: dec!(0),
            limit: dec!(3000),
        };
        assert!(decide(&retail).is_ok(), "art. 4.2 activities: 3,000 €");
        let nameless = party(Some("B64717838"), None);
        assert_eq!(
            code(decide_for(Some(&nameless), Some(true), dec!(10))).1,
            "customer.address"
        );
    }

    #[test]
    fn a_full_invoice_goes_without_the_customers_tax_id_only_abroad() {
        let named = party(None, Some("1 Main St"));
        assert_eq!(
            code(decide_for(Some(&named), Some(false), dec!(10))).0,
            "customer_required"
        );
        let lines = [line(Treatment::N2)];
        let abroad = Asked {
            customer: Some(&named),
            simplified: Some(false),
            replaces_tickets: false,
            lines: &lines,
            gross: dec!(10000),
            irpf_rate: dec!(0),
            limit: SIMPLIFIED_LIMIT,
        };
        let f = decide(&abroad).unwrap();
        assert_eq!(
            (f.kind, f.numbered, f.without_recipient_id),
            (Kind::F2, Numbered::Full, true)
        );
    }

    #[test]
    fn a_replacement_is_a_full_invoice_to_an_identified_customer() {
        let identified = party(Some("B64717838"), Some("Calle Real 4"));
        let lines = [line(Treatment::Taxed)];
        let mut asked = Asked {
            customer: Some(&identified),
            simplified: None,
            replaces_tickets: true,
            lines: &lines,
            gross: dec!(50),
            irpf_rate: dec!(0),
            limit: SIMPLIFIED_LIMIT,
        };
        assert_eq!(decide(&asked).unwrap().kind, Kind::F3);
        let unaddressed = party(Some("B64717838"), None);
        asked.customer = Some(&unaddressed);
        assert_eq!(
            code(decide(&asked)),
            ("parameter_missing", "customer.address".to_string()),
            "a full invoice shows the customer's address (art. 6.1.e RD 1619/2012)"
        );
        asked.customer = None;
        assert_eq!(code(decide(&asked)).0, "customer_required");
    }
}
