//! Extraction accuracy must not regress: a small seeded corpus (12 text PDFs
//! over all five layouts, 6 plain texts, 4 scanned PDFs, and 3 PNG pages and
//! 4 phone photos when tesseract is installed) through `POST /api/v1/invoices/extract` in
//! process, scored field by field against the ground truth. Needs poppler.

use crate::corpus;
use crate::support;

use std::sync::Arc;

use axum::Router;
use corpus::score::{FIELDS, Verdict, score};
use corpus::{Document, Kind, request_body};
use serde_json::Value as Json;
use shared::domain::account::Plan;
use shared::embedded::tesseract::Tesseract;
use shared::http::AppState;
use support::{Harness, post_json, send};

const SEED: u64 = 7;
/// Fields exact on the photos, a little under what they measure (95 %).
const PHOTO_FLOOR: f64 = 90.0;

/// Every document's reply entry, five documents to a request.
async fn extract(h: &Harness, docs: &[Document]) -> Vec<(Json, Json)> {
    let mut entries = Vec::new();
    for batch in docs.chunks(5) {
        let refs: Vec<&Document> = batch.iter().collect();
        let body = request_body(&refs);
        let reply = send(
            &h.app,
            post_json("/api/v1/invoices/extract", &h.live, None, &body),
        )
        .await;
        assert_eq!(reply.status, 200, "{}", reply.json);
        for doc in batch {
            let named = |list: &str| {
                reply.json[list]
                    .as_array()
                    .and_then(|items| items.iter().find(|i| i["file_name"] == doc.name.as_str()))
                    .cloned()
                    .unwrap_or(Json::Null)
            };
            entries.push((named("invoices"), named("errors")));
        }
    }
    entries
}

/// The share of exact fields and the misses, as `document field: expected ≠ got`.
fn accuracy(docs: &[Document], entries: &[(Json, Json)]) -> (f64, Vec<String>) {
    let mut exact = 0;
    let mut misses = Vec::new();
    for (doc, (invoice, error)) in docs.iter().zip(entries) {
        if invoice.is_null() {
            misses.push(format!("{}: not read ({error})", doc.name));
            continue;
        }
        for Verdict {
            field,
            exact: ok,
            expected,
            got,
        } in score(&doc.invoice, invoice)
        {
            if ok {
                exact += 1;
            } else {
                misses.push(format!("{} {field}: {expected:?} ≠ {got:?}", doc.name));
            }
        }
    }
    (
        100.0 * exact as f64 / (docs.len() * FIELDS.len()) as f64,
        misses,
    )
}

#[tokio::test]
async fn text_pdfs_and_texts_are_read_exactly() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let docs: Vec<Document> = corpus::documents(SEED, Kind::TextPdf, 12)
        .into_iter()
        .chain(corpus::documents(SEED, Kind::Text, 6))
        .collect();
    let entries = extract(&h, &docs).await;
    let (share, misses) = accuracy(&docs, &entries);
    assert!(
        share >= 99.0,
        "{share:.1} % fields exact; misses:\n{}",
        misses.join("\n")
    );
}

#[tokio::test]
async fn scanned_pdfs_are_reported_as_scanned() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let docs = corpus::documents(SEED, Kind::ScannedPdf, 4);
    for (doc, (invoice, error)) in docs.iter().zip(extract(&h, &docs).await) {
        assert_eq!(
            error["code"], "pdf_scanned",
            "{}: {invoice} {error}",
            doc.name
        );
    }
}

/// The share of exact fields over `docs` read through Tesseract; `None`
/// when Tesseract is not installed.
async fn ocr_accuracy(docs: &[Document]) -> Option<(f64, Vec<String>)> {
    let Some(tesseract) = Tesseract::detect() else {
        println!(
            "tesseract with the spa model is not installed: the OCR accuracy check is skipped"
        );
        return None;
    };
    let mut h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let ports = h.ports.clone().with_ocr(Arc::new(tesseract));
    h.app = shared::http::service_router(AppState::new(ports, support::relaxed()));
    let entries = extract(&h, docs).await;
    Some(accuracy(docs, &entries))
}

#[tokio::test]
async fn png_pages_are_read_by_ocr() {
    let docs = corpus::documents(SEED, Kind::Png, 3);
    let Some((share, misses)) = ocr_accuracy(&docs).await else {
        return;
    };
    assert!(
        share >= 90.0,
        "{share:.1} % fields exact; misses:\n{}",
        misses.join("\n")
    );
}

/// Phone photos of printed pages (askew on a table, uneven light, noise,
/// blur, JPEG): prepared before OCR and straightened after it.
#[tokio::test]
async fn photos_are_read_by_ocr() {
    assert_photos_read("photos", &corpus::documents(SEED, Kind::Photo, 4)).await;
}

/// At least `PHOTO_FLOOR` of the photos' fields exact (when Tesseract is installed).
async fn assert_photos_read(what: &str, docs: &[Document]) {
    let Some((share, misses)) = ocr_accuracy(docs).await else {
        return;
    };
    println!("{what}: {share:.1} % fields exact; misses: {misses:?}");
    assert!(
        share >= PHOTO_FLOOR,
        "{what}: {share:.1} % fields exact; misses:\n{}",
        misses.join("\n")
    );
}

/// The same photos taken the other way up: read as noise first, then again
/// turned half a turn.
#[tokio::test]
async fn photos_taken_upside_down_are_read_by_ocr() {
    let mut docs = corpus::documents(SEED + 1, Kind::Photo, 2);
    for doc in &mut docs {
        let photo = image::load_from_memory(&doc.data).unwrap();
        let mut jpeg = std::io::Cursor::new(Vec::new());
        photo
            .rotate180()
            .write_to(&mut jpeg, image::ImageFormat::Jpeg)
            .unwrap();
        doc.data = jpeg.into_inner();
    }
    assert_photos_read("photos upside down", &docs).await;
}
