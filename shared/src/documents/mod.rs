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
