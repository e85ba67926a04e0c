//! The email-feedback function: consumes the queue SES's bounces and
//! complaints reach through SNS (SQS event source).

use aws_lambda_events::event::sqs::SqsEvent;
use infra_aws::environment;
use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    shared::http::observe::init_logging();
    let ports = environment::ports().await?;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        let ports = ports.clone();
        async move { Ok::<_, Error>(function_email_feedback::handle(&ports, event.payload).await) }
    }))
    .await
}
