//! The sample `POST /api/v1/invoices` event through the invoices function's
//! router and lambda_http's adapter, in-process; replaying it with the same
//! Idempotency-Key returns the same invoice.

use std::sync::Arc;

use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::Value;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Issuer, Mode, Plan};
use shared::embedded::SqliteTable;
use shared::http::{AppState, Group, group_router};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;
use shared::tax::nif::Nif;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

#[tokio::test]
async fn the_sample_issue_event_issues_once() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Lambda", Plan::Pro, None)
        .await
        .unwrap();
    let issuer = Issuer {
        name: Some("Ana García Pérez".into()),
        nif: Some(Nif::parse("12345678Z").unwrap()),
        address: Some("Calle Mayor 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: None,
        country: Some("ES".into()),
    };
    accounts::set_issuer(&ports, &account.id, &issuer)
        .await
        .unwrap();
    let (_, key) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let event =
        include_str!("../../../events/invoices-post.json").replace(PLACEHOLDER_KEY, &key.reveal());
    let mut adapter = Adapter::from(group_router(
        Group::Invoices,
        AppState::new(ports, Config::default()),
    ));

    let mut bodies = Vec::new();
    for attempt in 0..2 {
        let payload: LambdaRequest = serde_json::from_str(&event).unwrap();
        let response = adapter
            .ready()
            .await
            .unwrap()
            .call(LambdaEvent::new(payload, Context::default()))
            .await
            .unwrap();
        let response = serde_json::to_value(&response).unwrap();
        assert_eq!(response["statusCode"], 201, "{response}");
        assert_eq!(
            response["headers"]["idempotent-replayed"].is_string(),
            attempt == 1
        );
        bodies.push(serde_json::from_str::<Value>(response["body"].as_str().unwrap()).unwrap());
    }
    assert_eq!(bodies[0], bodies[1]);
    assert!(bodies[0]["number"].as_str().unwrap().starts_with("TEST-F"));
    assert_eq!(bodies[0]["total"], 1060.0);
}
