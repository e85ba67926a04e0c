//! The sample API Gateway v2 event from `events/` through the function's
//! router and lambda_http's adapter, in-process, as the Lambda runtime would run it.

use function_testing::{Scratch, body, invoke, with_key};
use serde_json::json;
use shared::app::outbox;
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};
use shared::webhooks::event_type::EventType;

#[tokio::test]
async fn the_sample_events_request_lists_the_test_events_of_its_type() {
    let scratch = Scratch::new(Plan::Pro).await;
    let (_, key) = scratch.key(Mode::Test).await;
    let now = chrono::Utc::now();
    let writes = vec![
        outbox::record(
            &scratch.account,
            Mode::Test,
            EventType::InvoicePaid,
            json!({}),
            now,
        ),
        outbox::record(
            &scratch.account,
            Mode::Test,
            EventType::InvoiceIssued,
            json!({}),
            now,
        ),
    ];
    scratch.ports.table.transact(writes).await.unwrap();

    let router = group_router(
        Group::Events.routes(),
        AppState::new(scratch.ports.clone(), Config::default()),
    );
    let event = with_key(include_str!("../../../events/events-get.json"), &key);
    let response = invoke(&router, &event).await;

    assert_eq!(response["statusCode"], 200, "{response}");
    let body = body(&response);
    assert_eq!(body["data"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(body["data"][0]["type"], "invoice.paid");
    assert_eq!(body["data"][0]["livemode"], false);
}
