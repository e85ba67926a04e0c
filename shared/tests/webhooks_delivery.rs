//! Deliveries end to end on the embedded engine: events fanned out to the
//! account's webhooks, the deliveries worker on the embedded queue driven by
//! the manual clock, a local receiver scripted to fail. Covers the retry
//! schedule, exactly-once delivery, `410 Gone`, 3 days of failures and the
//! event item's delivery counts.

use crate::support;

use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{Value as Json, json};
use shared::domain::account::Mode;
use shared::ports::Clock;
use shared::webhooks::schedule::RETRY_DELAYS;
use shared::webhooks::verify;
use support::webhooks::{
    Receiver, call, counts, drain, drain_until, event, fan_out, harness, register,
};

fn signed_at(header: &str) -> i64 {
    header
        .split(',')
        .find_map(|p| p.strip_prefix("t="))
        .unwrap()
        .parse()
        .unwrap()
}

#[tokio::test]
async fn an_endpoint_failing_n_times_gets_the_event_once_after_n_logged_failures() {
    let (h, queue) = harness().await;
    let failures = [500, 302, 404, 503];
    let receiver = Receiver::start(&failures).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["invoice.paid"])).await;
    let secret = hook["secret"].as_str().unwrap();
    let e = event(
        &h,
        Mode::Test,
        "invoice.paid",
        json!({"object": {"id": "inv_1"}}),
    )
    .await;

    fan_out(&h.ports, &e).await;
    drain(&h.ports, &queue, &h.clock).await;

    let got = receiver.received();
    assert_eq!(got.len(), failures.len() + 1);
    let body = &got[0].body;
    assert_eq!(
        got[0].json(),
        json!({"id": e.id, "type": "invoice.paid", "created_at": e.created_at, "livemode": false,
            "data": {"object": {"id": "inv_1"}}})
    );
    for (i, r) in got.iter().enumerate() {
        assert_eq!(&r.body, body, "every attempt sends the same bytes");
        assert_eq!(r.header("svc-event"), "invoice.paid");
        assert_eq!(r.header("svc-event-id"), e.id);
        assert_eq!(r.header("content-type"), "application/json");
        assert!(r.header("user-agent").starts_with("svc-webhooks/"));
        let header = r.header("svc-signature");
        let at = chrono::DateTime::from_timestamp(signed_at(header), 0).unwrap();
        assert_eq!(
            verify(&r.body, header, &[secret], Duration::ZERO, at),
            Ok(()),
            "attempt {i}"
        );
    }
    for (i, pair) in got.windows(2).enumerate() {
        let gap =
            signed_at(pair[1].header("svc-signature")) - signed_at(pair[0].header("svc-signature"));
        let scheduled = RETRY_DELAYS[i].as_secs_f64();
        assert!(
            (gap as f64) >= (scheduled * 0.8).floor() && (gap as f64) <= scheduled * 1.2 + 1.0,
            "wait {i}: {gap} s for {scheduled} s ±20 %"
        );
    }

    let id = hook["id"].as_str().unwrap();
    let log = call(
        &h,
        Method::GET,
        &format!("/api/v1/webhooks/{id}/deliveries"),
        &h.test,
        None,
    )
    .await;
    assert_eq!(log.status, StatusCode::OK);
    let attempts = log.json["data"].as_array().unwrap();
    assert_eq!(attempts.len(), failures.len() + 1);
    assert_eq!(attempts[0]["succeeded"], true);
    assert_eq!(attempts[0]["status_code"], 200);
    let statuses: Vec<&Json> = attempts.iter().map(|a| &a["status_code"]).collect();
    assert_eq!(
        statuses,
        [
            &json!(200),
            &json!(503),
            &json!(404),
            &json!(302),
            &json!(500)
        ]
    );
    for (a, number) in attempts.iter().zip([5, 4, 3, 2, 1]) {
        assert_eq!(a["attempt"], number);
        assert_eq!(a["trigger"], "scheduled");
        assert_eq!(a["event_id"], e.id.as_str());
        assert_eq!(a["delivery_id"], attempts[0]["delivery_id"]);
        assert_eq!(a["response_body"].as_str().unwrap().len(), 2048);
        assert!(a["response_body"].as_str().unwrap().starts_with("answer "));
    }
    assert_eq!(
        attempts.iter().filter(|a| a["succeeded"] == false).count(),
        failures.len()
    );
    assert_eq!(counts(&h, Mode::Test, &e.id).await, (Some(1), Some(1)));

    // A second dispatch of the same event creates nothing and sends nothing.
    fan_out(&h.ports, &e).await;
    assert_eq!(queue.len(), 0);
    drain(&h.ports, &queue, &h.clock).await;
    assert_eq!(receiver.received().len(), failures.len() + 1);
}

