//! What the functions' tests share: a scratch embedded store with one
//! account (and a sealing key), and a sample API Gateway event from `events/` (its placeholder
//! key replaced) run through a router by lambda_http's adapter, in-process,
//! as the Lambda runtime would run it.

use std::sync::Arc;

use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::Value;
use shared::app::keys::Caller;
use shared::app::{accounts, keys};
use shared::domain::account::{AccountId, Issuer, Mode, Plan};
use shared::embedded::{LocalSecrets, SqliteTable};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;
use shared::secrets_key::SecretsKey;

/// The key written in the sample events, replaced by a real one.
pub const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

/// An embedded store in a temporary directory with one account.
pub struct Scratch {
    pub ports: Ports,
    /// The embedded table's feed: what the dispatcher would hand over.
    pub feed: shared::embedded::feed::Feed,
    pub account: AccountId,
    pub plan: Plan,
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub async fn new(plan: Plan) -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(SystemClock);
        let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
        let feed = table.feed();
        // The key that seals webhook secrets and certificates (SVC_SECRETS_KEY).
        let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
        let ports = shared::adapters::ports(Arc::new(table), clock)
            .with_secrets(Arc::new(LocalSecrets::new(key)));
        let account = accounts::create(&ports, "Lambda", plan, None)
            .await
            .unwrap()
            .id;
        Scratch {
            ports,
            feed,
            account,
            plan,
            dir,
        }
    }

    /// A new key of the account: its caller and the key itself.
    pub async fn key(&self, mode: Mode) -> (Caller, String) {
        let (key_id, key) = keys::create(&self.ports, &self.account, mode)
            .await
            .unwrap();
        let caller = Caller {
            account_id: self.account.clone(),
            plan: self.plan,
            mode,
            key_id,
        };
        (caller, key.reveal())
    }

    /// Gives the account complete issuer details, so it can issue invoices.
    pub async fn with_issuer(self) -> Scratch {
        accounts::set_issuer(&self.ports, &self.account, &Issuer::demo())
            .await
            .unwrap();
        self
    }
}

/// A sample event's text with `key` in place of the placeholder.
pub fn with_key(event: &str, key: &str) -> String {
    event.replace(PLACEHOLDER_KEY, key)
}

/// Runs an API Gateway v2 event through `router` and returns lambda_http's
/// response as JSON (`statusCode`, `headers`, `body`).
pub async fn invoke(router: &axum::Router, event: &str) -> Value {
    let payload: LambdaRequest = serde_json::from_str(event).unwrap();
    let response = Adapter::from(router.clone())
        .ready()
        .await
        .unwrap()
        .call(LambdaEvent::new(payload, Context::default()))
        .await
        .unwrap();
    serde_json::to_value(&response).unwrap()
}

/// The JSON body of an `invoke` response.
pub fn body(response: &Value) -> Value {
    serde_json::from_str(response["body"].as_str().unwrap()).unwrap()
}

/// The ids of the messages an SQS batch response asks to receive again.
pub fn failures(response: &aws_lambda_events::event::sqs::SqsBatchResponse) -> Vec<&str> {
    response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect()
}
