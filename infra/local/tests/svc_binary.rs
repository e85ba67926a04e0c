//! The `svc` binary end to end: plain admin output, the demo account of a
//! first `svc serve`, and admin commands in other processes while it serves.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

fn svc(data: &Path, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_svc"))
        .arg("--data")
        .arg(data)
        .args(args)
        .env_remove("SVC_TABLE")
        .output()
        .expect("svc runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn ok(data: &Path, args: &[&str]) -> String {
    let (success, stdout, stderr) = svc(data, args);
    assert!(success, "svc {args:?} failed: {stderr}");
    stdout
}

#[test]
fn admin_commands_print_plain_output_and_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let account = ok(
        data,
        &[
            "accounts",
            "create",
            "--name",
            "Taller Ana",
            "--plan",
            "pro",
            "--nif",
            "B64717838",
        ],
    );
    assert!(
        account.starts_with("acct_") && !account.contains(char::is_whitespace),
        "{account}"
    );
    let key = ok(
        data,
        &["keys", "create", "--account", &account, "--mode", "live"],
    );
    assert!(key.starts_with("svc_live_") && key.len() == 57, "{key}");
    assert_eq!(ok(data, &["accounts", "set-plan", &account, "max"]), "");
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
    assert_eq!(ok(data, &issuer), "");

    let (success, _, stderr) = svc(
        data,
        &[
            "accounts",
            "create",
            "--name",
            "X",
            "--plan",
            "pro",
            "--nif",
            "12345678A",
        ],
    );
    assert!(!success && stderr.contains("control character"), "{stderr}");
    let (success, _, stderr) = svc(
        data,
        &["keys", "create", "--account", "acct_0000", "--mode", "test"],
    );
    assert!(
        !success && stderr.contains("no account acct_0000"),
        "{stderr}"
    );
    let (success, _, stderr) = svc(data, &["accounts", "set-plan", &account, "gold"]);
    assert!(!success && stderr.contains("gold"), "{stderr}");
    let (success, _, stderr) = svc(data, &["keys", "revoke", "key_nope"]);
    assert!(
        !success && stderr.contains("no API key key_nope"),
        "{stderr}"
    );
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `svc serve` on a free port; returns it with the lines it printed
/// before listening and its base address.
fn serve(data: &Path) -> (Server, Vec<String>, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_svc"))
        .arg("--data")
        .arg(data)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("SVC_TABLE")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .expect("svc serve starts");
    let mut server = Server(child);
    let mut lines = BufReader::new(server.0.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(addr) = line.strip_prefix("svc listening on ") {
            let base = addr.to_string();
            std::thread::spawn(move || lines.for_each(drop));
            return (server, printed, base);
        }
        printed.push(line);
    }
    panic!("svc serve exited early: {printed:?}");
}

fn usage(base: &str, key: &str) -> (u16, Value) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let response = reqwest::Client::new()
            .get(format!("{base}/api/v1/usage"))
            .bearer_auth(key)
            .send()
            .await
            .expect("request");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    })
}

#[test]
fn a_first_serve_prints_demo_keys_and_admin_commands_work_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let (server, printed, base) = serve(data);
    let find = |prefix: &str| {
        printed
            .iter()
            .find_map(|l| l.trim().strip_prefix(prefix).map(str::to_string))
            .unwrap_or_else(|| panic!("no {prefix:?} in {printed:?}"))
    };
    let live = find("live key: ");
    let test = find("test key: ");
    let demo = find("Created demo account ")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();

    let (status, body) = usage(&base, &live);
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["plan"].as_str(), body["livemode"].as_bool()),
        (Some("pro"), Some(true))
    );

    let other = ok(
        data,
        &["accounts", "create", "--name", "Second", "--plan", "max"],
    );
    let key = ok(
        data,
        &["keys", "create", "--account", &other, "--mode", "live"],
    );
    let (status, body) = usage(&base, &key);
    assert_eq!(
        (status, body["plan"].as_str()),
        (200, Some("max")),
        "a key made by another process works at once"
    );

    ok(data, &["accounts", "set-plan", &demo, "mini"]);
    let (status, body) = usage(&base, &live);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("api_plan_required"))
    );
    let (status, _) = usage(&base, &test);
    assert_eq!(status, 200);
    drop(server);

    let (_restarted, printed_again, _) = serve(data);
    assert!(
        printed_again.iter().all(|l| !l.contains("key:")),
        "keys are printed only on the first run"
    );
}
