//! Spanish tax identifiers (NIF): DNI-based, NIE, special K/L/M and entity
//! ("CIF") numbers. `Nif` can only hold a valid, normalised identifier;
//! validity follows python-stdnum's `stdnum.es.nif`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";
const ENTITY_LETTERS: &str = "ABCDEFGHJNPQRSUVW";
const ENTITY_CONTROL_LETTERS: &[u8; 10] = b"JABCDEFGHI";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NifError {
    BadFormat,
    BadLength,
    BadCheckDigit,
}

impl NifError {
    pub fn code(self) -> &'static str {
        match self {
            NifError::BadFormat => "bad_format",
            NifError::BadLength => "bad_length",
            NifError::BadCheckDigit => "bad_check_digit",
        }
    }
}

impl fmt::Display for NifError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NifError::BadFormat => "not a Spanish NIF: wrong characters",
            NifError::BadLength => "not a Spanish NIF: a NIF has 9 characters",
            NifError::BadCheckDigit => "the control character does not match",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Nif(String);

/// Characters that python-stdnum maps to a hyphen before removing hyphens.
const DASHES: &[char] = &[
    '\u{058A}', '\u{05BE}', '\u{2010}', '\u{2011}', '\u{2012}', '\u{2013}', '\u{2014}', '\u{2015}',
    '\u{FE63}', '\u{FF0D}', '\u{2212}', '\u{207B}', '\u{208B}', '\u{00AF}', '\u{203E}', '\u{02D7}',
];
/// Characters that python-stdnum maps to a space before removing spaces.
const SPACES: &[char] = &[
    '\u{00A0}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}',
    '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}', '\u{202F}', '\u{205F}', '\u{3000}', '\u{1680}',
];

/// The normal form of a NIF as python-stdnum computes it (`stdnum.es.nif.compact`):
/// without spaces and hyphens, upper case, trimmed, without an `ES` prefix. Dots
/// are removed too, unlike stdnum, because Spanish NIFs are commonly printed
/// with them (`12.345.678-Z`).
pub fn normalize(input: &str) -> String {
    let cleaned: String = input
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.') && !DASHES.contains(c) && !SPACES.contains(c))
        .flat_map(char::to_uppercase)
        .collect();
    let trimmed = cleaned.trim();
    trimmed.strip_prefix("ES").unwrap_or(trimmed).to_string()
}

fn dni_letter(digits: &str) -> u8 {
    let n: u64 = digits.parse().expect("caller checked the digits");
    DNI_LETTERS[(n % 23) as usize]
}

