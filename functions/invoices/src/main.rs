//! The invoices endpoint group as a Lambda function.

use infra_aws::http_function;
use shared::http::{group_router, invoices};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let state = infra_aws::environment::table_state().await?;
    http_function::serve(group_router(invoices::routes(), state)).await
}
