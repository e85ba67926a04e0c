//! The outermost layer: a `Request-Id` on every response, the request id in
//! every error body, and one structured log line per request (never a secret).

use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use tracing::Level;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use super::error::ApiError;
use crate::metrics::{self, Metric};

/// The account a response was served to, left by the auth layer for the log.
#[derive(Clone)]
pub struct ServedAccount(pub String);

pub async fn observe(req: Request, next: Next) -> Response {
    let request_id = crate::ids::new_id("req");
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_default();
    let started = Instant::now();

    let mut response = next.run(req).await;

    if let Some(error) = response.extensions_mut().remove::<ApiError>() {
        *response.body_mut() = Body::from(error.body(&request_id));
        response
            .headers_mut()
            .remove(axum::http::header::CONTENT_LENGTH);
    }
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", value);
    }
    let account_id = response
        .extensions()
        .get::<ServedAccount>()
        .map(|a| a.0.as_str())
        .unwrap_or("");
    let status = response.status();
    tracing::info!(
        request_id,
        account_id,
        method,
        path,
        route,
        status = status.as_u16(),
        latency_ms = started.elapsed().as_secs_f64() * 1000.0,
        "request"
    );
    let server_error = if status.is_server_error() { 1.0 } else { 0.0 };
    metrics::emit(&[
        (Metric::Requests, 1.0),
        (Metric::ServerErrors, server_error),
    ]);
    response
}

pub fn panic_response(_: Box<dyn std::any::Any + Send>) -> Response {
    tracing::error!("handler panicked");
    axum::response::IntoResponse::into_response(ApiError::internal("an internal error occurred"))
}

/// JSON log lines on stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_logging() {
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref());
    let _ = tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_writer(std::io::stderr)
        .finish()
        .with(filter)
        .try_init();
}

/// `RUST_LOG` as levels per target (`warn`, `info,shared::app=debug`),
/// `info` when unset or unreadable. `Targets` rather than `EnvFilter`: the
/// span and field filters of the latter need a regex engine in every
/// function's binary.
fn log_filter(setting: Option<&str>) -> Targets {
    setting
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| Targets::new().with_default(Level::INFO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_log_sets_levels_per_target_and_defaults_to_info() {
        let unset = log_filter(None);
        assert!(unset.would_enable("shared::app", &Level::INFO));
        assert!(!unset.would_enable("shared::app", &Level::DEBUG));
        let warn = log_filter(Some("warn"));
        assert!(warn.would_enable("lambda_runtime", &Level::WARN));
        assert!(!warn.would_enable("lambda_runtime", &Level::INFO));
        let per_target = log_filter(Some("info,shared::app=debug"));
        assert!(per_target.would_enable("shared::app::invoices", &Level::DEBUG));
        assert!(!per_target.would_enable("shared::http", &Level::DEBUG));
        let unreadable = log_filter(Some("shared=loud"));
        assert!(unreadable.would_enable("shared", &Level::INFO));
        assert!(!unreadable.would_enable("shared", &Level::DEBUG));
    }
}
