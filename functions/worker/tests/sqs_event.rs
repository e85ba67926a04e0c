//! The sample SQS event (`events/worker-sqs.json`) through the worker
//! function's handler, in-process on the embedded engine: the job it names
//! ends `succeeded` and the batch reports no failure, also when the same
//! message comes again.

use aws_lambda_events::event::sqs::SqsEvent;
use function_testing::Scratch;
use infra_aws::environment::with_embedded_queues_and_blobs;
use infra_aws::sqs_worker::handle_jobs as handle;
use shared::app::jobs::{self, Kind, Status};
use shared::domain::account::{Mode, Plan};

const PLACEHOLDER_JOB: &str = "job_000000000000000000000000";

fn event(job_id: &str) -> SqsEvent {
    let text = include_str!("../../../events/worker-sqs.json").replace(PLACEHOLDER_JOB, job_id);
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn the_sample_sqs_event_runs_its_job() {
    let scratch = Scratch::new(Plan::Pro).await;
    let ports = with_embedded_queues_and_blobs(scratch.ports.clone(), scratch.dir.path()).unwrap();
    let (caller, _) = scratch.key(Mode::Live).await;
    let body = br#"{"type": "cuestionario", "data": {"answers": {"FIN1": true, "FIN2": false}}}"#;
    let (job, write) = jobs::submit(&ports, &caller, Kind::Analyze, body.to_vec(), None)
        .await
        .unwrap();
    ports.table.transact(vec![write]).await.unwrap();

    let response = handle(&ports, event(&job.id)).await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    let done = jobs::get(&ports, &caller, &job.id).await.unwrap().unwrap();
    assert_eq!(done.status, Status::Succeeded);
    assert_eq!(done.result.unwrap()["object"], "analysis");

    let response = handle(&ports, event(&job.id)).await;
    assert!(
        response.batch_item_failures.is_empty(),
        "a finished job's message is acked"
    );
}
