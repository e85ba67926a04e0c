//! Ports: the traits the core needs from the outside world. Adapters live in
//! `crate::embedded` (one process, local files) and in the `infra-aws` crate.

pub mod clock;
pub mod ocr;
#[cfg(any(test, feature = "contract-tests"))]
pub mod ocr_contract;
pub mod table;
#[cfg(any(test, feature = "contract-tests"))]
pub mod table_contract;

use std::sync::Arc;

pub use clock::Clock;
pub use ocr::Ocr;
pub use table::Table;

/// The ports a use case receives.
#[derive(Clone)]
pub struct Ports {
    pub table: Arc<dyn Table>,
    pub clock: Arc<dyn Clock>,
    pub ocr: Arc<dyn Ocr>,
}

impl Ports {
    /// The ports of a host without OCR; add an engine with `with_ocr`.
    pub fn new(table: Arc<dyn Table>, clock: Arc<dyn Clock>) -> Self {
        Ports {
            table,
            clock,
            ocr: Arc::new(ocr::NoOcr),
        }
    }

    pub fn with_ocr(self, ocr: Arc<dyn Ocr>) -> Self {
        Ports { ocr, ..self }
    }
}
