//! Differential test: our NIF validity against python-stdnum's `stdnum.es.nif`
//! on 12,000 generated inputs. stdnum does not treat dots as separators and we
//! do (Spanish NIFs are printed as `12.345.678-Z`), so stdnum judges each input
//! with its dots removed. Run by `bash .ci/run`, which installs python-stdnum
//! and sets `SVC_PYTHON`.

use crate::support;

use std::io::Write as _;
use std::process::Command;

use shared::tax::nif::Nif;
use support::nif_corpus::corpus;

const INPUTS: usize = 12_000;

const JUDGE: &str = r#"
import json, sys
from stdnum.es import nif
for line in sys.stdin:
    value = json.loads(line)
    print(1 if nif.is_valid(value.replace('.', '')) else 0)
"#;

#[test]
fn validity_agrees_with_python_stdnum() {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        assert!(
            std::env::var("SVC_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "SVC_REQUIRE_PYTHON=1 but SVC_PYTHON is not set"
        );
        let _ = writeln!(
            std::io::stderr(),
            "\nNIF differential test NOT RUN: set SVC_PYTHON (bash .ci/run does)\n"
        );
        return;
    };
    let inputs = corpus(0x5EED_2026, INPUTS);
    let mut child = Command::new(python)
        .args(["-c", JUDGE])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().unwrap();
    let lines: String = inputs
        .iter()
        .map(|v| format!("{}\n", serde_json::to_string(v).unwrap()))
        .collect();
    let writer = std::thread::spawn(move || stdin.write_all(lines.as_bytes()).unwrap());
    let output = child.wait_with_output().expect("stdnum answers");
    writer.join().unwrap();
    assert!(output.status.success(), "python-stdnum failed");
    let verdicts: Vec<bool> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l == "1")
        .collect();
    assert_eq!(verdicts.len(), inputs.len());

    let mismatches: Vec<_> = inputs
        .iter()
        .zip(&verdicts)
        .filter(|(input, stdnum)| Nif::parse(input).is_ok() != **stdnum)
        .map(|(input, stdnum)| format!("{input:?}: stdnum {stdnum}"))
        .collect();
    let valid = verdicts.iter().filter(|v| **v).count();
    assert!(
        valid > INPUTS / 4 && valid < INPUTS * 3 / 4,
        "the corpus mixes valid and invalid: {valid} valid"
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatches, e.g. {:?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}
