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
    /// Spanish in form but its check character fails: returned as printed
    /// so that the mistake is caught, not hidden.
    pub invalid: bool,
}

/// Tokens longer than this are never part of a tax id.
const MAX_TOKEN: usize = 20;
/// How many tokens an id may be printed over (`ES`, `B`, `12`, `345`, `674`).
const MAX_TOKENS: usize = 6;

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
    let foreign = normalize_foreign(trimmed);
    if let Some(vat) = strict_foreign_vat(&foreign) {
        return Some(foreign_id(vat));
    }
    if !labelled {
        return None;
    }
    let compact = normalize(trimmed);
    if let Some(vat) = foreign_vat(&foreign) {
        return Some(foreign_id(vat));
    }
    repair(&compact)
        .map(|nif| spanish(nif, Some(trimmed.to_string())))
        .or_else(|| spanish_shaped(&compact))
}

fn foreign_id(value: String) -> TaxId {
    TaxId {
        value,
        foreign: true,
        repaired_from: None,
        invalid: false,
    }
}

/// A Spanish id in form (a DNI, NIE or CIF pattern) whose check character
/// fails, as printed without separators.
fn spanish_shaped(compact: &str) -> Option<TaxId> {
    let id = compact.strip_prefix("ES").unwrap_or(compact);
    let chars: Vec<char> = id.chars().collect();
    let [first, middle @ .., last] = chars.as_slice() else {
        return None;
    };
    let digits = |s: &[char]| s.iter().all(char::is_ascii_digit);
    let shaped = chars.len() == 9
        && match first {
            '0'..='9' => digits(&chars[..8]) && last.is_ascii_uppercase(),
            'X' | 'Y' | 'Z' => digits(middle) && last.is_ascii_uppercase(),
            'A'..='W' => digits(&middle[..6]) && last.is_ascii_alphanumeric(),
            _ => false,
        };
    shaped.then(|| TaxId {
        value: id.to_string(),
        foreign: false,
        repaired_from: None,
        invalid: true,
    })
}

/// An EU (or UK) VAT number in its country's exact form (`DE` + 9 digits,
/// `FR` + 2 + 9, `NL…B01` …): distinctive enough to count without a label.
pub fn strict_foreign_vat(compact: &str) -> Option<String> {
    let (prefix, rest) = (compact.get(..2)?, compact.get(2..)?);
    let digits = |n: &[usize]| n.contains(&rest.len()) && rest.chars().all(|c| c.is_ascii_digit());
    let ok = match prefix {
        "DE" | "EE" | "EL" | "PT" => digits(&[9]),
        "IT" | "HR" | "LV" => digits(&[11]),
        "AT" => {
            rest.len() == 9
                && rest.starts_with('U')
                && rest[1..].chars().all(|c| c.is_ascii_digit())
        }
        "BE" => digits(&[10]),
        "DK" | "FI" | "HU" | "LU" | "MT" | "SI" => digits(&[8]),
        "FR" => {
            rest.len() == 11
                && rest[2..].chars().all(|c| c.is_ascii_digit())
                && rest[..2].chars().all(|c| c.is_ascii_alphanumeric())
        }
        "NL" => {
            rest.len() == 12
                && rest[..9].chars().all(|c| c.is_ascii_digit())
                && &rest[9..10] == "B"
                && rest[10..].chars().all(|c| c.is_ascii_digit())
        }
        "PL" | "SK" => digits(&[10]),
        "IE" => {
            let c: Vec<char> = rest.chars().collect();
            (8..=9).contains(&c.len())
                && c[0].is_ascii_digit()
                && c[1].is_ascii_alphanumeric()
                && c[2..7].iter().all(char::is_ascii_digit)
                && c[7..].iter().all(char::is_ascii_uppercase)
        }
        "SE" => digits(&[12]),
        "GB" | "XI" => digits(&[9, 12]),
        _ => false,
    };
    ok.then(|| compact.to_string())
}

/// Words between "VAT" and a British VAT number ("VAT Reg. No: 232 153 895").
const UK_LABEL_WORDS: &[&str] = &["REG", "REGISTRATION", "NO", "NUMBER", "#", ""];

