//! The rate-limit layer: `X-RateLimit-Limit/Remaining/Reset` on every
//! authenticated response, 429 `rate_limited` with `Retry-After` over the limit.

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::state::AppState;
use crate::app::keys::Caller;

pub async fn limit(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let Some(caller) = req.extensions().get::<Caller>().cloned() else {
        return ApiError::internal("rate limit without a caller").into_response();
    };
    let limit = state.config.rate_limit_per_minute;
    let decision = match state.rate.hit(&state.ports, &caller.key_id, limit).await {
        Ok(d) => d,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let mut response = if decision.allowed {
        next.run(req).await
    } else {
        ApiError::too_many(
            "rate_limited",
            format!("more than {limit} requests in a minute with this key; retry after the window resets"),
            decision.retry_after,
        )
        .into_response()
    };
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", decision.limit.to_string()),
        ("x-ratelimit-remaining", decision.remaining.to_string()),
        ("x-ratelimit-reset", decision.reset_at.to_string()),
    ] {
        headers.insert(name, HeaderValue::from_str(&value).expect("digits"));
    }
    response
}
