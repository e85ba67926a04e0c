//! Invoice documents, generated from the stored invoice and deterministic
//! (same bytes for the same invoice and state): the PDF with the VERI*FACTU
//! QR, Facturae 3.2.2, UBL 2.1, CII D16B and the Factur-X PDF/A-3.

use crate::invoice::model::Invoice;

pub mod cii;
mod en16931;
pub mod facturae;
pub mod facturx;
pub mod pdf;
pub mod ubl;
mod xml;

/// The mention of an invoice issued under the special cash-accounting
/// regime (RD 1619/2012 art. 6.1.p).
pub(crate) fn cash_accounting_note(invoice: &Invoice) -> Option<String> {
    invoice
        .cash_accounting
        .then(|| CASH_ACCOUNTING_MENTION.to_owned())
}

pub(crate) const CASH_ACCOUNTING_MENTION: &str = "Régimen especial del criterio de caja";

/// An F3's statement of the simplified invoices it replaces.
pub(crate) fn replacement_note(invoice: &Invoice) -> Option<String> {
    if invoice.replaces.is_empty() {
        return None;
    }
    let numbers: Vec<String> = invoice
        .replaces
        .iter()
        .map(|r| format!("{} ({})", r.number, r.issue_date.format("%d/%m/%Y")))
        .collect();
    Some(format!(
        "Factura emitida en sustitución de las facturas simplificadas {}.",
        numbers.join(", ")
    ))
}
