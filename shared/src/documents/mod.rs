//! Invoice documents, generated from the stored invoice and deterministic
//! (same bytes for the same invoice and state): the PDF with the VERI*FACTU
//! QR, Facturae 3.2.2, UBL 2.1, CII D16B and the Factur-X PDF/A-3.

pub mod cii;
mod en16931;
pub mod facturae;
pub mod facturx;
pub mod pdf;
pub mod ubl;
mod xml;
