//! The real third-party invoices beside the project
//! (`../shared/corpus/real-invoices/`, read by path) through the release
//! `svc serve`: each sent by an account whose NIF is the document's
//! recipient (a document without one by an account without a NIF); an image-only PDF
//! is answered `pdf_scanned` and then sent as its page rendered at 200 dpi,
//! as a user would. Prints field accuracy per field, per language and per
//! source, the share of documents with every field right, time per file (after
//! one untimed request that warms the new server up), the slowest files, and
//! every miss.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value as Json, json};

use crate::real_corpus::{self, FIELDS, Tally, Truth};
use crate::support::{self, Server};

/// `svc --data <dir> <args>`'s standard output, trimmed.
fn svc(data: &Path, args: &[&str]) -> String {
    let out = Command::new(support::this_build())
        .arg("--data")
        .arg(data)
        .args(args)
        .output()
        .expect("svc runs");
    assert!(
        out.status.success(),
        "svc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A live key of a new Pro account, with `nif` as its issuer NIF when given.
fn account_key(data: &Path, nif: Option<&str>) -> String {
    let mut args = vec![
        "accounts",
        "create",
        "--name",
        nif.unwrap_or("sin NIF"),
        "--plan",
        "pro",
    ];
    args.extend(nif.map(|n| ["--nif", n]).into_iter().flatten());
    let id = svc(data, &args);
    svc(
        data,
        &["keys", "create", "--account", &id, "--mode", "live"],
    )
}

async fn extract(
    server: &Server,
    client: &reqwest::Client,
    key: &str,
    (name, mime, data): (&str, &str, &[u8]),
) -> (Json, Duration) {
    let body = json!({"files": [{"name": name, "mime": mime, "data": STANDARD.encode(data)}]});
    let started = std::time::Instant::now();
    let response = client
        .post(format!("{}/api/v1/invoices/extract", server.base))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .expect("the server answers");
    let json = response.json().await.unwrap_or(Json::Null);
    (json, started.elapsed())
}

pub async fn run(client: &reqwest::Client) {
    let Some(dir) = real_corpus::dir() else {
        println!("\nReal invoices: ../shared/corpus/real-invoices is absent; skipped.");
        return;
    };
    let truths = real_corpus::load(&dir);
    let data = tempfile::tempdir().unwrap();
    let mut keys: BTreeMap<String, String> = BTreeMap::new();
    for nif in truths.iter().filter_map(Truth::recipient_nif) {
        if shared::tax::nif::Nif::parse(nif).is_ok() && !keys.contains_key(nif) {
            keys.insert(nif.to_string(), account_key(data.path(), Some(nif)));
        }
    }
    // Accounts exist, so the server creates no demo account: one without a
    // NIF sends the documents that name no recipient.
    let without_nif = account_key(data.path(), None);
    let server = support::serve_with(
        &["--data".to_string(), data.path().display().to_string()],
        &[("SVC_QUOTA_PRO", "100000")],
    );
    // The server's first request pays its one-time set-up (lazy tables, the
    // first sandboxed child): one text PDF is sent first, untimed.
    if let Some(first) = truths
        .iter()
        .find(|t| t.text_layer && t.mime == "application/pdf")
    {
        let bytes = std::fs::read(dir.join(&first.file)).unwrap();
        extract(
            &server,
            client,
            &without_nif,
            (&first.file, &first.mime, &bytes),
        )
        .await;
    }
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut times: Vec<(Duration, &str, &str)> = Vec::new();
    for truth in &truths {
        let key = truth
            .recipient_nif()
            .and_then(|n| keys.get(n))
            .unwrap_or(&without_nif);
        let bytes = std::fs::read(dir.join(&truth.file)).unwrap();
        let (mut reply, mut time) =
            extract(&server, client, key, (&truth.file, &truth.mime, &bytes)).await;
        let image = truth.mime.starts_with("image/") || !truth.text_layer;
        if truth.mime == "application/pdf" && !truth.text_layer {
            let code = reply["errors"][0]["code"]
                .as_str()
                .unwrap_or("?")
                .to_string();
            if code != "pdf_scanned" {
                misses.push(format!(
                    "{}: an image-only PDF answered {code}, not pdf_scanned",
                    truth.file
                ));
            }
            let png = real_corpus::rasterise(&bytes);
            (reply, time) = extract(&server, client, key, (&truth.file, "image/png", &png)).await;
        }
        let verdicts = real_corpus::score(truth, &reply["invoices"][0]);
        for v in verdicts.iter().filter(|v| !v.right) {
            misses.push(format!(
                "{} {}: {} ≠ {}",
                truth.file, v.field, v.expected, v.got
            ));
        }
        let language = if truth.spanish() {
            "Spanish"
        } else {
            "foreign"
        };
        let source = if image { "image" } else { "text PDF" };
        times.push((time, source, &truth.file));
        for group in ["all", language, source] {
            tallies.entry(group).or_default().add(&verdicts, time);
        }
        if !image {
            let group = if truth.spanish() {
                "Spanish, text PDF"
            } else {
                "foreign, text PDF"
            };
            tallies.entry(group).or_default().add(&verdicts, time);
        }
    }
    println!(
        "\nReal invoices ({} documents, ../shared/corpus/real-invoices):\n",
        truths.len()
    );
    println!("| group | docs | fields right | every field right | p50 ms/file | p95 ms/file |");
    println!("|---|---|---|---|---|---|");
    for (group, t) in &tallies {
        println!(
            "| {group} | {} | {:.1} % | {} ({:.0} %) | {:.0} | {:.0} |",
            t.documents,
            t.share(None),
            t.all_right,
            100.0 * t.all_right as f64 / t.documents.max(1) as f64,
            t.percentile_ms(0.5),
            t.percentile_ms(0.95)
        );
    }
    println!(
        "\n| field | {} |",
        tallies.keys().copied().collect::<Vec<_>>().join(" | ")
    );
    println!("|---|{}", "---|".repeat(tallies.len()));
    for field in FIELDS {
        let cells: Vec<String> = tallies
            .values()
            .map(|t| format!("{:.0} %", t.share(Some(field))))
            .collect();
        println!("| {field} | {} |", cells.join(" | "));
    }
    times.sort_by_key(|t| std::cmp::Reverse(t.0));
    for source in ["text PDF", "image"] {
        let slowest: Vec<String> = times
            .iter()
            .filter(|(_, s, _)| *s == source)
            .take(3)
            .map(|(t, _, file)| format!("{file} {:.0} ms", t.as_secs_f64() * 1000.0))
            .collect();
        println!("\nSlowest, {source}: {}", slowest.join(", "));
    }
    println!("\nMisses on the real invoices:");
    for miss in misses {
        println!("- {miss}");
    }
}
