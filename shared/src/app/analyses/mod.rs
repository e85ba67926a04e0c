//! Analyses: run one (the engine in `crate::analyses`, today's Madrid date from
//! the clock), then list and read the stored ones. Live analyses keep their
//! report and metadata, never the rows sent; test keys get the engine's sample
//! of the same shape and nothing is kept.

pub mod model;
pub mod read;
pub mod run;
pub mod store;
pub mod uploaded;

use crate::analyses::AnalysisError;
use crate::ports::table::TableError;

pub use model::{AnalysisResource, AnalysisSummary};
pub use read::{Filters, get, list};
pub use run::run;

#[derive(Debug)]
pub enum AnalysesError {
    /// The request is invalid, or too large (see `AnalysisError`).
    Invalid(AnalysisError),
    /// The finished analysis is larger than an analysis may be stored (`limit` bytes).
    ReportTooLarge {
        bytes: usize,
        limit: usize,
    },
    NotFound(String),
    Storage(TableError),
}

impl From<AnalysisError> for AnalysesError {
    fn from(e: AnalysisError) -> Self {
        AnalysesError::Invalid(e)
    }
}

impl From<TableError> for AnalysesError {
    fn from(e: TableError) -> Self {
        AnalysesError::Storage(e)
    }
}
