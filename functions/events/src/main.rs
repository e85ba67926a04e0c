//! The events endpoint group as a Lambda function.

use infra_aws::http_function;
use shared::http::{events, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let state = infra_aws::environment::table_state().await?;
    http_function::serve(group_router(events::routes(), state)).await
}
