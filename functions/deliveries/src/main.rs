//! The deliveries function: consumes the deliveries queue (SQS event source),
//! signing each POST with the webhook's secret, opened with the webhook
//! secrets' KMS key (`SVC_KMS_WEBHOOK_KEY_ID`).

use aws_lambda_events::event::sqs::SqsEvent;
use infra_aws::environment;
use lambda_runtime::{Error, LambdaEvent, service_fn};
use shared::config::Config;

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::http::observe::init_logging();
    let config = Config::from_env()?;
    let ports = environment::with_queues(environment::ports().await?).await?;
    let ports = environment::with_secrets(environment::with_sender(ports, &config), &config).await;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        let ports = ports.clone();
        async move { Ok::<_, Error>(function_deliveries::handle(&ports, event.payload).await) }
    }))
    .await
}
