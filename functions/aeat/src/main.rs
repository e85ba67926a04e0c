//! The API's questions to the AEAT as a Lambda function: comparing its
//! VERI*FACTU records with ours and importing received invoices, with the
//! account's certificate, which this function's role may open (KMS
//! `SVC_KMS_KEY_ID`) and no other request-serving function's may.

use infra_aws::{environment, http_function};
use shared::config::Config;
use shared::http::{AppState, aeat, group_router};

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_verifactu(environment::ports().await?, &config).await;
    let state = AppState::new(ports, config);
    http_function::serve(group_router(aeat::routes(), state)).await
}
