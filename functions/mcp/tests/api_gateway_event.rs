//! The sample `POST /api/mcp` event (a `tools/call` of `calculate_vat` from
//! the API Gateway domain) through the mcp function's router and
//! lambda_http's adapter, in-process: the Host pattern the template
//! configures is accepted and the tool answers with its structured result.

use std::sync::Arc;

use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::Value;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::embedded::SqliteTable;
use shared::http::AppState;
use shared::ports::Ports;
use shared::ports::clock::SystemClock;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

async fn call(state: AppState, event: &str) -> Value {
    let mut adapter = Adapter::from(shared::mcp::router(state));
    let payload: LambdaRequest = serde_json::from_str(event).unwrap();
    let response = adapter
        .ready()
        .await
        .unwrap()
        .call(LambdaEvent::new(payload, Context::default()))
        .await
        .unwrap();
    serde_json::to_value(&response).unwrap()
}

#[tokio::test]
async fn the_sample_tool_call_event_answers_from_the_api_gateway_domain() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Lambda", Plan::Pro, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let event =
        include_str!("../../../events/mcp-post.json").replace(PLACEHOLDER_KEY, &key.reveal());
    let config = |hosts: &str| Config {
        public_hosts: vec![hosts.to_string()],
        ..Config::default()
    };

    let state = AppState::new(
        ports.clone(),
        config("*.execute-api.eu-west-1.amazonaws.com"),
    );
    let response = call(state, &event).await;
    assert_eq!(response["statusCode"], 200, "{response}");
    let body: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
    let result = &body["result"];
    assert_eq!(result["isError"], false, "{body}");
    assert_eq!(result["structuredContent"]["base"], 100.0);

    let response = call(AppState::new(ports, config("api.example.com")), &event).await;
    assert_eq!(response["statusCode"], 403, "{response}");
}
