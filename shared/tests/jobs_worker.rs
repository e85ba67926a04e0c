//! The jobs worker under at-least-once delivery, on the embedded host: a
//! worker killed mid-job leaves its lease to expire and the redelivered
//! message finishes the job once; a message for a job another worker holds
//! waits; a job failing for the service's own fault is retried, and after
//! its last attempt ends `failed`, its quota unit given back.

use crate::support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::Value;

use shared::app::jobs::{LEASE, MAX_ATTEMPTS};
use support::jobs::{ANALYZE, Env, VISIBILITY, start, ventas};
use support::relaxed;

async fn queue_analysis(env: &Env) -> String {
    let r = env
        .post(
            &format!("{ANALYZE}?async=true"),
            &env.h.live,
            None,
            &ventas(),
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.json);
    r.json["id"].as_str().unwrap().to_string()
}

async fn job(env: &Env, id: &str) -> Value {
    let r = env.job(id, &env.h.live).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    r.json
}

#[tokio::test]
async fn a_worker_killed_mid_job_is_taken_over_after_its_lease_and_the_job_ends_once() {
    let env = start(relaxed()).await;
    let id = queue_analysis(&env).await;
    env.kill_worker_mid_job(&id).await;
    let running = job(&env, &id).await;
    assert_eq!(
        (running["status"].as_str(), running["attempts"].as_u64()),
        (Some("running"), Some(1))
    );
    assert_eq!(env.job(&id, &env.h.live).await.header("retry-after"), "2");

    // A second message for the job (a re-dispatch) waits for the lease.
    env.dispatch_again(&id).await;
    assert_eq!(env.work_now().await, 1);
    assert_eq!(job(&env, &id).await, running, "a live lease is left alone");
    assert_eq!(env.work_now().await, 0, "both messages are invisible");

    let lease = LEASE.to_std().unwrap();
    env.advance(lease);
    assert_eq!(
        env.work_now().await,
        1,
        "the waiting message came back with the lease's end"
    );
    let done = job(&env, &id).await;
    assert_eq!(
        (done["status"].as_str(), done["attempts"].as_u64()),
        (Some("succeeded"), Some(2))
    );
    assert_eq!(
        done["started_at"], running["started_at"],
        "started by the first run"
    );
    assert_eq!(
        env.work_now().await,
        0,
        "the killed worker's message is still invisible"
    );

    env.advance(VISIBILITY - lease);
    assert_eq!(
        env.work_now().await,
        1,
        "redelivered after the visibility timeout"
    );
    env.assert_queue_empty().await;
    assert_eq!(
        job(&env, &id).await,
        done,
        "acked without work: the job has ended"
    );
    assert_eq!(env.events("job.completed").await.len(), 1);
    assert_eq!(
        env.events("analysis.completed").await.len(),
        1,
        "one result"
    );
    assert_eq!(env.used().await, 1);
}

#[tokio::test]
async fn a_killed_worker_s_own_message_retakes_the_job_after_the_visibility_timeout() {
    let env = start(relaxed()).await;
    let id = queue_analysis(&env).await;
    env.kill_worker_mid_job(&id).await;
    env.advance(LEASE.to_std().unwrap());
    assert_eq!(
        env.work_now().await,
        0,
        "the message stays invisible for its visibility timeout"
    );
    env.advance(VISIBILITY - LEASE.to_std().unwrap());
    assert_eq!(env.work_now().await, 1);
    let done = job(&env, &id).await;
    assert_eq!(
        (done["status"].as_str(), done["attempts"].as_u64()),
        (Some("succeeded"), Some(2))
    );
    env.assert_queue_empty().await;
    assert_eq!(env.events("job.completed").await.len(), 1);
}

#[tokio::test]
async fn a_job_failing_on_the_service_s_side_is_retried_then_fails_and_costs_nothing() {
    let env = start(relaxed()).await;
    let id = queue_analysis(&env).await;
    assert_eq!(env.used().await, 1);
    env.blobs.fail_reads.store(true, Ordering::SeqCst);
    assert_eq!(env.work().await, 1, "the dispatcher's message");
    for attempt in 1..MAX_ATTEMPTS {
        if attempt > 1 {
            assert_eq!(env.work_now().await, 1);
        }
        let j = job(&env, &id).await;
        assert_eq!(
            (j["status"].as_str(), j["attempts"].as_u64()),
            (Some("running"), Some(u64::from(attempt)))
        );
        assert_eq!(env.work_now().await, 0, "retried after a pause");
        env.advance(Duration::from_secs(30 * u64::from(attempt)));
    }
    assert_eq!(env.work_now().await, 1);
    let failed = job(&env, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["attempts"], MAX_ATTEMPTS);
    assert!(failed["result"].is_null());
    assert_eq!(failed["error"]["type"], "api_error");
    assert_eq!(failed["error"]["code"], "internal_error");
    assert!(!failed["finished_at"].is_null());
    assert_eq!(env.used().await, 0, "the unit is given back");
    let events = env.events("job.failed").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data["status"], "failed");
    assert_eq!(events[0].data["error"], failed["error"]);
    assert!(env.events("job.completed").await.is_empty());
    assert!(env.events("analysis.completed").await.is_empty());
    assert!(env.staged().is_empty());
    env.assert_queue_empty().await;
}
