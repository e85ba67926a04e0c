//! Invoice extraction: e-invoices read exactly (Facturae, UBL, CII, Factur-X),
//! text PDFs and OCR output through one Spanish field parser, and every result
//! checked by the service's own rules. Pure code here; the PDF child process,
//! the OCR engines and the use case live in `sandbox`, `crate::ports::ocr` and
//! `crate::app::extraction`.

pub mod checks;
pub mod fields;
pub mod layout;
pub mod result;
pub mod text;

pub use fields::{Field, Fields, Source, VatLine};
pub use layout::{Hint, TextDocument, Word};
