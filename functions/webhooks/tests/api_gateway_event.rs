//! The sample `POST /api/v1/webhooks` event through the webhooks function's
//! router and lambda_http's adapter, in-process: the webhook is registered
//! once (its URL's host resolved and checked), and a replay with the same
//! Idempotency-Key returns the same webhook and secret.

use std::io;
use std::net::IpAddr;
use std::sync::Arc;

use async_trait::async_trait;
use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::Value;
use shared::app::keys::Caller;
use shared::app::{accounts, keys, webhooks};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::embedded::SqliteTable;
use shared::http::{AppState, Group, group_router};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;
use shared::ports::webhook_http::HttpWebhookSender;
use shared::ports::webhook_sender::Resolver;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

/// hooks.example.com has a public address.
struct PublicDns;

#[async_trait]
impl Resolver for PublicDns {
    async fn resolve(&self, _: &str) -> io::Result<Vec<IpAddr>> {
        Ok(vec!["93.184.215.14".parse().unwrap()])
    }
}

#[tokio::test]
async fn the_sample_webhook_registration_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock).with_sender(Arc::new(
        HttpWebhookSender::with_resolver(Arc::new(PublicDns), false),
    ));
    let account = accounts::create(&ports, "Lambda", Plan::Pro, None)
        .await
        .unwrap();
    let (key_id, key) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let event =
        include_str!("../../../events/webhooks-post.json").replace(PLACEHOLDER_KEY, &key.reveal());
    let mut adapter = Adapter::from(group_router(
        Group::Webhooks,
        AppState::new(ports.clone(), Config::default()),
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
    let webhook = &bodies[0];
    assert_eq!(webhook["url"], "https://hooks.example.com/svc");
    assert!(webhook["secret"].as_str().unwrap().starts_with("whsec_"));

    let caller = Caller {
        account_id: account.id.clone(),
        plan: Plan::Pro,
        mode: Mode::Test,
        key_id,
    };
    let (all, _) = webhooks::list(&ports, &caller, 10, None).await.unwrap();
    assert_eq!(all.len(), 1, "registered once");
    assert_eq!(all[0].id, webhook["id"].as_str().unwrap());
}
