//! Tax identifiers printed on invoices: Spanish NIF, NIE and CIF with or
//! without `ES`, spaces, dots and dashes (`ES B-12.345.674`), checked with
//! the tax engine; foreign EU VAT numbers after a tax-id label. Next to a
//! label, an OCR misreading is repaired slot by slot (a letter read in a digit
//! slot, a digit read in a letter slot) and kept only when the check
//! character then passes.

use crate::invoice::party::in_eu;
use crate::tax::nif::{Nif, normalize, padded_suggestion};

/// A tax id read from the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaxId {
    /// Normalised: a valid Spanish NIF, or `CC` + number for another EU state.
    pub value: String,
    pub foreign: bool,
    /// The printed text when an OCR repair changed it.
    pub repaired_from: Option<String>,
}

/// Tokens longer than this are never part of a tax id.
const MAX_TOKEN: usize = 20;
/// How many tokens an id may be printed over (`ES`, `B-12`, `345`, `674`).
const MAX_TOKENS: usize = 4;

fn digit_for(c: char) -> Option<char> {
    Some(match c {
        '0'..='9' => c,
        'O' | 'D' | 'Q' => '0',
        'I' | 'L' | '|' | '!' => '1',
        'S' => '5',
        'B' => '8',
        'Z' => '2',
        'G' => '6',
        _ => return None,
    })
}

fn letters_for(c: char) -> Vec<char> {
    match c {
        '8' => vec!['B'],
        '2' => vec!['Z'],
        '5' => vec!['S'],
        '0' => vec!['D', 'O'],
        '6' => vec!['G'],
        '1' => vec!['I', 'L'],
        c if c.is_ascii_uppercase() => vec![c],
        _ => Vec::new(),
    }
}

/// Readings of a 9-character text with each slot typed: digits in the middle,
/// a letter or digit first and last.
fn repairs(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let [first, middle @ .., last] = chars.as_slice() else {
        return Vec::new();
    };
    if chars.len() != 9 {
        return Vec::new();
    }
    let Some(middle) = middle
        .iter()
        .map(|&c| digit_for(c))
        .collect::<Option<String>>()
    else {
        return Vec::new();
    };
    let with_both = |c: char| {
        let mut options = letters_for(c);
        options.extend(digit_for(c));
        options
    };
    let mut out = Vec::new();
    for f in with_both(*first) {
        for l in with_both(*last) {
            out.push(format!("{f}{middle}{l}"));
        }
    }
    out
}

fn changes(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).filter(|(x, y)| x != y).count()
}

/// The valid NIF an OCR misreading most likely stands for: the repair with
/// the fewest changed characters, when it is the only one.
fn repair(text: &str) -> Option<Nif> {
    let mut valid: Vec<(usize, Nif)> = repairs(text)
        .into_iter()
        .filter_map(|r| Nif::parse(&r).ok().map(|n| (changes(text, &r), n)))
        .collect();
    valid.sort_by_key(|(c, n)| (*c, n.as_str().to_string()));
    valid.dedup_by(|a, b| a.1 == b.1);
    match valid.as_slice() {
        [(fewest, nif), rest @ ..] if rest.first().is_none_or(|(c, _)| c > fewest) => {
            Some(nif.clone())
        }
        _ => None,
    }
}

/// A foreign EU VAT number, compact and upper case: a member-state prefix
/// (not ES) and 2–12 letters or digits, at least two of them digits. Greece
/// prints `EL`. Only the form is checked: each state has its own check digits.
pub fn foreign_vat(compact: &str) -> Option<String> {
    let prefix = compact.get(..2)?;
    let rest = compact.get(2..)?;
    let country = if prefix == "EL" { "GR" } else { prefix };
    let ok = prefix != "ES"
        && prefix.chars().all(|c| c.is_ascii_uppercase())
        && in_eu(country)
        && (2..=12).contains(&rest.len())
        && rest.chars().all(|c| c.is_ascii_alphanumeric())
        && rest.chars().filter(char::is_ascii_digit).count() >= 2;
    ok.then(|| compact.to_string())
}

