//! The extraction endpoint group as a Lambda function (OCR by AWS Textract).

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::AppState;
use shared::http::{extraction, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports =
        environment::with_blobs(environment::with_ocr(environment::ports().await?).await?).await?;
    let ports = environment::with_ai(ports, &config).await?;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(extraction::routes(), state)).await
}
