//! The job: its states, kinds, error, and the times it keeps.

use chrono::{DateTime, Duration, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::app::keys::Caller;
use crate::domain::account::{AccountId, Mode, Plan};

/// What a job id starts with.
pub const ID_PREFIX: &str = "job";
/// How long a finished job (and its result) can be read (API-SPEC §8).
pub const RETENTION: Duration = Duration::hours(24);
/// How long a job that never finishes is kept: as long as its staged input
/// (the staging bucket's 1-day lifecycle), after which it could not run.
pub const UNFINISHED_RETENTION: Duration = Duration::hours(24);

/// The state of a job: `queued` (accepted, waiting for a worker) →
/// `running` (a worker runs it; a run interrupted by a failure of the
/// service is retried, 3 runs at most) → `succeeded` (`result` holds what
/// the synchronous request returns) or `failed` (`error` says why; a failed
/// job costs no quota). `succeeded` and `failed` are final.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JobStatus)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Queued,
    Running,
    Succeeded,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Succeeded => "succeeded",
            Status::Failed => "failed",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        [
            Status::Queued,
            Status::Running,
            Status::Succeeded,
            Status::Failed,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }

    pub fn is_finished(self) -> bool {
        matches!(self, Status::Succeeded | Status::Failed)
    }
}

/// The operation a job runs: `invoices.extract` (`POST
/// /api/v1/invoices/extract`) or `analyze` (`POST /api/v1/analyze`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = JobKind)]
pub enum Kind {
    #[serde(rename = "invoices.extract")]
    Extract,
    #[serde(rename = "analyze")]
    Analyze,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Extract => "invoices.extract",
            Kind::Analyze => "analyze",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        [Kind::Extract, Kind::Analyze]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// Why a job failed: the error object of the REST API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"type": "api_error", "code": "internal_error",
    "message": "the job could not be run (3 attempts failed on the service's side); no quota was used, submit it again"}))]
pub struct JobError {
    /// `invalid_request_error` (the request cannot give a result, e.g.
    /// `report_too_large`) or `api_error` (the service's own fault).
    #[serde(rename = "type")]
    pub kind: String,
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
}

impl JobError {
    pub fn internal(message: impl Into<String>) -> Self {
        JobError {
            kind: "api_error".into(),
            code: "internal_error".into(),
            message: message.into(),
            param: None,
        }
    }

    pub fn invalid(code: &str, message: impl Into<String>, param: Option<String>) -> Self {
        JobError {
            kind: "invalid_request_error".into(),
            code: code.into(),
            message: message.into(),
            param,
        }
    }
}

/// A stored job.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: String,
    pub account_id: AccountId,
    pub mode: Mode,
    /// The plan and key of the request, to run it as that caller.
    pub plan: Plan,
    pub key_id: String,
    pub kind: Kind,
    pub status: Status,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// When the item expires (its `ttl`).
    pub expires_at: DateTime<Utc>,
    pub attempts: u32,
    pub result: Option<Json>,
    pub error: Option<JobError>,
    /// The Madrid day whose quota counter was charged, if one was.
    pub quota_day: Option<String>,
    /// A running job belongs to its worker until then.
    pub lease_until: Option<DateTime<Utc>>,
    /// Raised by every change; changes are conditional on it.
    pub version: i64,
}

/// The time as stored: milliseconds, so what is written reads back equal.
pub fn instant(at: DateTime<Utc>) -> DateTime<Utc> {
    at.trunc_subsecs(3)
}

/// The whole second at or after `at` + `after`: when an item kept that long
/// expires (a `ttl` counts seconds).
pub fn expiry(at: DateTime<Utc>, after: Duration) -> DateTime<Utc> {
    let end = at + after;
    let whole = end.trunc_subsecs(0);
    if whole < end {
        whole + Duration::seconds(1)
    } else {
        whole
    }
}

pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Whether `s` has the shape of a job id (`job_` and 24 hex digits).
pub fn is_id(s: &str) -> bool {
    s.strip_prefix(ID_PREFIX)
        .and_then(|t| t.strip_prefix('_'))
        .is_some_and(|t| t.len() == 24 && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl Job {
    /// A new queued job of the caller's, created now.
    pub fn new(caller: &Caller, kind: Kind, quota_day: Option<String>, now: DateTime<Utc>) -> Self {
        let now = instant(now);
        Job {
            id: crate::ids::new_id(ID_PREFIX),
            account_id: caller.account_id.clone(),
            mode: caller.mode,
            plan: caller.plan,
            key_id: caller.key_id.clone(),
            kind,
            status: Status::Queued,
            created_at: now,
            started_at: None,
            finished_at: None,
            expires_at: expiry(now, UNFINISHED_RETENTION),
            attempts: 0,
            result: None,
            error: None,
            quota_day,
            lease_until: None,
            version: 1,
        }
    }

    /// The caller the job runs as.
    pub fn caller(&self) -> Caller {
        Caller {
            account_id: self.account_id.clone(),
            plan: self.plan,
            mode: self.mode,
            key_id: self.key_id.clone(),
        }
    }

    /// Where the job's input waits for the worker.
    pub fn input_key(&self) -> String {
        format!("jobs/{}/input", self.id)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub fn caller() -> Caller {
        Caller {
            account_id: "acct_01".parse().unwrap(),
            plan: Plan::Pro,
            mode: Mode::Live,
            key_id: "key_1".into(),
        }
    }

    #[test]
    fn a_new_job_is_queued_for_a_day_as_its_caller() {
        let job = Job::new(
            &caller(),
            Kind::Analyze,
            None,
            "2026-11-21T10:00:00.5Z".parse().unwrap(),
        );
        assert!(is_id(&job.id), "{}", job.id);
        assert_eq!(
            (job.status, job.attempts, job.version),
            (Status::Queued, 0, 1)
        );
        assert_eq!(timestamp(job.expires_at), "2026-11-22T10:00:01.000Z");
        assert_eq!(job.caller(), caller());
        assert_eq!(job.input_key(), format!("jobs/{}/input", job.id));
    }

    #[test]
    fn job_ids_have_one_shape() {
        assert!(is_id("job_5c1e0a9d3f7b2e8a4d6c0b1f"));
        for bad in [
            "job_5c1e",
            "job_5c1e0a9d3f7b2e8a4d6c0b1g",
            "an_5c1e0a9d3f7b2e8a4d6c0b1f",
            "",
        ] {
            assert!(!is_id(bad), "{bad}");
        }
    }
}
