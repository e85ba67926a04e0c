//! Reading a job, as its owner.

use super::model::{Job, is_id};
use super::store;
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::table::TableError;

/// The caller's job; `None` when the id is not a job id, or the job is
/// unknown, expired, or another account's or mode's.
pub async fn get(ports: &Ports, caller: &Caller, id: &str) -> Result<Option<Job>, TableError> {
    if !is_id(id) {
        return Ok(None);
    }
    Ok(store::load(ports, id)
        .await?
        .filter(|job| job.account_id == caller.account_id && job.mode == caller.mode))
}
