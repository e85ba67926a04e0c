//! Grounding an AI model's proposal in the document it read: a proposed
//! value is kept only when it is printed there — tax ids and IBANs
//! normalised, amounts in any common format (`1.234,56`, `1,234.56`,
//! `1 234,56`), dates in common numeric or word forms (es, ca, gl, eu, en,
//! fr, de, nl, it, pt), names and numbers ignoring case, accents and
//! punctuation — or when it follows from printed amounts (total = base +
//! VAT − IRPF, VAT = base × rate). Every other value is dropped with the
//! note `ai_value_unsupported`, which names the field and the value.

use std::str::FromStr;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;
use unicode_normalization::UnicodeNormalization;

use crate::ports::ai::Proposal;
use crate::tax::money::{percent_of, round2};

const TOLERANCE: Decimal = dec!(0.01);

/// The proposed values that the document supports, typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grounded {
    pub issuer_name: Option<String>,
    /// Normalised: no spaces, dashes or dots, no `ES` before a Spanish id.
    pub issuer_nif: Option<String>,
    pub recipient_name: Option<String>,
    pub recipient_nif: Option<String>,
    pub invoice_number: Option<String>,
    pub invoice_date: Option<NaiveDate>,
    pub base: Option<Decimal>,
    pub vat_rate: Option<Decimal>,
    pub vat_amount: Option<Decimal>,
    pub irpf_rate: Option<Decimal>,
    pub irpf_amount: Option<Decimal>,
    pub total: Option<Decimal>,
    /// ISO 4217, upper case.
    pub currency: Option<String>,
    pub due_date: Option<NaiveDate>,
    /// Normalised: upper case, no spaces.
    pub iban: Option<String>,
    /// `ai_value_unsupported` notes, as `(code, message)`.
    pub notes: Vec<(String, String)>,
}

/// Keeps what `document_text` supports of `proposal`.
pub fn ground(proposal: &Proposal, document_text: &str) -> Grounded {
    let printed = Printed::new(document_text);
    let mut g = Grounded::default();
    let mut dropped: Vec<(&'static str, String)> = Vec::new();
    let mut keep = |field: &'static str, value: &Option<String>, ok: &dyn Fn(&str) -> bool| {
        let value = value.as_deref()?;
        if ok(value) {
            Some(value.to_string())
        } else {
            dropped.push((field, value.to_string()));
            None
        }
    };
    g.issuer_name = keep("issuer_name", &proposal.issuer_name, &|v| {
        printed.has_name(v)
    });
    g.recipient_name = keep("recipient_name", &proposal.recipient_name, &|v| {
        printed.has_name(v)
    });
    g.issuer_nif = keep("issuer_nif", &proposal.issuer_nif, &|v| printed.has_id(v)).map(|v| id(&v));
    g.recipient_nif = keep("recipient_nif", &proposal.recipient_nif, &|v| {
        printed.has_id(v)
    })
    .map(|v| id(&v));
    g.iban = keep("iban", &proposal.iban, &|v| printed.has_id(v)).map(|v| compact(&v));
    g.invoice_number = keep("invoice_number", &proposal.invoice_number, &|v| {
        printed.has_number(v)
    });
    g.currency = keep("currency", &proposal.currency, &|v| printed.has_currency(v))
        .map(|v| v.to_uppercase());
    let mut date_of = |field: &'static str, value: &Option<String>| {
        let value = value.as_deref()?;
        let found = dates_in(value)
            .into_iter()
            .find(|d| printed.dates.contains(d));
        if found.is_none() {
            dropped.push((field, value.to_string()));
        }
        found
    };
    g.invoice_date = date_of("invoice_date", &proposal.invoice_date);
    g.due_date = date_of("due_date", &proposal.due_date);
    ground_amounts(proposal, &printed, &mut g, &mut dropped);
    g.notes = dropped
        .into_iter()
        .map(|(field, value)| {
            (
                "ai_value_unsupported".to_string(),
                format!(
                    "El modelo de IA propuso {field} = «{value}», que no figura en el documento; se descarta (ai_value_unsupported)"
                ),
            )
        })
        .collect();
    g
}

