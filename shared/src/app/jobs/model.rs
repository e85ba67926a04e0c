//! The job as it is stored and as the API shows it. A job item lives under
//! pk `JOB#<job_id>`, sk `JOB` (one partition per job: workers never compete
//! with other accounts' jobs), with `entity` = "job" so the dispatcher sends
//! its message when it is created.

use chrono::{DateTime, Duration, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::app::keys::Caller;
use crate::domain::account::{AccountId, Mode, Plan};
use crate::ports::table::{Item, Key, TTL, TableError};

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

    fn parse(s: &str) -> Option<Self> {
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

    fn parse(s: &str) -> Option<Self> {
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

pub fn key(id: &str) -> Key {
    Key::new(format!("JOB#{id}"), "JOB")
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

    pub fn to_item(&self) -> Item {
        let mut item = Item::new(key(&self.id))
            .with("entity", "job")
            .with("id", self.id.as_str())
            .with("account_id", self.account_id.as_str())
            .with("mode", self.mode.as_str())
            .with("plan", self.plan.as_str())
            .with("key_id", self.key_id.as_str())
            .with("kind", self.kind.as_str())
            .with("status", self.status.as_str())
            .with("created_at", timestamp(self.created_at))
            .with(TTL, self.expires_at.timestamp())
            .with("attempts", i64::from(self.attempts))
            .with("version", self.version);
        let optional = [
            ("started_at", self.started_at.map(timestamp)),
            ("finished_at", self.finished_at.map(timestamp)),
            ("result", self.result.as_ref().map(Json::to_string)),
            ("error", self.error.as_ref().map(error_text)),
            ("quota_day", self.quota_day.clone()),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                item = item.with(name, value);
            }
        }
        if let Some(lease) = self.lease_until {
            item = item.with("lease_until", lease.timestamp_millis());
        }
        item
    }

    pub fn from_item(item: &Item) -> Result<Job, TableError> {
        let corrupt = |what: &str| TableError::Invalid(format!("job item {}: {what}", item.key));
        let text = |name: &str| item.s(name).ok_or_else(|| corrupt(name));
        let time = |name: &str| -> Result<Option<DateTime<Utc>>, TableError> {
            item.s(name)
                .map(|s| s.parse().map_err(|_| corrupt(name)))
                .transpose()
        };
        Ok(Job {
            id: text("id")?.to_string(),
            account_id: text("account_id")?
                .parse()
                .map_err(|_| corrupt("account_id"))?,
            mode: text("mode")?.parse().map_err(|_| corrupt("mode"))?,
            plan: text("plan")?.parse().map_err(|_| corrupt("plan"))?,
            key_id: text("key_id")?.to_string(),
            kind: Kind::parse(text("kind")?).ok_or_else(|| corrupt("kind"))?,
            status: Status::parse(text("status")?).ok_or_else(|| corrupt("status"))?,
            created_at: time("created_at")?.ok_or_else(|| corrupt("created_at"))?,
            started_at: time("started_at")?,
            finished_at: time("finished_at")?,
            expires_at: item
                .ttl()
                .and_then(|t| DateTime::from_timestamp(t, 0))
                .ok_or_else(|| corrupt("ttl"))?,
            attempts: item
                .n("attempts")
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| corrupt("attempts"))?,
            result: item
                .s("result")
                .map(|r| serde_json::from_str(r).map_err(|_| corrupt("result")))
                .transpose()?,
            error: item
                .s("error")
                .map(|e| serde_json::from_str(e).map_err(|_| corrupt("error")))
                .transpose()?,
            quota_day: item.s("quota_day").map(str::to_string),
            lease_until: item
                .n("lease_until")
                .map(|ms| DateTime::from_timestamp_millis(ms).ok_or_else(|| corrupt("lease_until")))
                .transpose()?,
            version: item.n("version").ok_or_else(|| corrupt("version"))?,
        })
    }
}

pub fn error_text(error: &JobError) -> String {
    serde_json::to_string(error).expect("job errors serialise")
}

/// A job as `GET /api/v1/jobs/{id}` returns it (and the 202 of a request
/// made in async mode). Every field is always present, `null` when it does
/// not apply yet.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "job_5c1e0a9d3f7b2e8a4d6c0b1f", "object": "job", "kind": "invoices.extract",
    "status": "succeeded", "livemode": true, "created_at": "2026-11-21T10:00:00.000Z",
    "started_at": "2026-11-21T10:00:00.210Z", "finished_at": "2026-11-21T10:00:01.034Z",
    "expires_at": "2026-11-22T10:00:01Z", "attempts": 1,
    "result": {"object": "extraction", "invoices": [], "errors": [], "livemode": true}, "error": null}))]
