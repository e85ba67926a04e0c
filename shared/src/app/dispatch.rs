//! The after-commit work of a created item, handed over by the table's feed
//! (DynamoDB Streams on AWS, the embedded feed in `svc serve`): a job goes to
//! the jobs queue, an event is fanned out to the account's webhooks, a letter
//! of the web application is sent (`people::postbox`), a chain
//! with its first pending VERI*FACTU record goes to the submission queue
//! (best effort: the submitter's sweep covers a lost one), any other item is
//! ignored. Feeds deliver at least once, so dispatching twice is safe:
//! a second job message finds the job leased or finished and is acked without
//! work, and a second fan-out finds its deliveries (their ids derive from the
//! event and the webhook) already made. A batch of items (one read of the
//! feed) shares one `Subscribers`, so the webhooks of an account and mode are
//! read once per batch.

use std::time::Duration;

use serde_json::json;

use crate::app::outbox::{self, Event};
use crate::app::people::postbox;
use crate::app::verifactu;
use crate::app::webhooks::{self, Subscribers};
use crate::metrics::{self, Metric};
use crate::ports::Ports;
use crate::ports::queue::QueueError;
use crate::ports::table::{Item, TableError};
use crate::webhooks::event_type::EventType;

/// The `entity` attribute of a job item.
pub const JOB_ENTITY: &str = "job";

#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error("the jobs queue refused the job: {0}")]
    Queue(#[from] QueueError),
    #[error("fan-out to webhooks failed: {0}")]
    Webhooks(String),
    #[error("a letter could not be prepared: {0}")]
    Mail(String),
    /// The item will never dispatch (it is malformed); retrying cannot help.
    #[error("cannot dispatch: {0}")]
    Unreadable(TableError),
}

impl DispatchError {
    /// Whether a retry can succeed; an unreadable item fails the same way forever.
    pub fn is_transient(&self) -> bool {
        !matches!(self, DispatchError::Unreadable(_))
    }
}

pub async fn dispatch(
    ports: &Ports,
    item: &Item,
    subscribers: &mut Subscribers,
) -> Result<(), DispatchError> {
    match item.s("entity") {
        Some(JOB_ENTITY) => {
            let message = json!({ "job_id": job_id(item)? }).to_string();
            ports.jobs.send(&message, Duration::ZERO).await?;
        }
        Some(verifactu::queue::ENTITY) => {
            let message = verifactu::queue::message(&item.key.sk);
            if let Err(e) = ports.submissions.send(&message, Duration::ZERO).await {
                tracing::warn!(chain = crate::redact::short_hash(&item.key.sk), error = %e, "the submitter was not told of a chain; its sweep sends it");
            }
        }
        Some(postbox::ENTITY) => postbox::deliver(ports, item)
            .await
            .map_err(|e| DispatchError::Mail(e.to_string()))?,
        Some(outbox::ENTITY) => {
            let event = Event::from_item(item).map_err(DispatchError::Unreadable)?;
            webhooks::fan_out(ports, &event, subscribers)
                .await
                .map_err(|e| DispatchError::Webhooks(e.to_string()))?;
            // What `Metric::InvoicesIssued` counts (live invoices only; the
            // feed may hand an event over twice, rarely).
            if event.livemode && event.kind == EventType::InvoiceIssued {
                metrics::emit(&[(Metric::InvoicesIssued, 1.0)]);
            }
        }
        _ => {}
    }
    Ok(())
}

/// A job item's key is `JOB#<job_id>`.
fn job_id(item: &Item) -> Result<&str, DispatchError> {
    item.key
        .pk
        .strip_prefix("JOB#")
        .filter(|id| !id.is_empty())
        .ok_or_else(|| {
            DispatchError::Unreadable(TableError::Invalid(format!(
                "job item {} has no job id in its key",
                item.key
            )))
        })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::app::test_ports;
    use crate::ports::recording_queue::RecordingQueue;
    use crate::ports::table::Key;

    fn with_jobs() -> (Ports, Arc<RecordingQueue>, tempfile::TempDir) {
        let (ports, dir) = test_ports();
        let jobs = Arc::new(RecordingQueue::default());
        let ports = ports.with_queues(jobs.clone(), Arc::new(RecordingQueue::default()));
        (ports, jobs, dir)
    }

    /// Dispatches `item` in a batch of its own.
    async fn alone(ports: &Ports, item: &Item) -> Result<(), DispatchError> {
        dispatch(ports, item, &mut Subscribers::default()).await
    }

    fn job(pk: &str) -> Item {
        Item::new(Key::new(pk, "JOB")).with("entity", "job")
    }

    #[tokio::test]
    async fn a_job_is_queued_by_its_id_each_time_it_is_dispatched() {
        let (ports, jobs, _dir) = with_jobs();
        alone(&ports, &job("JOB#job_01")).await.unwrap();
        alone(&ports, &job("JOB#job_01")).await.unwrap();
        assert_eq!(jobs.sent(), [r#"{"job_id":"job_01"}"#; 2]);

        jobs.refuse(1);
        let err = alone(&ports, &job("JOB#job_02")).await.unwrap_err();
        assert!(err.is_transient(), "{err}");
        let err = alone(&ports, &job("JOB#")).await.unwrap_err();
        assert!(!err.is_transient(), "{err}");
    }

    #[tokio::test]
    async fn a_chain_with_a_first_pending_record_goes_to_the_submitter_best_effort() {
        let (ports, _dir) = test_ports();
        let submissions = Arc::new(RecordingQueue::default());
        let ports = ports.with_submissions(submissions.clone());
        let marker = Item::new(Key::new("VERIFACTU#PENDING", "CHAIN#live#B1"))
            .with("entity", "verifactu_chain");
        alone(&ports, &marker).await.unwrap();
        assert_eq!(submissions.sent(), [r#"{"chain":"CHAIN#live#B1"}"#]);
        submissions.refuse(1);
        alone(&ports, &marker).await.unwrap();
        assert_eq!(submissions.sent().len(), 1, "a lost message fails nothing");
    }

    #[tokio::test]
    async fn events_are_fanned_out_and_other_items_ignored() {
        let (ports, jobs, _dir) = with_jobs();
        let account = "acct_0a1b".parse().unwrap();
        let write = outbox::record(
            &account,
            crate::domain::account::Mode::Live,
            EventType::InvoicePaid,
            json!({}),
            ports.clock.now(),
        );
        let crate::ports::table::Write::Put { item, .. } = write else {
            panic!("events are puts")
        };
        alone(&ports, &item).await.unwrap();
        let customer = Item::new(Key::new("CUSTOMERS#x", "cus_1")).with("entity", "customer");
        alone(&ports, &customer).await.unwrap();
        assert!(jobs.sent().is_empty());

        let broken = Item::new(Key::new("EVENTS#x", "evt_1")).with("entity", "event");
        let err = alone(&ports, &broken).await.unwrap_err();
        assert!(!err.is_transient(), "{err}");
    }
}