/// The amounts and rates: each printed, or else derived from printed ones.
fn ground_amounts(
    p: &Proposal,
    printed: &Printed,
    g: &mut Grounded,
    dropped: &mut Vec<(&'static str, String)>,
) {
    let proposed = [
        ("base", &p.base),
        ("vat_rate", &p.vat_rate),
        ("vat_amount", &p.vat_amount),
        ("irpf_rate", &p.irpf_rate),
        ("irpf_amount", &p.irpf_amount),
        ("total", &p.total),
    ];
    let mut pending: Vec<(&'static str, &str, Vec<Decimal>)> = Vec::new();
    for (field, value) in proposed {
        let Some(value) = value.as_deref() else {
            continue;
        };
        let readings = signed_readings(value);
        let printed = if field.ends_with("_rate") {
            &printed.percents
        } else {
            &printed.numbers
        };
        match readings.iter().find(|r| printed.contains(&r.abs())) {
            Some(&r) => *slot(g, field) = Some(r),
            None => pending.push((field, value, readings)),
        }
    }
    // One derived amount may let another follow (VAT from the rate, then the total).
    loop {
        let before = pending.len();
        pending.retain(|(field, _, readings)| {
            let derived = derivation(g, field);
            let found = readings
                .iter()
                .find(|&&r| derived.is_some_and(|d| (d.abs() - r.abs()).abs() <= TOLERANCE));
            match found {
                Some(&r) => {
                    *slot(g, field) = Some(r);
                    false
                }
                None => true,
            }
        });
        if pending.len() == before {
            break;
        }
    }
    dropped.extend(
        pending
            .into_iter()
            .map(|(field, value, _)| (field, value.to_string())),
    );
}

fn slot<'g>(g: &'g mut Grounded, field: &str) -> &'g mut Option<Decimal> {
    match field {
        "base" => &mut g.base,
        "vat_rate" => &mut g.vat_rate,
        "vat_amount" => &mut g.vat_amount,
        "irpf_rate" => &mut g.irpf_rate,
        "irpf_amount" => &mut g.irpf_amount,
        _ => &mut g.total,
    }
}

/// What a field must be, given the grounded amounts: the sum's other
/// terms, or a base times a rate.
fn derivation(g: &Grounded, field: &str) -> Option<Decimal> {
    let abs = |x: Option<Decimal>| x.map(|x| x.abs());
    let (base, vat, total) = (abs(g.base), abs(g.vat_amount), abs(g.total));
    let irpf = abs(g.irpf_amount).unwrap_or(Decimal::ZERO);
    let of = |rate: Option<Decimal>| Some(round2(percent_of(base?, rate?)));
    match field {
        "total" => Some(base? + vat? - irpf),
        "base" => Some(total? - vat? + irpf),
        "vat_amount" => of(g.vat_rate).or_else(|| Some(total? - base? + irpf)),
        "irpf_amount" => of(g.irpf_rate).or_else(|| Some(base? + vat? - total?)),
        "vat_rate" => rate_of(base?, vat?),
        _ => rate_of(base?, irpf),
    }
}

/// The whole percent (or half percent) that gives `part` of `base` to the cent.
fn rate_of(base: Decimal, part: Decimal) -> Option<Decimal> {
    if base.is_zero() {
        return None;
    }
    let rate = (part * Decimal::ONE_HUNDRED / base * Decimal::TWO).round() / Decimal::TWO;
    ((round2(percent_of(base, rate)) - part).abs() <= TOLERANCE).then_some(rate.normalize())
}

/// What the document prints, in the forms the proposal is compared in.
struct Printed {
    /// Every line, upper case, letters and digits only.
    compact_lines: Vec<String>,
    /// Every line folded both ways (`fold`), with a space at each end.
    folded_lines: Vec<String>,
    /// Every line's tokens (`tokens`).
    token_lines: Vec<Vec<String>>,
    /// Every amount reading of every number printed, without sign.
    numbers: Vec<Decimal>,
    /// The readings of the numbers printed with a `%`.
    percents: Vec<Decimal>,
    dates: Vec<NaiveDate>,
    raw: String,
}

