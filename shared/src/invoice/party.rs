//! The customer of an invoice (and of the address book): validated details.

use serde::{Deserialize, Serialize};

use crate::tax::nif::Nif;

/// The EU member states (ISO 3166-1 alpha-2, with GR for Greece).
const EU_MEMBERS: [&str; 27] = [
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV",
    "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
];

/// Whether a country is an EU member state.
pub fn in_eu(country: &str) -> bool {
    EU_MEMBERS.contains(&country)
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Party {
    pub name: String,
    /// A valid Spanish NIF (normalised) when the country is ES; a foreign id otherwise.
    pub tax_id: Option<String>,
    pub address: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub email: Option<String>,
}

/// What a request sends; every field is checked by `Party::parse`.
#[derive(Clone, Debug, Default)]
pub struct PartyInput {
    pub name: Option<String>,
    pub tax_id: Option<String>,
    pub address: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    pub country: Option<String>,
    pub email: Option<String>,
}

/// A field that failed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartyError {
    pub field: &'static str,
    pub message: String,
}

fn err(field: &'static str, message: impl Into<String>) -> PartyError {
    PartyError {
        field,
        message: message.into(),
    }
}

fn text(
    field: &'static str,
    value: Option<String>,
    max: usize,
) -> Result<Option<String>, PartyError> {
    match value.map(|v| v.trim().to_string()) {
        None => Ok(None),
        Some(v) if v.is_empty() => Ok(None),
        Some(v) if v.chars().count() > max => Err(err(
            field,
            format!("{field} is longer than {max} characters"),
        )),
        Some(v) if v.chars().any(char::is_control) => {
            Err(err(field, format!("{field} contains control characters")))
        }
        Some(v) => Ok(Some(v)),
    }
}

/// The tax id in its normal form: a checked NIF for Spain, or a foreign id
/// (letters and digits, up to 20) for other countries.
pub fn normalize_tax_id(raw: &str, country: &str) -> Result<String, PartyError> {
    if country == "ES" {
        return Nif::parse(raw)
            .map(|n| n.to_string())
            .map_err(|e| err("tax_id", format!("{raw:?} is not a valid Spanish NIF: {e}")));
    }
    let id: String = raw
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.'))
        .flat_map(char::to_uppercase)
        .collect();
    if id.is_empty() || id.len() > 20 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(err(
            "tax_id",
            format!("{raw:?} is not a tax id (letters and digits, up to 20)"),
        ));
    }
    Ok(id)
}

impl Party {
    pub fn parse(input: PartyInput) -> Result<Party, PartyError> {
        let name = text("name", input.name, 120)?.ok_or_else(|| err("name", "name is required"))?;
        let country = input
            .country
            .unwrap_or_else(|| "ES".into())
            .trim()
            .to_ascii_uppercase();
        if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(err(
                "country",
                format!("{country:?} is not an ISO 3166-1 alpha-2 country code"),
            ));
        }
        let tax_id = match text("tax_id", input.tax_id, 40)? {
            Some(raw) => Some(normalize_tax_id(&raw, &country)?),
            None => None,
        };
        let email = text("email", input.email, 254)?;
        if let Some(e) = &email {
            let (local, domain) = e.split_once('@').unwrap_or_default();
            if local.is_empty() || !domain.contains('.') || e.contains(char::is_whitespace) {
                return Err(err("email", format!("{e:?} is not an email address")));
            }
        }
        Ok(Party {
            name,
            tax_id,
            address: text("address", input.address, 200)?,
            postal_code: text("postal_code", input.postal_code, 10)?,
            city: text("city", input.city, 60)?,
            country,
            email,
        })
    }

    /// The key that makes a tax id unique in an address book.
    pub fn tax_key(&self) -> Option<String> {
        self.tax_id
            .as_ref()
            .map(|id| format!("{}:{id}", self.country))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, tax_id: &str, country: Option<&str>) -> PartyInput {
        PartyInput {
            name: Some(name.into()),
            tax_id: Some(tax_id.into()),
            country: country.map(Into::into),
            ..PartyInput::default()
        }
    }

    #[test]
    fn spanish_ids_are_checked_and_foreign_ones_accepted() {
        let es = Party::parse(input("Ana", "b-64717838", None)).unwrap();
        assert_eq!(
            (es.tax_id.as_deref(), es.country.as_str()),
            (Some("B64717838"), "ES")
        );
        assert_eq!(
            Party::parse(input("Ana", "B64717839", None))
                .unwrap_err()
                .field,
            "tax_id"
        );
        let fr = Party::parse(input("Jean", "FR 403 032 650 45", Some("fr"))).unwrap();
        assert_eq!(
            (fr.tax_id.as_deref(), fr.country.as_str()),
            (Some("FR40303265045"), "FR")
        );
        assert_eq!(fr.tax_key().as_deref(), Some("FR:FR40303265045"));
    }

    #[test]
    fn fields_are_bounded_and_checked() {
        assert_eq!(
            Party::parse(PartyInput::default()).unwrap_err().field,
            "name"
        );
        assert_eq!(
            Party::parse(input(&"x".repeat(121), "B64717838", None))
                .unwrap_err()
                .field,
            "name"
        );
        assert_eq!(
            Party::parse(input("A", "B64717838", Some("Spain")))
                .unwrap_err()
                .field,
            "country"
        );
        let mut bad_mail = input("A", "B64717838", None);
        bad_mail.email = Some("ana@localhost".into());
        assert_eq!(Party::parse(bad_mail).unwrap_err().field, "email");
        let mut blank = input("A", "  ", None);
        blank.city = Some(" Cáceres ".into());
        let p = Party::parse(blank).unwrap();
        assert_eq!((p.tax_id, p.city.as_deref()), (None, Some("Cáceres")));
    }
}
