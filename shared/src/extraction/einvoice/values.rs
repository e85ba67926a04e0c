//! The typed values of e-invoices, parsed strictly: XML Schema decimals and
//! dates, CII dates (format 102), tax ids in their normal form. A value that
//! is present but unreadable is an error naming the element.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::EinvoiceError;
use crate::tax::nif;
use crate::xml_tree::Element;

/// Integer digits an amount may have: far beyond any invoice, and small
/// enough that sums of millions of them cannot overflow a `Decimal`.
const MAX_INTEGER_DIGITS: usize = 15;
/// Decimals an amount may have (Facturae allows 8).
const MAX_DECIMALS: usize = 10;

/// An `xs:decimal` (`-1234.5`, `+0.50`, `.5`): digits and at most one dot,
/// no exponent, no thousands separator, within the limits above.
pub fn decimal(text: &str) -> Option<Decimal> {
    let text = text.trim();
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (integer, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let well_formed = !(integer.is_empty() && fraction.is_empty())
        && digits(integer)
        && digits(fraction)
        && integer.trim_start_matches('0').len() <= MAX_INTEGER_DIGITS
        && fraction.len() <= MAX_DECIMALS;
    if !well_formed {
        return None;
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    let text = text.strip_suffix('.').unwrap_or(text);
    Decimal::from_str_exact(text).ok()
}

/// The decimal at `path` under `parent`, if the element is there.
pub fn decimal_at(
    parent: &Element,
    path: &[&str],
    format: &str,
) -> Result<Option<Decimal>, EinvoiceError> {
    parent
        .find(path)
        .map(|element| decimal_of(element, path, format))
        .transpose()
}

/// The decimal text of an element (`path` names it in the error).
pub fn decimal_of(
    element: &Element,
    path: &[&str],
    format: &str,
) -> Result<Decimal, EinvoiceError> {
    decimal(element.text()).ok_or_else(|| {
        EinvoiceError::Malformed(format!(
            "{format}: {} is {:?}, not a decimal number",
            path.join("/"),
            element.text()
        ))
    })
}

/// An account number as the IBAN field holds it: upper case without spaces.
pub fn iban(text: &str) -> Option<String> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect();
    (!compact.is_empty()).then_some(compact)
}

/// An `xs:date`, with any time-zone suffix dropped (`2026-11-21`, `2026-11-21Z`,
/// `2026-11-21+01:00`).
pub fn iso_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    let date = text.get(..10)?;
    let zone = text.get(10..)?;
    let zone_ok = zone.is_empty()
        || zone == "Z"
        || (zone.len() == 6 && zone.starts_with(['+', '-']) && zone.get(3..4) == Some(":"));
    if !zone_ok {
        return None;
    }
    NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()
}

/// A CII date in format 102 (`YYYYMMDD`).
pub fn compact_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    if text.len() != 8 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y%m%d").ok()
}

pub fn bad_date(format: &str, path: &str, text: &str) -> EinvoiceError {
    EinvoiceError::Malformed(format!("{format}: {path} is {text:?}, not a date"))
}

/// A tax id in its normal form: upper case, without spaces or punctuation,
/// and without the `ES` prefix of a Spanish VAT number. Foreign VAT numbers
/// keep their country prefix. None when nothing is left.
pub fn tax_id(text: &str) -> Option<String> {
    let id: String = nif::normalize(text)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    (!id.is_empty()).then_some(id)
}

/// Words joined by single spaces; None when empty.
pub fn name(parts: &[&str]) -> Option<String> {
    let joined = parts
        .iter()
        .flat_map(|p| p.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ");
    (!joined.is_empty()).then_some(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    #[test]
    fn decimals_are_exact_and_strict() {
        assert_eq!(decimal(" 1234.56 "), Some(dec!(1234.56)));
        assert_eq!(decimal("-0.00000001"), Some(dec!(-0.00000001)));
        assert_eq!(decimal("+12"), Some(dec!(12)));
        assert_eq!(decimal(".5"), Some(dec!(0.5)));
        assert_eq!(decimal("5."), Some(dec!(5)));
        for bad in [
            "", "-", ".", "1,5", "1.234,56", "1e3", "12 EUR", "1.2.3", "--1", "NaN",
        ] {
            assert_eq!(decimal(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn dates() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 21);
        assert_eq!(iso_date("2026-11-21"), day);
        assert_eq!(iso_date("2026-11-21Z"), day);
        assert_eq!(iso_date("2026-11-21+01:00"), day);
        assert_eq!(iso_date("2026-11-31"), None);
        assert_eq!(iso_date("21/11/2026"), None);
        assert_eq!(iso_date("2026-11-21T10:00"), None);
        assert_eq!(compact_date("20261121"), day);
        assert_eq!(compact_date("2026112"), None);
        assert_eq!(compact_date("2026-11-21"), None);
    }

    #[test]
    fn tax_ids_are_normalised() {
        assert_eq!(tax_id("ES12345678Z").as_deref(), Some("12345678Z"));
        assert_eq!(tax_id(" es b-6471783.8 ").as_deref(), Some("B64717838"));
        assert_eq!(
            tax_id("NL8200.98.395.B.01").as_deref(),
            Some("NL820098395B01")
        );
        assert_eq!(tax_id("DE 123/456/789").as_deref(), Some("DE123456789"));
        assert_eq!(tax_id(" - "), None);
    }

    #[test]
    fn names_collapse_whitespace() {
        assert_eq!(
            name(&["Ana", " García\n", "", "Pérez"]).as_deref(),
            Some("Ana García Pérez")
        );
        assert_eq!(name(&["", " "]), None);
    }
}
