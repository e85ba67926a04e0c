//! The Spanish field parser: positioned text (a PDF text layer, OCR words,
//! plain text, Textract hints) into `Fields`.
//!
//! Words become rows and cells (`rows`), labels are found on them (`labels`)
//! and paired with the value beside or below (`doc`); numbers, dates and tax
//! ids are read by their own parsers (`amount`, `date`, `tax_id`), never taken
//! from a hint as given. Parties, heading (number, date) and totals each have
//! their reader; `reconcile` makes the figures agree and notes every repair.

mod amount;
mod date;
mod doc;
mod heading;
mod labels;
mod parties;
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

/// Reads the fields of one invoice. `own_nif` is the caller's own NIF: when
/// it appears on the invoice, the caller is the recipient.
pub fn parse(doc: &TextDocument, own_nif: Option<&Nif>) -> Fields {
    let mut all_rows = rows::rows(&without_watermarks(&doc.words));
    all_rows.retain(|row| !refers_to_another_invoice(row));
    all_rows.extend(rows::hint_rows(&doc.hints, labels::known));
    let d = Doc::new(all_rows);
    let mut fields = Fields::default();
    let mut notes = Vec::new();
    fields.invoice_number = heading::invoice_number(&d);
    if let Some((date, guessed)) = heading::invoice_date(&d) {
        if guessed {
            notes.push((
                "invoice_date_unlabelled".to_string(),
                format!(
                    "La fecha de factura no tiene etiqueta; se toma la primera fecha del documento, {} (invoice date guessed)",
                    wording::date(date.value)
                ),
            ));
        }
        fields.invoice_date = Some(date);
    }
    let figures = totals::read(&d);
    let reconciled = reconcile::reconcile(figures);
    let parties = parties::read(&d, &doc.hints, own_nif, reconciled.irpf_amount.is_some());
    fields.issuer_name = parties.issuer_name;
    fields.issuer_nif = parties.issuer_nif;
    fields.recipient_name = parties.recipient_name;
    fields.recipient_nif = parties.recipient_nif;
    notes.extend(parties.notes);
    fields.base = reconciled.base;
    fields.vat_amount = reconciled.vat_amount;
    fields.vat_breakdown = reconciled.vat_breakdown;
    fields.irpf_rate = reconciled.irpf_rate;
    fields.irpf_amount = reconciled.irpf_amount;
    fields.total = reconciled.total;
    fields.currency = reconciled.currency;
    fields.indirect_tax = reconciled.indirect_tax;
    notes.extend(reconciled.notes);
    fields.notes = notes;
    fields
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