/// A British VAT number printed after "VAT" without its `GB` prefix, as UK
/// receipts print it: 9 digits (12 with a branch) over up to four groups,
/// kept only when HMRC's mod-97 check passes; with the index of its first word.
pub fn uk_vat_after_label(words: &[&str]) -> Option<(TaxId, usize)> {
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '#')
            .to_ascii_uppercase()
    };
    let label = words.iter().position(|w| bare(w) == "VAT")?;
    let first = label
        + 1
        + words[label + 1..]
            .iter()
            .take_while(|w| UK_LABEL_WORDS.contains(&bare(w).as_str()))
            .count();
    let mut digits = String::new();
    for w in words.iter().skip(first).take(4) {
        let w = bare(w);
        if w.is_empty() || !w.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        digits.push_str(&w);
    }
    let valid = matches!(digits.len(), 9 | 12) && uk_check(&digits[..9]);
    valid.then(|| (foreign_id(format!("GB{digits}")), first))
}

/// HMRC's check of a 9-digit VAT number: the first seven digits weighted 8
/// down to 2, plus the last two as a number, is a multiple of 97 (or is one
/// once 55 is added, for numbers issued since 2010).
fn uk_check(digits: &str) -> bool {
    let d: Vec<u32> = digits.chars().filter_map(|c| c.to_digit(10)).collect();
    if d.len() != 9 {
        return false;
    }
    let sum: u32 = d[..7]
        .iter()
        .zip((2..=8).rev())
        .map(|(d, w)| d * w)
        .sum::<u32>()
        + d[7] * 10
        + d[8];
    sum.is_multiple_of(97) || (sum + 55).is_multiple_of(97)
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
        invalid: false,
    }
}

/// Every tax id in a row of words, with the index of its first word. An id may
/// be printed over up to six words; the longest reading at a position wins.
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
        assert_eq!(value("12345678A", false), None);
        assert_eq!(value("912345678", false), None);
    }

    #[test]
    fn a_wrong_check_character_next_to_a_label_is_kept_as_printed() {
        for (printed, shown) in [
            ("12345678A", "12345678A"),
            ("B-12345675", "B12345675"),
            ("ES B64717839", "B64717839"),
            ("X1234567A", "X1234567A"),
        ] {
            let id = read(printed, true).unwrap();
            assert_eq!((id.value.as_str(), id.invalid), (shown, true), "{printed}");
        }
        assert!(read("B12345674", true).is_some_and(|id| !id.invalid));
        assert_eq!(value("B12345675", false), None, "not without a label");
        assert_eq!(value("912345678", true), None, "not a NIF's form");
    }

    #[test]
    fn foreign_vat_numbers_after_a_label_or_in_their_exact_form() {
        let fr = read("FR40303265045", true).unwrap();
        assert!(fr.foreign);
        assert_eq!(fr.value, "FR40303265045");
        assert_eq!(value("IE 6388047V", true).as_deref(), Some("IE6388047V"));
        assert_eq!(value("IE 12AB34", true).as_deref(), Some("IE12AB34"));
        assert_eq!(
            value("IE 12AB34", false),
            None,
            "a loose form needs a label"
        );
        assert_eq!(value("US123456789", true), None);
        for (printed, exact) in [
            ("FR40303265045", "FR40303265045"),
            ("DE812871812", "DE812871812"),
            ("DE 128 589 584", "DE128589584"),
            ("NL820098395B01", "NL820098395B01"),
            ("GB232153895", "GB232153895"),
            ("ATU12345678", "ATU12345678"),
            ("IE6388047V", "IE6388047V"),
        ] {
            assert_eq!(value(printed, false).as_deref(), Some(exact), "{printed}");
        }
        assert_eq!(
            value("DE12345678", false),
            None,
            "eight digits is not a German VAT number"
        );
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
        let spaced = find(&["NIF", "ES", "B", "12", "345", "674"], false);
        assert_eq!(spaced[0].0.value, "B12345674");
        let iban = find(&["ES91", "2100", "0418", "4502", "0005", "1332"], false);
        assert!(iban.is_empty());
        let noise = "7".repeat(100_000);
        assert!(find(&[noise.as_str(), "B12345674"], true).len() == 1);
    }

    #[test]
    fn a_british_vat_number_after_vat_without_its_prefix() {
        let (id, at) = uk_vat_after_label(&["VAT", "232", "153", "895"]).unwrap();
        assert_eq!(
            (id.value.as_str(), id.foreign, at),
            ("GB232153895", true, 1)
        );
        let (id, at) = uk_vat_after_label(&["VAT", "Reg.", "No:", "232153895"]).unwrap();
        assert_eq!((id.value.as_str(), at), ("GB232153895", 3));
        assert!(
            uk_vat_after_label(&["VAT", "232", "153", "896"]).is_none(),
            "the check fails"
        );
        assert!(uk_vat_after_label(&["20%", "VAT", "1.70"]).is_none());
        assert!(uk_vat_after_label(&["Tel", "232", "153", "895"]).is_none());
    }
}
