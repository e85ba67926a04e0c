//! The jobs worker on Lambda: a batch of the jobs queue from its event
//! source mapping (with `ReportBatchItemFailures`), `app::jobs::work` on
//! every message at once, and the messages to receive again. The mapping
//! deletes the others. A retry's wait is set on its message
//! (`ChangeMessageVisibility`) before it is reported, since the mapping
//! alone would wait the whole visibility timeout.

use std::collections::HashMap;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use shared::app::jobs::{Disposition, work};
use shared::ports::Ports;
use tokio::task::JoinSet;

pub async fn handle(ports: &Ports, event: SqsEvent) -> SqsBatchResponse {
    let mut running = JoinSet::new();
    let mut ids = HashMap::new();
    for record in event.records {
        let Some(message_id) = record.message_id else {
            continue;
        };
        let ports = ports.clone();
        let body = record.body.unwrap_or_default();
        let task = running.spawn(async move { work(&ports, &body).await });
        ids.insert(task.id(), (message_id, record.receipt_handle));
    }
    let mut response = SqsBatchResponse::default();
    while let Some(done) = running.join_next_with_id().await {
        let (task, retry) = match done {
            Ok((_, Disposition::Ack)) => continue,
            Ok((task, Disposition::Retry(after))) => (task, Some(after)),
            Err(e) => {
                tracing::error!(error = %e, "a job run panicked; its message comes back");
                (e.id(), None)
            }
        };
        let Some((message_id, receipt)) = ids.remove(&task) else {
            continue;
        };
        if let (Some(after), Some(receipt)) = (retry, receipt)
            && let Err(e) = ports.jobs.change_visibility(&receipt, after).await
        {
            tracing::warn!(message_id, error = %e, "retry wait not set; the visibility timeout applies");
        }
        response.add_failure(message_id);
    }
    response
}
