//! How a job ends, in one transaction: its final state (kept 24 h from now),
//! its event (`job.completed` with the result, `job.failed` with the error:
//! `data: {job_id, kind, status, result, error?}`) and, for a failure, the
//! quota unit given back: a failed job costs nothing.

use chrono::{DateTime, Utc};
use serde_json::{Value as Json, json};

use super::model::{Job, JobError, RETENTION, Status, expiry, instant};
use super::store::transition;
use crate::app::{outbox, quota};
use crate::ports::table::Write;
use crate::webhooks::event_type::EventType;

/// The job `succeeded` with `result`, and the writes (the job first).
pub fn succeed(job: &Job, result: Json, now: DateTime<Utc>) -> (Job, Vec<Write>) {
    let (done, write) = end(job, Status::Succeeded, Some(result), None, now);
    let event = event(&done, EventType::JobCompleted, now);
    (done, vec![write, event])
}

/// The job `failed` with `error`, and the writes (the job first).
pub fn fail(job: &Job, error: JobError, now: DateTime<Utc>) -> (Job, Vec<Write>) {
    let (done, write) = end(job, Status::Failed, None, Some(error), now);
    let mut writes = vec![write, event(&done, EventType::JobFailed, now)];
    if let Some(day) = &job.quota_day {
        writes.push(quota::refund(&job.account_id, day));
    }
    (done, writes)
}

fn end(
    job: &Job,
    status: Status,
    result: Option<Json>,
    error: Option<JobError>,
    now: DateTime<Utc>,
) -> (Job, Write) {
    let now = instant(now);
    transition(job, |j| {
        j.status = status;
        j.result = result;
        j.error = error;
        j.finished_at = Some(now);
        j.expires_at = expiry(now, RETENTION);
        j.lease_until = None;
    })
}

fn event(job: &Job, kind: EventType, now: DateTime<Utc>) -> Write {
    let mut data = json!({
        "job_id": job.id,
        "kind": job.kind.as_str(),
        "status": job.status.as_str(),
        "result": job.result,
    });
    if let Some(error) = &job.error {
        data["error"] = json!(error);
    }
    outbox::record(&job.account_id, job.mode, kind, data, now)
}
