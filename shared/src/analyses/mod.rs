//! Analyses: a deterministic engine over the rows of spreadsheets (modules
//! `stock`, `ventas`, `servicios`, `entradas`, `caja`, `total`), two periods
//! compared, a folder of files, and the 30-question cuestionario. The same
//! request always gives the same report, byte for byte. Pure code: the use
//! case hands in today's date (`as_of`, Europe/Madrid).

pub mod report;
pub mod request;

use chrono::NaiveDate;

pub use report::{Action, Analysis, Report};
pub use request::{AnalysisType, Cell, Kind, Lang, Module, Request, Row, Sheet};

/// A request the engine cannot analyse; `param` is the request path at fault
/// (e.g. `data.files[0].rows`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AnalysisError {
    pub code: &'static str,
    pub param: String,
    pub message: String,
}

/// Analyses a validated request as of `as_of` (today in Europe/Madrid).
pub fn analyze(request: &Request, as_of: NaiveDate) -> Result<Analysis, AnalysisError> {
    let _ = (request, as_of);
    Err(AnalysisError {
        code: "parameter_invalid",
        param: "type".into(),
        message: "the analysis engine is being built".into(),
    })
}
