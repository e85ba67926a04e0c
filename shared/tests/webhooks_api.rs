//! The webhooks endpoints through the whole pipeline: registration and its
//! errors, list, get, update, delete, test sends, secret rotation, the
//! delivery log and manual retries; ids of another account or mode are 404.

use crate::support;

use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{Value as Json, json};
use shared::app::keys;
use shared::domain::account::{Mode, Plan};
use shared::ports::Clock;
use shared::webhooks::event_type::EventType;
use shared::webhooks::{DEFAULT_TOLERANCE, verify};
use support::assert_error_shape;
use support::webhooks::{Receiver, call, counts, drain, event, fan_out, harness, register};

fn v1_count(header: &str) -> usize {
    header.split(',').filter(|p| p.starts_with("v1=")).count()
}

#[tokio::test]
async fn a_webhook_is_registered_listed_read_updated_and_deleted() {
    let (h, _) = harness().await;
    let r = call(
        &h,
        Method::POST,
        "/api/v1/webhooks",
        &h.test,
        Some(json!({"url": "http://127.0.0.1:9/a", "events": ["invoice.paid", "job.failed"], "description": "ERP"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let w = &r.json;
    let id = w["id"].as_str().unwrap();
    assert!(id.starts_with("we_"));
    let secret = w["secret"].as_str().unwrap();
    assert!(
        secret.starts_with("whsec_") && secret.len() == 6 + 64,
        "{secret}"
    );
    assert_eq!(w["object"], "webhook");
    assert_eq!(w["events"], json!(["invoice.paid", "job.failed"]));
    assert_eq!(
        (&w["enabled"], &w["livemode"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(w["description"], "ERP");

    let path = format!("/api/v1/webhooks/{id}");
    let got = call(&h, Method::GET, &path, &h.test, None).await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.json.get("secret").is_none(), "the secret is shown once");
    let mut without_secret = w.clone();
    without_secret.as_object_mut().unwrap().remove("secret");
    assert_eq!(got.json, without_secret);

    h.clock.advance(chrono::Duration::milliseconds(1));
    let second = register(&h, &h.test, "http://127.0.0.1:9/b", json!(["*"])).await;
    let page = call(&h, Method::GET, "/api/v1/webhooks?limit=1", &h.test, None)
        .await
        .json;
    assert_eq!(page["object"], "list");
    assert_eq!(page["has_more"], true);
    assert_eq!(page["data"][0]["id"], second["id"], "newest first");
    assert!(page["data"][0].get("secret").is_none());
    let next = format!(
        "/api/v1/webhooks?limit=1&starting_after={}",
        second["id"].as_str().unwrap()
    );
    let page = call(&h, Method::GET, &next, &h.test, None).await.json;
    assert_eq!(
        (&page["data"][0]["id"], &page["has_more"]),
        (&json!(id), &json!(false))
    );

    let patched = call(
        &h,
        Method::PATCH,
        &path,
        &h.test,
        Some(json!({"url": "http://127.0.0.1:9/c", "events": ["*"], "enabled": false, "description": ""})),
    )
    .await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.json);
    let p = &patched.json;
    assert_eq!(p["url"], "http://127.0.0.1:9/c");
    assert_eq!(p["events"], json!(["*"]));
    assert_eq!(
        (&p["enabled"], &p["description"], &p["disabled_reason"]),
        (&json!(false), &Json::Null, &Json::Null)
    );
    let bad = call(
        &h,
        Method::PATCH,
        &path,
        &h.test,
        Some(json!({"events": ["invoice.paid", "nope"]})),
    )
    .await;
    assert_error_shape(
        &bad,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(bad.param(), "events[1]");

    let deleted = call(&h, Method::DELETE, &path, &h.test, None).await;
    assert_eq!(
        (deleted.status, &deleted.json["id"]),
        (StatusCode::OK, &json!(id))
    );
    let gone = call(&h, Method::GET, &path, &h.test, None).await;
    assert_error_shape(
        &gone,
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "resource_missing",
    );
    let again = call(&h, Method::DELETE, &path, &h.test, None).await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn bad_registrations_name_the_field_and_say_why() {
    let (h, _) = harness().await;
    let post = |body: Json, key: String| {
        let h = &h;
        async move { call(h, Method::POST, "/api/v1/webhooks", &key, Some(body)).await }
    };
    let r = post(
        json!({"url": "http://127.0.0.1:9/", "events": ["invoice.paid", "invoice.payed"]}),
        h.test.clone(),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(r.param(), "events[1]");
    let message = r.json["error"]["message"].as_str().unwrap();
    for t in EventType::SUBSCRIBABLE {
        assert!(message.contains(t.code()), "{message}");
    }
    let r = post(
        json!({"url": "http://127.0.0.1:9/", "events": []}),
        h.test.clone(),
    )
    .await;
    assert_eq!((r.code(), r.param()), ("parameter_invalid", "events"));
    let r = post(
        json!({"url": "http://127.0.0.1:9/", "events": ["*", "job.failed"]}),
        h.test.clone(),
    )
    .await;
    assert_eq!((r.code(), r.param()), ("parameter_invalid", "events"));
    let r = post(
        json!({"url": "ftp://127.0.0.1/", "events": ["*"]}),
        h.test.clone(),
    )
    .await;
    assert_eq!((r.code(), r.param()), ("url_invalid", "url"));
    let r = post(
        json!({"url": "http://127.0.0.1:9/", "events": ["*"]}),
        h.live.clone(),
    )
    .await;
    assert_eq!((r.code(), r.param()), ("url_invalid", "url"));
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("https")
    );
    let r = post(
        json!({"url": "https://u:p@127.0.0.1/", "events": ["*"]}),
        h.live.clone(),
    )
    .await;
    assert_eq!((r.code(), r.param()), ("url_invalid", "url"));
    let r = post(json!({"events": ["*"]}), h.test.clone()).await;
    assert_eq!((r.code(), r.param()), ("parameter_missing", "url"));
    let r = post(
        json!({"url": "http://127.0.0.1:9/", "events": ["*"], "secret": "x"}),
        h.test.clone(),
    )
    .await;
    assert_eq!(r.code(), "parameter_unknown");
    let r = post(
        json!({"url": "http://127.0.0.1:9/", "events": ["*"], "description": "d".repeat(501)}),
        h.test.clone(),
    )
    .await;
    assert_eq!((r.code(), r.param()), ("parameter_invalid", "description"));

    for n in 0..16 {
        register(
            &h,
            &h.test,
            &format!("http://127.0.0.1:9/{n}"),
            json!(["*"]),
        )
        .await;
    }
    let r = post(
        json!({"url": "http://127.0.0.1:9/17", "events": ["*"]}),
        h.test.clone(),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "webhook_limit_reached",
    );
    assert_eq!(
        post(
            json!({"url": "https://127.0.0.1:9/live", "events": ["*"]}),
            h.live.clone()
        )
        .await
        .status,
        StatusCode::CREATED,
        "the limit is per mode"
    );
}

#[tokio::test]
async fn another_accounts_or_modes_webhooks_are_not_found() {
    let (h, _) = harness().await;
    let live = register(&h, &h.live, "https://127.0.0.1:9/live", json!(["*"])).await;
    let id = live["id"].as_str().unwrap();
    let other = shared::app::accounts::create(&h.ports, "Other", Plan::Pro, None)
        .await
        .unwrap();
    let (_, other_key) = keys::create(&h.ports, &other.id, Mode::Live).await.unwrap();
    let e = event(&h, Mode::Live, "invoice.paid", json!({})).await;
    fan_out(&h.ports, &e).await;
    let delivery = format!("/api/v1/webhooks/{id}/deliveries");
    for key in [other_key.reveal(), h.test.clone()] {
        for (method, path, body) in [
            (Method::GET, format!("/api/v1/webhooks/{id}"), None),
            (
                Method::PATCH,
                format!("/api/v1/webhooks/{id}"),
                Some(json!({"enabled": false})),
            ),
            (Method::DELETE, format!("/api/v1/webhooks/{id}"), None),
            (Method::POST, format!("/api/v1/webhooks/{id}/test"), None),
            (
                Method::POST,
                format!("/api/v1/webhooks/{id}/rotate-secret"),
                None,
            ),
            (Method::GET, delivery.clone(), None),
            (
                Method::POST,
                format!("{delivery}/dlv_000000000000000000000000/retry"),
                None,
            ),
        ] {
            let r = call(&h, method.clone(), &path, &key, body).await;
            assert_error_shape(
                &r,
                StatusCode::NOT_FOUND,
                "invalid_request_error",
                "resource_missing",
            );
        }
        let list = call(&h, Method::GET, "/api/v1/webhooks", &key, None)
            .await
            .json;
        assert_eq!(list["data"], json!([]));
    }
    let unknown = call(
        &h,
        Method::POST,
        &format!("{delivery}/dlv_000000000000000000000000/retry"),
        &h.live,
        None,
    )
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let still = call(
        &h,
        Method::GET,
        &format!("/api/v1/webhooks/{id}"),
        &h.live,
        None,
    )
    .await;
    assert_eq!(
        (still.status, &still.json["enabled"]),
        (StatusCode::OK, &json!(true))
    );
}

#[tokio::test]
async fn test_mode_webhooks_get_test_events_only_and_live_ones_live_events_only() {
    let (h, queue) = harness().await;
    let live = register(&h, &h.live, "https://127.0.0.1:9/live", json!(["*"])).await;
    let test = register(&h, &h.test, "http://127.0.0.1:9/test", json!(["*"])).await;
    let unsubscribed = register(
        &h,
        &h.test,
        "http://127.0.0.1:9/other",
        json!(["job.failed"]),
    )
    .await;
    let targets = |bodies: Vec<String>| -> Vec<String> {
        bodies
            .iter()
            .map(|b| {
                serde_json::from_str::<Json>(b).unwrap()["webhook_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let e = event(&h, Mode::Test, "invoice.paid", json!({})).await;
    fan_out(&h.ports, &e).await;
    assert_eq!(targets(queue.bodies()), [test["id"].as_str().unwrap()]);
    assert_eq!(counts(&h, Mode::Test, &e.id).await.0, Some(1));
    let e = event(&h, Mode::Live, "invoice.paid", json!({})).await;
    fan_out(&h.ports, &e).await;
    assert_eq!(targets(queue.bodies())[1..], [live["id"].as_str().unwrap()]);
    assert!(
        !queue
            .bodies()
            .concat()
            .contains(unsubscribed["id"].as_str().unwrap())
    );
}

#[tokio::test]
async fn a_test_send_is_signed_logged_and_not_retried() {
    let (h, queue) = harness().await;
    let receiver = Receiver::start(&[200, 500]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["invoice.paid"])).await;
    let id = hook["id"].as_str().unwrap();
    let test = format!("/api/v1/webhooks/{id}/test");

    let r = call(&h, Method::POST, &test, &h.test, None).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let a = &r.json;
    assert_eq!(
        (&a["object"], &a["trigger"], &a["succeeded"]),
        (&json!("webhook_attempt"), &json!("test"), &json!(true))
    );
    assert_eq!((&a["status_code"], &a["error"]), (&json!(200), &Json::Null));
    assert!(a["response_body"].as_str().unwrap().starts_with("answer 1"));
    let got = &receiver.received()[0];
    let envelope = got.json();
    assert_eq!(envelope["type"], "webhook.test");
    assert_eq!(
        (&envelope["livemode"], &envelope["data"]["webhook_id"]),
        (&json!(false), &json!(id))
    );
    assert_eq!(a["event_id"], envelope["id"]);
    let secret = hook["secret"].as_str().unwrap();
    assert_eq!(
        verify(
            &got.body,
            got.header("svc-signature"),
            &[secret],
            DEFAULT_TOLERANCE,
            h.clock.now()
        ),
        Ok(())
    );

    h.clock.advance(chrono::Duration::milliseconds(1));
    let failed = call(&h, Method::POST, &test, &h.test, None).await.json;
    assert_eq!(
        (&failed["succeeded"], &failed["status_code"]),
        (&json!(false), &json!(500))
    );
    assert_eq!(queue.len(), 0, "a test send is not retried");
    let log = call(
        &h,
        Method::GET,
        &format!("/api/v1/webhooks/{id}/deliveries"),
        &h.test,
        None,
    )
    .await
    .json;
    assert_eq!(log["data"][0], failed);
    assert_eq!(log["data"][1], r.json);
    let w = call(
        &h,
        Method::GET,
        &format!("/api/v1/webhooks/{id}"),
        &h.test,
        None,
    )
    .await
    .json;
    assert!(
        w["failing_since"].is_string(),
        "a failed test counts for the webhook's health"
    );
}

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_new_one_for_24_hours() {
    let (h, _) = harness().await;
    let receiver = Receiver::start(&[]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["*"])).await;
    let id = hook["id"].as_str().unwrap();
    let old = hook["secret"].as_str().unwrap();
    let r = call(
        &h,
        Method::POST,
        &format!("/api/v1/webhooks/{id}/rotate-secret"),
        &h.test,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let new = r.json["secret"].as_str().unwrap();
    assert!(new.starts_with("whsec_") && new != old);
    let until: chrono::DateTime<chrono::Utc> = r.json["previous_secret_expires_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(until, h.clock.now() + chrono::Duration::hours(24));

    let test = format!("/api/v1/webhooks/{id}/test");
    assert_eq!(
        call(&h, Method::POST, &test, &h.test, None).await.status,
        StatusCode::OK
    );
    h.clock
        .advance(chrono::Duration::hours(24) - chrono::Duration::seconds(1));
    call(&h, Method::POST, &test, &h.test, None).await;
    h.clock.advance(chrono::Duration::seconds(1));
    call(&h, Method::POST, &test, &h.test, None).await;
    let got = receiver.received();
    assert_eq!(
        got.iter()
            .map(|r| v1_count(r.header("svc-signature")))
            .collect::<Vec<_>>(),
        [2, 2, 1]
    );
    let at = |r: &support::webhooks::Received| {
        let t: i64 = r.header("svc-signature")[2..12].parse().unwrap();
        chrono::DateTime::from_timestamp(t, 0).unwrap()
    };
    for r in &got {
        assert_eq!(
            verify(
                &r.body,
                r.header("svc-signature"),
                &[new],
                Duration::ZERO,
                at(r)
            ),
            Ok(())
        );
    }
    assert_eq!(
        verify(
            &got[1].body,
            got[1].header("svc-signature"),
            &[old],
            Duration::ZERO,
            at(&got[1])
        ),
        Ok(())
    );
    assert!(
        verify(
            &got[2].body,
            got[2].header("svc-signature"),
            &[old],
            Duration::ZERO,
            at(&got[2])
        )
        .is_err()
    );
}

#[tokio::test]
async fn an_exhausted_delivery_is_retried_by_hand() {
    let (h, queue) = harness().await;
    let receiver = Receiver::start(&[500; 8]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["invoice.unpaid"])).await;
    let id = hook["id"].as_str().unwrap();
    let e = event(&h, Mode::Test, "invoice.unpaid", json!({})).await;
    fan_out(&h.ports, &e).await;
    let start = h.clock.now();
    drain(&h.ports, &queue, &h.clock).await;
    let span = h.clock.now() - start;
    assert!(
        span > chrono::Duration::hours(15) && span < chrono::Duration::hours(24),
        "{span}"
    );
    assert_eq!(receiver.received().len(), 8);
    assert_eq!(counts(&h, Mode::Test, &e.id).await, (Some(1), None));

    let log = format!("/api/v1/webhooks/{id}/deliveries");
    let page = call(&h, Method::GET, &format!("{log}?limit=3"), &h.test, None)
        .await
        .json;
    assert_eq!(
        (page["data"].as_array().unwrap().len(), &page["has_more"]),
        (3, &json!(true))
    );
    assert_eq!(page["data"][0]["attempt"], 8);
    let after = page["data"][2]["id"].as_str().unwrap();
    let rest = call(
        &h,
        Method::GET,
        &format!("{log}?limit=100&starting_after={after}"),
        &h.test,
        None,
    )
    .await
    .json;
    assert_eq!(
        (rest["data"].as_array().unwrap().len(), &rest["has_more"]),
        (5, &json!(false))
    );
    assert_eq!(rest["data"][4]["attempt"], 1);

    let delivery = page["data"][0]["delivery_id"].as_str().unwrap();
    let r = call(
        &h,
        Method::POST,
        &format!("{log}/{delivery}/retry"),
        &h.test,
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(
        (&r.json["trigger"], &r.json["succeeded"], &r.json["attempt"]),
        (&json!("manual"), &json!(true), &Json::Null)
    );
    assert_eq!(r.json["event_id"], e.id.as_str());
    assert_eq!(receiver.received()[8].body, receiver.received()[0].body);
    assert_eq!(counts(&h, Mode::Test, &e.id).await, (Some(1), Some(1)));
    let again = call(
        &h,
        Method::POST,
        &format!("{log}/{delivery}/retry"),
        &h.test,
        None,
    )
    .await;
    assert_eq!(again.json["succeeded"], true);
    assert_eq!(
        counts(&h, Mode::Test, &e.id).await,
        (Some(1), Some(1)),
        "counted once"
    );
    let all = call(&h, Method::GET, &log, &h.test, None).await.json;
    assert_eq!(all["data"].as_array().unwrap().len(), 10);
    let w = call(
        &h,
        Method::GET,
        &format!("/api/v1/webhooks/{id}"),
        &h.test,
        None,
    )
    .await
    .json;
    assert_eq!(
        w["failing_since"],
        Json::Null,
        "a success clears the failure streak"
    );
}