impl Printed {
    fn new(text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut numbers: Vec<Decimal> = Vec::new();
        let mut percents: Vec<Decimal> = Vec::new();
        for line in &lines {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            for (i, token) in tokens.iter().enumerate() {
                let percent = token.contains('%')
                    || tokens.get(i + 1).is_some_and(|next| next.starts_with('%'));
                for run in numeric_runs(token) {
                    numbers.extend(readings(run));
                    if percent {
                        percents.extend(readings(run));
                    }
                }
                if let Some(next) = tokens.get(i + 1)
                    && let Some(joined) = thousands_split_by_space(token, next)
                {
                    numbers.extend(readings(&joined));
                }
            }
        }
        for list in [&mut numbers, &mut percents] {
            list.iter_mut().for_each(|n| *n = n.abs().normalize());
            list.sort();
            list.dedup();
        }
        Printed {
            compact_lines: lines.iter().map(|l| compact(l)).collect(),
            folded_lines: lines
                .iter()
                .flat_map(|l| [fold(l, false), fold(l, true)])
                .map(|l| format!(" {l} "))
                .collect(),
            token_lines: lines.iter().map(|l| tokens(l)).collect(),
            numbers,
            percents,
            dates: lines.iter().flat_map(|l| dates_in(l)).collect(),
            raw: text.to_string(),
        }
    }

    /// A name: its folded words, whole, in a line folded the same way.
    fn has_name(&self, name: &str) -> bool {
        [fold(name, false), fold(name, true)]
            .iter()
            .filter(|f| !f.is_empty())
            .any(|f| {
                let words = format!(" {f} ");
                self.folded_lines.iter().any(|l| l.contains(&words))
            })
    }

    /// A tax id or IBAN: within a line, ignoring everything but letters and digits.
    fn has_id(&self, value: &str) -> bool {
        let wanted = id(value);
        wanted.len() >= 5 && self.compact_lines.iter().any(|l| l.contains(&wanted))
    }

    /// An invoice number: whole printed tokens, one after another, with or
    /// without the spaces between them (`25 - 5469` is `25-5469`).
    fn has_number(&self, number: &str) -> bool {
        let wanted = tokens(number);
        if wanted.is_empty() {
            return false;
        }
        let (spaced, squeezed) = (wanted.join(" "), wanted.concat());
        self.token_lines.iter().any(|line| {
            (0..line.len()).any(|from| {
                (from + 1..=line.len()).any(|to| {
                    let run = &line[from..to];
                    run.join(" ") == spaced || run.concat() == squeezed
                })
            })
        })
    }

    fn has_currency(&self, code: &str) -> bool {
        let code = code.trim().to_uppercase();
        let symbol = match code.as_str() {
            "EUR" => Some('€'),
            "USD" => Some('$'),
            "GBP" => Some('£'),
            _ => None,
        };
        let word = format!(" {} ", code.to_lowercase());
        symbol.is_some_and(|s| self.raw.contains(s))
            || (code == "EUR"
                && self
                    .folded_lines
                    .iter()
                    .any(|l| l.contains(" euro ") || l.contains(" euros ")))
            || self.folded_lines.iter().any(|l| l.contains(&word))
    }
}

/// A line's printed tokens, upper case: split at white space and colons,
/// without the punctuation around them (`Nº:2026/0147,` → `Nº`, `2026/0147`).
fn tokens(line: &str) -> Vec<String> {
    line.split(|c: char| c.is_whitespace() || c == ':')
        .map(|t| t.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '"')))
        .map(|t| t.strip_suffix('.').unwrap_or(t).to_uppercase())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Upper case letters and digits only.
fn compact(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_uppercase)
        .collect()
}

/// A tax id as the service keeps it: compact, no `ES` before a Spanish id.
fn id(value: &str) -> String {
    let c = compact(value);
    match c.strip_prefix("ES") {
        Some(rest) if rest.len() == 9 => rest.to_string(),
        _ => c,
    }
}

