//! `validate_tax_id`: is a Spanish NIF/NIE/CIF valid, and what is it.

use serde::Serialize;
use utoipa::ToSchema;

use crate::tax::nif::{Nif, NifKind, normalize, padded_suggestion};

#[derive(Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct Note {
    pub code: &'static str,
    pub message: String,
}

#[derive(Debug, Serialize, ToSchema, PartialEq, Eq)]
pub struct EntityType {
    /// The first letter of the NIF.
    pub letter: String,
    pub description: &'static str,
}

/// The validation of one tax identifier.
#[derive(Debug, Serialize, ToSchema, PartialEq, Eq)]
#[schema(example = json!({"value": "b-64717838", "normalized": "B64717838", "valid": true, "kind": "entity",
    "description": "sociedad de responsabilidad limitada (SL)",
    "entity_type": {"letter": "B", "description": "sociedad de responsabilidad limitada (SL)"}, "warnings": []}))]
pub struct NifCheck {
    /// The value as sent.
    pub value: String,
    /// Upper case, without spaces, dots, hyphens and `ES` prefix.
    pub normalized: String,
    /// Validity as python-stdnum's `stdnum.es.nif` decides it (dots also accepted as separators).
    pub valid: bool,
    /// `dni`, `nie`, `entity` or `special` (K, L, M), when valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<EntityType>,
    /// Why it is invalid: `bad_format`, `bad_length` or `bad_check_digit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For a DNI written with 7 digits: the padded NIF, which is valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// Facts about a valid NIF worth knowing (e.g. an unusual control character form).
    pub warnings: Vec<Note>,
}

pub fn validate_tax_id(value: &str) -> NifCheck {
    let normalized = normalize(value);
    match Nif::parse(value) {
        Ok(nif) => {
            let kind = nif.kind();
            NifCheck {
                value: value.to_string(),
                normalized,
                valid: true,
                kind: Some(kind.code()),
                description: Some(kind.description()),
                entity_type: match kind {
                    NifKind::Entity(letter) => Some(EntityType {
                        letter: letter.to_string(),
                        description: kind.description(),
                    }),
                    _ => None,
                },
                reason: None,
                message: None,
                suggestion: None,
                warnings: nif
                    .warnings()
                    .into_iter()
                    .map(|w| Note {
                        code: w.code(),
                        message: w.message().to_string(),
                    })
                    .collect(),
            }
        }
        Err(e) => NifCheck {
            value: value.to_string(),
            normalized,
            valid: false,
            kind: None,
            description: None,
            entity_type: None,
            reason: Some(e.code()),
            message: Some(e.to_string()),
            suggestion: padded_suggestion(value).map(|n| n.to_string()),
            warnings: Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_entity_invalid_dni_and_suggestion() {
        let ok = validate_tax_id("es b-64717838");
        assert!(ok.valid);
        assert_eq!(
            (ok.normalized.as_str(), ok.kind),
            ("B64717838", Some("entity"))
        );
        assert_eq!(ok.entity_type.unwrap().letter, "B");
        let bad = validate_tax_id("12345678A");
        assert_eq!((bad.valid, bad.reason), (false, Some("bad_check_digit")));
        let short = validate_tax_id("1234567L");
        assert_eq!(
            (short.reason, short.suggestion.as_deref()),
            (Some("bad_length"), Some("01234567L"))
        );
        let odd = validate_tax_id("B6471783H");
        assert_eq!(odd.warnings[0].code, "control_character_form");
    }
}