#[tokio::test]
async fn a_duplicated_message_makes_one_attempt() {
    let (h, queue) = harness().await;
    let receiver = Receiver::start(&[]).await;
    register(&h, &h.test, &receiver.url, json!(["*"])).await;
    let e = event(&h, Mode::Test, "job.completed", json!({"job_id": "job_1"})).await;
    fan_out(&h.ports, &e).await;
    fan_out(&h.ports, &e).await;
    assert_eq!(
        queue.len(),
        2,
        "a dispatch that may have lost its message sends it again"
    );
    drain(&h.ports, &queue, &h.clock).await;
    assert_eq!(receiver.received().len(), 1);
    assert_eq!(counts(&h, Mode::Test, &e.id).await, (Some(1), Some(1)));
}

#[tokio::test]
async fn gone_disables_the_webhook_at_once_and_enabling_it_clears_the_reason() {
    let (h, queue) = harness().await;
    let receiver = Receiver::start(&[410]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["invoice.issued"])).await;
    let path = format!("/api/v1/webhooks/{}", hook["id"].as_str().unwrap());
    let e = event(&h, Mode::Test, "invoice.issued", json!({})).await;
    fan_out(&h.ports, &e).await;
    drain(&h.ports, &queue, &h.clock).await;

    assert_eq!(receiver.received().len(), 1, "no retry after 410");
    let w = call(&h, Method::GET, &path, &h.test, None).await.json;
    assert_eq!(w["enabled"], false);
    assert!(
        w["disabled_reason"].as_str().unwrap().contains("410 Gone"),
        "{w}"
    );
    assert_eq!(counts(&h, Mode::Test, &e.id).await, (Some(1), None));

    let later = event(&h, Mode::Test, "invoice.issued", json!({})).await;
    fan_out(&h.ports, &later).await;
    assert_eq!(queue.len(), 0, "a disabled webhook gets no deliveries");

    let w = call(
        &h,
        Method::PATCH,
        &path,
        &h.test,
        Some(json!({"enabled": true})),
    )
    .await;
    assert_eq!(w.status, StatusCode::OK, "{}", w.json);
    assert_eq!(
        (&w.json["enabled"], &w.json["disabled_reason"]),
        (&json!(true), &Json::Null)
    );
}

#[tokio::test]
async fn three_days_of_failed_attempts_disable_the_webhook() {
    let (h, queue) = harness().await;
    let receiver = Receiver::start(&[503; 200]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["quota.threshold"])).await;
    let path = format!("/api/v1/webhooks/{}", hook["id"].as_str().unwrap());
    let start = h.clock.now();
    let mut disabled_at = None;
    for half_day in 1..=10 {
        let e = event(&h, Mode::Test, "quota.threshold", json!({"percent": 80})).await;
        fan_out(&h.ports, &e).await;
        drain_until(
            &h.ports,
            &queue,
            &h.clock,
            start + chrono::Duration::hours(12 * half_day),
        )
        .await;
        let w = call(&h, Method::GET, &path, &h.test, None).await.json;
        if w["enabled"] == false {
            disabled_at.get_or_insert(half_day);
            assert_eq!(
                w["disabled_reason"],
                format!(
                    "every delivery attempt failed for 3 days (since {})",
                    start.format("%Y-%m-%dT%H:%M:%SZ")
                )
            );
        } else {
            assert!(w["failing_since"].is_string());
        }
    }
    assert_eq!(
        disabled_at,
        Some(7),
        "disabled on the first failure after 72 h"
    );
    let attempts = receiver.received().len();
    drain(&h.ports, &queue, &h.clock).await;
    assert_eq!(
        receiver.received().len(),
        attempts,
        "pending retries end once disabled"
    );
}

#[tokio::test]
async fn a_deleted_webhook_ends_its_deliveries_unsent() {
    let (h, queue) = harness().await;
    let receiver = Receiver::start(&[]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["*"])).await;
    let e = event(&h, Mode::Test, "fiscal.deadline", json!({"form": "303"})).await;
    fan_out(&h.ports, &e).await;
    let path = format!("/api/v1/webhooks/{}", hook["id"].as_str().unwrap());
    assert_eq!(
        call(&h, Method::DELETE, &path, &h.test, None).await.status,
        StatusCode::OK
    );
    drain(&h.ports, &queue, &h.clock).await;
    assert!(receiver.received().is_empty());
    assert_eq!(receiver.pending(), 0);
}

#[tokio::test]
async fn a_tls_failure_is_a_failed_attempt_without_a_status() {
    let receiver = Receiver::start(&[]).await;
    let plain = url::Url::parse(&receiver.url.replace("http://", "https://")).unwrap();
    let sender = shared::adapters::webhook_http::HttpWebhookSender::new(true);
    let outcome = shared::ports::WebhookSender::post(&sender, &plain, &[], b"{}").await;
    assert_eq!(outcome.status, None);
    assert!(!outcome.error.unwrap().is_empty());
    assert!(
        receiver.received().is_empty(),
        "no request without a TLS session"
    );
}
