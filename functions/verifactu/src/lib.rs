//! The VERI*FACTU submitter as a Lambda function, woken two ways: by the
//! submission queue (SQS, a message per chain that just got its first
//! pending record: that chain is submitted at once) and every minute by an
//! EventBridge schedule (the sweep: what the AEAT's flow control let wait,
//! retries, chains whose message was lost). Each chain is submitted under
//! its lease, so overlapping runs never send two messages at once.

use aws_lambda_events::event::sqs::SqsEvent;
use serde_json::{Value, json};
use shared::app::verifactu::{Outcome, queue};
use shared::ports::Ports;

/// One invocation: a batch of the submission queue, or the schedule's sweep.
pub async fn handle(ports: &Ports, event: Value) -> Result<Value, lambda_runtime::Error> {
    if event.get("Records").is_some() {
        let batch: SqsEvent = serde_json::from_value(event)?;
        let owned = ports.clone();
        let response = infra_aws::sqs_worker::handle(&ports.submissions, batch, move |body| {
            let ports = owned.clone();
            async move { queue::work(&ports, &body).await }
        })
        .await;
        return Ok(serde_json::to_value(response)?);
    }
    let outcomes = queue::sweep(ports).await?;
    let sent: usize = outcomes
        .iter()
        .map(|(_, o)| match o {
            Outcome::Sent { records, .. } => *records,
            _ => 0,
        })
        .sum();
    Ok(json!({"chains": outcomes.len(), "records_sent": sent}))
}
