//! Who may run a job. Messages arrive at least once, so a worker first reads
//! the job and decides: a finished job needs nothing; a job whose lease is
//! live belongs to another worker; otherwise the worker takes it, by a
//! conditional update to `running` with a lease and one more attempt. A
//! worker that dies leaves its lease to expire; the message comes back after
//! the queue's visibility timeout and the next worker takes the job over.

use chrono::{DateTime, Duration, Utc};

use super::model::{Job, Status, instant};
use super::store::transition;
use crate::ports::table::Write;

/// How long a run may take before another worker may take the job over:
/// above the worker function's 600 s timeout, below the jobs queue's 3,600 s
/// visibility timeout, so a message seen again finds the lease expired.
pub const LEASE: Duration = Duration::seconds(900);
/// Runs started before a job that keeps failing for the service's own fault
/// ends `failed`.
pub const MAX_ATTEMPTS: u32 = 3;

#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Finished already: a duplicate message.
    Finished,
    /// Another worker holds the lease until then.
    Leased(DateTime<Utc>),
    /// Every attempt was started and none finished: the job fails.
    Exhausted,
    /// Run it.
    Take,
}

pub fn decide(job: &Job, now: DateTime<Utc>) -> Decision {
    if job.status.is_finished() {
        return Decision::Finished;
    }
    match job.lease_until {
        Some(until) if job.status == Status::Running && until > now => Decision::Leased(until),
        _ if job.attempts >= MAX_ATTEMPTS => Decision::Exhausted,
        _ => Decision::Take,
    }
}

/// The job leased to this worker from `now`, and the write that takes it.
pub fn take(job: &Job, now: DateTime<Utc>) -> (Job, Write) {
    let now = instant(now);
    transition(job, |j| {
        j.status = Status::Running;
        j.attempts += 1;
        j.started_at.get_or_insert(now);
        j.lease_until = Some(now + LEASE);
    })
}

/// The job given up by its worker after a failed run, so the next delivery
/// may take it at once, and the write that releases it.
pub fn release(job: &Job) -> (Job, Write) {
    transition(job, |j| j.lease_until = None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::jobs::model::Kind;
    use crate::app::jobs::model::tests::caller;

    fn job() -> Job {
        Job::new(&caller(), Kind::Analyze, None, at(0))
    }

    fn at(seconds: i64) -> DateTime<Utc> {
        "2026-11-21T10:00:00Z".parse::<DateTime<Utc>>().unwrap() + Duration::seconds(seconds)
    }

    #[test]
    fn a_job_is_taken_when_queued_or_its_lease_expired() {
        let queued = job();
        assert_eq!(decide(&queued, at(1)), Decision::Take);
        let (running, _) = take(&queued, at(1));
        assert_eq!(
            (running.status, running.attempts, running.started_at),
            (Status::Running, 1, Some(at(1)))
        );
        assert_eq!(decide(&running, at(2)), Decision::Leased(at(901)));
        assert_eq!(decide(&running, at(901)), Decision::Take);
        let (again, _) = take(&running, at(901));
        assert_eq!((again.attempts, again.started_at), (2, Some(at(1))));
        let (released, _) = release(&again);
        assert_eq!(decide(&released, at(902)), Decision::Take);
    }

    #[test]
    fn finished_and_exhausted_jobs_are_not_run() {
        let mut j = job();
        j.attempts = MAX_ATTEMPTS;
        assert_eq!(decide(&j, at(0)), Decision::Exhausted);
        j.status = Status::Running;
        j.lease_until = Some(at(10));
        assert_eq!(decide(&j, at(5)), Decision::Leased(at(10)));
        assert_eq!(decide(&j, at(10)), Decision::Exhausted);
        for status in [Status::Succeeded, Status::Failed] {
            j.status = status;
            assert_eq!(decide(&j, at(5)), Decision::Finished);
        }
    }
}
