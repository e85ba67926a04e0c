//! The README's "Try it" commands, run as a new user would: against a
//! started `svc serve` with the test key it printed, in a shell, each
//! command failing the test if it fails or its answer is an HTTP error.

use crate::support;

use support::{Svc, printed_value};

/// The `sh` blocks of the README's "Try it" section.
fn try_it_blocks(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Try it"))
        .expect("a Try it section");
    section
        .split("```sh\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap().to_string())
        .collect()
}

#[test]
fn the_readme_try_it_commands_work_on_a_fresh_server() {
    let readme = include_str!("../../../README.md");
    let blocks = try_it_blocks(readme);
    assert!(blocks.len() >= 2, "{blocks:?}");
    let dir = tempfile::tempdir().unwrap();
    let svc = Svc {
        storage: vec![
            "--data".into(),
            dir.path().join("data").display().to_string(),
        ],
    };
    let (_server, printed, base) = svc.serve();
    let key = printed_value(&printed, "test key: ");
    // One shell session, as in a terminal: later blocks use earlier ones' KEY and files.
    let script = blocks
        .concat()
        .lines()
        .map(|line| match line.strip_prefix("KEY=") {
            Some(_) => format!("KEY={key}"),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace("http://127.0.0.1:8080", &base)
        .replace("curl -s ", "curl -sS --fail-with-body ");
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "README commands failed:\n{script}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("F2026-000001.pdf").exists());
}
