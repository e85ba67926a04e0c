//! The worker's use case, the same on every host: one message of the jobs
//! queue (`{"job_id"}`) in, what to do with the message out. Delivery is at
//! least once; the job's lease (see `lease`) and conditional writes make the
//! work happen once in effect: exactly one result, one event, one charge.

use std::time::Duration;

use serde::Deserialize;

use super::finish;
use super::lease::{self, Decision, MAX_ATTEMPTS};
use super::model::{Job, JobError};
use super::run::{self, RunError};
use super::store;
use crate::metrics::{self, Metric};
use crate::ports::Ports;
use crate::ports::queue::Disposition;
use crate::ports::table::{TableError, Write};

#[derive(Deserialize)]
struct JobMessage {
    job_id: String,
}

/// Runs the job a message names, if it still needs running.
pub async fn work(ports: &Ports, body: &str) -> Disposition {
    let Ok(JobMessage { job_id }) = serde_json::from_str(body) else {
        tracing::warn!(body, "a jobs message without a job id; dropped");
        return Disposition::Ack;
    };
    match attempt(ports, &job_id).await {
        Ok(disposition) => disposition,
        Err(e) => {
            tracing::warn!(job_id, error = %e, "job interrupted by storage; its message comes back");
            Disposition::Retry(backoff(1))
        }
    }
}

/// The wait before another attempt after the `attempts`-th failed.
fn backoff(attempts: u32) -> Duration {
    Duration::from_secs(30 * u64::from(attempts.max(1)))
}

fn exhausted() -> JobError {
    JobError::internal(format!(
        "the job could not be run ({MAX_ATTEMPTS} attempts failed on the service's side); no quota was used, submit it again"
    ))
}

async fn attempt(ports: &Ports, id: &str) -> Result<Disposition, TableError> {
    let Some(job) = store::load(ports, id).await? else {
        return Ok(Disposition::Ack);
    };
    let now = ports.clock.now();
    let job = match lease::decide(&job, now) {
        Decision::Finished => return Ok(Disposition::Ack),
        Decision::Leased(until) => {
            return Ok(Disposition::Retry(
                (until - now).to_std().unwrap_or_default(),
            ));
        }
        Decision::Exhausted => return fail(ports, &job, exhausted()).await,
        Decision::Take => {
            let (taken, write) = lease::take(&job, now);
            match ports.table.transact(vec![write]).await {
                Ok(()) => taken,
                // Another worker took it meanwhile; see again when its lease ends.
                Err(TableError::ConditionFailed { .. }) => {
                    return Ok(Disposition::Retry(
                        lease::LEASE.to_std().unwrap_or_default(),
                    ));
                }
                Err(e) => return Err(e),
            }
        }
    };
    let last = job.attempts >= MAX_ATTEMPTS;
    let outcome = match ports.blobs.get(&job.input_key()).await {
        Ok(Some(input)) => run::run(ports, &job, input, last).await,
        Ok(None) => Err(RunError::Rejected(JobError::internal(
            "the job's staged request is gone; submit it again",
        ))),
        Err(e) => Err(RunError::Transient(e.to_string())),
    };
    let outcome = match outcome {
        Ok(output) => {
            let (_, mut writes) = finish::succeed(&job, output.result, ports.clock.now());
            writes.extend(output.writes);
            commit(ports, &job, writes).await.map_err(|e| e.to_string())
        }
        Err(RunError::Rejected(error)) => return fail(ports, &job, error).await,
        Err(RunError::Transient(reason)) => Err(reason),
    };
    match outcome {
        Ok(disposition) => Ok(disposition),
        Err(reason) if last => {
            tracing::error!(job_id = id, reason, "job failed on its last attempt");
            fail(ports, &job, exhausted()).await
        }
        Err(reason) => {
            tracing::warn!(
                job_id = id,
                attempts = job.attempts,
                reason,
                "job attempt failed; retried"
            );
            let (_, write) = lease::release(&job);
            if let Err(e) = ports.table.transact(vec![write]).await {
                tracing::warn!(job_id = id, error = %e, "lease not released; it expires");
            }
            Ok(Disposition::Retry(backoff(job.attempts)))
        }
    }
}

/// Commits a job's end (the job's write first), then drops its input.
async fn commit(ports: &Ports, job: &Job, writes: Vec<Write>) -> Result<Disposition, TableError> {
    match ports.table.transact(writes).await {
        Ok(()) => {
            discard_input(ports, job).await;
            Ok(Disposition::Ack)
        }
        // The lease was lost (the run outlived it and another worker took
        // the job over): the job is that worker's to end.
        Err(TableError::ConditionFailed { index: Some(0), .. }) => Ok(Disposition::Ack),
        Err(e) => Err(e),
    }
}

async fn fail(ports: &Ports, job: &Job, error: JobError) -> Result<Disposition, TableError> {
    let (_, writes) = finish::fail(job, error, ports.clock.now());
    let disposition = commit(ports, job, writes).await?;
    metrics::emit(&[(Metric::JobsFailed, 1.0)]);
    Ok(disposition)
}

async fn discard_input(ports: &Ports, job: &Job) {
    if let Err(e) = ports.blobs.delete(&job.input_key()).await {
        tracing::warn!(job_id = job.id, error = %e, "job input not deleted; the staging lifecycle removes it");
    }
}
