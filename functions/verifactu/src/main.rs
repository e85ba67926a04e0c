//! The `verifactu` function's entry point (see the library for what it does).

use lambda_runtime::{LambdaEvent, service_fn};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    shared::http::observe::init_logging();
    let ports = infra_aws::environment::state_from_env().await?.ports;
    let ports = &ports;
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        function_verifactu::handle(ports, event.payload).await
    }))
    .await
}
