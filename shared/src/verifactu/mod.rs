//! VERI*FACTU billing records (RD 1007/2023, Orden HAC/1177/2024): the
//! RegistroAlta and RegistroAnulacion XML, their chained SHA-256 fingerprint,
//! the submission envelope, the invoice QR URL and a chain check. Pure: the
//! caller passes the generation time and the previous chain head.
//!
//! Every value (amount, date, text) is formatted once into a tree of AEAT
//! elements; the XML, the JSON view and the fingerprint all read that tree's
//! strings, so what is hashed is exactly what is sent and stored.

pub mod aeat;
pub mod certificate;
#[cfg(any(test, feature = "contract-tests"))]
pub mod certificate_fixture;
mod chain;
mod fingerprint;
mod qr;
mod record;
pub mod simulator;
pub mod status;
#[cfg(test)]
mod test_support;
mod tree;
pub mod validation;
mod xml;

pub use chain::{ChainCheck, verify_chain};
pub use fingerprint::{
    CancellationHashInput, RegistrationHashInput, fingerprint_cancellation,
    fingerprint_registration,
};
pub use qr::qr_url;
pub use record::{
    BreakdownLine, BuiltRecord, Cancellation, Correction, Exemption, InvoiceRef, PreviousRecord,
    Qualification, Recipient, Rectification, RectificationMethod, RectifiedAmounts, Registration,
    Simplification, SystemInfo, Treatment,
};
pub use xml::{NS_SUMINISTRO_INFORMACION, NS_SUMINISTRO_LR, submission_xml};
