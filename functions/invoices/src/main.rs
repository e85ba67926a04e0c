//! The invoices endpoint group as a Lambda function (invoice emails through
//! SES when `SVC_EMAIL_SES` is set).

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::{AppState, group_router, invoices};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_mailer(environment::ports().await?, &config).await?;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(invoices::routes(), state)).await
}
