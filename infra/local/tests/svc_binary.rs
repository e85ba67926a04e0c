//! The `svc` binary end to end on the embedded engine: plain admin output, the
//! demo account of a first `svc serve`, and admin commands in other processes
//! while it serves.

mod support;

use support::{Svc, aeat_simulator, printed_value, usage};

fn embedded(dir: &tempfile::TempDir) -> Svc {
    Svc {
        storage: vec!["--data".into(), dir.path().display().to_string()],
    }
}

#[test]
fn admin_commands_print_plain_output_and_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let svc = embedded(&dir);
    let account = svc.ok(&[
        "accounts",
        "create",
        "--name",
        "Taller Ana",
        "--plan",
        "pro",
        "--nif",
        "B64717838",
    ]);
    assert!(
        account.starts_with("acct_") && !account.contains(char::is_whitespace),
        "{account}"
    );
    let key = svc.ok(&["keys", "create", "--account", &account, "--mode", "live"]);
    assert!(key.starts_with("svc_live_") && key.len() == 57, "{key}");
    assert_eq!(svc.ok(&["accounts", "set-plan", &account, "max"]), "");
    let issuer = [
        "issuer",
        "set",
        "--account",
        &account,
        "--name",
        "Taller Ana SL",
        "--nif",
        "b-64717838",
        "--address",
        "Calle Real 4",
        "--postal-code",
        "10003",
        "--city",
        "Cáceres",
        "--province",
        "Cáceres",
    ];
    assert_eq!(svc.ok(&issuer), "");

    let (success, _, stderr) = svc.run(&[
        "accounts",
        "create",
        "--name",
        "X",
        "--plan",
        "pro",
        "--nif",
        "12345678A",
    ]);
    assert!(!success && stderr.contains("control character"), "{stderr}");
    let (success, _, stderr) =
        svc.run(&["keys", "create", "--account", "acct_0000", "--mode", "test"]);
    assert!(
        !success && stderr.contains("no account acct_0000"),
        "{stderr}"
    );
    let (success, _, stderr) = svc.run(&["accounts", "set-plan", &account, "gold"]);
    assert!(!success && stderr.contains("gold"), "{stderr}");
    let (success, _, stderr) = svc.run(&["keys", "revoke", "key_nope"]);
    assert!(
        !success && stderr.contains("no API key key_nope"),
        "{stderr}"
    );
}

#[test]
fn a_first_serve_prints_demo_keys_and_admin_commands_work_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let svc = embedded(&dir);
    let (server, printed, base) = svc.serve();
    let live = printed_value(&printed, "live key: ");
    let test = printed_value(&printed, "test key: ");
    let demo = printed_value(&printed, "Created demo account ");
    let demo = demo.split_whitespace().next().unwrap();

    let (status, body) = usage(&base, &live);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["plan"].as_str(), body["livemode"].as_bool()),
        (Some("pro"), Some(true))
    );

    let other = svc.ok(&["accounts", "create", "--name", "Second", "--plan", "max"]);
    let key = svc.ok(&["keys", "create", "--account", &other, "--mode", "live"]);
    let (status, body) = usage(&base, &key);
    assert_eq!(
        (status, body["plan"].as_str()),
        (200, Some("max")),
        "a key made by another process works at once"
    );

    svc.ok(&["accounts", "set-plan", demo, "mini"]);
    let (status, body) = usage(&base, &live);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("api_plan_required"))
    );
    let (status, _) = usage(&base, &test);
    assert_eq!(status, 200);
    drop(server);

    let (_restarted, printed_again, _) = svc.serve();
    assert!(
        printed_again.iter().all(|l| !l.contains("key:")),
        "keys are printed only on the first run"
    );
}

#[test]
fn the_aeat_simulator_command_serves_the_soap_endpoint_and_its_control_api() {
    let (child, endpoint) = aeat_simulator(&["--wait-seconds", "5"]);
    let base = endpoint.split("/wlpl/").next().unwrap().to_string();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (status, fault, log) = runtime.block_on(async {
        let client = reqwest::Client::new();
        let response = client
            .post(&endpoint)
            .header("content-type", "text/xml; charset=utf-8")
            .body("<not-soap/>")
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let fault = response.text().await.unwrap();
        let log: serde_json::Value = client
            .get(format!("{base}/simulator/messages"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (status, fault, log)
    });
    drop(child);
    assert_eq!(status, 500);
    assert!(
        fault.contains("faultstring") && fault.contains("4102"),
        "{fault}"
    );
    assert_eq!(log[0]["outcome"], "unreadable");
}

#[test]
fn live_records_reach_the_aeat_endpoint_and_their_answer_shows_on_the_invoice() {
    let (simulator, endpoint) = aeat_simulator(&[]);
    let dir = tempfile::tempdir().unwrap();
    let (_server, printed, base) = embedded(&dir).serve_with(&[
        ("SVC_AEAT_ENDPOINT", &endpoint),
        ("SVC_RATE_LIMIT_PER_MINUTE", "100000"),
    ]);
    let live = printed_value(&printed, "live key: ");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let verifactu = runtime.block_on(async {
        let client = reqwest::Client::new();
        let issued: serde_json::Value = client
            .post(format!("{base}/api/v1/invoices"))
            .bearer_auth(&live)
            .header("idempotency-key", "e2e-1")
            .json(&serde_json::json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": 21}]}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let url = format!("{base}/api/v1/invoices/{}", issued["id"]);
        for _ in 0..100 {
            let invoice: serde_json::Value = client
                .get(&url)
                .bearer_auth(&live)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert!(invoice["verifactu"].is_object(), "{issued} {invoice}");
            if invoice["verifactu"]["status"] != "pending" {
                return invoice["verifactu"].clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        panic!("the record stayed pending");
    });
    drop(simulator);
    assert_eq!(verifactu["status"], "accepted", "{verifactu}");
    assert!(
        verifactu["answer"]["csv"]
            .as_str()
            .unwrap()
            .starts_with("A-SIM")
    );
}