/// Lower case, accents and punctuation gone, words separated by one space;
/// with `join_dots`, dots join what they separate (`S.L.` → `sl`, else `s l`).
fn fold(text: &str, join_dots: bool) -> String {
    let plain: String = text
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .filter(|c| !(join_dots && *c == '.'))
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The runs of digits and separators in a token (`1.639,29€` → `1.639,29`).
fn numeric_runs(token: &str) -> impl Iterator<Item = &str> {
    token
        .split(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '\'')))
        .map(|run| run.trim_matches(|c: char| !c.is_ascii_digit()))
        .filter(|run| !run.is_empty())
}

/// `1` + `234,56` → `1234,56`: a space as the thousands separator.
fn thousands_split_by_space(head: &str, tail: &str) -> Option<String> {
    let short = !head.is_empty() && head.len() <= 3 && head.chars().all(|c| c.is_ascii_digit());
    let bytes = tail.as_bytes();
    let group = bytes.len() >= 3
        && bytes[..3].iter().all(u8::is_ascii_digit)
        && !bytes.get(3).is_some_and(u8::is_ascii_digit);
    (short && group).then(|| format!("{head}{}", numeric_runs(tail).next().unwrap_or("")))
}

/// Every value a printed number may mean: `1.234,56` → 1234.56; `1.234` →
/// 1234 or 1.234; `1,5` → 1.5; `1'234.50` → 1234.5.
fn readings(run: &str) -> Vec<Decimal> {
    let run: String = run.chars().filter(|c| *c != '\'').collect();
    let seps: Vec<(usize, char)> = run
        .char_indices()
        .filter(|(_, c)| matches!(c, '.' | ','))
        .collect();
    let digits_only = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    let integer = || Decimal::from_str(&digits_only(&run)).ok();
    let decimal_at = |at: usize| {
        Decimal::from_str(&format!(
            "{}.{}",
            digits_only(&run[..at]),
            digits_only(&run[at + 1..])
        ))
        .ok()
    };
    let Some(&(last, mark)) = seps.last() else {
        return integer().into_iter().collect();
    };
    let after = run.len() - last - 1;
    let groups_of_three = run.split(['.', ',']).skip(1).all(|group| group.len() == 3);
    let kinds = seps.iter().filter(|(_, c)| *c != mark).count();
    let readings = if kinds > 0 {
        // Both marks: the last one is the decimal mark.
        vec![decimal_at(last)]
    } else if seps.len() > 1 {
        vec![groups_of_three.then(integer).flatten()]
    } else if after == 3 {
        vec![integer(), decimal_at(last)]
    } else {
        vec![decimal_at(last)]
    };
    readings.into_iter().flatten().collect()
}

/// The readings of a proposed amount or rate, with its sign (`-231,98`,
/// `(231,98)`, `231,98-`).
fn signed_readings(value: &str) -> Vec<Decimal> {
    let negative =
        value.trim_start().starts_with(['-', '−', '(']) || value.trim_end().ends_with('-');
    numeric_runs(value)
        .next()
        .map(readings)
        .unwrap_or_default()
        .into_iter()
        .map(|r| if negative { -r } else { r })
        .collect()
}

