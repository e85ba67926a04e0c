//! The expenses endpoint group as a Lambda function: the book of received
//! invoices, with their documents kept in the staging bucket under `kept/`
//! (and uploads read from it).

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::{AppState, expenses, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_blobs(environment::ports().await?).await?;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(expenses::routes(), state)).await
}
