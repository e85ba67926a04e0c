//! The sample API Gateway v2 event from `events/` through the function's
//! router and lambda_http's adapter, in-process, as the Lambda runtime would run it.

use std::sync::Arc;

use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::{Value, json};
use shared::app::{accounts, keys, outbox};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::embedded::SqliteTable;
use shared::http::{AppState, Group, group_router};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

#[tokio::test]
async fn the_sample_events_request_lists_the_test_events_of_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Lambda", Plan::Pro, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let now = chrono::Utc::now();
    let writes = vec![
        outbox::record(&account.id, Mode::Test, "invoice.paid", json!({}), now),
        outbox::record(&account.id, Mode::Test, "invoice.issued", json!({}), now),
    ];
    ports.table.transact(writes).await.unwrap();

    let event =
        include_str!("../../../events/events-get.json").replace(PLACEHOLDER_KEY, &key.reveal());
    let payload: LambdaRequest = serde_json::from_str(&event).unwrap();
    let router = group_router(Group::Events, AppState::new(ports, Config::default()));
    let response = Adapter::from(router)
        .ready()
        .await
        .unwrap()
        .call(LambdaEvent::new(payload, Context::default()))
        .await
        .unwrap();

    let response = serde_json::to_value(&response).unwrap();
    assert_eq!(response["statusCode"], 200, "{response}");
    let body: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["data"].as_array().unwrap().len(), 1, "{body}");
    assert_eq!(body["data"][0]["type"], "invoice.paid");
    assert_eq!(body["data"][0]["livemode"], false);
}
