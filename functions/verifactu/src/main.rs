//! The `verifactu` function's entry point (see the library for what it does).

use infra_aws::environment;
use lambda_runtime::{LambdaEvent, service_fn};
use serde_json::Value;
use shared::config::Config;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_queues(environment::ports().await?).await?;
    let ports = environment::with_verifactu(ports, &config).await;
    let ports = &ports;
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        function_verifactu::handle(ports, event.payload).await
    }))
    .await
}
