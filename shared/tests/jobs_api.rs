//! Async mode over HTTP on the embedded host, in-process: a request made
//! with `?async=true` or `Prefer: respond-async` is checked and charged at
//! once and answered 202 with a job; the worker runs it; `GET /jobs/{id}`
//! shows the same result the synchronous request gives. Replays, errors
//! that create no job, retention, other accounts and test keys.

use crate::support;

use std::time::Duration;

use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::QuotaLimits;
use shared::domain::account::{Mode, Plan};
use shared::ports::queue::Disposition;
use support::jobs::{ANALYZE, EXTRACT, Env, pdf_request, start, ventas};
use support::{assert_error_shape, relaxed};

/// A text the field parser reads: one quota unit.
fn text_request() -> Value {
    json!({"texts": [{"name": "t", "text": "Factura nº 2026/0147, total factura 121,00 €"}]})
}

fn time(value: &Value) -> DateTime<Utc> {
    value.as_str().unwrap().parse().unwrap()
}

fn assert_queued(r: &support::Reply, kind: &str, livemode: bool) -> String {
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.json);
    let id = r.json["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("job_"), "{id}");
    assert_eq!(r.header("location"), format!("/api/v1/jobs/{id}"));
    assert_eq!(r.header("retry-after"), "2");
    let j = &r.json;
    assert_eq!(
        (j["object"].as_str(), j["kind"].as_str()),
        (Some("job"), Some(kind))
    );
    assert_eq!(
        (j["status"].as_str(), j["livemode"].as_bool()),
        (Some("queued"), Some(livemode))
    );
    assert_eq!(j["attempts"], 0);
    assert_eq!(
        time(&j["expires_at"]) - time(&j["created_at"]),
        chrono::Duration::hours(24)
    );
    for field in ["started_at", "finished_at", "result", "error"] {
        assert!(j[field].is_null(), "{field} in {j}");
    }
    id
}

/// Works until the job has finished; the job as `GET` shows it.
async fn run(env: &Env, id: &str, key: &str) -> Value {
    env.work_until_finished(id, key).await;
    let r = env.job(id, key).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(
        r.header("retry-after"),
        "",
        "a finished job needs no polling"
    );
    r.json
}

#[tokio::test]
async fn an_async_extraction_gives_the_sync_result_charged_once_also_when_replayed() {
    let env = start(relaxed()).await;
    let body = pdf_request(&env.invoice_pdf().await);
    let sync = env.post(EXTRACT, &env.h.live, None, &body).await;
    assert_eq!(sync.status, StatusCode::OK, "{}", sync.json);
    assert_eq!(sync.json["invoices"][0]["source"], "pdf_text");
    assert_eq!(env.used().await, 1);

    let path = format!("{EXTRACT}?async=true");
    let accepted = env.post(&path, &env.h.live, Some("job-1"), &body).await;
    let id = assert_queued(&accepted, "invoices.extract", true);
    assert_eq!(accepted.header("preference-applied"), "");
    assert_eq!(env.used().await, 2, "charged when queued");
    let replay = env.post(&path, &env.h.live, Some("job-1"), &body).await;
    assert_eq!(replay.status, StatusCode::ACCEPTED);
    assert_eq!(replay.header("idempotent-replayed"), "true");
    assert_eq!(replay.json, accepted.json);
    assert_eq!(replay.header("location"), accepted.header("location"));
    assert_eq!(replay.header("retry-after"), "2");
    assert_eq!(env.used().await, 2, "a replay charges nothing");
    assert_eq!(env.staged(), [format!("jobs/{id}/input")]);

    let queued = env.job(&id, &env.h.live).await;
    assert_eq!(queued.status, StatusCode::OK);
    assert_eq!(queued.json, accepted.json);
    assert_eq!(queued.header("retry-after"), "2");

    let done = run(&env, &id, &env.h.live).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(
        done["result"], sync.json,
        "the same result as the sync request"
    );
    assert_eq!(done["attempts"], 1);
    assert!(done["error"].is_null());
    let finished = time(&done["finished_at"]);
    assert!(time(&done["started_at"]) <= finished);
    assert_eq!(
        time(&done["expires_at"]) - finished,
        chrono::Duration::hours(24)
    );
    assert!(env.staged().is_empty(), "the input goes when the job ends");
    assert_eq!(env.used().await, 2);
    let events = env.events("job.completed").await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].data,
        json!({"job_id": id, "kind": "invoices.extract", "status": "succeeded", "result": sync.json})
    );
    assert!(events[0].livemode);

    env.dispatch_again(&id).await;
    assert_eq!(
        env.work_now().await,
        1,
        "a duplicate message of a finished job"
    );
    env.assert_queue_empty().await;
    assert_eq!(
        env.job(&id, &env.h.live).await.json,
        done,
        "and changes nothing"
    );
    assert_eq!(env.events("job.completed").await.len(), 1);
}

