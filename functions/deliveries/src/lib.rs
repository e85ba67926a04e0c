//! The deliveries function: the SQS event source of the deliveries queue
//! hands it batches; each message goes to `app::webhooks::deliver`
//! (concurrently), and the messages that were not handled are reported as
//! batch item failures (`ReportBatchItemFailures`), so only they come back
//! after the queue's visibility timeout; Lambda deletes the others.

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use shared::app::webhooks::deliver;
use shared::ports::Ports;

pub async fn handle(ports: &Ports, event: SqsEvent) -> SqsBatchResponse {
    let running: Vec<_> = event
        .records
        .into_iter()
        .map(|record| {
            let ports = ports.clone();
            let id = record.message_id.unwrap_or_default();
            let task = tokio::spawn(async move {
                match record.body {
                    Some(body) => deliver(&ports, &body).await.map_err(|e| e.to_string()),
                    None => Err("a message without a body".to_string()),
                }
            });
            (id, task)
        })
        .collect();
    let mut response = SqsBatchResponse::default();
    for (id, task) in running {
        let error = match task.await {
            Ok(Ok(())) => continue,
            Ok(Err(error)) => error,
            Err(panic) => panic.to_string(),
        };
        tracing::warn!(message = %id, %error, "delivery message not handled; it comes back after the visibility timeout");
        response.add_failure(id);
    }
    response
}
