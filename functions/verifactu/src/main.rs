//! The VERI*FACTU submitter as a Lambda function, triggered every minute by
//! an EventBridge schedule (the AEAT's flow control asks for 60 s between
//! messages): each chain with pending records gets its next message, under
//! the chain's lease, so overlapping runs never send two messages at once.

use lambda_runtime::{LambdaEvent, service_fn};
use serde_json::{Value, json};
use shared::app::verifactu::{Outcome, submit_pending};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    shared::http::observe::init_logging();
    let ports = infra_aws::environment::state_from_env().await?.ports;
    lambda_runtime::run(service_fn(move |_: LambdaEvent<Value>| {
        let ports = ports.clone();
        async move {
            let outcomes = submit_pending(&ports).await?;
            let sent: usize = outcomes
                .iter()
                .map(|(_, o)| match o {
                    Outcome::Sent { records, .. } => *records,
                    _ => 0,
                })
                .sum();
            Ok::<_, lambda_runtime::Error>(json!({"chains": outcomes.len(), "records_sent": sent}))
        }
    }))
    .await
}
