//! Benchmark: NIF validations per second in-process, and python-stdnum's
//! `stdnum.es.nif.is_valid` on the same 100,000 inputs in the same run.
//!
//! Run: `cargo bench -p shared --bench nif` (python from `SVC_PYTHON`,
//! default `~/.cache/svc/venv/bin/python`, which `bash .ci/run` prepares).

#[path = "../tests/support/nif_corpus.rs"]
mod nif_corpus;

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Instant;

use shared::tax::nif::Nif;

const INPUTS: usize = 100_000;
const ROUNDS: usize = 5;

const STDNUM: &str = r#"
import json, sys, time
from stdnum.es import nif
values = [json.loads(line) for line in sys.stdin]
best = None
for _ in range(3):
    started = time.perf_counter()
    valid = sum(1 for v in values if nif.is_valid(v))
    elapsed = time.perf_counter() - started
    best = elapsed if best is None else min(best, elapsed)
print(best, valid)
"#;

fn stdnum_seconds(inputs: &[String]) -> Option<(f64, usize)> {
    let python = std::env::var_os("SVC_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default())
                .join(".cache/svc/venv/bin/python")
        });
    let mut child = Command::new(python)
        .args(["-c", STDNUM])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let lines: String = inputs
        .iter()
        .map(|v| format!("{}\n", serde_json::to_string(v).unwrap()))
        .collect();
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(lines.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let mut parts = text.split_whitespace();
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn main() {
    let inputs = nif_corpus::corpus(0x000B_E7C4, INPUTS);
    let mut best = f64::MAX;
    let mut valid = 0;
    for _ in 0..ROUNDS {
        let started = Instant::now();
        valid = inputs
            .iter()
            .filter(|v| Nif::parse(std::hint::black_box(v)).is_ok())
            .count();
        best = best.min(started.elapsed().as_secs_f64());
    }
    let ours = INPUTS as f64 / best;
    println!(
        "Rust Nif::parse: {INPUTS} inputs in {:.2} ms = {:.0} validations/s ({valid} valid)",
        best * 1000.0,
        ours
    );
    match stdnum_seconds(&inputs) {
        Some((seconds, stdnum_valid)) => {
            let theirs = INPUTS as f64 / seconds;
            println!(
                "python-stdnum: {INPUTS} inputs in {:.2} ms = {:.0} validations/s ({stdnum_valid} valid; dots are not separators for it)",
                seconds * 1000.0,
                theirs
            );
            println!("ratio: {:.1}x", ours / theirs);
        }
        None => println!("python-stdnum not available: set SVC_PYTHON"),
    }
}
