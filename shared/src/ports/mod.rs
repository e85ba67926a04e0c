//! Ports: the traits the core needs from the outside world. Adapters live in
//! `crate::embedded` (one process, local files) and in the `infra-aws` crate.

pub mod clock;
pub mod table;
#[cfg(any(test, feature = "contract-tests"))]
pub mod table_contract;

use std::sync::Arc;

pub use clock::Clock;
pub use table::Table;

/// The ports a use case receives.
#[derive(Clone)]
pub struct Ports {
    pub table: Arc<dyn Table>,
    pub clock: Arc<dyn Clock>,
}
