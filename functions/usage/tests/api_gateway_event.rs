//! A sample API Gateway v2 event from `events/` through the function's router
//! and lambda_http's adapter, in-process, as the Lambda runtime would run it.

use function_testing::{Scratch, body, invoke, with_key};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};

#[tokio::test]
async fn the_sample_usage_event_is_answered() {
    let scratch = Scratch::new(Plan::Max).await;
    let (_, key) = scratch.key(Mode::Test).await;
    let router = group_router(
        Group::Usage.routes(),
        AppState::new(scratch.ports.clone(), Config::default()),
    );
    let response = invoke(
        &router,
        &with_key(include_str!("../../../events/usage-get.json"), &key),
    )
    .await;

    assert_eq!(response["statusCode"], 200, "{response}");
    assert!(
        response["headers"]["request-id"]
            .as_str()
            .unwrap()
            .starts_with("req_")
    );
    assert_eq!(response["headers"]["x-ratelimit-limit"], "30");
    let body = body(&response);
    assert_eq!(body["plan"], "max");
    assert_eq!(body["daily_limit"], 500);
    assert_eq!(body["livemode"], false);
}
