//! The webhooks endpoint group as a Lambda function: it seals the signing
//! secrets it makes (creation, rotation) and opens them for test sends and
//! retries with the webhook secrets' KMS key (`SVC_KMS_WEBHOOK_KEY_ID`).

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::AppState;
use shared::http::{group_router, webhooks};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_sender(environment::ports().await?, &config);
    let ports = environment::with_secrets(ports, &config).await;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(webhooks::routes(), state)).await
}
