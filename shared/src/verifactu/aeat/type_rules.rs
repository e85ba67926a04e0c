//! The AEAT's checks of a registration against its invoice type
//! (Validaciones v1.2.0 §3.1.3, as `shared/reference/tax-depth.md` §2
//! tabulates them): which elements an F2, F3 or R5 record may, must or must
//! not carry, and the simplified invoice's amount limit. The simulator
//! rejects a record that fails one, as the AEAT does; the error code is
//! the AEAT's generic 1100 with the element named.

use rust_decimal::Decimal;

use super::answer::RecordError;
use crate::xml_tree::Element;

/// What of a RegistroAlta the type checks look at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    pub kind: String,
    pub recipients: bool,
    /// TipoRectificativa, when present.
    pub rectification_type: Option<String>,
    pub rectified: bool,
    pub rectified_amounts: bool,
    pub replaced: bool,
    pub qualified_simplified: bool,
    pub without_recipient: bool,
    /// ImporteTotal.
    pub total: Option<Decimal>,
}

impl Shape {
    pub fn of(record: &Element) -> Shape {
        let flag = |name: &str| record.text_at(&[name]) == Some("S");
        Shape {
            kind: record
                .text_at(&["TipoFactura"])
                .unwrap_or_default()
                .to_string(),
            recipients: record.child("Destinatarios").is_some(),
            rectification_type: record.text_at(&["TipoRectificativa"]).map(str::to_string),
            rectified: record.child("FacturasRectificadas").is_some(),
            rectified_amounts: record.child("ImporteRectificacion").is_some(),
            replaced: record.child("FacturasSustituidas").is_some(),
            qualified_simplified: flag("FacturaSimplificadaArt7273"),
            without_recipient: flag("FacturaSinIdentifDestinatarioArt61d"),
            total: record
                .text_at(&["ImporteTotal"])
                .and_then(|t| t.parse().ok()),
        }
    }
}

/// Σ(base + cuota) of an F2 may reach 3,000 € and 10 € of tolerance.
const F2_LIMIT: Decimal = Decimal::from_parts(3010, 0, 0, false, 0);

fn wrong(element: &str, why: &str) -> Option<RecordError> {
    Some(RecordError {
        code: 1100,
        description: format!("Valor o tipo incorrecto del campo: {element} ({why})."),
    })
}

/// The first check the record fails, if any.
pub fn check(shape: &Shape) -> Option<RecordError> {
    let rectifying = shape.kind.starts_with('R');
    if rectifying && shape.rectification_type.is_none() {
        return wrong(
            "TipoRectificativa",
            "obligatorio en facturas rectificativas",
        );
    }
    if !rectifying && (shape.rectification_type.is_some() || shape.rectified) {
        return wrong("TipoRectificativa", "solo en facturas rectificativas");
    }
    if shape.rectified_amounts != (shape.rectification_type.as_deref() == Some("S")) {
        return wrong(
            "ImporteRectificacion",
            "obligatorio solo si TipoRectificativa es S",
        );
    }
    if shape.replaced && shape.kind != "F3" {
        return wrong("FacturasSustituidas", "solo en facturas de tipo F3");
    }
    match shape.kind.as_str() {
        "F2" | "R5" if shape.recipients => {
            wrong("Destinatarios", "no se admite en facturas F2 y R5")
        }
        "F2" | "R5" if shape.qualified_simplified => wrong(
            "FacturaSimplificadaArt7273",
            "no se admite en facturas F2 y R5",
        ),
        "F3" if !shape.recipients => wrong("Destinatarios", "obligatorio en facturas F3"),
        "F3" if shape.without_recipient => wrong(
            "FacturaSinIdentifDestinatarioArt61d",
            "no se admite en facturas F3",
        ),
        "F2" if !shape.without_recipient && shape.total.is_some_and(|t| t > F2_LIMIT) => wrong(
            "ImporteTotal",
            "una factura simplificada no puede superar 3.000 euros",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn shape(kind: &str) -> Shape {
        Shape {
            kind: kind.into(),
            total: Some(dec!(121)),
            ..Shape::default()
        }
    }

    #[test]
    fn the_aeat_table_of_simplified_types() {
        assert_eq!(check(&shape("F2")), None);
        let named = Shape {
            recipients: true,
            ..shape("F2")
        };
        assert!(check(&named).unwrap().description.contains("Destinatarios"));
        assert!(check(&shape("F3")).is_some(), "F3 names its recipient");
        let f3 = Shape {
            recipients: true,
            replaced: true,
            ..shape("F3")
        };
        assert_eq!(check(&f3), None);
        assert!(check(&shape("R5")).is_some(), "R5 says how it rectifies");
        let r5 = Shape {
            rectification_type: Some("I".into()),
            rectified: true,
            ..shape("R5")
        };
        assert_eq!(check(&r5), None);
        let substitution = Shape {
            rectification_type: Some("S".into()),
            ..r5.clone()
        };
        assert!(
            check(&substitution).is_some(),
            "S needs ImporteRectificacion"
        );
        let qualified = Shape {
            qualified_simplified: true,
            recipients: true,
            ..shape("F1")
        };
        assert_eq!(check(&qualified), None);
    }

    #[test]
    fn a_ticket_over_the_limit_is_refused_unless_it_is_a_full_invoice() {
        let big = Shape {
            total: Some(dec!(3010.01)),
            ..shape("F2")
        };
        assert!(check(&big).is_some());
        let full = Shape {
            without_recipient: true,
            ..big
        };
        assert_eq!(check(&full), None);
    }
}
