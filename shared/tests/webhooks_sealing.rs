//! Signing secrets at rest: a registered webhook's item holds its secret
//! sealed, never in clear; an item written before sealing (the secret in
//! clear) still signs its deliveries, and is sealed at the webhook's next
//! change.

use crate::support;

use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::ports::Clock;
use shared::ports::table::{Item, Key, Value};
use shared::webhooks::{DEFAULT_TOLERANCE, verify};
use support::Harness;
use support::webhooks::{Receiver, call, harness, register};

/// The webhook's item as stored.
async fn raw_item(h: &Harness, id: &str) -> Item {
    let key = Key::new(format!("WEBHOOKS#{}#test", h.account), id);
    h.ports.table.get(&key).await.unwrap().expect("the webhook")
}

#[tokio::test]
async fn a_stored_webhook_holds_no_clear_secret() {
    let (h, _) = harness().await;
    let hook = register(&h, &h.test, "http://127.0.0.1:9/x", json!(["*"])).await;
    let (id, secret) = (
        hook["id"].as_str().unwrap(),
        hook["secret"].as_str().unwrap(),
    );
    let item = raw_item(&h, id).await;
    assert!(item.s("secret").is_none(), "{:?}", item.attrs.keys());
    assert!(item.s("secret_sealed").is_some());
    let stored = format!("{:?}", item.attrs);
    assert!(!stored.contains(&secret["whsec_".len()..]), "{stored}");

    let rotated = call(
        &h,
        Method::POST,
        &format!("/api/v1/webhooks/{id}/rotate-secret"),
        &h.test,
        None,
    )
    .await;
    let new_secret = rotated.json["secret"].as_str().unwrap();
    let item = raw_item(&h, id).await;
    assert!(item.s("previous_secret").is_none() && item.s("previous_secret_sealed").is_some());
    let stored = format!("{:?}", item.attrs);
    for s in [secret, new_secret] {
        assert!(!stored.contains(&s["whsec_".len()..]), "{stored}");
    }
}

#[tokio::test]
async fn a_legacy_clear_secret_still_signs_and_is_sealed_at_the_next_change() {
    let (h, _) = harness().await;
    let receiver = Receiver::start(&[]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["*"])).await;
    let id = hook["id"].as_str().unwrap();
    // The item as written before secrets were sealed.
    let legacy = "whsec_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab";
    let mut item = raw_item(&h, id).await;
    item.attrs.remove("secret_sealed");
    item.attrs.insert("secret".into(), Value::S(legacy.into()));
    h.ports.table.put(item, None).await.unwrap();

    let sent = call(
        &h,
        Method::POST,
        &format!("/api/v1/webhooks/{id}/test"),
        &h.test,
        None,
    )
    .await;
    assert_eq!(sent.json["succeeded"], json!(true), "{}", sent.json);
    let got = &receiver.received()[0];
    assert_eq!(
        verify(
            &got.body,
            got.header("svc-signature"),
            &[legacy],
            DEFAULT_TOLERANCE,
            h.clock.now()
        ),
        Ok(())
    );

    let changed = call(
        &h,
        Method::PATCH,
        &format!("/api/v1/webhooks/{id}"),
        &h.test,
        Some(json!({"description": "ERP"})),
    )
    .await;
    assert_eq!(changed.status, StatusCode::OK, "{}", changed.json);
    let item = raw_item(&h, id).await;
    assert!(item.s("secret").is_none() && item.s("secret_sealed").is_some());
    h.clock.advance(chrono::Duration::milliseconds(1));
    call(
        &h,
        Method::POST,
        &format!("/api/v1/webhooks/{id}/test"),
        &h.test,
        None,
    )
    .await;
    let got = &receiver.received()[1];
    assert_eq!(
        verify(
            &got.body,
            got.header("svc-signature"),
            &[legacy],
            DEFAULT_TOLERANCE,
            h.clock.now()
        ),
        Ok(()),
        "the sealed secret is the same secret"
    );
}
