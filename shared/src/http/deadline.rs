//! The time a request has left. On AWS, API Gateway gives up after 30 s and
//! the function is stopped at its timeout: a handler still running then
//! would leave the client a bare 503 from the gateway. So the Lambda host
//! sets the deadline of each invocation (`set`, from the Lambda context), and
//! the `bound` layer answers a handler that would outlive it with a clear 503
//! `deadline_exceeded` and `Retry-After`, a margin before it. A Lambda
//! execution environment runs one invocation at a time, so the deadline is
//! the process's; `svc serve` sets none and its requests are unbounded.
//!
//! The layer bounds the handler only, never the commit of a unit of work:
//! a commit is not cut halfway (see `unit_of_work`).

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;

/// Kept for committing and answering after the handler: a commit's
/// transaction and the response's way back take well under this.
pub const MARGIN: Duration = Duration::from_secs(3);
/// What a client is asked to wait before retrying.
const RETRY_AFTER_SECONDS: i64 = 5;

static DEADLINE: Mutex<Option<SystemTime>> = Mutex::new(None);

/// The deadline of the invocation now running (none: unbounded).
pub fn set(deadline: Option<SystemTime>) {
    *DEADLINE.lock().unwrap_or_else(|e| e.into_inner()) = deadline;
}

/// The time left before the deadline, less the margin; None when there is
/// no deadline.
pub fn remaining() -> Option<Duration> {
    let deadline = (*DEADLINE.lock().unwrap_or_else(|e| e.into_inner()))?;
    Some(
        deadline
            .duration_since(SystemTime::now())
            .unwrap_or_default()
            .saturating_sub(MARGIN),
    )
}

/// The layer around the handlers: a handler that would outlive the
/// deadline is stopped and answered 503 `deadline_exceeded`.
pub async fn bound(req: Request, next: Next) -> Response {
    let Some(left) = remaining() else {
        return next.run(req).await;
    };
    match tokio::time::timeout(left, next.run(req)).await {
        Ok(response) => response,
        Err(_) => exceeded().into_response(),
    }
}

fn exceeded() -> ApiError {
    let mut error = ApiError::unavailable(
        "the request could not finish in the time a synchronous request has (about 29 s) and had no effect; retry it, or send extractions and analyses in async mode (`?async=true`)",
    );
    error.code = "deadline_exceeded".into();
    error.header(
        axum::http::header::RETRY_AFTER,
        RETRY_AFTER_SECONDS.to_string(),
    )
}
