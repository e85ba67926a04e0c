//! The invoice number and the invoice date. The number is the first token
//! after a number label that looks like one (letters, digits and `/ - . _`,
//! with a digit, up to 30 characters); "Serie A Número 147" gives `A-147`.
//! Order, customer and delivery-note numbers carry their own labels and are
//! never taken. The date is the one after a date label; without one, the
//! earliest date not labelled as a due, order or period date (with a note).

use std::collections::HashSet;

use chrono::NaiveDate;

use crate::extraction::fields::Field;

use super::date::{dates, first_date};
use super::doc::{BELOW, BESIDE, Doc, FALLBACK};
use super::labels::{Hit, Kind};

const MAX_NUMBER_LEN: usize = 30;

fn looks_like_number(token: &str) -> bool {
    let len = token.chars().count();
    (1..=MAX_NUMBER_LEN).contains(&len)
        && token.chars().any(|c| c.is_ascii_digit())
        && token
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '/' | '-' | '.' | '_'))
        && first_date(token).is_none()
}

fn trimmed(t: &str) -> &str {
    t.trim_matches(|c: char| matches!(c, ':' | ',' | ';' | '#' | '(' | ')' | '|'))
        .trim_end_matches('.')
}

fn digits_only(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == ' ')
}

/// The first invoice number of a value text, whole as printed: a number
/// printed in groups ("25 - 5469", "2243 00 000027", "F26 - 40 - 08002")
/// continues over spaces and lone hyphens or slashes, up to the next word,
/// amount or date; cell boundaries (` | `) end it.
fn number_in(text: &str) -> Option<String> {
    let cell = text
        .split(" | ")
        .find(|c| c.split_whitespace().any(|t| looks_like_number(trimmed(t))))?;
    let toks: Vec<&str> = cell.split_whitespace().collect();
    let start = toks.iter().position(|t| looks_like_number(trimmed(t)))?;
    let mut number = trimmed(toks[start]).to_string();
    let mut i = start + 1;
    while i < toks.len() {
        let (joiner, next) = match toks[i] {
            "-" | "/" => (toks[i], toks.get(i + 1).map(|t| trimmed(t))),
            t => (" ", Some(trimmed(t))),
        };
        let Some(next) = next else { break };
        let next = &digit_group(&number, next);
        let groups = digits_only(&number) || joiner != " ";
        let continues = groups
            && digits_only(next)
            && next.chars().any(|c| c.is_ascii_digit())
            && (next.chars().all(|c| c.is_ascii_digit()) || first_date(next).is_none())
            && number.chars().count() + next.chars().count() < MAX_NUMBER_LEN;
        if !continues {
            break;
        }
        if joiner == " " {
            number.push(' ');
        } else {
            number.push_str(&format!(" {joiner} "));
            i += 1;
        }
        number.push_str(next);
        i += 1;
    }
    Some(number)
}

/// A group of a number printed in digit groups, with the letter O that
/// OCR reads for a zero in it made a zero again ("2243 O00 000027").
fn digit_group(number: &str, next: &str) -> String {
    let zeroes = digits_only(number)
        && next.chars().any(|c| c.is_ascii_digit())
        && next.chars().all(|c| c.is_ascii_digit() || c == 'O');
    if zeroes {
        next.replace('O', "0")
    } else {
        next.to_string()
    }
}

fn series_in(text: &str) -> Option<String> {
    text.split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .find(|t| !t.is_empty() && t.chars().count() <= 10)
        .map(str::to_string)
}

/// Whether a number label is a strong one ("Nº factura"), a lone "Nº" that
/// starts its cell (not the "nº 5" of an address), or the title "Factura".
fn label_rank(doc: &Doc, hit: &Hit) -> Option<u8> {
    match hit.kind {
        Kind::InvoiceNumber if hit.end - hit.start > 1 => Some(0),
        Kind::InvoiceNumber => doc.heads_cell(hit).then_some(1),
        Kind::InvoiceTitle => Some(2),
        _ => None,
    }
}

pub fn invoice_number(doc: &Doc) -> Option<Field<String>> {
    let found = (0..=2u8).find_map(|rank| {
        doc.hits
            .iter()
            .filter(|h| label_rank(doc, h) == Some(rank))
            .find_map(|hit| {
                let (number, value) = doc.value(hit, number_in)?;
                // A number is printed beside its label or on the next row
                // (two when the label asks for it with a colon): further
                // down are a ticket's items.
                let reach = if doc.asks_value(hit) { 2 } else { 1 };
                if value.row > hit.row + reach {
                    return None;
                }
                let factor = if value.below { BELOW } else { BESIDE };
                let factor = factor * [1.0, 0.9, 0.75][usize::from(rank)];
                Some((number, value.conf * factor, hit.row))
            })
    })?;
    let (number, conf, row) = found;
    let series = doc
        .hits_of(Kind::Series)
        .filter(|h| h.row == row || h.row + 1 == row)
        .find_map(|h| doc.value(h, series_in))
        .map(|(s, _)| s)
        .filter(|s| !number.starts_with(s.as_str()));
    let value = match series {
        Some(series) => format!("{series}-{number}"),
        None => number,
    };
    Some(Field::new(value, conf))
}

