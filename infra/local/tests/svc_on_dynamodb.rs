//! The same admin commands and server on DynamoDB (`svc --table NAME`), run
//! when an emulator endpoint is configured (bash .ci/run starts moto).

use crate::support;

use std::io::Write as _;

use shared::verifactu::certificate_fixture::Fixture;
use support::{Svc, answered_within_the_cache_bound, usage};

fn endpoint_configured() -> bool {
    let set = |v: &str| std::env::var_os(v).is_some_and(|v| !v.is_empty());
    if set("AWS_ENDPOINT_URL_DYNAMODB") || set("AWS_ENDPOINT_URL") {
        return true;
    }
    assert!(
        std::env::var("SVC_REQUIRE_DYNAMODB").as_deref() != Ok("1"),
        "SVC_REQUIRE_DYNAMODB=1 but no DynamoDB endpoint is set"
    );
    let _ = writeln!(
        std::io::stderr(),
        "\nsvc on DynamoDB NOT RUN: set AWS_ENDPOINT_URL_DYNAMODB\n"
    );
    false
}

/// `svc` on a new table of the emulator.
fn new_table(prefix: &str) -> Svc {
    let svc = Svc {
        storage: vec![
            "--table".into(),
            format!("{prefix}-{}", shared::ids::random_token(4)),
        ],
    };
    assert_eq!(svc.ok(&["table", "create"]), "");
    svc
}

#[test]
fn admin_commands_and_serve_work_on_a_dynamodb_table() {
    if !endpoint_configured() {
        return;
    }
    let svc = new_table("svc-cli");
    let account = svc.create_account("Nube", "max", "A13585625");
    let key = svc.ok(&["keys", "create", "--account", &account, "--mode", "live"]);
    let issuer = [
        "issuer",
        "set",
        "--account",
        &account,
        "--name",
        "Nube SA",
        "--nif",
        "A13585625",
        "--address",
        "Gran Vía 1",
        "--postal-code",
        "28013",
        "--city",
        "Madrid",
    ];
    svc.ok(&issuer);

    let (_server, printed, base) = svc.serve();
    assert!(
        printed.iter().all(|l| !l.contains("key:")),
        "a table with accounts gets no demo account"
    );
    let (status, body) = usage(&base, &key);
    assert_eq!(
        (status, body["plan"].as_str()),
        (200, Some("max")),
        "{body}"
    );

    let test_key = svc.ok(&["keys", "create", "--account", &account, "--mode", "test"]);
    svc.ok(&["accounts", "set-plan", &account, "mini"]);
    let body = answered_within_the_cache_bound(&base, &key, 401);
    assert_eq!(body["error"]["code"], "api_plan_required");
    assert_eq!(usage(&base, &test_key).0, 200);
}

/// A new KMS key on the emulator (moto serves KMS beside DynamoDB).
fn kms_key() -> String {
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let config = infra_aws::sdk::config().await;
        aws_sdk_kms::Client::new(&config)
            .create_key()
            .send()
            .await
            .expect("a KMS key on the emulator")
            .key_metadata()
            .unwrap()
            .key_id()
            .to_string()
    })
}

#[test]
fn certificates_on_a_dynamodb_table_are_sealed_with_kms() {
    if !endpoint_configured() {
        return;
    }
    let set = |v: &str| std::env::var_os(v).is_some_and(|v| !v.is_empty());
    if !set("AWS_ENDPOINT_URL_KMS") && !set("AWS_ENDPOINT_URL") {
        assert!(
            std::env::var("SVC_REQUIRE_KMS").as_deref() != Ok("1"),
            "SVC_REQUIRE_KMS=1 but no KMS endpoint is set"
        );
        return;
    }
    let svc = new_table("svc-cert");
    let account = svc.create_account("Nube", "pro", "12345678Z");
    let dir = tempfile::tempdir().unwrap();
    let p12 = dir.path().join("cert.p12");
    std::fs::write(&p12, Fixture::person().pkcs12("pw")).unwrap();
    let key_id = kms_key();
    let (imported, out, err) = svc.run_with(
        &[
            "issuer",
            "certificate",
            "--account",
            &account,
            "--p12",
            p12.to_str().unwrap(),
            "--password-env",
            "PW",
        ],
        &[("PW", "pw"), ("SVC_KMS_KEY_ID", &key_id)],
        "",
    );
    assert!(imported, "{err}");
    assert!(out.contains("12345678Z"), "{out}");

    let (started, _, stderr) = svc.run_with(&["serve", "--addr", "not-an-address"], &[], "");
    assert!(!started && stderr.contains("SVC_KMS_KEY_ID"), "{stderr}");
    let (_server, printed, base) = svc.serve_with(&[("SVC_KMS_KEY_ID", &key_id)]);
    assert!(printed.iter().all(|l| !l.contains("key:")));
    let key = svc.ok(&["keys", "create", "--account", &account, "--mode", "test"]);
    assert_eq!(usage(&base, &key).0, 200);
}
