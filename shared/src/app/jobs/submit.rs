//! Queuing a job: the request passed its format checks and its quota charge;
//! its body is staged as the job's input and the job item joins the
//! request's writes. Once they commit, the dispatcher sends the job's message.

use super::model::{Job, Kind};
use super::store;
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::blobs::BlobError;
use crate::ports::table::Write;

/// A queued job of the caller's, its `input` staged, and the write that
/// creates it. `quota_day` is the day charged for it, if any (the refund's).
pub async fn submit(
    ports: &Ports,
    caller: &Caller,
    kind: Kind,
    input: Vec<u8>,
    quota_day: Option<String>,
) -> Result<(Job, Write), BlobError> {
    let job = Job::new(caller, kind, quota_day, ports.clock.now());
    ports.blobs.put(&job.input_key(), input).await?;
    let write = store::create(&job);
    Ok((job, write))
}
