//! The web application as a Lambda function, on every path outside `/api/`:
//! its pages run every REST operation in-process as the signed-in account
//! (as the agent-tool endpoint does: OCR by AWS Textract, the AI model,
//! staged job inputs, webhooks over HTTP), its emails (confirmation, reset
//! and invitation links, invoices) go through SES when `SVC_EMAIL_SES` is
//! set, its Business page seals the uploaded VERI*FACTU certificate with KMS
//! (`SVC_KMS_KEY_ID`; it can seal, never open), and its webhooks pages seal
//! and open signing secrets with their own KMS key
//! (`SVC_KMS_WEBHOOK_KEY_ID`).

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::AppState;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_queues(environment::ports().await?).await?;
    let ports = environment::with_blobs(environment::with_ocr(ports).await?).await?;
    let ports = environment::with_ai(ports, &config).await?;
    let ports = environment::with_mailer(ports, &config).await?;
    let ports =
        environment::with_verifactu(environment::with_sender(ports, &config), &config).await;
    let state = AppState::new(ports, config);
    http_function::serve(shared::web::router(state)).await
}
