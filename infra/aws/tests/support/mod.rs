//! Whether an AWS emulator is configured for these tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::Write as _;

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
