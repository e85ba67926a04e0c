//! The usage endpoint group as a Lambda function.

use infra_aws::http_function;
use shared::http::{group_router, usage};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let state = infra_aws::environment::table_state().await?;
    http_function::serve(group_router(usage::routes(), state)).await
}