/// The invoice date, and whether it was guessed without a label.
pub fn invoice_date(doc: &Doc) -> Option<(Field<NaiveDate>, bool)> {
    let labelled = doc.hits_of(Kind::InvoiceDate).find_map(|hit| {
        let (date, value) = doc.value(hit, first_date)?;
        let factor = if value.below { BELOW } else { BESIDE };
        Some(Field::new(date, value.conf * factor))
    });
    if let Some(field) = labelled {
        return Some((field, false));
    }
    let excluded: HashSet<usize> = doc
        .hits_of(Kind::OtherDate)
        .filter_map(|h| doc.value(h, first_date).map(|(_, v)| v.row))
        .collect();
    doc.rows
        .iter()
        .enumerate()
        .filter(|(i, _)| !excluded.contains(i))
        .flat_map(|(_, row)| {
            let conf = super::doc::mean_conf(&row.toks);
            dates(&super::doc::join(&row.toks))
                .into_iter()
                .map(move |d| (d, conf))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(d, conf)| (Field::new(d, conf * FALLBACK), true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;

    fn doc(text: &str) -> Doc {
        Doc::new(rows(&TextDocument::from_plain_text(text).words))
    }

    fn number(text: &str) -> Option<String> {
        invoice_number(&doc(text)).map(|f| f.value)
    }

    #[test]
    fn numbers_after_their_labels() {
        assert_eq!(
            number("Factura nº: 2026/0147").as_deref(),
            Some("2026/0147")
        );
        assert_eq!(
            number("N.º de factura F-2026-0147").as_deref(),
            Some("F-2026-0147")
        );
        assert_eq!(number("N?2 Factura A/147").as_deref(), Some("A/147"));
        assert_eq!(number("FACTURA 147").as_deref(), Some("147"));
        assert_eq!(number("Serie A   Número 147").as_deref(), Some("A-147"));
        assert_eq!(
            number("Nº pedido: 555\nNº albarán 777\nFactura núm. 2026-12").as_deref(),
            Some("2026-12")
        );
        assert_eq!(
            number("Nº cliente 4431    Nº factura 88").as_deref(),
            Some("88")
        );
        assert_eq!(
            number("Nº Factura      Fecha\nFV26-001        05/08/2026").as_deref(),
            Some("FV26-001")
        );
        assert_eq!(number("FACTURA\nReformas SL"), None);
        assert_eq!(number("Factura rectificada 2026/0001"), None);
        assert_eq!(
            number("Factura rectificativa nº R-2026-1   Factura rectificada: 2026/0001").as_deref(),
            Some("R-2026-1")
        );
        assert_eq!(
            number("C/ Mayor nº 5\nNº: 2026/0147").as_deref(),
            Some("2026/0147")
        );
    }

    #[test]
    fn numbers_printed_in_groups_are_read_whole() {
        for (text, expected) in [
            ("Factura nº: 25 - 5469", "25 - 5469"),
            ("FACTURA SIMPLIFICADA: 2243 00 000027", "2243 00 000027"),
            ("Fra: 2243 O00 000027", "2243 000 000027"),
            ("Invoice no. F26 - 40 - 08002", "F26 - 40 - 08002"),
            ("Factura nº 147 05/08/2026", "147"),
            ("Nº factura F2026-000001 2026", "F2026-000001"),
            ("Factura nº 88 de 2026", "88"),
            ("Rechnung            RE1001", "RE1001"),
            ("Invoice 103767\nFebruary 17, 2026", "103767"),
        ] {
            assert_eq!(number(text).as_deref(), Some(expected), "{text}");
        }
    }

    #[test]
    fn dates_after_their_labels_or_the_earliest_other() {
        let date = |text: &str| {
            invoice_date(&doc(text)).map(|(f, guessed)| (f.value.to_string(), guessed))
        };
        assert_eq!(
            date("Vencimiento: 05/09/2026\nFecha de expedición: 5 de agosto de 2026"),
            Some(("2026-08-05".into(), false))
        );
        assert_eq!(
            date("Fecha vencimiento 01/01/2026\nMadrid, 03/08/2026\nEntrega 10/08/2026"),
            Some(("2026-08-03".into(), true))
        );
        assert_eq!(date("Fecha: 31/02/2026"), None);
    }
}
