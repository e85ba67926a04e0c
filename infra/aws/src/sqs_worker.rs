//! A queue's worker on Lambda (the jobs worker, the VERI*FACTU submitter): a
//! batch of the queue from its event source mapping (with
//! `ReportBatchItemFailures`), the work on every message at once, and the
//! messages to receive again. The mapping deletes the others. A retry's wait
//! is set on its message (`ChangeMessageVisibility`) before it is reported,
//! since the mapping alone would wait the whole visibility timeout.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use shared::app::jobs;
use shared::ports::queue::Disposition;
use shared::ports::{Ports, Queue};
use tokio::task::JoinSet;

/// The jobs worker: `app::jobs::work` on each message of the jobs queue.
pub async fn handle_jobs(ports: &Ports, event: SqsEvent) -> SqsBatchResponse {
    let owned = ports.clone();
    handle(&ports.jobs, event, move |body| {
        let ports = owned.clone();
        async move { jobs::work(&ports, &body).await }
    })
    .await
}

/// `work` on each message of `queue`'s batch. A message the work leaves
/// (`Disposition::Leave`) is reported as it is, to come back after the
/// visibility timeout.
pub async fn handle<W, F>(queue: &Arc<dyn Queue>, event: SqsEvent, work: W) -> SqsBatchResponse
where
    W: Fn(String) -> F,
    F: Future<Output = Disposition> + Send + 'static,
{
    let mut running = JoinSet::new();
    let mut ids = HashMap::new();
    for record in event.records {
        let Some(message_id) = record.message_id else {
            continue;
        };
        let body = record.body.unwrap_or_default();
        let task = running.spawn(work(body));
        ids.insert(task.id(), (message_id, record.receipt_handle));
    }
    let mut response = SqsBatchResponse::default();
    while let Some(done) = running.join_next_with_id().await {
        let (task, retry) = match done {
            Ok((_, Disposition::Ack)) => continue,
            Ok((task, Disposition::Retry(after))) => (task, Some(after)),
            Ok((task, Disposition::Leave)) => (task, None),
            Err(e) => {
                tracing::error!(error = %e, "a message's work panicked; the message comes back");
                (e.id(), None)
            }
        };
        let Some((message_id, receipt)) = ids.remove(&task) else {
            continue;
        };
        if let (Some(after), Some(receipt)) = (retry, receipt)
            && let Err(e) = queue.change_visibility(&receipt, after).await
        {
            tracing::warn!(message_id, error = %e, "retry wait not set; the visibility timeout applies");
        }
        response.add_failure(message_id);
    }
    response
}
