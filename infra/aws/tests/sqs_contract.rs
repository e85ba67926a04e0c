//! The `Queue` contract suite against SQS, run when an emulator (or a real
//! endpoint) is configured through the SDK's standard endpoint variables.
//! Each check gets a fresh queue with a dead-letter queue, declared as
//! `template.yaml` declares the service's queues.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_sdk_sqs::Client;
use aws_sdk_sqs::types::QueueAttributeName;
use infra_aws::SqsQueue;
use shared::ids::random_token;
use shared::ports::queue_contract::{self, Fixture, MAX_RECEIVES, VISIBILITY_TIMEOUT};

async fn create_queue(
    client: &Client,
    name: &str,
    attributes: &[(QueueAttributeName, String)],
) -> String {
    let mut request = client.create_queue().queue_name(name);
    for (attribute, value) in attributes {
        request = request.attributes(attribute.clone(), value);
    }
    let created = request.send().await.expect("create the queue");
    created.queue_url.expect("a queue URL")
}

async fn queue_with_dead_letters(client: &Client, name: &str) -> Fixture {
    let dead_letters_url = create_queue(client, &format!("{name}-dlq"), &[]).await;
    let attributes = client
        .get_queue_attributes()
        .queue_url(&dead_letters_url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .expect("the dead-letter queue's ARN");
    let arn = &attributes.attributes().expect("attributes")[&QueueAttributeName::QueueArn];
    let redrive = format!(r#"{{"deadLetterTargetArn":"{arn}","maxReceiveCount":{MAX_RECEIVES}}}"#);
    let url = create_queue(
        client,
        name,
        &[
            (
                QueueAttributeName::VisibilityTimeout,
                VISIBILITY_TIMEOUT.as_secs().to_string(),
            ),
            (QueueAttributeName::RedrivePolicy, redrive),
        ],
    )
    .await;
    Fixture {
        queue: Arc::new(SqsQueue::new(client.clone(), url)),
        dead_letters: Arc::new(SqsQueue::new(client.clone(), dead_letters_url)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqs_engine_passes_the_queue_contract() {
    if !support::emulator_of("SQS", "SQS contract suite") {
        return;
    }
    let config = infra_aws::sdk::config().await;
    let client = &Client::new(&config);
    let run = &random_token(4);
    let made = &AtomicUsize::new(0);
    queue_contract::run(|| async move {
        let name = format!(
            "svc-contract-{run}-{}",
            made.fetch_add(1, Ordering::Relaxed)
        );
        queue_with_dead_letters(client, &name).await
    })
    .await;
}
