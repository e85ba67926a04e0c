//! A sample API Gateway v2 event from `events/` through the function's router
//! and lambda_http's adapter, in-process, as the Lambda runtime would run it.

use std::sync::Arc;

use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::Value;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::embedded::SqliteTable;
use shared::http::{AppState, Group, group_router};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

#[tokio::test]
async fn the_sample_usage_event_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Lambda", Plan::Max, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();

    let event =
        include_str!("../../../events/usage-get.json").replace(PLACEHOLDER_KEY, &key.reveal());
    let payload: LambdaRequest = serde_json::from_str(&event).unwrap();
    let router = group_router(Group::Usage, AppState::new(ports, Config::default()));
    let mut adapter = Adapter::from(router);
    let response = adapter
        .ready()
        .await
        .unwrap()
        .call(LambdaEvent::new(payload, Context::default()))
        .await
        .unwrap();

    let response = serde_json::to_value(&response).unwrap();
    assert_eq!(response["statusCode"], 200, "{response}");
    assert!(
        response["headers"]["request-id"]
            .as_str()
            .unwrap()
            .starts_with("req_")
    );
    assert_eq!(response["headers"]["x-ratelimit-limit"], "30");
    let body: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["plan"], "max");
    assert_eq!(body["daily_limit"], 500);
    assert_eq!(body["livemode"], false);
}
