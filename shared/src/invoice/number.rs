//! Invoice numbers: a series' code and pattern, e.g. `{code}{year}-{n:06}`
//! giving `F2026-000001`. Test invoices carry a `TEST-` prefix and their own
//! counters. A sequence longer than its padding simply grows.
//!
//! Two series never produce the same number: a code is letters only and a
//! pattern starts with `{code}` followed by something that is not a letter,
//! so a number's leading letters name its series.

use std::fmt;

use crate::domain::account::Mode;

/// A series code: 1–10 capital letters A–Z.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(String);

impl Code {
    pub const MAX_LEN: usize = 10;

    pub fn parse(raw: &str) -> Result<Code, String> {
        let ok = !raw.is_empty()
            && raw.len() <= Self::MAX_LEN
            && raw.bytes().all(|b| b.is_ascii_uppercase());
        if ok {
            Ok(Code(raw.to_string()))
        } else {
            Err(format!(
                "{raw:?} is not a series code: 1–{} capital letters A–Z",
                Self::MAX_LEN
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Code,
    Year,
    /// The sequence, zero-padded to this width (0: no padding).
    Sequence(usize),
}

/// A number pattern: `{code}`, `{year}` (four digits), `{n}` or `{n:0W}`
/// (padded to W digits, 1–12) and literal `A–Z a–z 0–9 - / _ .`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    parts: Vec<Part>,
}

/// The longest pattern text; with a 10-letter code and a long sequence the
/// number stays within VERI*FACTU's 60 characters, `TEST-` included.
pub const MAX_PATTERN_LEN: usize = 30;

pub const DEFAULT_PATTERN: &str = "{code}{year}-{n:06}";

impl Pattern {
    pub fn default_pattern() -> Pattern {
        Pattern::parse(DEFAULT_PATTERN, true).expect("the default pattern is valid")
    }

    /// `yearly`: the series restarts every year, so its numbers need the year.
    pub fn parse(text: &str, yearly: bool) -> Result<Pattern, String> {
        if text.len() > MAX_PATTERN_LEN {
            return Err(format!(
                "a pattern has at most {MAX_PATTERN_LEN} characters"
            ));
        }
        let parts = parts(text)?;
        if parts.first() != Some(&Part::Code) {
            return Err("a pattern starts with {code}".into());
        }
        if let Some(Part::Literal(next)) = parts.get(1)
            && next.starts_with(|c: char| c.is_ascii_alphabetic())
        {
            return Err(
                "{code} is followed by {year}, {n} or a digit or separator, not a letter".into(),
            );
        }
        let sequences = parts
            .iter()
            .filter(|p| matches!(p, Part::Sequence(_)))
            .count();
        if sequences != 1 {
            return Err("a pattern has {n} (or {n:06}) exactly once".into());
        }
        if parts.iter().filter(|p| **p == Part::Code).count() > 1 {
            return Err("a pattern has {code} once".into());
        }
        if yearly && !parts.contains(&Part::Year) {
            return Err(
                "a series that restarts every year needs {year} in its pattern, or its numbers would repeat"
                    .into(),
            );
        }
        Ok(Pattern {
            text: text.to_string(),
            parts,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn format(&self, code: &Code, year: i32, sequence: u64, mode: Mode) -> String {
        let mut number = String::new();
        if mode == Mode::Test {
            number.push_str("TEST-");
        }
        for part in &self.parts {
            match part {
                Part::Literal(text) => number.push_str(text),
                Part::Code => number.push_str(code.as_str()),
                Part::Year => number.push_str(&format!("{year:04}")),
                Part::Sequence(width) => number.push_str(&format!("{sequence:0width$}")),
            }
        }
        number
    }
}

fn parts(text: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('{') {
            let end = after
                .find('}')
                .ok_or_else(|| "a { without its }".to_string())?;
            parts.push(placeholder(&after[..end])?);
            rest = &after[end + 1..];
        } else {
            let end = rest.find('{').unwrap_or(rest.len());
            let literal = &rest[..end];
            if let Some(c) = literal
                .chars()
                .find(|c| !(c.is_ascii_alphanumeric() || "-/_.".contains(*c)))
            {
                return Err(format!(
                    "{c:?} cannot be part of an invoice number; use A–Z, a–z, 0–9, - / _ ."
                ));
            }
            parts.push(Part::Literal(literal.to_string()));
            rest = &rest[end..];
        }
    }
    Ok(parts)
}

fn placeholder(name: &str) -> Result<Part, String> {
    match name {
        "code" => Ok(Part::Code),
        "year" => Ok(Part::Year),
        "n" => Ok(Part::Sequence(0)),
        _ => name
            .strip_prefix("n:0")
            .and_then(|w| w.parse::<usize>().ok())
            .filter(|w| (1..=12).contains(w))
            .map(Part::Sequence)
            .ok_or_else(|| {
                format!("{{{name}}} is not {{code}}, {{year}}, {{n}} or {{n:0W}} with W 1–12")
            }),
    }
}

/// The counter's name of a series in a year: `F2026` for a yearly series
/// (the names the fixed F and R series always had), `F#` for one that never
/// restarts. A code is letters only, so names of different series differ.
pub fn counter_name(code: &Code, yearly: bool, year: i32) -> String {
    if yearly {
        format!("{code}{year}")
    } else {
        format!("{code}#")
    }
}

/// Whether a counter name belongs to the series `code`.
pub fn counts_for(name: &str, code: &Code) -> bool {
    name.strip_prefix(code.as_str()).is_some_and(|rest| {
        rest == "#" || (rest.len() == 4 && rest.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(c: &str) -> Code {
        Code::parse(c).unwrap()
    }

    #[test]
    fn the_default_pattern_numbers_as_the_fixed_series_did() {
        let p = Pattern::default_pattern();
        assert_eq!(p.format(&code("F"), 2026, 1, Mode::Live), "F2026-000001");
        assert_eq!(p.format(&code("R"), 2026, 42, Mode::Live), "R2026-000042");
        assert_eq!(
            p.format(&code("F"), 2026, 1_234_567, Mode::Test),
            "TEST-F2026-1234567"
        );
        assert_eq!(counter_name(&code("R"), true, 2027), "R2027");
    }

    #[test]
    fn patterns_of_their_own() {
        let p = Pattern::parse("{code}-{n}", false).unwrap();
        assert_eq!(p.format(&code("TK"), 2026, 7, Mode::Live), "TK-7");
        let p = Pattern::parse("{code}/{year}/{n:04}", true).unwrap();
        assert_eq!(p.format(&code("A"), 2027, 12, Mode::Live), "A/2027/0012");
        assert_eq!(counter_name(&code("TK"), false, 2026), "TK#");
    }

    #[test]
    fn patterns_that_would_repeat_or_collide_are_refused() {
        for (text, yearly) in [
            ("{code}-{n}", true),
            ("{year}{code}{n}", true),
            ("{code}X{n}", false),
            ("{code}{year}", true),
            ("{code}{n}{n}", false),
            ("{code}<{n}", false),
            ("{code}{n:013}", false),
            ("{code}{m}", false),
            ("{code}{n", false),
        ] {
            assert!(Pattern::parse(text, yearly).is_err(), "{text}");
        }
        assert!(Code::parse("F1").is_err() && Code::parse("").is_err());
        assert!(Code::parse("ABCDEFGHIJK").is_err() && Code::parse("f").is_err());
    }

    #[test]
    fn counters_belong_to_one_series() {
        assert!(counts_for("F2026", &code("F")));
        assert!(counts_for("F#", &code("F")));
        assert!(!counts_for("FV2026", &code("F")));
        assert!(!counts_for("ID", &code("I")));
    }
}
