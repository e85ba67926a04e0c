//! Invoice extraction: e-invoices read exactly (Facturae, UBL, CII, Factur-X),
//! text PDFs and OCR output through one Spanish field parser, and every result
//! checked by the service's own rules. Pure code here; the PDF child process,
//! the OCR engines and the use case live in `sandbox`, `crate::ports::ocr` and
//! `crate::app::extraction`.

pub mod ai_merge;
pub mod checks;
pub mod einvoice;
pub mod fields;
pub mod grounding;
pub mod image;
pub mod layout;
pub mod pdf;
pub mod photo;
pub mod qr;
pub mod qr_image;
pub mod result;
pub mod sandbox;
pub mod sniff;
pub mod straighten;
pub mod text;
pub mod ticketbai;

pub use fields::{Field, Fields, ItemLine, Source, VatLine};
pub use layout::{Hint, LineHint, TextDocument, Word};
