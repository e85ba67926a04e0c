//! Extraction on real third-party invoices must not regress: every document
//! of `../shared/corpus/real-invoices/` (text PDFs, photos, image-only PDFs
//! rasterised as a user would after `pdf_scanned`) through the extraction use
//! case, sent by an account whose NIF is the document's recipient, scored
//! field by field against its ground truth. Floors sit a little under the
//! benchmark's figures (`cargo bench -p svc --bench extraction`).

use crate::real_corpus;
use crate::support;

use std::collections::BTreeMap;

use std::sync::Arc;

use axum::Router;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::NaiveDate;
use real_corpus::{Tally, Truth};
use serde_json::Value as Json;
use shared::app::extraction::request::FileInput;
use shared::app::extraction::uploaded::Uploads;
use shared::app::extraction::{ExtractRequest, finish, prepare};
use shared::domain::account::Plan;
use shared::embedded::tesseract::Tesseract;
use shared::ports::Ports;
use shared::tax::nif::Nif;

async fn extract(ports: &Ports, name: &str, mime: &str, bytes: &[u8], own: Option<Nif>) -> Json {
    let request = ExtractRequest {
        files: vec![FileInput {
            name: name.to_string(),
            mime: Some(mime.to_string()),
            data: Some(STANDARD.encode(bytes)),
            upload_id: None,
            uploaded: None,
        }],
        texts: Vec::new(),
    };
    let today = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
    let extraction = finish(
        ports,
        prepare(ports, &Uploads::default(), request)
            .await
            .expect("no uploads"),
        own,
        today,
    )
    .await;
    serde_json::to_value(&extraction).unwrap()
}

/// The document's extracted invoice as JSON (null when it gave an error).
async fn read(ports: &Ports, dir: &std::path::Path, truth: &Truth) -> Json {
    let bytes = std::fs::read(dir.join(&truth.file)).unwrap();
    let own = truth.recipient_nif().and_then(|n| Nif::parse(n).ok());
    let reply = extract(ports, &truth.file, &truth.mime, &bytes, own.clone()).await;
    if truth.mime == "application/pdf" && !truth.text_layer {
        assert_eq!(
            reply["errors"][0]["code"], "pdf_scanned",
            "{}: an image-only PDF is reported as scanned: {reply}",
            truth.file
        );
        let png = real_corpus::rasterise(&bytes);
        let reply = extract(ports, &truth.file, "image/png", &png, own).await;
        return reply["invoices"][0].clone();
    }
    reply["invoices"][0].clone()
}

#[tokio::test]
async fn real_invoices_are_read() {
    let Some(dir) = real_corpus::dir() else {
        println!("../shared/corpus/real-invoices is absent: the real-corpus check is skipped");
        return;
    };
    let tesseract = Tesseract::detect();
    if tesseract.is_none() {
        assert!(
            std::env::var_os("SVC_REQUIRE_TESSERACT").is_none(),
            "SVC_REQUIRE_TESSERACT is set but tesseract with the spa model is not installed"
        );
    }
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let ocr = tesseract.is_some();
    let ports = match tesseract {
        Some(t) => h.ports.clone().with_ocr(Arc::new(t)),
        None => h.ports.clone(),
    };
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut report = Vec::new();
    for truth in real_corpus::load(&dir) {
        let image = truth.mime.starts_with("image/") || !truth.text_layer;
        if image && !ocr {
            continue;
        }
        let started = std::time::Instant::now();
        let got = read(&ports, &dir, &truth).await;
        let time = started.elapsed();
        let verdicts = real_corpus::score(&truth, &got);
        for v in verdicts.iter().filter(|v| !v.right) {
            report.push(format!(
                "{} {}: expected {} got {}",
                truth.file, v.field, v.expected, v.got
            ));
        }
        let language = if truth.spanish() { "es" } else { "foreign" };
        let source = if image { "image" } else { "text PDF" };
        for group in ["all", language, source] {
            tallies.entry(group).or_default().add(&verdicts, time);
        }
        if truth.spanish() && !image {
            tallies
                .entry("es text PDF")
                .or_default()
                .add(&verdicts, time);
        }
    }
    for (group, t) in &tallies {
        println!(
            "{group}: {} documents, {:.1} % fields right, {} with every field right; {:?}",
            t.documents,
            t.share(None),
            t.all_right,
            t.right
        );
    }
    println!("misses:\n{}", report.join("\n"));
    let floors = [
        ("all", 87.0),
        ("es", 88.0),
        ("text PDF", 95.0),
        ("image", 68.0),
    ];
    for (group, floor) in floors {
        let share = tallies.get(group).map_or(0.0, |t| t.share(None));
        assert!(share >= floor, "{group}: {share:.1} % < {floor} %");
    }
    let all = &tallies["all"];
    let whole = 100.0 * all.all_right as f64 / all.documents.max(1) as f64;
    assert!(
        whole >= 60.0,
        "{whole:.1} % of documents with every field right < 60 %"
    );
}
