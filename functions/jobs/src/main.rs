//! The jobs endpoint group (`GET /api/v1/jobs/{id}`) as a Lambda function.

use shared::http::{Group, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let state = infra_aws::environment::state_from_env().await?;
    lambda_http::run(group_router(Group::Jobs, state)).await
}
