//! Payment details: the due date and the IBAN to pay into.
//!
//! - Due date: only a date after a due-date label ("Vencimiento", "Fecha de
//!   vencimiento", "Due date", "Fällig am", "Échéance", "Vervaldatum",
//!   "Scadenza", "Data de vencimento" …), beside it or below it in its
//!   column, so the invoice date is never taken for it; else Textract's
//!   `DUE_DATE` field.
//! - IBAN: a country code of the SEPA area, two check digits and the rest of
//!   the account in printed groups (`ES91 2100 0418 4502 0005 1332`,
//!   `ES91-2100-0418-45-0200051332`), as long as that country's IBANs. One
//!   that passes the mod-97 check wins over one that does not; one that does
//!   not is still returned (the checks warn).

use chrono::NaiveDate;

use super::date::first_date;
use super::doc::{BELOW, BESIDE, Doc, mean_conf};
use super::labels::{Hit, Kind};
use super::lines::label_len;
use super::rows::{Tok, unit};
use crate::extraction::fields::Field;
use crate::extraction::layout::Hint;
use crate::invoice::iban;

/// Due-date labels as word keys (see `labels::key`), in es, ca, gl, eu, en,
/// fr, de, nl, it and pt.
const DUE_LABELS: &[&str] = &[
    "fecha de vencimiento",
    "fecha vencimiento",
    "fecha venc",
    "fecha de pago",
    "vencimiento",
    "vencimientos",
    "vto",
    "vencto",
    "venc",
    "data de venciment",
    "venciment",
    "data de vencemento",
    "vencemento",
    "epemuga",
    "muga eguna",
    "ordainketa data",
    "due date",
    "payment due",
    "date due",
    "due on",
    "due",
    "pay by",
    "payable by",
    "date decheance",
    "echeance",
    "a payer avant le",
    "a regler avant le",
    "faellig am",
    "fallig am",
    "faellig",
    "fallig",
    "falligkeit",
    "falligkeitsdatum",
    "zahlbar bis",
    "zahlungsziel",
    "vervaldatum",
    "vervaldag",
    "te betalen voor",
    "data scadenza",
    "data di scadenza",
    "scadenza",
    "data de vencimento",
    "vencimento",
];

/// IBAN lengths of the SEPA countries (ISO 13616 registry).
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AT", 20),
    ("BE", 16),
    ("BG", 22),
    ("CH", 21),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("EE", 20),
    ("ES", 24),
    ("FI", 18),
    ("FR", 27),
    ("GB", 22),
    ("GR", 27),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IS", 26),
    ("IT", 27),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("MC", 27),
    ("MT", 31),
    ("NL", 18),
    ("NO", 15),
    ("PL", 28),
    ("PT", 25),
    ("RO", 24),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
];

/// The confidence factor of an IBAN whose check digits are wrong.
const BAD_CHECK: f32 = 0.5;

/// The due date: a labelled date, else the `DUE_DATE` hint.
pub fn due_date(d: &Doc, hints: &[Hint]) -> Option<Field<NaiveDate>> {
    labelled_due_date(d).or_else(|| {
        hints
            .iter()
            .filter(|h| h.kind.eq_ignore_ascii_case("DUE_DATE"))
            .find_map(|h| {
                let conf = if h.confidence > 1.0 {
                    h.confidence / 100.0
                } else {
                    h.confidence
                };
                first_date(&h.value).map(|date| Field::new(date, unit(conf) * BESIDE))
            })
    })
}

fn labelled_due_date(d: &Doc) -> Option<Field<NaiveDate>> {
    d.rows.iter().enumerate().find_map(|(r, row)| {
        let mut i = 0;
        while i < row.toks.len() {
            let Some(len) = label_len(&row.toks, i, DUE_LABELS) else {
                i += 1;
                continue;
            };
            let hit = Hit {
                kind: Kind::OtherDate,
                row: r,
                start: i,
                end: i + len,
            };
            let found = d.value(&hit, first_date).map(|(date, value)| {
                let factor = if value.below { BELOW } else { BESIDE };
                Field::new(date, value.conf * factor)
            });
            if found.is_some() {
                return found;
            }
            i += len;
        }
        None
    })
}

/// The IBAN: the first printed one that passes its check, else the first printed.
pub fn iban(d: &Doc) -> Option<Field<String>> {
    let mut first: Option<Field<String>> = None;
    for row in &d.rows {
        for start in 0..row.toks.len() {
            let Some((compact, used)) = iban_at(&row.toks[start..]) else {
                continue;
            };
            let conf = mean_conf(&row.toks[start..start + used]);
            if iban::parse(&compact).is_ok() {
                return Some(Field::new(compact, conf * BESIDE));
            }
            first.get_or_insert(Field::new(compact, conf * BAD_CHECK));
        }
    }
    first
}

