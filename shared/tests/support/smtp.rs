//! The local SMTP receiver of the email tests (`.ci/smtp_sink.py`, which
//! `bash .ci/run` starts): `SVC_SMTP_TEST_URL` is where it listens,
//! `SVC_SMTP_TEST_DIR` where it writes what it receives, one directory per
//! recipient. It answers 550 to recipients named `refused-…`.

use std::io::Write as _;
use std::path::PathBuf;

use async_trait::async_trait;
use shared::ports::email_contract::Inbox;

pub struct Sink {
    pub url: String,
    pub dir: PathBuf,
}

/// The receiver, when configured. Otherwise says that `what` was not run,
/// or fails when `SVC_REQUIRE_SMTP=1` (as in `bash .ci/run`).
pub fn sink(what: &str) -> Option<Sink> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match (var("SVC_SMTP_TEST_URL"), var("SVC_SMTP_TEST_DIR")) {
        (Some(url), Some(dir)) => Some(Sink {
            url,
            dir: dir.into(),
        }),
        _ => {
            let not_run = format!(
                "{what} NOT RUN: set SVC_SMTP_TEST_URL and SVC_SMTP_TEST_DIR to a running .ci/smtp_sink.py (bash .ci/run starts one)"
            );
            assert!(
                std::env::var("SVC_REQUIRE_SMTP").as_deref() != Ok("1"),
                "SVC_REQUIRE_SMTP=1 but {not_run}"
            );
            let _ = writeln!(std::io::stderr(), "\n{not_run}\n");
            None
        }
    }
}

#[async_trait]
impl Inbox for Sink {
    async fn raw_for(&self, address: &str) -> Vec<Vec<u8>> {
        let Ok(entries) = std::fs::read_dir(self.dir.join(address.to_lowercase())) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        files.sort();
        files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
    }
}

/// A local port nothing listens on.
pub fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
