//! The sample `POST /api/v1/webhooks` event through the webhooks function's
//! router and lambda_http's adapter, in-process: the webhook is registered
//! once (its URL's host resolved and checked), and a replay with the same
//! Idempotency-Key returns the same webhook and secret.

use std::io;
use std::net::IpAddr;
use std::sync::Arc;

use async_trait::async_trait;
use function_testing::{Scratch, body, invoke, with_key};
use shared::adapters::webhook_http::HttpWebhookSender;
use shared::app::webhooks;
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};
use shared::ports::webhook_sender::Resolver;

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
    let scratch = Scratch::new(Plan::Pro).await;
    let ports = scratch
        .ports
        .clone()
        .with_sender(Arc::new(HttpWebhookSender::with_resolver(
            Arc::new(PublicDns),
            false,
        )));
    let (caller, key) = scratch.key(Mode::Test).await;
    let event = with_key(include_str!("../../../events/webhooks-post.json"), &key);
    let router = group_router(
        Group::Webhooks.routes(),
        AppState::new(ports.clone(), Config::default()),
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
    let webhook = &bodies[0];
    assert_eq!(webhook["url"], "https://hooks.example.com/svc");
    assert!(webhook["secret"].as_str().unwrap().starts_with("whsec_"));

    let (all, _) = webhooks::list(&ports, &caller, 10, None).await.unwrap();
    assert_eq!(all.len(), 1, "registered once");
    assert_eq!(all[0].id, webhook["id"].as_str().unwrap());
}
