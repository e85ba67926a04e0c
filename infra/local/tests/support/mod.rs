//! Runs the `svc` binary for the tests: admin commands and a background server.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// `svc` with its storage options (`--data DIR` or `--table NAME`).
pub struct Svc {
    pub storage: Vec<String>,
}

/// A child process killed when dropped (also when a test panics).
pub struct Server(Child);

impl Server {
    pub fn guard(child: Child) -> Server {
        Server(child)
    }

    pub fn stdout(&mut self) -> std::process::ChildStdout {
        self.0.stdout.take().expect("stdout is piped")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Svc {
    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_svc"));
        command
            .args(&self.storage)
            .env_remove("SVC_TABLE")
            .env_remove("SVC_DATA_DIR")
            .env_remove("SVC_SECRETS_KEY")
            .env_remove("SVC_KMS_KEY_ID")
            .env_remove("SVC_KMS_WEBHOOK_KEY_ID")
            .env_remove("SVC_AEAT_ENDPOINT");
        command
    }

    /// Creates an account; its id.
    pub fn create_account(&self, name: &str, plan: &str, nif: &str) -> String {
        self.ok(&[
            "accounts", "create", "--name", name, "--plan", plan, "--nif", nif,
        ])
    }

    /// Runs a command with more environment variables and `input` on its
    /// standard input; returns success, trimmed stdout and stderr.
    pub fn run_with(
        &self,
        args: &[&str],
        env: &[(&str, &str)],
        input: &str,
    ) -> (bool, String, String) {
        use std::io::Write;
        let mut child = self
            .command()
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("svc runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    }

    /// Runs a command; returns success, trimmed stdout and stderr.
    pub fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = self.command().args(args).output().expect("svc runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).trim().to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    }

    /// Runs a command that must succeed; returns its stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let (success, stdout, stderr) = self.run(args);
        assert!(success, "svc {args:?} failed: {stderr}");
        stdout
    }

    /// Starts `svc serve` on a free port; returns it, the lines it printed
    /// before listening, and its base address.
    pub fn serve(&self) -> (Server, Vec<String>, String) {
        self.serve_with(&[])
    }

    /// `serve` with more environment variables.
    pub fn serve_with(&self, env: &[(&str, &str)]) -> (Server, Vec<String>, String) {
        let child = self
            .command()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .envs(env.iter().copied())
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
}

/// The value after `prefix` on the first printed line that has it.
pub fn printed_value(printed: &[String], prefix: &str) -> String {
    printed
        .iter()
        .find_map(|l| l.trim().strip_prefix(prefix).map(str::to_string))
        .unwrap_or_else(|| panic!("no {prefix:?} in {printed:?}"))
}

/// `GET /api/v1/usage` with a key: status and JSON body.
pub fn usage(base: &str, key: &str) -> (u16, Value) {
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

/// Polls `GET /usage` with `key` until it answers `status`, which must happen
/// within the bound on cached keys and accounts (`ITEM_CACHE_TTL`) after a
/// change made by another process; the answer's body.
pub fn answered_within_the_cache_bound(base: &str, key: &str, status: u16) -> Value {
    let bound = shared::item_cache::ITEM_CACHE_TTL + Duration::from_millis(500);
    let started = Instant::now();
    loop {
        let (answered, body) = usage(base, key);
        if answered == status {
            return body;
        }
        assert!(
            started.elapsed() < bound,
            "still {answered} {body} after {bound:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `svc aeat-simulator` on a free port: the process and its SOAP endpoint.
pub fn aeat_simulator(args: &[&str]) -> (Server, String) {
    let mut child = Server::guard(
        Command::new(env!("CARGO_BIN_EXE_svc"))
            .args(["aeat-simulator", "--addr", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .spawn()
            .expect("svc aeat-simulator starts"),
    );
    let mut line = String::new();
    BufReader::new(child.stdout()).read_line(&mut line).unwrap();
    let endpoint = line
        .trim()
        .strip_prefix("AEAT simulator listening on ")
        .unwrap_or_else(|| panic!("printed {line:?}"))
        .to_string();
    (child, endpoint)
}
