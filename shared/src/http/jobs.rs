//! Jobs over HTTP: the 202 of a request made in async mode, and the jobs
//! group, `GET /api/v1/jobs/{id}`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::async_mode::AsyncMode;
use super::error::ApiError;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::jobs::{self, Job, JobResource, Kind};
use crate::app::keys::Caller;

/// Seconds to wait before reading a job that has not finished (`Retry-After`).
const POLL_AFTER_SECONDS: &str = "2";

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_job))
}

fn location(job: &Job) -> String {
    format!("/api/v1/jobs/{}", job.id)
}

/// Queues the request as a job of `kind` (its format checks and quota charge
/// done, the day charged in `quota_day`) and answers 202 with the job,
/// `Location` and `Retry-After`, and `Preference-Applied` when `Prefer`
/// asked for it. The job is committed with the request's other writes.
pub async fn accept(
    state: &AppState,
    caller: &Caller,
    uow: &UnitOfWork,
    mode: AsyncMode,
    kind: Kind,
    body: Bytes,
    quota_day: Option<String>,
) -> Result<Response, ApiError> {
    let (job, write) = jobs::submit(&state.ports, caller, kind, body.to_vec(), quota_day)
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "job input not staged");
            ApiError::unavailable("the job could not be queued; retry the request")
        })?;
    uow.add(write);
    let mut response = (
        StatusCode::ACCEPTED,
        [
            (header::LOCATION, location(&job)),
            (header::RETRY_AFTER, POLL_AFTER_SECONDS.to_string()),
        ],
        Json(JobResource::from(&job)),
    )
        .into_response();
    if mode.preference_applied {
        response.headers_mut().insert(
            "preference-applied",
            HeaderValue::from_static("respond-async"),
        );
    }
    Ok(response)
}

/// Get a job
///
/// A job made by a request in async mode (`?async=true` or `Prefer:
/// respond-async` on `POST /api/v1/invoices/extract` and `POST
/// /api/v1/analyze`). `status`: `queued` (waiting for a worker) → `running`
/// → `succeeded` (`result` holds what the synchronous request returns) or
/// `failed` (`error` holds the error object). While it has not finished the
/// response carries `Retry-After` (seconds); subscribe to the `job.completed`
/// and `job.failed` events to stop polling.
///
/// A job is kept 24 hours after it finishes (`expires_at`), then it is 404.
/// A run interrupted by a failure of the service is retried (3 runs at
/// most); a job that still fails ends `failed` with an `api_error` and gives
/// back its quota unit: a failed job costs nothing. Jobs of another account
/// or of the other mode (live/test), and ids that are not job ids, are 404.
#[utoipa::path(get, path = "/api/v1/jobs/{id}", tag = "jobs", operation_id = "get_job",
    params(("id" = String, Path, description = "job_…")),
    responses((status = 200, description = "The job", body = JobResource,
        headers(("Retry-After" = u32, description = "While the job has not finished: seconds to wait before reading it again")))))]
async fn get_job(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let job = jobs::get(&state.ports, &caller, &id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no job {id}")))?;
    let mut response = Json(JobResource::from(&job)).into_response();
    if !job.status.is_finished() {
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from_static(POLL_AFTER_SECONDS),
        );
    }
    Ok(response)
}