#[tokio::test]
async fn an_async_analysis_is_stored_announced_and_read_from_its_job() {
    let env = start(relaxed()).await;
    let sync = env.post(ANALYZE, &env.h.live, None, &ventas()).await;
    assert_eq!(sync.status, StatusCode::OK, "{}", sync.json);

    let accepted = env
        .post_preferring_async(ANALYZE, &env.h.live, &ventas())
        .await;
    let id = assert_queued(&accepted, "analyze", true);
    assert_eq!(accepted.header("preference-applied"), "respond-async");
    assert_eq!(env.used().await, 2);

    let done = run(&env, &id, &env.h.live).await;
    assert_eq!(done["status"], "succeeded", "{done}");
    let result = &done["result"];
    let stored = support::send(
        &env.h.app,
        support::get(
            &format!("/api/v1/analyses/{}", result["id"].as_str().unwrap()),
            Some(&env.h.live),
        ),
    )
    .await;
    assert_eq!(&stored.json, result, "the job's analysis is stored");
    let without_identity = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut()
            .unwrap()
            .retain(|k, _| k != "id" && k != "created_at");
        v
    };
    assert_eq!(without_identity(result), without_identity(&sync.json));
    assert_eq!(env.events("analysis.completed").await.len(), 2);
    let completed = env.events("job.completed").await;
    assert_eq!(completed.len(), 1);
    assert_eq!(completed[0].data["kind"], "analyze");
    assert_eq!(&completed[0].data["result"], result);
    assert_eq!(env.used().await, 2);
}

#[tokio::test]
async fn format_and_quota_errors_come_at_once_and_create_no_job() {
    let env = start(Config {
        quotas: QuotaLimits {
            mini: 1,
            pro: 1,
            max: 1,
        },
        ..relaxed()
    })
    .await;
    let live = env.h.live.clone();
    let r = env
        .post(&format!("{EXTRACT}?async=true"), &live, None, &json!({}))
        .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_missing",
    );
    let bad = json!({"type": "excel", "data": {"module": "ventas", "files": [{"name": "v.xlsx", "rows": []}]}});
    let r = env.post_preferring_async(ANALYZE, &live, &bad).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.json);
    assert_eq!(r.param(), "data.files[0].rows");
    let r = env
        .post(&format!("{ANALYZE}?async=soon"), &live, None, &ventas())
        .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(r.param(), "async");
    assert!(env.staged().is_empty());
    assert_eq!(env.used().await, 0);

    let first = env
        .post(&format!("{ANALYZE}?async=true"), &live, None, &ventas())
        .await;
    assert_queued(&first, "analyze", true);
    for path in [
        format!("{ANALYZE}?async=true"),
        format!("{EXTRACT}?async=true"),
    ] {
        let body = if path.starts_with(ANALYZE) {
            ventas()
        } else {
            text_request()
        };
        let r = env.post(&path, &live, None, &body).await;
        assert_error_shape(
            &r,
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "quota_exceeded",
        );
    }
    assert_eq!(env.staged().len(), 1, "only the first job was queued");
    let r = env
        .post(
            &format!("{EXTRACT}?async=false"),
            &live,
            None,
            &text_request(),
        )
        .await;
    assert_eq!(
        r.status,
        StatusCode::TOO_MANY_REQUESTS,
        "async=false is the sync mode"
    );
    assert_eq!(env.used().await, 1);
}

