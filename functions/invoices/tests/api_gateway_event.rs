//! The sample `POST /api/v1/invoices` event through the invoices function's
//! router and lambda_http's adapter, in-process; replaying it with the same
//! Idempotency-Key returns the same invoice.

use function_testing::{Scratch, body, invoke, with_key};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};

#[tokio::test]
async fn the_sample_issue_event_issues_once() {
    let scratch = Scratch::new(Plan::Pro).await.with_issuer().await;
    let (_, key) = scratch.key(Mode::Test).await;
    let event = with_key(include_str!("../../../events/invoices-post.json"), &key);
    let router = group_router(
        Group::Invoices.routes(),
        AppState::new(scratch.ports.clone(), Config::default()),
    );

    let mut bodies = Vec::new();
    for attempt in 0..2 {
        let response = invoke(&router, &event).await;
        assert_eq!(response["statusCode"], 201, "{response}");
        assert_eq!(
            response["headers"]["idempotent-replayed"].is_string(),
            attempt == 1
        );
        bodies.push(body(&response));
    }
    assert_eq!(bodies[0], bodies[1]);
    assert!(bodies[0]["number"].as_str().unwrap().starts_with("TEST-F"));
    assert_eq!(bodies[0]["total"], 1060.0);
}
