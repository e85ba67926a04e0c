//! The web application (sign-up, sign-in, keys, members, static files) as a
//! Lambda function, on every path outside `/api/`; its emails (confirmation,
//! reset and invitation links) go through SES when `SVC_EMAIL_SES` is set.

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::AppState;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_mailer(environment::ports().await?, &config).await?;
    let state = AppState::new(ports, config);
    http_function::serve(shared::web::router(state)).await
}
