//! Numbering series and which invoices each may hold (RD 1619/2012 arts.
//! 6.1.a and 7.1.a): rectifying invoices always in a series of their own;
//! simplified and full invoices of the same year never in one series. Every
//! account has four series without defining them (`F`, `S`, `R`, `RS`),
//! numbered `{code}{year}-{n:06}` and restarting every year.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::number::{Code, Pattern};

/// What a series is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// Full invoices: F1, F2 without recipient identification (art. 6.1.d),
    /// F3 (replacing simplified ones).
    Ordinary,
    /// Simplified invoices: F2 tickets and qualified simplified invoices
    /// (F1 with `FacturaSimplificadaArt7273`); also R5 when named.
    Simplified,
    /// Rectifying invoices of full invoices: R1–R4.
    Rectifying,
    /// Rectifying invoices of simplified invoices: R5.
    RectifyingSimplified,
}

impl Purpose {
    pub const ALL: [Purpose; 4] = [
        Purpose::Ordinary,
        Purpose::Simplified,
        Purpose::Rectifying,
        Purpose::RectifyingSimplified,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Purpose::Ordinary => "ordinary",
            Purpose::Simplified => "simplified",
            Purpose::Rectifying => "rectifying",
            Purpose::RectifyingSimplified => "rectifying_simplified",
        }
    }

    pub fn parse(code: &str) -> Option<Purpose> {
        Purpose::ALL.into_iter().find(|p| p.code() == code)
    }

    /// The series every account has for this purpose.
    pub fn builtin_code(self) -> &'static str {
        match self {
            Purpose::Ordinary => "F",
            Purpose::Simplified => "S",
            Purpose::Rectifying => "R",
            Purpose::RectifyingSimplified => "RS",
        }
    }

    /// Whether an invoice of this kind may be numbered in a series of this
    /// purpose. A simplified rectification may also go into a simplified
    /// series (DGT V2884-16); nothing else crosses.
    pub fn holds(self, numbered: Numbered) -> bool {
        numbered.purpose() == self
            || (self == Purpose::Simplified && numbered == Numbered::RectifyingSimplified)
    }
}

/// An invoice as the numbering rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbered {
    Full,
    Simplified,
    Rectifying,
    RectifyingSimplified,
}

impl Numbered {
    /// The purpose of the series it goes into when none is named.
    pub fn purpose(self) -> Purpose {
        match self {
            Numbered::Full => Purpose::Ordinary,
            Numbered::Simplified => Purpose::Simplified,
            Numbered::Rectifying => Purpose::Rectifying,
            Numbered::RectifyingSimplified => Purpose::RectifyingSimplified,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Numbered::Full => "a full invoice",
            Numbered::Simplified => "a simplified invoice",
            Numbered::Rectifying => "a rectifying invoice of a full invoice",
            Numbered::RectifyingSimplified => "a rectifying invoice of a simplified invoice",
        }
    }
}

/// A series definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    pub code: Code,
    pub pattern: Pattern,
    pub yearly_restart: bool,
    pub purpose: Purpose,
    /// The series of its purpose used when an invoice names none.
    pub default: bool,
    pub description: Option<String>,
}

impl Series {
    /// The four series every account has until it changes them.
    pub fn builtins() -> Vec<Series> {
        Purpose::ALL
            .into_iter()
            .map(|purpose| Series {
                code: Code::parse(purpose.builtin_code()).expect("builtin codes are valid"),
                pattern: Pattern::default_pattern(),
                yearly_restart: true,
                purpose,
                default: true,
                description: None,
            })
            .collect()
    }

    pub fn is_builtin(&self) -> bool {
        Purpose::ALL
            .iter()
            .any(|p| p.builtin_code() == self.code.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_simplified_invoices_never_share_a_series() {
        assert!(Purpose::Ordinary.holds(Numbered::Full));
        assert!(!Purpose::Ordinary.holds(Numbered::Simplified));
        assert!(!Purpose::Simplified.holds(Numbered::Full));
        assert!(!Purpose::Rectifying.holds(Numbered::RectifyingSimplified));
        assert!(!Purpose::Rectifying.holds(Numbered::Full));
        assert!(Purpose::Simplified.holds(Numbered::RectifyingSimplified));
        assert!(!Purpose::RectifyingSimplified.holds(Numbered::Rectifying));
    }

    #[test]
    fn every_purpose_has_its_builtin_default() {
        let builtins = Series::builtins();
        for purpose in Purpose::ALL {
            let s = builtins.iter().find(|s| s.purpose == purpose).unwrap();
            assert!(s.default && s.yearly_restart && s.is_builtin());
            assert_eq!(Purpose::parse(purpose.code()), Some(purpose));
        }
    }
}
