//! `svc serve`'s agent-tool endpoint driven by the official MCP Python SDK
//! (`.ci/mcp_client.py`, modern and legacy clients, live and test keys):
//! needs `SVC_PYTHON` with the `mcp` package, which `bash .ci/run` provides.

use crate::support;

use std::path::Path;
use std::process::Command;

use support::{Svc, printed_value};

#[test]
fn the_official_python_client_lists_and_calls_every_tool() {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        assert!(
            std::env::var("SVC_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "SVC_REQUIRE_PYTHON=1 but SVC_PYTHON is not set"
        );
        eprintln!("\nMCP client test NOT RUN: set SVC_PYTHON (bash .ci/run does)\n");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let svc = Svc {
        storage: vec!["--data".into(), dir.path().display().to_string()],
    };
    let (_server, printed, base) = svc.serve_with(&[
        ("SVC_RATE_LIMIT_PER_MINUTE", "100000"),
        ("SVC_QUOTA_PRO", "12"),
        ("SVC_OCR", "none"),
    ]);
    let live = printed_value(&printed, "live key: ");
    let test = printed_value(&printed, "test key: ");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/mcp_client.py");
    let out = Command::new(python)
        .arg(script)
        .args([&base, &live, &test])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the MCP client checks failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
