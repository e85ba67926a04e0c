//! Async jobs on the AWS engines (emulator): a request in async mode stages
//! its body in S3 and commits its job in DynamoDB; the dispatcher puts the
//! job's message on the jobs queue (SQS), twice as a stream may; the worker
//! function's handler gets the batch as the SQS event source hands it over
//! and finishes the job once: one result, the staged body deleted, the
//! duplicate acked.

mod support;

use std::sync::Arc;

use aws_lambda_events::event::sqs::SqsEvent;
use aws_sdk_sqs::types::QueueAttributeName;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use infra_aws::{DynamoTable, S3Blobs, SqsQueue, sqs_worker};
use shared::app::dispatch::dispatch;
use shared::app::webhooks::Subscribers;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, service_router};
use shared::ids::random_token;
use shared::ports::Ports;
use shared::ports::clock::SystemClock;
use shared::ports::queue::NoQueue;
use shared::ports::table::Key;
use support::call;

fn get(path: &str, key: &str) -> Request<Body> {
    Request::get(path)
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap()
}

/// What the event source mapping does: receive a batch and hand it over as
/// an `SqsEvent`.
async fn receive_batch(
    sqs: &aws_sdk_sqs::Client,
    url: &str,
    count: usize,
) -> (SqsEvent, Vec<(String, String)>) {
    let mut records = Vec::new();
    let mut receipts = Vec::new();
    while records.len() < count {
        let received = sqs
            .receive_message()
            .queue_url(url)
            .max_number_of_messages(10)
            .wait_time_seconds(1)
            .send()
            .await
            .expect("receive");
        for m in received.messages() {
            let (id, receipt) = (m.message_id().unwrap(), m.receipt_handle().unwrap());
            receipts.push((id.to_string(), receipt.to_string()));
            records.push(
                json!({"messageId": id, "receiptHandle": receipt, "body": m.body().unwrap(),
                "attributes": {"ApproximateReceiveCount": "1"}, "messageAttributes": {},
                "eventSource": "aws:sqs", "awsRegion": "eu-west-1"}),
            );
        }
    }
    let event = serde_json::from_value(json!({"Records": records})).expect("an SQS event");
    (event, receipts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_function_finishes_an_async_job_once_from_its_sqs_events() {
    let what = "Jobs on DynamoDB, SQS and S3";
    if !["DYNAMODB", "SQS", "S3"]
        .into_iter()
        .all(|s| support::emulator_of(s, what))
    {
        return;
    }
    let config = infra_aws::sdk::config().await;
    let run = random_token(6);
    let clock = Arc::new(SystemClock);
    let table = DynamoTable::from_env(&format!("svc-jobs-{run}"), clock.clone()).await;
    table.create_table().await.unwrap();
    let sqs = aws_sdk_sqs::Client::new(&config);
    let url = sqs
        .create_queue()
        .queue_name(format!("svc-jobs-{run}"))
        .attributes(
            QueueAttributeName::VisibilityTimeout,
            infra_aws::environment::JOBS_QUEUE
                .visibility_timeout
                .as_secs()
                .to_string(),
        )
        .send()
        .await
        .expect("create the queue")
        .queue_url
        .unwrap();
    let bucket = format!("svc-staging-{run}");
    let blobs = S3Blobs::from_env(&bucket).await;
    blobs.create_bucket().await.expect("create the bucket");
    let ports = Ports::new(Arc::new(table), clock)
        .with_queues(
            Arc::new(SqsQueue::new(sqs.clone(), &url)),
            Arc::new(NoQueue),
        )
        .with_blobs(Arc::new(blobs));
    let account = accounts::create(&ports, "Nube", Plan::Pro, None)
        .await
        .unwrap();
    let (_, live) = keys::create(&ports, &account.id, Mode::Live).await.unwrap();
    let live = live.reveal();
    let app = service_router(AppState::new(ports.clone(), Config::default()));

    let rows: Vec<Value> = (0..30)
        .map(|i| json!({"Fecha": format!("2026-10-{:02}", 1 + i), "Cliente": format!("Cliente {}", i % 4), "Importe": 100 + i}))
        .collect();
    let body = json!({"type": "excel", "data": {"module": "ventas", "files": [{"name": "v.xlsx", "rows": rows}]}});
    let request = Request::post("/api/v1/analyze?async=true")
        .header("authorization", format!("Bearer {live}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let (status, queued) = call(&app, request).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{queued}");
    let id = queued["id"].as_str().unwrap();
    let input = format!("jobs/{id}/input");
    assert!(
        ports.blobs.get(&input).await.unwrap().is_some(),
        "staged in S3"
    );

    // The job item as the table's stream hands it to the dispatcher, twice.
    let item = ports
        .table
        .get(&Key::new(format!("JOB#{id}"), "JOB"))
        .await
        .unwrap()
        .expect("the job item");
    for _ in 0..2 {
        dispatch(&ports, &item, &mut Subscribers::default())
            .await
            .unwrap();
    }
    let (event, receipts) = receive_batch(&sqs, &url, 2).await;
    let response = sqs_worker::handle_jobs(&ports, event).await;
    let failed: Vec<&str> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.as_str())
        .collect();
    assert!(
        failed.len() <= 1,
        "only a duplicate meeting the lease waits: {failed:?}"
    );
    for (message_id, receipt) in &receipts {
        if !failed.contains(&message_id.as_str()) {
            sqs.delete_message()
                .queue_url(&url)
                .receipt_handle(receipt)
                .send()
                .await
                .unwrap();
        }
    }

    let (status, done) = call(&app, get(&format!("/api/v1/jobs/{id}"), &live)).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        (done["status"].as_str(), done["attempts"].as_u64()),
        (Some("succeeded"), Some(1)),
        "{done}"
    );
    let analysis = &done["result"];
    assert_eq!(analysis["object"], "analysis");
    let path = format!("/api/v1/analyses/{}", analysis["id"].as_str().unwrap());
    assert_eq!(call(&app, get(&path, &live)).await.1, *analysis);
    let (_, list) = call(&app, get("/api/v1/analyses", &live)).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1, "one result");
    assert_eq!(
        ports.blobs.get(&input).await.unwrap(),
        None,
        "the staged body is deleted"
    );

    // A later delivery of the finished job is acked without work.
    dispatch(&ports, &item, &mut Subscribers::default())
        .await
        .unwrap();
    let (event, _) = receive_batch(&sqs, &url, 1).await;
    assert!(
        sqs_worker::handle_jobs(&ports, event)
            .await
            .batch_item_failures
            .is_empty()
    );
    let (_, again) = call(&app, get(&format!("/api/v1/jobs/{id}"), &live)).await;
    assert_eq!(again, done);
}
