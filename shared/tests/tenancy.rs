//! An issuer NIF belongs to one account: its live VERI*FACTU chain cannot be
//! shared, and the chain check shows only the caller's own records.

use crate::support;

use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::app::{accounts, keys};
use shared::domain::account::{AccountId, Mode, Plan};
use shared::ports::table::{Key, UpdateOp, Value as Attr};
use support::{Harness, get, madrid_issuer, post_json, send};

fn invoice() -> String {
    json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4"},
        "lines": [{"description": "Servicio", "quantity": 1, "unit_price": 100, "vat_rate": 21}]})
    .to_string()
}

async fn second_account(h: &Harness) -> (AccountId, String) {
    let other = accounts::create(&h.ports, "Other", Plan::Pro, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&h.ports, &other.id, Mode::Live).await.unwrap();
    (other.id, key.reveal())
}

/// Issuer details stored as they were before NIFs were claimed.
async fn set_issuer_unclaimed(h: &Harness, account: &AccountId) {
    let json = serde_json::to_string(&madrid_issuer()).unwrap();
    h.ports
        .table
        .update(
            &accounts::key(account),
            vec![UpdateOp::Set("issuer".into(), Attr::S(json))],
            None,
        )
        .await
        .unwrap();
    h.ports.cache.forget(&accounts::key(account));
}

#[tokio::test]
async fn a_second_account_cannot_take_an_issuer_nif() {
    let h = support::start(support::relaxed(), Plan::Pro, axum::Router::new()).await;
    h.set_issuer().await;
    let (other, other_key) = second_account(&h).await;
    let taken = accounts::set_issuer(&h.ports, &other, &madrid_issuer()).await;
    assert!(
        matches!(taken, Err(accounts::AccountError::NifTaken(_))),
        "{taken:?}"
    );
    assert!(taken.unwrap_err().to_string().contains("12345678Z"));

    // An account whose issuer NIF predates the claims cannot write to the
    // chain another account holds; its test space is its own.
    set_issuer_unclaimed(&h, &other).await;
    let first = send(
        &h.app,
        post_json("/api/v1/invoices", &h.live, Some("a1"), &invoice()),
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.json);
    let refused = send(
        &h.app,
        post_json("/api/v1/invoices", &other_key, Some("b1"), &invoice()),
    )
    .await;
    support::assert_error_shape(
        &refused,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "issuer_nif_taken",
    );
    let (_, other_test) = keys::create(&h.ports, &other, Mode::Test).await.unwrap();
    let test = send(
        &h.app,
        post_json(
            "/api/v1/invoices",
            &other_test.reveal(),
            Some("b2"),
            &invoice(),
        ),
    )
    .await;
    assert_eq!(test.status, StatusCode::CREATED, "{}", test.json);
}

#[tokio::test]
async fn the_chain_check_shows_only_the_callers_records() {
    let h = support::start(support::relaxed(), Plan::Pro, axum::Router::new()).await;
    let (other, other_key) = second_account(&h).await;
    // Both accounts have the NIF from before the claims; the other one
    // issues first, then its claim is gone as it was then.
    set_issuer_unclaimed(&h, &h.account).await;
    set_issuer_unclaimed(&h, &other).await;
    let theirs = send(
        &h.app,
        post_json("/api/v1/invoices", &other_key, Some("b1"), &invoice()),
    )
    .await;
    assert_eq!(theirs.status, StatusCode::CREATED, "{}", theirs.json);
    h.ports
        .table
        .delete(&Key::new("NIFCLAIM#12345678Z", "LIVE"), None)
        .await
        .unwrap();
    for idem in ["a1", "a2"] {
        let ours = send(
            &h.app,
            post_json("/api/v1/invoices", &h.live, Some(idem), &invoice()),
        )
        .await;
        assert_eq!(ours.status, StatusCode::CREATED, "{}", ours.json);
    }

    let check = send(&h.app, get("/api/v1/verifactu/chain/verify", Some(&h.live))).await;
    assert_eq!(check.status, StatusCode::OK, "{}", check.json);
    assert_eq!(check.json["records"], json!(2), "{}", check.json);
    let theirs_check = send(
        &h.app,
        get("/api/v1/verifactu/chain/verify", Some(&other_key)),
    )
    .await;
    assert_eq!(
        theirs_check.json["records"],
        json!(1),
        "{}",
        theirs_check.json
    );
    let broken: &Value = &check.json["first_break"];
    if !broken.is_null() {
        assert_eq!(broken["index"], json!(0), "{}", check.json);
    }
}