/// The entity control digit (0-9) of the 7 digits after the first letter.
fn entity_control(digits: &[u8]) -> u8 {
    let sum: u32 = digits
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            if i % 2 == 0 {
                (2 * d) / 10 + (2 * d) % 10
            } else {
                d
            }
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

impl Nif {
    /// Parses and validates as python-stdnum's `stdnum.es.nif.validate` does.
    pub fn parse(input: &str) -> Result<Nif, NifError> {
        let value = normalize(input);
        let chars: Vec<char> = value.chars().collect();
        if chars.len() < 3 || !chars[1..chars.len() - 1].iter().all(char::is_ascii_digit) {
            return Err(NifError::BadFormat);
        }
        if chars.len() != 9 {
            return Err(NifError::BadLength);
        }
        let (first, last) = (chars[0], chars[8]);
        let middle = &value[first.len_utf8()..first.len_utf8() + 7];
        let ok = match first {
            'K' | 'L' | 'M' => char::from(dni_letter(middle)) == last,
            '0'..='9' => char::from(dni_letter(&value[..8])) == last,
            'X' | 'Y' | 'Z' => {
                let digits = format!("{}{middle}", first as u8 - b'X');
                char::from(dni_letter(&digits)) == last
            }
            c if ENTITY_LETTERS.contains(c) => {
                let control = entity_control(middle.as_bytes());
                last == char::from(b'0' + control)
                    || last == char::from(ENTITY_CONTROL_LETTERS[control as usize])
            }
            _ => return Err(NifError::BadFormat),
        };
        if ok {
            Ok(Nif(value))
        } else {
            Err(NifError::BadCheckDigit)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn kind(&self) -> NifKind {
        let first = self.0.as_bytes()[0];
        match first {
            b'0'..=b'9' => NifKind::Dni,
            b'X' | b'Y' | b'Z' => NifKind::Nie,
            b'K' | b'L' | b'M' => NifKind::Special(char::from(first)),
            _ => NifKind::Entity(char::from(first)),
        }
    }

    /// Facts a valid NIF still deserves a word about.
    pub fn warnings(&self) -> Vec<NifWarning> {
        let mut warnings = Vec::new();
        if let NifKind::Entity(letter) = self.kind() {
            let last_is_letter = self.0.as_bytes()[8].is_ascii_uppercase();
            let form_contradicts = match entity_control_form(letter) {
                ControlForm::Letter => !last_is_letter,
                ControlForm::Digit => last_is_letter,
            };
            if form_contradicts {
                warnings.push(NifWarning::ControlFormUnusual);
            }
        }
        if self.kind() == NifKind::Dni && self.0.starts_with("00000000") {
            warnings.push(NifWarning::PlaceholderNumber);
        }
        warnings
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NifKind {
    /// DNI-based NIF of a Spanish citizen.
    Dni,
    /// NIE of a foreign person.
    Nie,
    /// K, L or M personal NIF.
    Special(char),
    /// Legal entity or entity without legal personality, by its first letter.
    Entity(char),
}

impl NifKind {
    pub fn code(self) -> &'static str {
        match self {
            NifKind::Dni => "dni",
            NifKind::Nie => "nie",
            NifKind::Special(_) => "special",
            NifKind::Entity(_) => "entity",
        }
    }

    /// What the first letter says about the holder (Orden EHA/451/2008).
    pub fn description(self) -> &'static str {
        match self {
            NifKind::Dni => "Spanish citizen (DNI)",
            NifKind::Nie => "foreign person (NIE)",
            NifKind::Special('K') => "Spaniard under 14 without DNI",
            NifKind::Special('L') => "Spaniard resident abroad without DNI",
            NifKind::Special(_) => "foreigner without NIE",
            NifKind::Entity(letter) => entity_type(letter),
        }
    }
}

fn entity_type(letter: char) -> &'static str {
    match letter {
        'A' => "sociedad anónima (SA)",
        'B' => "sociedad de responsabilidad limitada (SL)",
        'C' => "sociedad colectiva",
        'D' => "sociedad comanditaria",
        'E' => "comunidad de bienes, herencia yacente or other entity without legal personality",
        'F' => "sociedad cooperativa",
        'G' => "asociación",
        'H' => "comunidad de propietarios",
        'J' => "sociedad civil",
        'N' => "foreign entity",
        'P' => "corporación local",
        'Q' => "organismo público",
        'R' => "congregación or institución religiosa",
        'S' => "órgano de la Administración del Estado or de una comunidad autónoma",
        'U' => "unión temporal de empresas (UTE)",
        'V' => "other type of entity",
        _ => "permanent establishment of a non-resident entity",
    }
}

enum ControlForm {
    Letter,
    Digit,
}

/// The strict reading: public bodies, religious and foreign entities use a
/// letter, the others a digit (no official text states it; stdnum accepts both).
fn entity_control_form(letter: char) -> ControlForm {
    if matches!(letter, 'P' | 'Q' | 'R' | 'S' | 'N' | 'W') {
        ControlForm::Letter
    } else {
        ControlForm::Digit
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NifWarning {
    /// An entity's control character is a letter where a digit is usual, or the reverse.
    ControlFormUnusual,
    /// `00000000T`: a valid check letter on the number 0, used as a placeholder.
    PlaceholderNumber,
}

impl NifWarning {
    pub fn code(self) -> &'static str {
        match self {
            NifWarning::ControlFormUnusual => "control_character_form",
            NifWarning::PlaceholderNumber => "placeholder_number",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            NifWarning::ControlFormUnusual => {
                "the control character is valid, but entities of this type usually use the other form \
                 (a letter for P, Q, R, S, N and W; a digit for the rest)"
            }
            NifWarning::PlaceholderNumber => {
                "DNI number 0 is a placeholder, not a real person's NIF"
            }
        }
    }
}

/// For a DNI written with 7 digits (old cards): the padded NIF, when valid.
pub fn padded_suggestion(input: &str) -> Option<Nif> {
    let value = normalize(input);
    let looks_short_dni = value.len() == 8 && value.as_bytes()[..7].iter().all(u8::is_ascii_digit);
    looks_short_dni
        .then(|| Nif::parse(&format!("0{value}")).ok())
        .flatten()
}

impl FromStr for Nif {
    type Err = NifError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Nif::parse(s)
    }
}

impl fmt::Display for Nif {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Nif {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Nif {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        Nif::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_valid_vectors_parse() {
        for (input, normalized) in [
            ("12345678Z", "12345678Z"),
            ("54362315K", "54362315K"),
            ("99999999R", "99999999R"),
            ("00000001R", "00000001R"),
            ("01234567L", "01234567L"),
            ("X1234567L", "X1234567L"),
            ("Y1234567X", "Y1234567X"),
            ("Z1234567R", "Z1234567R"),
            ("x-2482300-w", "X2482300W"),
            ("ESX1234567L", "X1234567L"),
            ("ES12345678Z", "12345678Z"),
            ("B64717838", "B64717838"),
            ("A13585625", "A13585625"),
            ("J99216582", "J99216582"),
            ("B12345674", "B12345674"),
            ("G12345674", "G12345674"),
            ("P1234567D", "P1234567D"),
            ("Q2816003D", "Q2816003D"),
            ("S1234567D", "S1234567D"),
            ("R1234567D", "R1234567D"),
            ("N0012345E", "N0012345E"),
            ("W1234567D", "W1234567D"),
            ("K1234567L", "K1234567L"),
            ("L1234567L", "L1234567L"),
            ("M1234567L", "M1234567L"),
            ("ES B-64717838", "B64717838"),
            ("A58818501", "A58818501"),
            ("B6471783H", "B6471783H"),
            ("00000000T", "00000000T"),
        ] {
            assert_eq!(
                Nif::parse(input).map(|n| n.0),
                Ok(normalized.to_string()),
                "{input}"
            );
        }
    }

    #[test]
    fn reference_invalid_vectors_are_rejected() {
        use NifError::*;
        for (input, err) in [
            ("12345678A", BadCheckDigit),
            ("1234567Z", BadLength),
            ("123456789", BadCheckDigit),
            ("X1234567A", BadCheckDigit),
            ("W1234567", BadLength),
            ("B64717839", BadCheckDigit),
            ("B6471783J", BadCheckDigit),
            ("O1234567L", BadFormat),
            ("I1234567A", BadFormat),
            ("T1234567A", BadFormat),
            ("X12345678", BadCheckDigit),
            ("Y123456Z", BadLength),
            ("ZZ234567R", BadFormat),
            ("K1234567A", BadCheckDigit),
            ("A1234567", BadLength),
            ("12345678", BadLength),
            ("ESB6471783", BadLength),
            ("FR40303265045", BadFormat),
            ("", BadFormat),
            ("Ñ1234567L", BadFormat),
        ] {
            assert_eq!(Nif::parse(input), Err(err), "{input}");
        }
    }

    #[test]
    fn kinds_and_warnings() {
        let b = Nif::parse("B64717838").unwrap();
        assert_eq!(
            (b.kind(), b.kind().code()),
            (NifKind::Entity('B'), "entity")
        );
        assert!(b.kind().description().contains("(SL)"));
        assert!(b.warnings().is_empty());
        assert_eq!(
            Nif::parse("B6471783H").unwrap().warnings(),
            [NifWarning::ControlFormUnusual]
        );
        assert_eq!(
            Nif::parse("A1234567D").unwrap().warnings(),
            [NifWarning::ControlFormUnusual]
        );
        for letter_expected in ["P12345674", "Q28160034", "W12345674", "N00123455"] {
            assert_eq!(
                Nif::parse(letter_expected).unwrap().warnings(),
                [NifWarning::ControlFormUnusual]
            );
        }
        assert!(Nif::parse("P1234567D").unwrap().warnings().is_empty());
        assert_eq!(
            Nif::parse("00000000T").unwrap().warnings(),
            [NifWarning::PlaceholderNumber]
        );
        assert_eq!(Nif::parse("X1234567L").unwrap().kind(), NifKind::Nie);
        assert_eq!(Nif::parse("12345678Z").unwrap().kind(), NifKind::Dni);
        assert_eq!(
            Nif::parse("K1234567L").unwrap().kind(),
            NifKind::Special('K')
        );
    }

    #[test]
    fn normalisation_follows_stdnum_and_also_drops_dots() {
        assert_eq!(normalize(" es b-64717838 "), "B64717838");
        assert_eq!(normalize("12.345.678-z"), "12345678Z");
        assert_eq!(normalize("X\u{2013}2482300\u{00A0}W"), "X2482300W");
        assert_eq!(normalize("\tB64717838\n"), "B64717838");
        assert!(
            Nif::parse("B6471\t7838").is_err(),
            "inner tabs are not separators"
        );
    }

    #[test]
    fn a_seven_digit_dni_gets_a_padded_suggestion() {
        assert_eq!(Nif::parse("1234567L"), Err(NifError::BadLength));
        assert_eq!(
            padded_suggestion("1234567L").map(|n| n.0),
            Some("01234567L".into())
        );
        assert_eq!(padded_suggestion("1234567A"), None);
        assert_eq!(padded_suggestion("B6471783"), None);
    }

    #[test]
    fn entity_control_matches_the_worked_example() {
        assert_eq!(entity_control(b"6471783"), 8);
    }
}
