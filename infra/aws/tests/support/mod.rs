//! Whether a DynamoDB emulator is configured for these tests.

use std::io::Write as _;

fn is_set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// True when an endpoint is configured (then emulator credentials are set
/// where none are). Otherwise says that `what` was not run — past the test
/// harness's capture, so a plain `cargo test` shows it — or fails when
/// `SVC_REQUIRE_DYNAMODB=1` (as in `bash .ci/run`).
pub fn emulator(what: &str) -> bool {
    if !is_set("AWS_ENDPOINT_URL_DYNAMODB") && !is_set("AWS_ENDPOINT_URL") {
        let not_run = format!(
            "{what} NOT RUN: set AWS_ENDPOINT_URL_DYNAMODB to a DynamoDB emulator (bash .ci/run starts moto)"
        );
        assert!(
            std::env::var("SVC_REQUIRE_DYNAMODB").as_deref() != Ok("1"),
            "SVC_REQUIRE_DYNAMODB=1 but {not_run}"
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
