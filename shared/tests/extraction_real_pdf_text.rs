//! The text layer of real supplier PDFs (the held-out corpus beside the
//! repository, when it is there): none is taken for a scan, page 1 reads as
//! poppler's `pdftotext` reads it, and the invoice number and total appear.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde::Deserialize;
use shared::extraction::pdf::{PdfContent, read_pdf};

const CORPUS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/corpus/real-invoices"
);
/// Share of the words `pdftotext` prints on page 1 that we must read too.
const MIN_COVERAGE: f64 = 0.95;

#[derive(Deserialize)]
struct Entry {
    file: String,
    #[serde(default)]
    text_layer: bool,
    fields: Fields,
}

#[derive(Deserialize)]
struct Fields {
    invoice_number: Option<String>,
    total: Option<f64>,
}

#[tokio::test]
async fn real_pdfs_read_as_poppler_reads_them() {
    let dir = Path::new(CORPUS);
    let Ok(truth) = std::fs::read(dir.join("truth.json")) else {
        eprintln!("no corpus at {CORPUS}: skipped");
        return;
    };
    let entries: Vec<Entry> = serde_json::from_slice(&truth).expect("truth.json");
    let mut failures = Vec::new();
    for entry in entries
        .iter()
        .filter(|e| e.text_layer && e.file.ends_with(".pdf"))
    {
        let path = dir.join(&entry.file);
        let content = read_pdf(std::fs::read(&path).expect("corpus file"))
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", entry.file));
        failures.extend(check(entry, &path, &content));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check(entry: &Entry, path: &Path, content: &PdfContent) -> Vec<String> {
    let name = &entry.file;
    let mut failures = Vec::new();
    if content.scanned {
        failures.push(format!("{name}: taken for a scan"));
    }
    let page_one: Vec<&str> = content
        .text
        .words
        .iter()
        .filter(|w| w.page == 1)
        .map(|w| w.text.as_str())
        .collect();
    match poppler_page_one(path) {
        Some(expected) => {
            let share = coverage(&expected, &page_one.join(" "));
            eprintln!("{name}: page 1 coverage {:.1} %", 100.0 * share);
            if share < MIN_COVERAGE {
                failures.push(format!(
                    "{name}: page 1 covers {:.1} % of pdftotext's words",
                    100.0 * share
                ));
            }
        }
        None => eprintln!("{name}: pdftotext is missing, coverage not measured"),
    }
    let all: String = content
        .text
        .words
        .iter()
        .flat_map(|w| w.text.chars())
        .filter(|c| !c.is_whitespace())
        .collect();
    if let Some(number) = &entry.fields.invoice_number {
        let number: String = number.chars().filter(|c| !c.is_whitespace()).collect();
        if !all.contains(&number) {
            failures.push(format!("{name}: invoice number {number} not read"));
        }
    }
    if let Some(total) = entry.fields.total
        && !printed_amounts(total).iter().any(|a| all.contains(a))
    {
        failures.push(format!("{name}: total {total} not read"));
    }
    failures
}

fn poppler_page_one(path: &Path) -> Option<String> {
    let out = Command::new("pdftotext")
        .args(["-f", "1", "-l", "1"])
        .arg(path)
        .arg("-")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The share of `expected`'s words (as a multiset) found among `ours`.
fn coverage(expected: &str, ours: &str) -> f64 {
    let mut available: HashMap<&str, usize> = HashMap::new();
    for word in ours.split_whitespace() {
        *available.entry(word).or_default() += 1;
    }
    let ours_joined: String = ours.split_whitespace().collect();
    let (mut found, mut total) = (0usize, 0usize);
    for word in expected.split_whitespace() {
        total += 1;
        match available.get_mut(word) {
            Some(n) if *n > 0 => {
                *n -= 1;
                found += 1;
            }
            // Word boundaries may differ (a gap one reader takes for a space).
            _ if ours_joined.contains(word) => found += 1,
            _ => {}
        }
    }
    if total == 0 {
        1.0
    } else {
        found as f64 / total as f64
    }
}

/// The ways an amount is printed on the corpus's invoices.
fn printed_amounts(amount: f64) -> Vec<String> {
    let plain = format!("{amount:.2}");
    let (units, cents) = plain.split_once('.').unwrap_or((&plain, "00"));
    let grouped: String = {
        let digits: Vec<char> = units.chars().collect();
        let mut out = String::new();
        for (i, c) in digits.iter().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push('.');
            }
            out.push(*c);
        }
        out
    };
    vec![
        format!("{units},{cents}"),
        format!("{units}.{cents}"),
        format!("{grouped},{cents}"),
        format!("{}.{cents}", grouped.replace('.', ",")),
    ]
}
