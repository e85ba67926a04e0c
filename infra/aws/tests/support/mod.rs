//! Whether an AWS emulator is configured for these tests, and what the
//! tests of the service on the emulator share: a call through a router,
//! and an account that can issue live invoices.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::Write as _;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

use shared::app::{accounts, keys};
use shared::domain::account::{Issuer, Mode, Plan};
use shared::ports::Ports;
use shared::tax::nif::Nif;

fn is_set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// `emulator_of("DYNAMODB", what)`.
pub fn emulator(what: &str) -> bool {
    emulator_of("DYNAMODB", what)
}

/// True when an endpoint for `service` (the suffix of its SDK endpoint
/// variable: `DYNAMODB`, `SQS`, `S3`) is configured (then emulator
/// credentials are set where none are). Otherwise says that `what` was not
/// run — past the test harness's capture, so a plain `cargo test` shows it —
/// or fails when `SVC_REQUIRE_<service>=1` (as in `bash .ci/run`).
pub fn emulator_of(service: &str, what: &str) -> bool {
    let endpoint = format!("AWS_ENDPOINT_URL_{service}");
    if !is_set(&endpoint) && !is_set("AWS_ENDPOINT_URL") {
        let not_run =
            format!("{what} NOT RUN: set {endpoint} to an emulator (bash .ci/run starts moto)");
        let require = format!("SVC_REQUIRE_{service}");
        assert!(
            std::env::var(&require).as_deref() != Ok("1"),
            "{require}=1 but {not_run}"
        );
        let _ = writeln!(std::io::stderr(), "\n{not_run}\n");
        return false;
    }
    for (var, value) in [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "eu-west-1"),
    ] {
        if !is_set(var) {
            // SAFETY: each test binary using this holds a single test, which calls
            // this before the SDK or any task reads the environment.
            unsafe { std::env::set_var(var, value) };
        }
    }
    true
}

/// Sends `req` through `app`: the status and the JSON body (null if none).
pub async fn call(app: &axum::Router, req: Request<Body>) -> (StatusCode, Value) {
    let response = app.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A Pro account with complete issuer details (Nube SA, A13585625) and its
/// live key.
pub async fn issuing_account(ports: &Ports) -> String {
    let account = accounts::create(ports, "Nube", Plan::Pro, None)
        .await
        .unwrap();
    let issuer = Issuer {
        name: Some("Nube SA".into()),
        nif: Some(Nif::parse("A13585625").unwrap()),
        address: Some("Gran Vía 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: None,
        country: Some("ES".into()),
    };
    accounts::set_issuer(ports, &account.id, &issuer)
        .await
        .unwrap();
    let (_, key) = keys::create(ports, &account.id, Mode::Live).await.unwrap();
    key.reveal()
}