#[tokio::test]
async fn a_job_is_read_for_24_hours_after_it_ends_and_only_by_its_owner() {
    let env = start(relaxed()).await;
    let accepted = env
        .post(
            &format!("{ANALYZE}?async=true"),
            &env.h.live,
            None,
            &ventas(),
        )
        .await;
    let id = assert_queued(&accepted, "analyze", true);
    let forgotten = env
        .post(
            &format!("{ANALYZE}?async=true"),
            &env.h.live,
            None,
            &ventas(),
        )
        .await;
    let forgotten = assert_queued(&forgotten, "analyze", true);
    env.advance(Duration::from_secs(60));
    // Only this job runs: the other one's message waits in the queue.
    assert_eq!(env.work_on(&id).await, Disposition::Ack);
    let done = env.job(&id, &env.h.live).await.json;
    assert_eq!(done["status"], "succeeded", "{done}");

    let other = accounts::create(&env.h.ports, "Other", Plan::Pro, None)
        .await
        .unwrap();
    let (_, other_key) = keys::create(&env.h.ports, &other.id, Mode::Live)
        .await
        .unwrap();
    for (id, key) in [
        (id.as_str(), other_key.reveal()),
        (id.as_str(), env.h.test.clone()),
        ("job_123", env.h.live.clone()),
        ("an_0123456789abcdef01234567", env.h.live.clone()),
    ] {
        let r = env.job(id, &key).await;
        assert_error_shape(
            &r,
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "resource_missing",
        );
    }

    let finished = time(&done["finished_at"]);
    let expires = time(&done["expires_at"]);
    assert_eq!(expires - finished, chrono::Duration::hours(24));
    env.h.clock.set(expires - chrono::Duration::seconds(1));
    assert_eq!(env.job(&id, &env.h.live).await.status, StatusCode::OK);
    let r = env.job(&forgotten, &env.h.live).await;
    assert_eq!(
        r.status,
        StatusCode::NOT_FOUND,
        "a job never run is kept 24 h from its creation"
    );
    env.h.clock.set(expires);
    assert_eq!(
        env.job(&id, &env.h.live).await.status,
        StatusCode::NOT_FOUND
    );
    let messages = env.work().await + env.work_now().await;
    assert_eq!(
        messages, 2,
        "the messages of the finished and the expired job are acked"
    );
    env.assert_queue_empty().await;
}

#[tokio::test]
async fn test_keys_make_jobs_with_sample_results_and_no_quota() {
    let env = start(relaxed()).await;
    let test = env.h.test.clone();
    let body = json!({"texts": [{"name": "t.txt", "text": "Factura 7 Total 121,00 €"}]});
    let sync = env.post(EXTRACT, &test, None, &body).await;
    let accepted = env
        .post(&format!("{EXTRACT}?async=true"), &test, None, &body)
        .await;
    let extraction = assert_queued(&accepted, "invoices.extract", false);
    let accepted = env.post_preferring_async(ANALYZE, &test, &ventas()).await;
    let analysis = assert_queued(&accepted, "analyze", false);

    let done = run(&env, &extraction, &test).await;
    assert_eq!(done["status"], "succeeded");
    assert_eq!(done["livemode"], false);
    assert_eq!(
        done["result"], sync.json,
        "the sample a sync test request gives"
    );
    assert_eq!(done["result"]["livemode"], false);
    let done = run(&env, &analysis, &test).await;
    assert_eq!(done["result"]["livemode"], false, "{done}");
    assert_eq!(
        env.job(&analysis, &env.h.live).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(env.used().await, 0);
    let events = env.events("job.completed").await;
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|e| !e.livemode));
    assert!(env.events("analysis.completed").await.is_empty());
}
