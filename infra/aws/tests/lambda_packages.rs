//! What each Lambda function links: no function depends on the embedded
//! engine (SQLite) unless it is built with `--features embedded`, as `svc`
//! is. `sam build` builds each function on its own with its default
//! features, which is what `cargo tree -p <function>` resolves; `cargo
//! lambda build` at the root builds the default members together.

use std::path::Path;
use std::process::Command;

/// The packages `cargo tree` resolves for `package` (normal dependencies,
/// this host), with `features`; for the workspace's default members (what a
/// build at the root makes) when `package` is empty.
fn dependencies(package: &str, features: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut command = Command::new(cargo);
    command
        .current_dir(&workspace)
        .args(["tree", "--offline", "-e", "normal", "--prefix", "none"]);
    if !package.is_empty() {
        command.args(["-p", package]);
    }
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    let output = command.output().expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

fn functions() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../functions");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the functions folder")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            (entry.path().join("src/main.rs").is_file()).then_some(name)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn no_function_carries_the_embedded_engine_unless_asked() {
    let functions = functions();
    assert!(functions.len() >= 16, "{functions:?}");
    for name in &functions {
        let package = format!("function-{name}");
        let deps = dependencies(&package, &[]);
        assert!(deps.iter().any(|d| d == "shared"), "{package}: {deps:?}");
        assert!(
            !deps.iter().any(|d| d == "rusqlite"),
            "{package} depends on rusqlite without the embedded feature"
        );
    }
    let root = dependencies("", &[]);
    assert!(root.iter().any(|d| d == "function-usage"), "{root:?}");
    assert!(
        !root.iter().any(|d| d == "rusqlite"),
        "a build at the root gives the functions the embedded engine"
    );
    let watched = dependencies("function-usage", &["embedded"]);
    assert!(
        watched.iter().any(|d| d == "rusqlite"),
        "--features embedded"
    );
    assert!(dependencies("svc", &[]).iter().any(|d| d == "rusqlite"));
}
