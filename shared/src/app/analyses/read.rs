//! Reading stored analyses: a filtered list, newest first, and one analysis.
//! Test keys store nothing, so they list nothing and find nothing.

use chrono::{Days, NaiveDate};

use super::AnalysesError;
use super::model::AnalysisSummary;
use super::store::{self, ID_PREFIX};
use crate::analyses::{AnalysisError, AnalysisType, Module};
use crate::app::keys::Caller;
use crate::domain::madrid;
use crate::ids::ordered_floor;
use crate::ports::Ports;

/// List filters; `from` and `to` are inclusive Madrid dates of `created_at`.
#[derive(Debug, Default)]
pub struct Filters {
    pub kind: Option<AnalysisType>,
    pub module: Option<Module>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
}

impl Filters {
    fn keep(&self, s: &AnalysisSummary) -> bool {
        self.kind.is_none_or(|k| s.kind == k) && self.module.is_none_or(|m| s.module == Some(m))
    }

    /// The ids created within the dates, as an inclusive range. Every id is
    /// longer than a floor, so a floor itself is never an id.
    fn id_range(&self) -> (String, String) {
        let floor = |day: NaiveDate| ordered_floor(ID_PREFIX, madrid::start_of(day));
        let low = self.from.map_or_else(|| format!("{ID_PREFIX}_"), floor);
        let high = self
            .to
            .map_or_else(|| format!("{ID_PREFIX}_g"), |day| floor(day + Days::new(1)));
        (low, high)
    }
}

/// Analyses matching the filters, newest first, older than `starting_after`;
/// and whether more follow.
pub async fn list(
    ports: &Ports,
    caller: &Caller,
    filters: &Filters,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<AnalysisSummary>, bool), AnalysesError> {
    if let Some(after) = starting_after.filter(|a| !store::is_id(a)) {
        return Err(AnalysesError::Invalid(AnalysisError::invalid(
            "parameter_invalid",
            "starting_after",
            format!("{after:?} is not an analysis id (an_…)"),
        )));
    }
    if !caller.mode.is_live() {
        return Ok((Vec::new(), false));
    }
    let (low, high) = filters.id_range();
    // A cursor must lie within the range (DynamoDB rejects one outside it).
    let mut cursor = match starting_after {
        Some(after) if *after < *low => return Ok((Vec::new(), false)),
        Some(after) if *after <= *high => Some(after.to_string()),
        _ => None,
    };
    let mut found = Vec::new();
    loop {
        let (page, next) = store::page(ports, caller, (&low, &high), cursor).await?;
        for summary in page {
            if filters.keep(&summary) {
                if found.len() == limit {
                    return Ok((found, true));
                }
                found.push(summary);
            }
        }
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok((found, false)),
        }
    }
}

/// One stored analysis: the resource's JSON, as `analyze` returned it.
pub async fn get(ports: &Ports, caller: &Caller, id: &str) -> Result<String, AnalysesError> {
    let not_found = || AnalysesError::NotFound(format!("no analysis {id}"));
    if !caller.mode.is_live() || !store::is_id(id) {
        return Err(not_found());
    }
    store::resource(ports, caller, id)
        .await?
        .ok_or_else(not_found)
}