/// Month names in the languages of the invoices read (folded); a word is a
/// month when it is one of these or the start (3 letters or more) of only one month's names.
const MONTHS: [&[&str]; 12] = [
    &[
        "enero",
        "gener",
        "xaneiro",
        "urtarrila",
        "january",
        "janvier",
        "januar",
        "januari",
        "gennaio",
        "janeiro",
    ],
    &[
        "febrero",
        "febrer",
        "febreiro",
        "otsaila",
        "february",
        "fevrier",
        "februar",
        "februari",
        "febbraio",
        "fevereiro",
    ],
    &[
        "marzo", "marc", "martxoa", "march", "mars", "marz", "maerz", "maart", "marco",
    ],
    &["abril", "apirila", "april", "avril", "aprile"],
    &[
        "mayo", "maig", "maio", "maiatza", "may", "mai", "mei", "maggio",
    ],
    &[
        "junio", "juny", "xuno", "ekaina", "june", "juin", "juni", "giugno", "junho",
    ],
    &[
        "julio", "juliol", "xullo", "uztaila", "july", "juillet", "juli", "luglio", "julho",
    ],
    &["agosto", "agost", "abuztua", "august", "aout", "augustus"],
    &[
        "septiembre",
        "setiembre",
        "setembre",
        "setembro",
        "iraila",
        "september",
        "septembre",
        "settembre",
    ],
    &[
        "octubre", "outubro", "urria", "october", "octobre", "oktober", "ottobre",
    ],
    &["noviembre", "novembre", "novembro", "azaroa", "november"],
    &[
        "diciembre",
        "desembre",
        "decembro",
        "abendua",
        "december",
        "decembre",
        "dezember",
        "dicembre",
        "dezembro",
    ],
];

fn month(word: &str) -> Option<u32> {
    if word.len() < 3 || !word.chars().all(char::is_alphabetic) {
        return None;
    }
    let mut found = None;
    for (i, names) in MONTHS.iter().enumerate() {
        if names.iter().any(|n| n.starts_with(word)) {
            if found.is_some() {
                return None;
            }
            found = Some(i as u32 + 1);
        }
    }
    found
}

/// A day of the month as printed: `2`, `02`, `2nd`, `1er`, `1o`.
fn day(word: &str) -> Option<u32> {
    let digits: String = word.chars().take_while(char::is_ascii_digit).collect();
    let rest = &word[digits.len()..];
    let suffix = matches!(
        rest,
        "" | "st" | "nd" | "rd" | "th" | "er" | "o" | "a" | "e"
    );
    (suffix && (1..=2).contains(&digits.len()))
        .then(|| digits.parse().ok())
        .flatten()
        .filter(|d| (1..=31).contains(d))
}

fn year(word: &str) -> Option<i32> {
    (word.len() == 4 && word.chars().all(|c| c.is_ascii_digit()))
        .then(|| word.parse().ok())
        .flatten()
        .filter(|y| (1990..=2100).contains(y))
}

