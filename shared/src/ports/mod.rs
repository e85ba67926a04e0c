//! Ports: the traits the core needs from the outside world. Adapters live in
//! `crate::embedded` (one process, local files) and in the `infra-aws` crate.

pub mod blobs;
#[cfg(any(test, feature = "contract-tests"))]
pub mod blobs_contract;
pub mod clock;
pub mod ocr;
#[cfg(any(test, feature = "contract-tests"))]
pub mod ocr_contract;
pub mod queue;
#[cfg(any(test, feature = "contract-tests"))]
pub mod queue_contract;
#[cfg(any(test, feature = "contract-tests"))]
pub mod recording_queue;
pub mod table;
#[cfg(any(test, feature = "contract-tests"))]
pub mod table_contract;

use std::sync::Arc;

pub use blobs::Blobs;
pub use clock::Clock;
pub use ocr::Ocr;
pub use queue::Queue;
pub use table::Table;

/// The ports a use case receives.
#[derive(Clone)]
pub struct Ports {
    pub table: Arc<dyn Table>,
    pub clock: Arc<dyn Clock>,
    pub ocr: Arc<dyn Ocr>,
    /// The queue of jobs (messages `{"job_id"}`).
    pub jobs: Arc<dyn Queue>,
    /// The queue of webhook deliveries (messages `{"webhook_id", "delivery_id"}`).
    pub deliveries: Arc<dyn Queue>,
    pub blobs: Arc<dyn Blobs>,
}

impl Ports {
    /// The ports of a host without OCR, queues or blobs; add them with
    /// `with_ocr`, `with_queues` and `with_blobs`.
    pub fn new(table: Arc<dyn Table>, clock: Arc<dyn Clock>) -> Self {
        Ports {
            table,
            clock,
            ocr: Arc::new(ocr::NoOcr),
            jobs: Arc::new(queue::NoQueue),
            deliveries: Arc::new(queue::NoQueue),
            blobs: Arc::new(blobs::NoBlobs),
        }
    }

    pub fn with_queues(self, jobs: Arc<dyn Queue>, deliveries: Arc<dyn Queue>) -> Self {
        Ports {
            jobs,
            deliveries,
            ..self
        }
    }

    pub fn with_blobs(self, blobs: Arc<dyn Blobs>) -> Self {
        Ports { blobs, ..self }
    }

    pub fn with_ocr(self, ocr: Arc<dyn Ocr>) -> Self {
        Ports { ocr, ..self }
    }
}
