//! The invoice's type as VERI*FACTU names it (`TipoFactura`, L2 of the
//! AEAT's list): F1–F3 for invoices, R1–R5 for rectifying ones.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// F1 (full, or qualified simplified), F2 (simplified, or full without the
/// customer's identification), F3 (full, replacing simplified ones), R1–R5
/// (rectifying; R5 of simplified invoices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[schema(as = InvoiceKind)]
pub enum Kind {
    F1,
    F2,
    F3,
    R1,
    R2,
    R3,
    R4,
    R5,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::F1,
        Kind::F2,
        Kind::F3,
        Kind::R1,
        Kind::R2,
        Kind::R3,
        Kind::R4,
        Kind::R5,
    ];

    /// The rectifying kinds, the reasons a rectification may give.
    pub const RECTIFYING: [Kind; 5] = [Kind::R1, Kind::R2, Kind::R3, Kind::R4, Kind::R5];

    pub fn code(self) -> &'static str {
        match self {
            Kind::F1 => "F1",
            Kind::F2 => "F2",
            Kind::F3 => "F3",
            Kind::R1 => "R1",
            Kind::R2 => "R2",
            Kind::R3 => "R3",
            Kind::R4 => "R4",
            Kind::R5 => "R5",
        }
    }

    pub fn parse(code: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.code() == code)
    }

    pub fn is_rectifying(self) -> bool {
        Kind::RECTIFYING.contains(&self)
    }

    /// The codes joined for a message: `F1, F2, …, R5`.
    pub fn list(kinds: &[Kind]) -> String {
        kinds
            .iter()
            .map(|k| k.code())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_back_and_serialise_as_themselves() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.code()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.code());
        }
        assert_eq!(Kind::parse("R6"), None);
        assert!(Kind::R5.is_rectifying() && !Kind::F3.is_rectifying());
    }
}
