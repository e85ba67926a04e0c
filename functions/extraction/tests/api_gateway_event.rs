//! The sample `POST /api/v1/invoices/extract` event through the extraction
//! function's router and lambda_http's adapter, in-process, with a test key:
//! the unsupported file is an error entry, the text a sample invoice.

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
async fn the_sample_extract_event_answers_with_one_invoice_and_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Lambda", Plan::Pro, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let event = include_str!("../../../events/extraction-post.json")
        .replace(PLACEHOLDER_KEY, &key.reveal());
    let mut adapter = Adapter::from(group_router(
        Group::Extraction,
        AppState::new(ports, Config::default()),
    ));
    let payload: LambdaRequest = serde_json::from_str(&event).unwrap();
    let response = adapter
        .ready()
        .await
        .unwrap()
        .call(LambdaEvent::new(payload, Context::default()))
        .await
        .unwrap();
    let response = serde_json::to_value(&response).unwrap();
    assert_eq!(response["statusCode"], 200, "{response}");
    let body: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["livemode"], false);
    assert_eq!(body["invoices"][0]["file_name"], "obra.txt");
    assert_eq!(body["errors"][0]["code"], "mime_unsupported");
}
