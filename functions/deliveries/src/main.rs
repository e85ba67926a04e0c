//! The deliveries function: consumes the deliveries queue (SQS event source).

use aws_lambda_events::event::sqs::SqsEvent;
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::http::observe::init_logging();
    let ports = infra_aws::environment::state_from_env().await?.ports;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        let ports = ports.clone();
        async move { Ok::<_, Error>(function_deliveries::handle(&ports, event.payload).await) }
    }))
    .await
}
