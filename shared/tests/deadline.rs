//! A handler that would outlive the invocation's deadline is answered 503
//! `deadline_exceeded` with `Retry-After` before it (one test: the deadline
//! is the process's, as on Lambda).

use crate::support;

use std::time::{Duration, Instant, SystemTime};

use axum::http::StatusCode;
use axum::routing::get;

use shared::domain::account::Plan;
use shared::http::AppState;
use shared::http::deadline::{self, MARGIN};

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "done"
}

#[tokio::test]
async fn a_request_that_cannot_finish_in_time_is_answered_503_before_the_deadline() {
    let extra = axum::Router::<AppState>::new().route("/api/v1/slow", get(slow));
    let h = support::start(support::relaxed(), Plan::Pro, extra).await;

    deadline::set(Some(
        SystemTime::now() + MARGIN + Duration::from_millis(500),
    ));
    let started = Instant::now();
    let reply = support::send(&h.app, support::get("/api/v1/slow", Some(&h.live))).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    support::assert_error_shape(
        &reply,
        StatusCode::SERVICE_UNAVAILABLE,
        "api_error",
        "deadline_exceeded",
    );
    assert_eq!(reply.header("retry-after"), "5");
    assert!(
        reply.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("async")
    );

    deadline::set(Some(SystemTime::now() + Duration::from_secs(60)));
    let usage = support::send(&h.app, support::get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(usage.status, StatusCode::OK, "{}", usage.json);

    deadline::set(None);
    assert_eq!(deadline::remaining(), None);
}
