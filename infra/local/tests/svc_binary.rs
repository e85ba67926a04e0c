//! The `svc` binary end to end on the embedded engine: plain admin output, the
//! demo account of a first `svc serve`, and admin commands in other processes
//! while it serves.

use crate::support;

use shared::verifactu::certificate_fixture::Fixture;
use support::{Svc, aeat_simulator, answered_within_the_cache_bound, printed_value, usage};

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
    let terms = ["issuer", "payment-terms", "--account", &account, "--days"];
    assert_eq!(svc.ok(&[&terms[..], &["45"]].concat()), "");
    let (success, _, stderr) = svc.run(&[&terms[..], &["61"]].concat());
    assert!(!success && stderr.contains("0 to 60 days"), "{stderr}");
    let limit = [
        "issuer",
        "simplified-limit",
        "--account",
        &account,
        "--euros",
    ];
    assert_eq!(svc.ok(&[&limit[..], &["3000"]].concat()), "");
    let (success, _, stderr) = svc.run(&[&limit[..], &["1000"]].concat());
    assert!(!success && stderr.contains("art. 4.2"), "{stderr}");

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
    let (created, key, printed) =
        svc.run(&["keys", "create", "--account", &other, "--mode", "live"]);
    assert!(created, "{printed}");
    let key_id = printed
        .strip_prefix("key id: ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the key id on standard error: {printed}"));
    let (status, body) = usage(&base, &key);
    assert_eq!(
        (status, body["plan"].as_str()),
        (200, Some("max")),
        "a key made by another process works at once"
    );

    svc.ok(&["accounts", "set-plan", demo, "mini"]);
    let body = answered_within_the_cache_bound(&base, &live, 401);
    assert_eq!(body["error"]["code"], "api_plan_required", "{body}");
    let (status, _) = usage(&base, &test);
    assert_eq!(status, 200);

    svc.ok(&["keys", "revoke", key_id]);
    let body = answered_within_the_cache_bound(&base, &key, 401);
    assert_eq!(body["error"]["code"], "api_key_revoked", "{body}");
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
    let svc = embedded(&dir);
    let secrets_key = svc.ok(&["secrets-key"]);
    let (_server, printed, base) = svc.serve_with(&[
        ("SVC_AEAT_ENDPOINT", &endpoint),
        ("SVC_RATE_LIMIT_PER_MINUTE", "100000"),
        ("SVC_SECRETS_KEY", &secrets_key),
    ]);
    let live = printed_value(&printed, "live key: ");
    let account = printed_value(&printed, "Created demo account ");
    let account = account.split_whitespace().next().unwrap();
    let p12 = dir.path().join("cert.p12");
    std::fs::write(&p12, Fixture::person().pkcs12("pw")).unwrap();
    let (imported, out, err) = svc.run_with(
        &[
            "issuer",
            "certificate",
            "--account",
            account,
            "--p12",
            p12.to_str().unwrap(),
        ],
        &[("SVC_SECRETS_KEY", &secrets_key)],
        "pw\n",
    );
    assert!(imported, "{err}");
    assert!(out.contains("NIF:         12345678Z"), "{out}");
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

/// `svc serve` with `env`: its exit status and stderr if it stops within 30 s.
fn serve_stops(svc: &Svc, env: &[(&str, &str)]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stderr");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_svc"))
        .args(&svc.storage)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("SVC_SECRETS_KEY")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&out).unwrap())
        .spawn()
        .unwrap();
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.success(), std::fs::read_to_string(&out).unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("svc serve did not stop");
}

#[test]
fn certificates_are_checked_on_import_sealed_and_needed_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let svc = embedded(&dir);
    let account = svc.create_account("Ana", "pro", "12345678Z");
    let key = svc.ok(&["secrets-key"]);
    assert_eq!(key.len(), 64);
    let file = |name: &str, bytes: Vec<u8>| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let good = file("good.p12", Fixture::person().pkcs12("right"));
    let expired = file("expired.p12", Fixture::person().expired().pkcs12("pw"));
    let no_key = file("nokey.p12", Fixture::person().without_key("pw"));
    let junk = file("junk.p12", b"hello".to_vec());
    let import = |path: &str, password: &str, secrets: &str| {
        svc.run_with(
            &[
                "issuer",
                "certificate",
                "--account",
                &account,
                "--p12",
                path,
                "--password-env",
                "P12_PASSWORD",
            ],
            &[("P12_PASSWORD", password), ("SVC_SECRETS_KEY", secrets)],
            "",
        )
    };
    let failure = |(success, _, stderr): (bool, String, String)| {
        assert!(!success);
        stderr
    };
    assert!(failure(import(&good, "wrong", &key)).contains("the password does not open"));
    assert!(failure(import(&expired, "pw", &key)).contains("expired on 2025-06-30"));
    assert!(failure(import(&no_key, "pw", &key)).contains("holds no private key"));
    assert!(failure(import(&junk, "pw", &key)).contains("not a PKCS#12 certificate"));
    assert!(failure(import(&good, "right", "")).contains("SVC_SECRETS_KEY"));
    let missing = dir.path().join("missing.p12").display().to_string();
    assert!(failure(import(&missing, "right", &key)).contains("--p12"));
    let (_, _, unset) = svc.run_with(
        &[
            "issuer",
            "certificate",
            "--account",
            &account,
            "--p12",
            &good,
            "--password-env",
            "NOT_SET_ANYWHERE",
        ],
        &[("SVC_SECRETS_KEY", &key)],
        "",
    );
    assert!(unset.contains("--password-env NOT_SET_ANYWHERE"), "{unset}");
    let (_, _, as_argument) = svc.run(&[
        "issuer",
        "certificate",
        "--account",
        &account,
        "--p12",
        &good,
        "--password",
        "right",
    ]);
    assert!(
        as_argument.contains("--password"),
        "no password argument: {as_argument}"
    );

    let (ok, out, err) = import(&good, "right", &key);
    assert!(ok, "{err}");
    assert!(
        out.contains("12345678Z") && out.contains("valid until: 2028-01-01"),
        "{out}"
    );
    let db = std::fs::read(dir.path().join("svc.db")).unwrap();
    let pem_marker = b"PRIVATE KEY";
    assert!(
        !db.windows(pem_marker.len()).any(|w| w == pem_marker),
        "the key is stored sealed"
    );

    let (started, stderr) = serve_stops(&svc, &[]);
    assert!(!started);
    assert!(stderr.contains("SVC_SECRETS_KEY is not set"), "{stderr}");
    let other = svc.ok(&["secrets-key"]);
    let (_, stderr) = serve_stops(&svc, &[("SVC_SECRETS_KEY", &other)]);
    assert!(stderr.contains("another SVC_SECRETS_KEY"), "{stderr}");

    assert!(
        svc.ok(&["issuer", "certificate", "--account", &account, "--remove"])
            .contains("removed")
    );
    let (removed_again, _, stderr) =
        svc.run(&["issuer", "certificate", "--account", &account, "--remove"]);
    assert!(
        !removed_again && stderr.contains("no certificate"),
        "{stderr}"
    );
}
