//! The `Ocr` port: reads the text of an invoice image, with positions. Two
//! adapters: Tesseract on the embedded host, AWS Textract AnalyzeExpense on
//! Lambda; both give a `TextDocument` to the same Spanish field parser.

use async_trait::async_trait;

use crate::extraction::TextDocument;
pub use crate::extraction::image::ImageFormat;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OcrError {
    /// This host has no OCR engine (not installed or not configured).
    #[error("no OCR engine is available: {0}")]
    Unavailable(String),
    /// The engine could not read the image (corrupt, too large, unsupported).
    #[error("the image could not be read: {0}")]
    Unreadable(String),
    /// The engine failed for its own reasons (timeout, throttling, crash).
    #[error("the OCR engine failed: {0}")]
    Failed(String),
}

#[async_trait]
pub trait Ocr: Send + Sync {
    async fn read(&self, image: &[u8], format: ImageFormat) -> Result<TextDocument, OcrError>;
}

/// The adapter of a host without OCR: every image is `Unavailable`.
pub struct NoOcr;

#[async_trait]
impl Ocr for NoOcr {
    async fn read(&self, _: &[u8], _: ImageFormat) -> Result<TextDocument, OcrError> {
        Err(OcrError::Unavailable(
            "this host has no OCR engine configured".into(),
        ))
    }
}
