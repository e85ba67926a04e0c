//! The table's stream as a Lambda function: created events fan out to
//! webhooks, created jobs go to the jobs queue, the web application's
//! letters leave through SES (`infra_aws::stream_dispatcher`).

use aws_lambda_events::event::dynamodb::Event;
use infra_aws::environment;
use infra_aws::stream_dispatcher::handle;
use lambda_runtime::{LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    shared::http::observe::init_logging();
    let config = shared::config::Config::from_env()?;
    let ports = environment::with_queues(environment::ports().await?).await?;
    let ports = environment::with_mailer(ports, &config).await?;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Event>| {
        let ports = ports.clone();
        async move { Ok::<_, lambda_runtime::Error>(handle(&ports, event.payload).await) }
    }))
    .await
}
