//! Async jobs on the AWS engines (emulator): a request in async mode stages
//! its body in S3 and commits its job in DynamoDB; the dispatcher puts the
//! job's message on the jobs queue (SQS), twice as a stream may; the worker
//! function's handler gets the batch as the SQS event source hands it over
//! and finishes the job once: one result, the staged body deleted, the
//! duplicate acked.

mod support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use infra_aws::sqs_worker;
use shared::app::dispatch::dispatch;
use shared::app::webhooks::Subscribers;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, service_router};
use shared::ports::table::Key;
use support::{call, receive_batch};

fn get(path: &str, key: &str) -> Request<Body> {
    Request::get(path)
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_function_finishes_an_async_job_once_from_its_sqs_events() {
    let Some((ports, sqs, url)) = support::jobs_on_aws("Jobs on DynamoDB, SQS and S3").await else {
        return;
    };
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
