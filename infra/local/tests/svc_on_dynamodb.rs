//! The same admin commands and server on DynamoDB (`svc --table NAME`), run
//! when an emulator endpoint is configured (bash .ci/run starts moto).

mod support;

use std::io::Write as _;

use support::{Svc, usage};

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

#[test]
fn admin_commands_and_serve_work_on_a_dynamodb_table() {
    if !endpoint_configured() {
        return;
    }
    let table = format!("svc-cli-{}", shared::ids::random_token(4));
    let svc = Svc {
        storage: vec!["--table".into(), table],
    };
    assert_eq!(svc.ok(&["table", "create"]), "");
    let account = svc.ok(&[
        "accounts",
        "create",
        "--name",
        "Nube",
        "--plan",
        "max",
        "--nif",
        "A13585625",
    ]);
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
    assert_eq!(usage(&base, &key).1["error"]["code"], "api_plan_required");
    assert_eq!(usage(&base, &test_key).0, 200);
}
