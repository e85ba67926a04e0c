//! The `Ocr` contract suite against the Textract adapter, through the fake
//! endpoint in `fake_textract`, plus what only Textract does: WebP reaches it
//! as PNG, and throttling and server errors are `Failed`.

mod fake_textract;

use axum::http::StatusCode;
use fake_textract::FakeTextract;
use infra_aws::TextractOcr;
use shared::embedded::Tesseract;
use shared::extraction::sniff::FileKind;
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
    // SAFETY: this binary holds a single test, which sets these before the SDK reads them.
    unsafe {
        std::env::set_var("AWS_ENDPOINT_URL_TEXTRACT", &fake.url);
        for (var, value) in [
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "eu-west-1"),
        ] {
            if std::env::var_os(var).is_none() {
                std::env::set_var(var, value);
            }
        }
    }
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
