//! The jobs worker as a Lambda function: the jobs queue's SQS event source
//! hands it batches; the messages to receive again are reported as batch
//! item failures.

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use infra_aws::environment;
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::http::observe::init_logging();
    let config = shared::config::Config::from_env()?;
    let ports = environment::with_queues(environment::ports().await?).await?;
    let ports = environment::with_blobs(environment::with_ocr(ports).await?).await?;
    let ports = environment::with_ai(ports, &config).await?;
    let ports = &ports;
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| async move {
        Ok::<SqsBatchResponse, Error>(
            infra_aws::sqs_worker::handle_jobs(ports, event.payload).await,
        )
    }))
    .await
}