/// An IBAN starting at the first token: its compact form and the tokens it took.
fn iban_at(toks: &[Tok]) -> Option<(String, usize)> {
    let mut compact = group(&toks.first()?.text)?;
    let country: String = compact.chars().take(2).collect();
    let check = compact.get(2..4)?;
    if !check.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let &(_, length) = IBAN_LENGTHS.iter().find(|(c, _)| *c == country)?;
    let mut used = 1;
    while compact.len() < length {
        let next = toks.get(used).and_then(|t| group(&t.text))?;
        compact.push_str(&next);
        used += 1;
    }
    (compact.len() == length).then_some((compact, used))
}

/// One printed group of an IBAN, upper case without dashes or dots; None for
/// anything else (a word with other characters, an empty one).
fn group(text: &str) -> Option<String> {
    let text = text.trim_end_matches([',', ';', ')']);
    if text.is_empty()
        || !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    {
        return None;
    }
    let compact: String = text
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (!compact.is_empty()).then_some(compact)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;

    fn doc(text: &str) -> Doc {
        Doc::new(rows(&TextDocument::from_plain_text(text).words))
    }

    fn due(text: &str) -> Option<NaiveDate> {
        due_date(&doc(text), &[]).map(|f| f.value)
    }

    fn day(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn due_dates_are_read_after_their_labels_in_several_languages() {
        for text in [
            "Fecha: 05/08/2026   Vencimiento: 04/09/2026",
            "Fecha factura 05/08/2026\nFecha de vencimiento 04/09/2026",
            "Invoice date: 5 August 2026   Due date: 4 September 2026",
            "Rechnungsdatum 05.08.2026   Fällig am 04.09.2026",
            "Date de facture 05/08/2026   Échéance 04/09/2026",
            "Factuurdatum 05-08-2026   Vervaldatum 04-09-2026",
            "Data 05/08/2026   Scadenza 04/09/2026",
            "Data de emissão 05/08/2026   Data de vencimento 04/09/2026",
            "Data 05/08/2026   Venciment 04/09/2026",
        ] {
            assert_eq!(due(text), day(2026, 9, 4), "{text}");
        }
    }

    #[test]
    fn a_due_date_is_read_below_its_heading_and_never_taken_from_the_invoice_date() {
        let table =
            "Nº factura     Fecha          Vencimiento\nF-2026-7       05/08/2026     04/09/2026";
        assert_eq!(due(table), day(2026, 9, 4));
        assert_eq!(due("Fecha de factura: 05/08/2026\nTotal 121,00"), None);
        assert_eq!(due("Vencimiento: 30 días\nFecha 05/08/2026"), None);
    }

    #[test]
    fn the_textract_due_date_stands_in_when_no_label_is_read() {
        let hint = Hint {
            kind: "DUE_DATE".into(),
            label: None,
            value: "04/09/2026".into(),
            groups: Vec::new(),
            confidence: 90.0,
        };
        let found = due_date(&doc("Factura 7"), &[hint]).unwrap();
        assert_eq!(Some(found.value), day(2026, 9, 4));
        assert!((found.confidence - 0.855).abs() < 1e-4);
    }

    fn iban_of(text: &str) -> Option<(String, f32)> {
        iban(&doc(text)).map(|f| (f.value, f.confidence))
    }

    #[test]
    fn ibans_are_read_in_printed_groups_and_checked() {
        for text in [
            "IBAN: ES91 2100 0418 4502 0005 1332",
            "Transferencia a ES9121000418450200051332 (Banco)",
            "IBAN ES91-2100-0418-45-0200051332",
            "IBAN:ES91 2100 0418 4502 0005 1332 BIC CAIXESBBXXX",
        ] {
            let (value, conf) = iban_of(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(value, "ES9121000418450200051332", "{text}");
            assert!(conf > 0.9, "{text}: {conf}");
        }
        let (de, _) = iban_of("Bankverbindung: DE89 3704 0044 0532 0130 00").unwrap();
        assert_eq!(de, "DE89370400440532013000");
        let (fr, _) = iban_of("IBAN FR14 2004 1010 0505 0001 3M02 606").unwrap();
        assert_eq!(fr, "FR1420041010050500013M02606");
    }

    #[test]
    fn a_bad_check_is_kept_as_printed_with_low_confidence_and_a_good_one_wins() {
        let (value, conf) = iban_of("IBAN ES91 2100 0418 4502 0005 1333").unwrap();
        assert_eq!(value, "ES9121000418450200051333");
        assert!(conf <= 0.5);
        let both = "IBAN ES91 2100 0418 4502 0005 1333\nIBAN ES91 2100 0418 4502 0005 1332";
        assert_eq!(iban_of(both).unwrap().0, "ES9121000418450200051332");
    }

    #[test]
    fn short_masked_or_foreign_accounts_are_no_iban() {
        for text in [
            "IBAN ES91 2100 0418 4502",
            "Domiciliado en ES91 **** **** **** **** 1332",
            "Cuenta 2100 0418 4502 0005 1332",
            "Ref US12 3456 7890 1234 5678 9012",
            "CIF ES B12345674",
        ] {
            assert_eq!(iban_of(text), None, "{text}");
        }
    }
}