/// Every date a text may print: `05/08/2026` (and its `mm/dd` reading),
/// `5-8-26`, `2026-08-05`, `05.08.2026`, `5 de agosto de 2026`,
/// `November 2, 2026`, `2. November 2026`.
pub fn dates_in(text: &str) -> Vec<NaiveDate> {
    let mut out = Vec::new();
    for token in text.split(|c: char| !(c.is_ascii_digit() || matches!(c, '/' | '-' | '.'))) {
        let parts: Vec<&str> = token
            .split(['/', '-', '.'])
            .filter(|p| !p.is_empty())
            .collect();
        let [a, b, c] = parts[..] else { continue };
        let n = |s: &str| s.parse::<u32>().ok();
        let (Some(x), Some(y), Some(z)) = (n(a), n(b), n(c)) else {
            continue;
        };
        if a.len() == 4 {
            out.extend(NaiveDate::from_ymd_opt(x as i32, y, z));
        } else if a.len() <= 2 && b.len() <= 2 && matches!(c.len(), 2 | 4) {
            let full = if c.len() == 2 { 2000 + z } else { z } as i32;
            out.extend(NaiveDate::from_ymd_opt(full, y, x));
            out.extend(NaiveDate::from_ymd_opt(full, x, y));
        }
    }
    let folded = fold(text, false);
    let words: Vec<&str> = folded.split(' ').collect();
    for (i, word) in words.iter().enumerate() {
        let Some(m) = month(word) else { continue };
        let near = |from: usize, to: usize| words.get(from..to.min(words.len())).unwrap_or(&[]);
        let before = near(i.saturating_sub(3), i)
            .iter()
            .rev()
            .find_map(|w| day(w));
        let after = near(i + 1, i + 3).iter().find_map(|w| day(w));
        let y = near(i + 1, i + 5).iter().find_map(|w| year(w));
        if let Some(y) = y {
            for d in [before, after].into_iter().flatten() {
                out.extend(NaiveDate::from_ymd_opt(y, m, d));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
Reformas Ibéricas Martínez, S.L.
CIF: ES B-12345674
FACTURA Nº 25 - 5469          Fecha: 5 de agosto de 2026
Cliente: Ana García Pérez  NIF 12345678-Z
Vencimiento: 04/09/2026
Base imponible 1.546,50 €
IVA 21%   324,77
Total a pagar  1 639,29 EUR
IBAN ES91 2100 0418 4502 0005 1332";

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    fn proposal(fill: impl FnOnce(&mut Proposal)) -> Proposal {
        let mut p = Proposal::default();
        fill(&mut p);
        p
    }

    #[test]
    fn printed_values_are_kept_in_their_normal_forms() {
        let p = proposal(|p| {
            p.issuer_name = Some("REFORMAS IBERICAS MARTINEZ SL".into());
            p.issuer_nif = Some("ESB12345674".into());
            p.recipient_name = Some("ana garcía pérez".into());
            p.recipient_nif = Some("12345678Z".into());
            p.invoice_number = Some("25-5469".into());
            p.invoice_date = Some("2026-08-05".into());
            p.due_date = Some("4 September 2026".into());
            p.base = Some("1546.50".into());
            p.vat_rate = Some("21 %".into());
            p.vat_amount = Some("324,77 €".into());
            p.total = Some("1,639.29".into());
            p.currency = Some("eur".into());
            p.iban = Some("ES9121000418450200051332".into());
        });
        let g = ground(&p, TEXT);
        assert_eq!(g.notes, Vec::<(String, String)>::new());
        assert_eq!(
            g.issuer_name.as_deref(),
            Some("REFORMAS IBERICAS MARTINEZ SL")
        );
        assert_eq!(g.issuer_nif.as_deref(), Some("B12345674"));
        assert_eq!(g.recipient_nif.as_deref(), Some("12345678Z"));
        assert_eq!(g.invoice_number.as_deref(), Some("25-5469"));
        assert_eq!(g.invoice_date, Some(d(2026, 8, 5)));
        assert_eq!(g.due_date, Some(d(2026, 9, 4)));
        assert_eq!(g.base, Some(dec!(1546.50)));
        assert_eq!(g.vat_rate, Some(dec!(21)));
        assert_eq!(g.vat_amount, Some(dec!(324.77)));
        assert_eq!(g.total, Some(dec!(1639.29)));
        assert_eq!(g.currency.as_deref(), Some("EUR"));
        assert_eq!(g.iban.as_deref(), Some("ES9121000418450200051332"));
    }

    #[test]
    fn values_not_printed_are_dropped_with_a_note_naming_them() {
        let p = proposal(|p| {
            p.issuer_name = Some("Construcciones Pérez".into());
            p.issuer_nif = Some("B87654321".into());
            p.invoice_number = Some("2026/0147".into());
            p.invoice_date = Some("2026-08-06".into());
            p.base = Some("1.600,00".into());
            p.currency = Some("USD".into());
        });
        let g = ground(&p, TEXT);
        assert_eq!(
            g,
            Grounded {
                notes: g.notes.clone(),
                ..Grounded::default()
            }
        );
        let fields: Vec<&str> = g
            .notes
            .iter()
            .map(|(code, message)| {
                assert_eq!(code, "ai_value_unsupported");
                message.split(' ').nth(5).unwrap()
            })
            .collect();
        assert_eq!(
            fields,
            [
                "issuer_name",
                "issuer_nif",
                "invoice_number",
                "currency",
                "invoice_date",
                "base"
            ]
        );
        assert!(
            g.notes[5].1.contains("base = «1.600,00»"),
            "{:?}",
            g.notes[5]
        );
    }

    #[test]
    fn amounts_that_follow_from_printed_ones_are_kept() {
        let text = "Base 200,00\nIVA 21 %\nIRPF 15 %\nTotal 212,00";
        let p = proposal(|p| {
            p.base = Some("200".into());
            p.vat_rate = Some("21".into());
            p.vat_amount = Some("42.00".into());
            p.irpf_amount = Some("-30,00".into());
            p.irpf_rate = Some("15%".into());
            p.total = Some("212".into());
        });
        let g = ground(&p, text);
        assert_eq!(g.notes, Vec::<(String, String)>::new());
        assert_eq!(g.vat_amount, Some(dec!(42.00)));
        assert_eq!(g.irpf_amount, Some(dec!(-30.00)));
        let chained = proposal(|p| {
            p.base = Some("200".into());
            p.vat_amount = Some("42".into());
            p.total = Some("242,00".into());
            p.vat_rate = Some("21".into());
        });
        assert_eq!(
            ground(&chained, "Base 200,00 IVA 21 %").total,
            Some(dec!(242.00))
        );
        let unmarked = proposal(|p| p.vat_rate = Some("24".into()));
        assert_eq!(
            ground(&unmarked, "Fecha 24/09/2025 IVA 21 % 24 uds").vat_rate,
            None
        );
        let wrong = proposal(|p| {
            p.base = Some("200".into());
            p.vat_amount = Some("43,00".into());
        });
        assert_eq!(ground(&wrong, text).vat_amount, None);
        let total_only = proposal(|p| {
            p.base = Some("100,00".into());
            p.vat_amount = Some("10,00".into());
            p.total = Some("110,00".into());
        });
        let g = ground(&total_only, "Base 100,00 IVA 10,00");
        assert_eq!(g.total, Some(dec!(110.00)));
    }

    #[test]
    fn numbers_read_in_every_common_format() {
        assert_eq!(readings("1.234,56"), [dec!(1234.56)]);
        assert_eq!(readings("1,234.56"), [dec!(1234.56)]);
        assert_eq!(readings("1.234"), [dec!(1234), dec!(1.234)]);
        assert_eq!(readings("1.234.567"), [dec!(1234567)]);
        assert_eq!(readings("1'234.5"), [dec!(1234.5)]);
        assert_eq!(readings("12,5"), [dec!(12.5)]);
        assert_eq!(readings("1.23.4"), Vec::<Decimal>::new());
        assert_eq!(signed_readings("(231,98)"), [dec!(-231.98)]);
        assert_eq!(signed_readings("abc"), Vec::<Decimal>::new());
    }

    #[test]
    fn dates_read_in_numeric_and_word_forms() {
        let nov2 = d(2026, 11, 2);
        for text in [
            "Invoice Date: November 2, 2026",
            "le 2 novembre 2026",
            "2. November 2026",
            "2 de noviembre de 2026",
            "2nd Nov 2026",
            "02.11.2026",
            "2026-11-02",
            "2/11/26",
        ] {
            assert!(
                dates_in(text).contains(&nov2),
                "{text}: {:?}",
                dates_in(text)
            );
        }
        assert_eq!(dates_in("11/02/2026"), [d(2026, 2, 11), nov2]);
        assert_eq!(
            dates_in("jui 2 2026"),
            Vec::<NaiveDate>::new(),
            "juin or juillet"
        );
        assert_eq!(
            dates_in("31/02/2026 and 7 of march"),
            Vec::<NaiveDate>::new()
        );
    }

    #[test]
    fn names_and_numbers_match_whole_words() {
        assert_eq!(thousands_split_by_space("1", "é12"), None);
        assert_eq!(
            thousands_split_by_space("1", "234,5€"),
            Some("1234,5".into())
        );
        let printed = Printed::new("Talleres Ana, S.L.\nFactura F26-40-08002");
        assert!(printed.has_name("TALLERES ANA S.L."));
        assert!(printed.has_name("talleres ana sl"));
        assert!(!printed.has_name("Talle"), "not a whole word");
        assert!(!printed.has_name("Talleres Anabel"));
        assert!(printed.has_number("F26-40-08002"));
        assert!(!printed.has_number("26-40"));
        assert!(!printed.has_number("F26"));
    }
}
