//! The agent-tool endpoint `POST /api/mcp` as a Lambda function: stateless,
//! so any instance answers any request; its tools run every endpoint group's
//! operations in-process (OCR by AWS Textract, jobs on SQS, invoice emails
//! through SES).

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
    http_function::serve(shared::mcp::router(state)).await
}