/// Reads one printed candidate. Without a label next to it only a valid
/// Spanish NIF counts; with one, foreign VAT numbers and repairs too.
pub fn read(printed: &str, labelled: bool) -> Option<TaxId> {
    let trimmed = printed.trim_matches(|c: char| !c.is_alphanumeric());
    if trimmed.is_empty() || trimmed.chars().any(|c| matches!(c, '/' | ',' | ':')) {
        return None;
    }
    if let Ok(nif) = Nif::parse(trimmed) {
        return Some(spanish(nif, None));
    }
    if let Some(nif) = padded_suggestion(trimmed) {
        return Some(spanish(nif, None));
    }
    if !labelled {
        return None;
    }
    let compact = normalize(trimmed);
    if let Some(vat) = foreign_vat(&normalize_foreign(trimmed)) {
        return Some(TaxId {
            value: vat,
            foreign: true,
            repaired_from: None,
        });
    }
    repair(&compact).map(|nif| spanish(nif, Some(trimmed.to_string())))
}

fn normalize_foreign(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

fn spanish(nif: Nif, repaired_from: Option<String>) -> TaxId {
    TaxId {
        value: nif.as_str().to_string(),
        foreign: false,
        repaired_from,
    }
}

/// Every tax id in a row of words, with the index of its first word. An id may
/// be printed over up to four words; the longest reading at a position wins.
pub fn find(words: &[&str], labelled: bool) -> Vec<(TaxId, usize)> {
    // Per word: (characters, letters and digits, digits), counted once.
    let counts: Vec<(usize, usize, usize)> = words
        .iter()
        .map(|w| {
            let chars = w.chars().count();
            let alnum = w.chars().filter(|c| c.is_alphanumeric()).count();
            let digits = w.chars().filter(char::is_ascii_digit).count();
            (chars, alnum, digits)
        })
        .collect();
    let mut found: Vec<(TaxId, usize)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut best = None;
        let (mut alnum, mut digits) = (0, 0);
        for len in 1..=MAX_TOKENS.min(words.len() - i) {
            let Some(&(chars, a, d)) = counts.get(i + len - 1) else {
                break;
            };
            alnum += a;
            digits += d;
            if chars > MAX_TOKEN || alnum > 14 {
                break;
            }
            // Seven digits at least, two of them possibly misread.
            if digits < 5 {
                continue;
            }
            if let Some(id) = read(&words[i..i + len].concat(), labelled) {
                best = Some((id, len));
            }
        }
        match best {
            Some((id, len)) => {
                if !found.iter().any(|(f, _)| f.value == id.value) {
                    found.push((id, i));
                }
                i += len;
            }
            None => i += 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(printed: &str, labelled: bool) -> Option<String> {
        read(printed, labelled).map(|id| id.value)
    }

    #[test]
    fn printed_forms_normalise() {
        for (printed, nif) in [
            ("B12345674", "B12345674"),
            ("ES B-12345674", "B12345674"),
            ("ESB12345674", "B12345674"),
            ("12.345.678-Z", "12345678Z"),
            ("x-2482300-w", "X2482300W"),
            ("(B12345674)", "B12345674"),
            ("1234567L", "01234567L"),
        ] {
            assert_eq!(value(printed, false).as_deref(), Some(nif), "{printed}");
        }
    }

    #[test]
    fn ocr_repairs_are_typed_by_slot_and_need_a_label() {
        let cif = read("812345674", true).unwrap();
        assert_eq!(cif.value, "B12345674");
        assert_eq!(cif.repaired_from.as_deref(), Some("812345674"));
        assert_eq!(value("123456782", true).as_deref(), Some("12345678Z"));
        assert_eq!(value("B1234S674", true).as_deref(), Some("B12345674"));
        assert_eq!(value("I2345678Z", true).as_deref(), Some("12345678Z"));
        assert_eq!(value("812345674", false), None);
        assert_eq!(value("12345678A", true), None);
        assert_eq!(value("912345678", false), None);
    }

    #[test]
    fn foreign_eu_vat_numbers_only_after_a_label() {
        let fr = read("FR40303265045", true).unwrap();
        assert!(fr.foreign);
        assert_eq!(fr.value, "FR40303265045");
        assert_eq!(value("IE 6388047V", true).as_deref(), Some("IE6388047V"));
        assert_eq!(value("FR40303265045", false), None);
        assert_eq!(value("US123456789", true), None);
    }

    #[test]
    fn ids_spread_over_words() {
        let found = find(
            &["CIF:", "ES", "B-12", "345", "674", "Tel", "912345678"],
            false,
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0.value, "B12345674");
        assert_eq!(found[0].1, 1);
        let iban = find(&["ES91", "2100", "0418", "4502", "0005", "1332"], false);
        assert!(iban.is_empty());
        let noise = "7".repeat(100_000);
        assert!(find(&[noise.as_str(), "B12345674"], true).len() == 1);
    }
}
