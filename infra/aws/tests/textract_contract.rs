//! The `Ocr` contract suite against the Textract adapter, through the fake
//! endpoint in `fake_textract`, plus what only Textract does: WebP reaches it
//! as PNG, summary fields and line items reach the parser (a due date, item
//! lines placed on the page), and throttling and server errors are `Failed`.

mod fake_textract;
mod support;

use axum::http::StatusCode;
use fake_textract::FakeTextract;
use infra_aws::textract::TextractOcr;
use serde_json::{Value, json};
use shared::embedded::tesseract::Tesseract;
use shared::extraction::sniff::FileKind;
use shared::extraction::text::parse;
use shared::ports::Ocr;
use shared::ports::ocr::{ImageFormat, OcrError};
use shared::ports::ocr_contract;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn textract_passes_the_ocr_contract() {
    let Some(tesseract) = Tesseract::detect() else {
        assert!(
            std::env::var("SVC_REQUIRE_TESSERACT").as_deref() != Ok("1"),
            "SVC_REQUIRE_TESSERACT=1 but tesseract with the spa model is not installed"
        );
        eprintln!("Textract OCR contract NOT RUN: the fake endpoint needs tesseract-ocr-spa");
        return;
    };
    let fake = FakeTextract::start(tesseract).await;
    support::use_fake("TEXTRACT", &fake.url);
    let ocr = TextractOcr::from_env().await;
    ocr_contract::run(&ocr).await;
    assert!(!fake.received().is_empty());
    assert!(
        fake.received()
            .iter()
            .all(|k| matches!(k, FileKind::Png | FileKind::Jpeg)),
        "WebP is sent as PNG"
    );

    let png = ocr_contract::invoice_png();
    fake.with_expense(
        json!([field("DUE_DATE", "Vencimiento", "04/09/2026", 0.1, 0.12)]),
        json!([{"LineItemGroupIndex": 1, "LineItems": [
            {"LineItemExpenseFields": [
                field("ITEM", "Descripción", "Azulejos porcelánicos", 0.08, 0.30),
                field("QUANTITY", "Cant.", "35", 0.5, 0.30),
                field("UNIT_PRICE", "Precio", "9,90", 0.6, 0.30),
                field("PRICE", "Importe", "346,50", 0.8, 0.30)]},
            {"LineItemExpenseFields": [
                field("EXPENSE_ROW", "", "Mano de obra 1 1.200,00 1.200,00", 0.08, 0.33),
                field("PRICE", "Importe", "1.200,00", 0.8, 0.33)]}]}]),
    );
    let doc = ocr.read(&png, ImageFormat::Png).await.unwrap();
    assert_eq!(doc.line_hints.len(), 2);
    assert!(
        (doc.line_hints[0].left - 0.08).abs() < 1e-4 && (doc.line_hints[0].top - 0.30).abs() < 1e-4
    );
    let fields = parse(&doc, None);
    assert_eq!(
        fields.due_date.map(|d| d.value.to_string()).as_deref(),
        Some("2026-09-04")
    );
    let lines: Vec<(String, Option<String>)> = fields
        .lines
        .iter()
        .map(|l| (l.description.clone(), l.amount.map(|a| a.to_string())))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "Azulejos porcelánicos".to_string(),
                Some("346.50".to_string())
            ),
            ("Mano de obra".to_string(), Some("1200.00".to_string()))
        ]
    );
    assert_eq!(
        fields.lines[0].quantity.map(|q| q.to_string()).as_deref(),
        Some("35")
    );
    fake.with_expense(json!([]), json!([]));

    for (status, error_type) in [
        (StatusCode::BAD_REQUEST, "ThrottlingException"),
        (StatusCode::INTERNAL_SERVER_ERROR, "InternalServerError"),
    ] {
        fake.fail_with(status, error_type);
        let err = ocr.read(&png, ImageFormat::Png).await.unwrap_err();
        assert!(
            matches!(&err, OcrError::Failed(m) if m.contains(error_type)),
            "{error_type}: {err:?}"
        );
    }
    fake.fail_with(StatusCode::BAD_REQUEST, "UnsupportedDocumentException");
    assert!(matches!(
        ocr.read(&png, ImageFormat::Png).await,
        Err(OcrError::Unreadable(_))
    ));
}

/// An expense field in Textract's JSON, its value boxed at `left`, `top`.
fn field(kind: &str, label: &str, value: &str, left: f64, top: f64) -> Value {
    let geometry = json!({"BoundingBox": {"Left": left, "Top": top, "Width": 0.1, "Height": 0.02}});
    let mut field = json!({"Type": {"Text": kind, "Confidence": 99.0},
        "ValueDetection": {"Text": value, "Confidence": 97.0, "Geometry": geometry},
        "PageNumber": 1});
    if !label.is_empty() {
        field["LabelDetection"] = json!({"Text": label, "Confidence": 98.0});
    }
    field
}
