//! Deliveries verify with Stripe's official Python library
//! (`stripe.WebhookSignature.verify_header`, `.ci/stripe_verify.py`): a
//! delivery retried once after a failure, signed with a rotated secret and
//! its predecessor, checked as a receiver would check it; tampered bodies,
//! wrong secrets and stale timestamps are refused. Run by `bash .ci/run`,
//! which installs `stripe` and sets `SVC_PYTHON`.

use crate::support;

use std::io::Write as _;
use std::process::{Command, Stdio};

use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::domain::account::Mode;
use shared::webhooks::signature;
use support::webhooks::{Receiver, call, drain, event, fan_out, harness, register};

const SCRIPT: &str = include_str!("../../.ci/stripe_verify.py");

#[tokio::test]
async fn deliveries_verify_with_stripes_library() {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        assert!(
            std::env::var("SVC_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "SVC_REQUIRE_PYTHON=1 but SVC_PYTHON is not set"
        );
        let _ = writeln!(
            std::io::stderr(),
            "\nStripe signature verification test NOT RUN: set SVC_PYTHON (bash .ci/run does)\n"
        );
        return;
    };
    let (h, queue) = harness().await;
    // Stripe's library checks the timestamp against the real time.
    h.clock.set(chrono::Utc::now());
    let receiver = Receiver::start(&[503]).await;
    let hook = register(&h, &h.test, &receiver.url, json!(["invoice.paid"])).await;
    let old = hook["secret"].as_str().unwrap().to_string();
    let path = format!(
        "/api/v1/webhooks/{}/rotate-secret",
        hook["id"].as_str().unwrap()
    );
    let rotated = call(&h, Method::POST, &path, &h.test, None).await;
    assert_eq!(rotated.status, StatusCode::OK);
    let new = rotated.json["secret"].as_str().unwrap().to_string();
    let e = event(
        &h,
        Mode::Test,
        "invoice.paid",
        json!({"object": {"id": "inv_1", "total": "121.00", "nota": "añadido"}}),
    )
    .await;
    fan_out(&h.ports, &e).await;
    drain(&h.ports, &queue, &h.clock).await;
    let got = receiver.received();
    assert_eq!(got.len(), 2, "one failure, then the delivery");

    let mut cases = Vec::new();
    let mut expected = Vec::new();
    for r in &got {
        let payload = String::from_utf8(r.body.to_vec()).unwrap();
        let header = r.header("svc-signature").to_string();
        let tampered = payload.replace("121.00", "1.00");
        let stale = signature::header(
            r.body.as_ref(),
            &[&new],
            chrono::Utc::now().timestamp() - 3600,
        );
        for (payload, header, secret, ok) in [
            (&payload, &header, &new, true),
            (&payload, &header, &old, true),
            (&tampered, &header, &new, false),
            (&payload, &header, &"whsec_wrong".to_string(), false),
            (&payload, &stale, &new, false),
        ] {
            cases.push(
                json!({"payload": payload, "header": header, "secret": secret, "tolerance": 300})
                    .to_string(),
            );
            expected.push(ok);
        }
    }
    let mut child = Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("SVC_PYTHON runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all((cases.join("\n") + "\n").as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the script failed (is `stripe` installed?)"
    );
    let answers: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(answers.len(), cases.len());
    for ((case, answer), ok) in cases.iter().zip(&answers).zip(expected) {
        assert_eq!(answer == "ok", ok, "{case} → {answer}");
    }
}