pub struct JobResource {
    /// `job_` and a token.
    pub id: String,
    /// Always `job`.
    pub object: &'static str,
    pub kind: Kind,
    pub status: Status,
    /// False for a job made with a test key (its result is sample data).
    pub livemode: bool,
    pub created_at: DateTime<Utc>,
    /// When the first run started.
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// When the job and its result are deleted: 24 h after it finished; while
    /// not finished, 24 h after it was created. Then `GET` is 404.
    pub expires_at: DateTime<Utc>,
    /// Runs started so far (a run interrupted by a failure of the service is
    /// retried, 3 runs at most).
    pub attempts: u32,
    /// When `succeeded`: what the synchronous request returns (`invoices.extract`:
    /// the extraction object with `invoices` and `errors`; `analyze`: the analysis).
    #[schema(value_type = Option<Object>)]
    pub result: Option<Json>,
    /// When `failed`: why, as the error object of the REST API.
    pub error: Option<JobError>,
}

impl From<&Job> for JobResource {
    fn from(job: &Job) -> Self {
        JobResource {
            id: job.id.clone(),
            object: "job",
            kind: job.kind,
            status: job.status,
            livemode: job.mode.is_live(),
            created_at: job.created_at,
            started_at: job.started_at,
            finished_at: job.finished_at,
            expires_at: job.expires_at,
            attempts: job.attempts,
            result: job.result.clone(),
            error: job.error.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caller() -> Caller {
        Caller {
            account_id: "acct_01".parse().unwrap(),
            plan: Plan::Pro,
            mode: Mode::Live,
            key_id: "key_1".into(),
        }
    }

    #[test]
    fn a_job_reads_back_as_written() {
        let now = "2026-11-21T10:00:00.123456Z".parse().unwrap();
        let mut job = Job::new(&caller(), Kind::Analyze, Some("2026-11-21".into()), now);
        assert!(is_id(&job.id), "{}", job.id);
        assert_eq!(timestamp(job.created_at), "2026-11-21T10:00:00.123Z");
        assert_eq!(timestamp(job.expires_at), "2026-11-22T10:00:01.000Z");
        assert_eq!(Job::from_item(&job.to_item()).unwrap(), job);
        job.status = Status::Failed;
        job.attempts = 3;
        job.started_at = Some(job.created_at);
        job.finished_at = Some(job.created_at);
        job.lease_until = Some(job.created_at + Duration::seconds(120));
        job.error = Some(JobError::invalid("report_too_large", "too big", None));
        job.result = Some(json!({"a": [1, 2]}));
        assert_eq!(Job::from_item(&job.to_item()).unwrap(), job);
        assert_eq!(job.caller(), caller());
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

    #[test]
    fn the_resource_has_every_field() {
        let job = Job::new(
            &caller(),
            Kind::Extract,
            None,
            "2026-11-21T10:00:00Z".parse().unwrap(),
        );
        let shown = serde_json::to_value(JobResource::from(&job)).unwrap();
        assert_eq!(shown["object"], "job");
        assert_eq!(shown["kind"], "invoices.extract");
        assert_eq!(shown["status"], "queued");
        assert_eq!(shown["expires_at"], "2026-11-22T10:00:00Z");
        for field in ["started_at", "finished_at", "result", "error"] {
            assert!(shown[field].is_null(), "{field}");
        }
    }
}
