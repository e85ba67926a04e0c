//! The analyses endpoint group as a Lambda function.

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::AppState;
use shared::http::{analyses, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_blobs(environment::ports().await?).await?;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(analyses::routes(), state)).await
}
