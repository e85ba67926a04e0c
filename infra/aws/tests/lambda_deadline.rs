//! An HTTP function's handlers are bounded by their invocation's deadline,
//! read from the Lambda context: a handler that would outlive it is answered
//! 503 `deadline_exceeded` before the function is stopped.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::routing::get;
use lambda_http::{Context, RequestExt};
use tower::ServiceExt;

use infra_aws::http_function::with_deadlines;
use shared::http::deadline::MARGIN;
use shared::http::error::ApiError;

async fn slow() -> &'static str {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "done"
}

fn invocation(left: Duration) -> Request<Body> {
    let deadline = SystemTime::now() + left;
    let mut context = Context::default();
    context.deadline = deadline.duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    Request::get("/slow")
        .body(Body::empty())
        .unwrap()
        .with_lambda_context(context)
}

#[tokio::test]
async fn a_handler_is_stopped_a_margin_before_its_invocation_ends() {
    let router = with_deadlines(
        axum::Router::new()
            .route("/slow", get(slow))
            .layer(axum::middleware::from_fn(shared::http::deadline::bound)),
    );
    let started = Instant::now();
    let answer = router
        .oneshot(invocation(MARGIN + Duration::from_millis(400)))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.headers()["retry-after"], "5");
    assert_eq!(
        answer.extensions().get::<ApiError>().unwrap().code,
        "deadline_exceeded"
    );
}
