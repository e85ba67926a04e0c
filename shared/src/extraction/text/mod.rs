//! The Spanish field parser: positioned text (a PDF text layer, OCR words,
//! plain text, Textract hints) into `Fields`.
//!
//! Words become rows and cells (`rows`), labels are found on them (`labels`)
//! and paired with the value beside or below (`doc`); numbers, dates and tax
//! ids are read by their own parsers (`amount`, `date`, `tax_id`), never taken
//! from a hint as given. Parties, heading (number, date) and totals each have
//! their reader; `reconcile` makes the figures agree and notes every repair.
//!
//! Confidence per field: the mean confidence of the value's words, times
//! 0.95 beside its label, 0.85 below it, 0.5 for a fallback without a label,
//! and halved again for a computed or repaired figure.
//!
//! Notes (`Fields::notes`, turned into warnings by the checks):
//! `invoice_date_unlabelled`, `nif_repaired`, `amount_repaired`,
//! `vat_computed`, `base_computed`, `irpf_computed`, `vat_back_calculated`,
//! `vat_exempt`, `suplidos`, `suplidos_outside_base`, `discount_applied`,
//! `total_before_withholding`, `total_from_payment`, `text_truncated`.
//!
//! Labels are read in Spanish, Catalan, Galician, Basque, English, French,
//! German, Dutch, Italian and Portuguese; company names by their legal form
//! (`names`); and when the figures read as printed do not add up, the
//! labelled amounts that do are chosen together (`agree`).

mod agree;
mod amount;
mod date;
mod doc;
mod heading;
mod labels;
mod lines;
mod names;
mod parties;
mod payment;
mod reconcile;
mod rows;
pub(crate) mod tax_id;
#[cfg(test)]
mod tests;
mod totals;
pub(crate) mod wording;

use crate::extraction::fields::Fields;
use crate::extraction::layout::{TextDocument, Word};
use crate::tax::nif::Nif;

use doc::Doc;

/// Rows read at most: a hundred pages of invoice; beyond that it is not one.
const MAX_ROWS: usize = 5_000;

/// Reads the fields of one invoice. `own_nif` is the caller's own NIF: when
/// it appears on the invoice, the caller is the recipient.
pub fn parse(doc: &TextDocument, own_nif: Option<&Nif>) -> Fields {
    let mut all_rows = rows::rows(&without_watermarks(&doc.words));
    all_rows.retain(|row| !refers_to_another_invoice(row));
    let mut notes = Vec::new();
    if all_rows.len() > MAX_ROWS {
        all_rows.truncate(MAX_ROWS);
        notes.push((
            "text_truncated".to_string(),
            format!(
                "El texto tiene más de {MAX_ROWS} líneas; solo se leen las primeras (text truncated)"
            ),
        ));
    }
    all_rows.extend(rows::hint_rows(&doc.hints, labels::known));
    let d = Doc::new(all_rows);
    let invoice_number = heading::invoice_number(&d);
    let invoice_date = heading::invoice_date(&d).map(|(date, guessed)| {
        if guessed {
            notes.push((
                "invoice_date_unlabelled".to_string(),
                format!(
                    "La fecha de factura no tiene etiqueta; se toma la primera fecha del documento, {} (invoice date guessed)",
                    wording::date(date.value)
                ),
            ));
        }
        date
    });
    let reconciled = agree::agree(&d, reconcile::reconcile(totals::read(&d)));
    let parties = parties::read(&d, &doc.hints, own_nif, reconciled.irpf_amount.is_some());
    notes.extend(parties.notes);
    notes.extend(reconciled.notes);
    Fields {
        issuer_name: parties.issuer_name,
        issuer_nif: parties.issuer_nif,
        recipient_name: parties.recipient_name,
        recipient_nif: parties.recipient_nif,
        invoice_number,
        invoice_date,
        base: reconciled.base,
        vat_amount: reconciled.vat_amount,
        vat_breakdown: reconciled.vat_breakdown,
        irpf_rate: reconciled.irpf_rate,
        irpf_amount: reconciled.irpf_amount,
        total: reconciled.total,
        currency: reconciled.currency,
        notes,
        indirect_tax: reconciled.indirect_tax,
        lines: lines::read(&d, &doc.line_hints),
        due_date: payment::due_date(&d, &doc.hints),
        iban: payment::iban(&d),
    }
}

/// Words many times taller than the text around them are a stamp or a
/// watermark ("ANULADA", "COPIA", "PAGADO") drawn across the page; they
/// would cut through the rows of the invoice.
const WATERMARK_HEIGHT: f32 = 4.0;

fn without_watermarks(words: &[Word]) -> Vec<Word> {
    let mut heights: Vec<f32> = words.iter().map(|w| w.height).collect();
    heights.sort_by(f32::total_cmp);
    let Some(&median) = heights.get(heights.len() / 2) else {
        return Vec::new();
    };
    words
        .iter()
        .filter(|w| w.height <= median * WATERMARK_HEIGHT)
        .cloned()
        .collect()
}

/// A rectifying invoice names the invoice it corrects, often with that
/// invoice's number and amounts ("Factura rectificada: F2026-000009",
/// "Importes de la factura rectificada: base imponible 300,00 €"): those rows
/// describe another invoice.
fn refers_to_another_invoice(row: &rows::Row) -> bool {
    row.toks.iter().any(|t| {
        matches!(
            t.key.as_str(),
            "rectificada" | "rectificadas" | "rectifica" | "sustituye" | "sustituida"
        )
    })
}
