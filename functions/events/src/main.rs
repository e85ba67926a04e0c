//! The events endpoint group as a Lambda function.

use shared::http::{events, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let state = infra_aws::environment::table_state().await?;
    lambda_http::run(group_router(events::routes(), state)).await
}
