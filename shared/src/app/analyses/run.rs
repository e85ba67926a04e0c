//! Running an analysis for a caller. Live keys get the engine's analysis,
//! stored (report and metadata, never the rows) with an `analysis.completed`
//! event; the caller commits these writes with the quota charge. Test keys get
//! the engine's sample of the same shape, and nothing is written.

use super::AnalysesError;
use super::AnalysisResource;
use super::model::resource;
use super::store::{self, ID_PREFIX, MAX_RESOURCE_BYTES};
use crate::analyses::cells::Cells;
use crate::analyses::{self, Request};
use crate::app::keys::Caller;
use crate::app::outbox;
use crate::domain::madrid;
use crate::ids::new_ordered_id;
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::webhooks::event_type::EventType;

/// The analysis of a validated request as of today (Europe/Madrid), and the
/// writes that keep it.
pub fn run(
    ports: &Ports,
    caller: &Caller,
    request: &Request<Cells>,
) -> Result<(AnalysisResource, Vec<Write>), AnalysesError> {
    let now = ports.clock.now();
    let as_of = madrid::date(now);
    let id = new_ordered_id(ID_PREFIX, now);
    if !caller.mode.is_live() {
        let sample = analyses::sample(request, as_of);
        return Ok((resource(id, sample, now, false).0, Vec::new()));
    }
    let analysis = analyses::analyze(request, as_of)?;
    let (resource, summary) = resource(id, analysis, now, true);
    let json = serde_json::to_string(&resource).expect("analyses serialise");
    if json.len() > MAX_RESOURCE_BYTES {
        return Err(AnalysesError::ReportTooLarge {
            bytes: json.len(),
            limit: MAX_RESOURCE_BYTES,
        });
    }
    let event = serde_json::to_value(&summary).expect("summaries serialise");
    let mut writes = Vec::from(store::insert(caller, json, &summary));
    writes.push(outbox::record(
        &caller.account_id,
        caller.mode,
        EventType::AnalysisCompleted,
        event,
        now,
    ));
    Ok((resource, writes))
}
