//! The sample `POST /api/mcp` event (a `tools/call` of `calculate_vat` from
//! the API Gateway domain) through the mcp function's router and
//! lambda_http's adapter, in-process: the Host pattern the template
//! configures is accepted and the tool answers with its structured result.

use function_testing::{Scratch, body, invoke, with_key};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::AppState;

#[tokio::test]
async fn the_sample_tool_call_event_answers_from_the_api_gateway_domain() {
    let scratch = Scratch::new(Plan::Pro).await;
    let (_, key) = scratch.key(Mode::Test).await;
    let event = with_key(include_str!("../../../events/mcp-post.json"), &key);
    let router = |host: &str| {
        let config = Config {
            public_hosts: vec![host.to_string()],
            ..Config::default()
        };
        shared::mcp::router(AppState::new(scratch.ports.clone(), config))
    };

    let response = invoke(&router("*.execute-api.eu-west-1.amazonaws.com"), &event).await;
    assert_eq!(response["statusCode"], 200, "{response}");
    let body = body(&response);
    assert_eq!(body["result"]["isError"], false, "{body}");
    assert_eq!(body["result"]["structuredContent"]["base"], 100.0);

    let response = invoke(&router("api.example.com"), &event).await;
    assert_eq!(response["statusCode"], 403, "{response}");
}
