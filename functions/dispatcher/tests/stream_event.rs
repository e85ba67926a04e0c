//! The sample stream batch from `events/` through the function's handler, as
//! the Lambda runtime would pass it: the job is queued, and a failure names
//! the record the stream must retry from.

use std::sync::Arc;

use aws_lambda_events::event::dynamodb::Event;
use infra_aws::stream_dispatcher::handle;
use shared::embedded::SqliteTable;
use shared::ports::clock::SystemClock;
use shared::ports::recording_queue::RecordingQueue;

fn sample() -> Event {
    serde_json::from_str(include_str!("../../../events/dispatcher-stream.json")).unwrap()
}

#[tokio::test]
async fn the_sample_batch_queues_its_job_and_reports_the_record_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let jobs = Arc::new(RecordingQueue::default());
    let ports = shared::adapters::ports(Arc::new(table), clock)
        .with_queues(jobs.clone(), Arc::new(RecordingQueue::default()));

    let response = handle(&ports, sample()).await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    assert_eq!(
        jobs.sent(),
        [r#"{"job_id":"job_019aa3b7c2e4a1b2c3d4e5f6"}"#]
    );

    jobs.refuse(1);
    let response = handle(&ports, sample()).await;
    let failed: Vec<_> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_deref())
        .collect();
    assert_eq!(failed, [Some("111100000000012345678901")]);
    let body = serde_json::to_value(&response).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"batchItemFailures": [{"itemIdentifier": "111100000000012345678901"}]})
    );
}
