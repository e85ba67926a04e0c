//! A job as the API shows it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use super::model::{Job, JobError, Kind, Status};

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
    use crate::app::jobs::model::tests::caller;

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
