//! The `Email` contract suite against SES v2, run when an emulator (or a
//! real endpoint) is configured through `AWS_ENDPOINT_URL_SESV2`. On moto,
//! what SES accepted is read from its model data (`/moto-api/data.json`);
//! a sender that is not a verified identity is what SES refuses.

mod support;

use std::sync::Arc;

use async_trait::async_trait;
use aws_sdk_sesv2::Client;
use infra_aws::SesEmail;
use serde_json::Value;
use shared::ports::email::OutgoingEmail;
use shared::ports::email_contract::{self, Inbox};

const FROM: &str = "Facturas <facturas@svc-contract.example.com>";

struct Moto(String);

#[async_trait]
impl Inbox for Moto {
    async fn raw_for(&self, address: &str) -> Vec<Vec<u8>> {
        let url = format!("{}/moto-api/data.json", self.0.trim_end_matches('/'));
        let data: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
        let messages = data["ses"]["RawMessage"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        messages
            .iter()
            .filter(|m| {
                m["destinations"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|to| to.as_str() == Some(address)))
            })
            .filter_map(|m| m["raw_data"].as_str().map(|raw| raw.as_bytes().to_vec()))
            .collect()
    }
}

fn unverified_sender(message: OutgoingEmail) -> OutgoingEmail {
    OutgoingEmail {
        from: "nobody@unverified.example.net".into(),
        ..message
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ses_passes_the_email_contract() {
    if !support::emulator_of("SESV2", "SES email contract suite") {
        return;
    }
    let config = infra_aws::sdk::config().await;
    Client::new(&config)
        .create_email_identity()
        .email_identity("svc-contract.example.com")
        .send()
        .await
        .expect("the sender's domain as an identity");
    let endpoint = std::env::var("AWS_ENDPOINT_URL_SESV2")
        .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
        .unwrap();
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let nowhere = aws_sdk_sesv2::config::Builder::from(&config)
        .endpoint_url(format!("http://127.0.0.1:{closed}"))
        .build();
    email_contract::run(
        Arc::new(SesEmail::from_env(None).await),
        &Moto(endpoint),
        FROM,
        unverified_sender,
        Arc::new(SesEmail::new(Client::from_conf(nowhere), None)),
    )
    .await;
}
