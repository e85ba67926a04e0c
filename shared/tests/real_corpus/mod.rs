//! The real third-party invoices beside the project
//! (`../shared/corpus/real-invoices/`, read by path, never copied): their
//! ground truth and the scoring of an extraction against it. Shared by the
//! regression test and the extraction benchmark (`#[path]`).

// Each user compiles this module and uses only part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::Duration;

use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value as Json;

/// The fields scored, as the issue's evaluation counts them.
pub const FIELDS: [&str; 7] = [
    "issuer_nif",
    "issuer_name",
    "invoice_number",
    "invoice_date",
    "base",
    "vat_amount",
    "total",
];

/// One document of `truth.json`.
#[derive(Clone, Debug, Deserialize)]
pub struct Truth {
    pub file: String,
    pub mime: String,
    pub lang: String,
    pub text_layer: bool,
    pub fields: serde_json::Map<String, Json>,
    #[serde(default)]
    pub alternatives: serde_json::Map<String, Json>,
}

impl Truth {
    /// Spanish (and co-official languages) rather than foreign.
    pub fn spanish(&self) -> bool {
        self.lang.starts_with("es") || self.lang.starts_with("eu")
    }

    pub fn recipient_nif(&self) -> Option<&str> {
        self.fields.get("recipient_nif").and_then(Json::as_str)
    }
}

/// The corpus folder beside the project (`../shared/corpus/real-invoices`
/// from the repository root, whichever crate asks), or None where it is
/// absent (a clone alone).
pub fn dir() -> Option<PathBuf> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|a| a.join("shared/corpus/real-invoices"))
        .find(|d| d.join("truth.json").is_file())
}

pub fn load(dir: &Path) -> Vec<Truth> {
    let text = std::fs::read_to_string(dir.join("truth.json")).expect("truth.json");
    serde_json::from_str(&text).expect("truth.json is a list of documents")
}

/// Page 1 of a PDF as a 200-dpi PNG (poppler's pdftoppm): an image-only
/// PDF sent again as a user would after `pdf_scanned`.
pub fn rasterise(pdf: &[u8]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new("pdftoppm")
        .args([
            "-png",
            "-r",
            "200",
            "-f",
            "1",
            "-l",
            "1",
            "-singlefile",
            "-",
        ])
        .arg(dir.path().join("page"))
        .stdin(Stdio::piped())
        .spawn()
        .expect("pdftoppm (poppler-utils) is installed");
    child.stdin.take().unwrap().write_all(pdf).unwrap();
    assert!(child.wait().unwrap().success());
    std::fs::read(dir.path().join("page.png")).unwrap()
}

/// One field's verdict.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub field: &'static str,
    pub right: bool,
    pub expected: String,
    pub got: String,
}

fn fold(c: char) -> char {
    match c {
        'á' | 'à' | 'ä' | 'â' => 'a',
        'é' | 'è' | 'ë' | 'ê' => 'e',
        'í' | 'ì' | 'ï' | 'î' => 'i',
        'ó' | 'ò' | 'ö' | 'ô' => 'o',
        'ú' | 'ù' | 'ü' | 'û' => 'u',
        'ñ' => 'n',
        'ç' => 'c',
        c => c,
    }
}

/// Names without case, accents and punctuation.
fn name(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(fold)
        .filter(|c| c.is_alphanumeric() || c.is_whitespace())
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Tax ids without separators and without a Spanish `ES` prefix.
fn tax_id(s: &str) -> String {
    let compact: String = s
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_uppercase();
    match compact.strip_prefix("ES") {
        Some(rest) if rest.len() == 9 => rest.to_string(),
        _ => compact,
    }
}

fn number(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_uppercase()
}

fn decimal(v: &Json) -> Option<Decimal> {
    match v {
        Json::Number(n) => Decimal::from_str(&n.to_string()).ok(),
        Json::String(s) => Decimal::from_str(s).ok(),
        _ => None,
    }
    .map(|d| d.round_dp(2).normalize())
}

/// A value in the form compared: strings normalised per field, amounts to two decimals.
fn normal(field: &str, v: &Json) -> String {
    match field {
        "base" | "vat_amount" | "total" => decimal(v).map_or("null".into(), |d| d.to_string()),
        _ => match v.as_str() {
            None => "null".into(),
            Some(s) => match field {
                "issuer_nif" => tax_id(s),
                "issuer_name" => name(s),
                "invoice_number" => number(s),
                _ => s.to_string(),
            },
        },
    }
}

/// Every scored field of `got` (an extracted invoice as the API returns it,
/// or null when the document was not read) against the truth and its
/// accepted alternatives.
pub fn score(truth: &Truth, got: &Json) -> Vec<Verdict> {
    FIELDS
        .iter()
        .map(|&field| {
            let expected = truth.fields.get(field).cloned().unwrap_or(Json::Null);
            let mut accepted = vec![normal(field, &expected)];
            if let Some(Json::Array(alternatives)) = truth.alternatives.get(field) {
                accepted.extend(alternatives.iter().map(|a| normal(field, a)));
            }
            let got = normal(field, &got[field]);
            Verdict {
                field,
                right: accepted.contains(&got),
                expected: accepted[0].clone(),
                got,
            }
        })
        .collect()
}

#[derive(Default)]
/// Fields right per group of documents, and each document's time.
pub struct Tally {
    pub documents: usize,
    pub all_right: usize,
    pub right: BTreeMap<&'static str, usize>,
    pub times: Vec<Duration>,
}

impl Tally {
    pub fn add(&mut self, verdicts: &[Verdict], time: Duration) {
        self.documents += 1;
        self.times.push(time);
        if verdicts.iter().all(|v| v.right) {
            self.all_right += 1;
        }
        for v in verdicts.iter().filter(|v| v.right) {
            *self.right.entry(v.field).or_default() += 1;
        }
    }

    /// The share of fields right, of one field or of all.
    pub fn share(&self, field: Option<&str>) -> f64 {
        let (right, total) = match field {
            Some(f) => (self.right.get(f).copied().unwrap_or(0), self.documents),
            None => (self.right.values().sum(), self.documents * FIELDS.len()),
        };
        100.0 * right as f64 / total.max(1) as f64
    }

    pub fn percentile_ms(&self, p: f64) -> f64 {
        let mut times = self.times.clone();
        times.sort();
        times
            .get(((times.len().max(1) - 1) as f64 * p).round() as usize)
            .map_or(f64::NAN, |t| t.as_secs_f64() * 1000.0)
    }
}
