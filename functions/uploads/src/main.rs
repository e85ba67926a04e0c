//! The uploads endpoint group (`POST /api/v1/uploads`) as a Lambda function:
//! presigned PUTs to the staging bucket (`STAGING_BUCKET`, key prefix
//! `uploads/`).

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::{AppState, group_router, uploads};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_blobs(environment::ports().await?).await?;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(uploads::routes(), state)).await
}
