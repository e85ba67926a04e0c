//! The `Ocr` port on AWS: Textract `AnalyzeExpense` on the image bytes inline.
//! WORD blocks become words (their bounding boxes are already page
//! fractions, confidences 0–100 become 0–1); summary fields become hints,
//! which the parser treats as suggestions only; each `LineItemGroups` line
//! item becomes a line hint (`ITEM`, `QUANTITY`, `UNIT_PRICE`, `PRICE`,
//! `EXPENSE_ROW` …) placed by the union of its fields' boxes, in the same
//! page-fraction frame as the words.
//!
//! Textract takes JPEG and PNG (not WebP) up to 5 MB inline: WebP is
//! transcoded to PNG, and a larger image to JPEG, before the call.

use std::collections::HashSet;
use std::io::Cursor;
use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_textract::Client;
use aws_sdk_textract::config::timeout::TimeoutConfig;
use aws_sdk_textract::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_textract::operation::analyze_expense::{AnalyzeExpenseError, AnalyzeExpenseOutput};
use aws_sdk_textract::primitives::Blob;
use aws_sdk_textract::types::{
    Block, BlockType, BoundingBox, Document, ExpenseDetection, ExpenseDocument, ExpenseField,
};
use shared::extraction::image::{ImageError, inspect_image};
use shared::extraction::{Hint, LineHint, TextDocument, Word};
use shared::http::deadline;
use shared::ports::ocr::{ImageFormat, Ocr, OcrError};

/// The largest inline document sent (`Document.Bytes`).
pub const MAX_INLINE_BYTES: usize = 5 << 20;
/// Longest one call may take, retries included; less when the request's
/// deadline is nearer (see `call_timeout`).
pub const TIMEOUT: Duration = Duration::from_secs(60);
/// Left, after the call, for reading its answer and checking the invoice.
const AFTER_CALL: Duration = Duration::from_secs(1);
/// JPEG quality of an image re-encoded to fit the inline limit.
const JPEG_QUALITY: u8 = 85;

pub struct TextractOcr {
    client: Client,
}

impl TextractOcr {
    /// A client from the standard AWS environment (region, credentials,
    /// `AWS_ENDPOINT_URL_TEXTRACT`).
    pub async fn from_env() -> Self {
        let shared = crate::sdk::config().await;
        let config = aws_sdk_textract::config::Builder::from(&shared)
            .timeout_config(TimeoutConfig::builder().operation_timeout(TIMEOUT).build())
            .build();
        TextractOcr {
            client: Client::from_conf(config),
        }
    }
}

#[async_trait]
impl Ocr for TextractOcr {
    async fn read(&self, image: &[u8], format: ImageFormat) -> Result<TextDocument, OcrError> {
        let bytes = payload(image, format)?;
        let timeout = TimeoutConfig::builder()
            .operation_timeout(call_timeout(deadline::remaining()))
            .build();
        let output = self
            .client
            .analyze_expense()
            .document(Document::builder().bytes(Blob::new(bytes)).build())
            .customize()
            .config_override(aws_sdk_textract::config::Builder::default().timeout_config(timeout))
            .send()
            .await
            .map_err(error)?;
        Ok(text_document(&output))
    }
}

/// A call's timeout within what the request has left: an item whose OCR
/// would outlive the request fails alone (`ocr_failed`), and the others
/// are answered.
fn call_timeout(left: Option<Duration>) -> Duration {
    left.map_or(TIMEOUT, |left| left.saturating_sub(AFTER_CALL).min(TIMEOUT))
}

/// The bytes Textract accepts for this image: checked, WebP as PNG, and
/// within the inline limit.
fn payload(image: &[u8], format: ImageFormat) -> Result<Vec<u8>, OcrError> {
    inspect_image(image, format).map_err(|e| match e {
        ImageError::Unreadable(why) | ImageError::TooLarge(why) => OcrError::Unreadable(why),
    })?;
    let bytes = match format {
        ImageFormat::Webp => encode(image, format, image::ImageFormat::Png)?,
        ImageFormat::Png | ImageFormat::Jpeg => image.to_vec(),
    };
    if bytes.len() <= MAX_INLINE_BYTES {
        return Ok(bytes);
    }
    let jpeg = encode(image, format, image::ImageFormat::Jpeg)?;
    if jpeg.len() > MAX_INLINE_BYTES {
        return Err(OcrError::Unreadable(format!(
            "the image is larger than {MAX_INLINE_BYTES} bytes even as JPEG"
        )));
    }
    Ok(jpeg)
}

fn encode(image: &[u8], from: ImageFormat, to: image::ImageFormat) -> Result<Vec<u8>, OcrError> {
    let codec = match from {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Webp => image::ImageFormat::WebP,
    };
    let decoded = image::load_from_memory_with_format(image, codec)
        .map_err(|e| OcrError::Unreadable(format!("{from:?}: {e}")))?
        .to_rgb8();
    let mut out = Cursor::new(Vec::new());
    let written = match to {
        image::ImageFormat::Jpeg => decoded.write_with_encoder(
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY),
        ),
        other => decoded.write_to(&mut out, other),
    };
    written.map_err(|e| OcrError::Failed(format!("re-encoding the image: {e}")))?;
    Ok(out.into_inner())
}

/// Words from the WORD blocks (LINE blocks when a document has no WORD
/// blocks), hints from the summary fields, across all expense documents.
fn text_document(output: &AnalyzeExpenseOutput) -> TextDocument {
    let mut seen = HashSet::new();
    let mut words = Vec::new();
    let mut hints = Vec::new();
    let mut line_hints = Vec::new();
    for doc in output.expense_documents() {
        let kind = if doc
            .blocks()
            .iter()
            .any(|b| b.block_type() == Some(&BlockType::Word))
        {
            BlockType::Word
        } else {
            BlockType::Line
        };
        for block in doc.blocks() {
            if block.block_type() == Some(&kind) && seen.insert(block.id().map(str::to_owned)) {
                words.extend(word(block));
            }
        }
        hints.extend(doc.summary_fields().iter().filter_map(hint));
        line_hints.extend(lines(doc));
    }
    TextDocument {
        words,
        hints,
        line_hints,
    }
}

/// A coordinate as a page fraction; anything not a number counts as 0.
fn frac(v: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn page(number: Option<i32>) -> u32 {
    number.and_then(|p| u32::try_from(p).ok()).unwrap_or(1)
}

/// The line items of all groups, each with the box around its fields.
fn lines(doc: &ExpenseDocument) -> Vec<LineHint> {
    doc.line_item_groups()
        .iter()
        .flat_map(|group| group.line_items())
        .filter_map(|item| {
            let fields = item.line_item_expense_fields();
            let hints: Vec<Hint> = fields.iter().filter_map(hint).collect();
            let boxes: Vec<(u32, &BoundingBox)> = fields
                .iter()
                .filter_map(|f| {
                    let bbox = f.value_detection()?.geometry()?.bounding_box()?;
                    Some((page(f.page_number()), bbox))
                })
                .collect();
            let line_page = boxes.first().map_or(1, |(p, _)| *p);
            let on_page = boxes
                .iter()
                .filter(|(p, _)| *p == line_page)
                .map(|(_, b)| *b);
            let (mut left, mut top, mut right, mut bottom) = (1.0f32, 1.0f32, 0.0f32, 0.0f32);
            for b in on_page {
                left = left.min(frac(b.left()));
                top = top.min(frac(b.top()));
                right = right.max(frac(b.left() + b.width()));
                bottom = bottom.max(frac(b.top() + b.height()));
            }
            (!hints.is_empty()).then(|| LineHint {
                fields: hints,
                page: line_page,
                left: left.min(right),
                top: top.min(bottom),
                width: (right - left).max(0.0),
                height: (bottom - top).max(0.0),
            })
        })
        .collect()
}

fn word(block: &Block) -> Option<Word> {
    let text = block.text()?.trim();
    let bbox = block.geometry()?.bounding_box()?;
    (!text.is_empty()).then(|| Word {
        text: text.to_string(),
        page: page(block.page()),
        left: frac(bbox.left()),
        top: frac(bbox.top()),
        width: frac(bbox.width()),
        height: frac(bbox.height()),
        confidence: frac(block.confidence().unwrap_or(0.0) / 100.0),
        line: None,
    })
}

fn hint(field: &ExpenseField) -> Option<Hint> {
    let value = field.value_detection()?;
    Some(Hint {
        kind: field.r#type()?.text()?.to_string(),
        label: field
            .label_detection()
            .and_then(ExpenseDetection::text)
            .map(str::to_owned),
        value: value.text()?.to_string(),
        groups: field
            .group_properties()
            .iter()
            .flat_map(|g| g.types().iter().cloned())
            .collect(),
        confidence: (value.confidence().unwrap_or(0.0) / 100.0).clamp(0.0, 1.0),
    })
}

/// Document problems are `Unreadable`, told to the client by Textract's
/// error code alone; throttling, server and transport errors are `Failed`,
/// with the SDK's whole text for the log.
fn error(e: SdkError<AnalyzeExpenseError>) -> OcrError {
    match e.as_service_error() {
        Some(
            AnalyzeExpenseError::BadDocumentException(_)
            | AnalyzeExpenseError::UnsupportedDocumentException(_)
            | AnalyzeExpenseError::DocumentTooLargeException(_)
            | AnalyzeExpenseError::InvalidParameterException(_),
        ) => OcrError::Unreadable(format!(
            "Textract refused it ({})",
            e.code().unwrap_or("no code")
        )),
        _ => OcrError::Failed(DisplayErrorContext(&e).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_textract::types::{
        ExpenseGroupProperty, ExpenseType, Geometry, LineItemFields, LineItemGroup,
    };

    use super::*;

    fn block(kind: BlockType, id: &str, text: &str, left: f32) -> Block {
        Block::builder()
            .block_type(kind)
            .id(id)
            .text(text)
            .confidence(97.5)
            .page(1)
            .geometry(
                Geometry::builder()
                    .bounding_box(
                        BoundingBox::builder()
                            .left(left)
                            .top(0.09)
                            .width(0.12)
                            .height(0.01)
                            .build(),
                    )
                    .build(),
            )
            .build()
    }

    fn detection(text: &str) -> ExpenseDetection {
        ExpenseDetection::builder()
            .text(text)
            .confidence(98.0)
            .build()
    }

    #[test]
    fn word_blocks_and_summary_fields_become_words_and_hints() {
        let field = ExpenseField::builder()
            .r#type(
                ExpenseType::builder()
                    .text("VENDOR_VAT_NUMBER")
                    .confidence(88.0)
                    .build(),
            )
            .label_detection(detection("CIF:"))
            .value_detection(detection("B12345674"))
            .group_properties(
                ExpenseGroupProperty::builder()
                    .id("g1")
                    .types("VENDOR")
                    .build(),
            )
            .build();
        let doc = ExpenseDocument::builder()
            .blocks(block(BlockType::Line, "l1", "CIF: B12345674", 0.08))
            .blocks(block(BlockType::Word, "w1", "CIF:", 0.08))
            .blocks(block(BlockType::Word, "w2", "B12345674", 0.13))
            .summary_fields(field)
            .build();
        let output = AnalyzeExpenseOutput::builder()
            .expense_documents(doc.clone())
            .expense_documents(doc)
            .build();
        let text = text_document(&output);
        let words: Vec<_> = text.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(words, ["CIF:", "B12345674"]);
        assert_eq!(
            text.words[1],
            Word {
                text: "B12345674".into(),
                page: 1,
                left: 0.13,
                top: 0.09,
                width: 0.12,
                height: 0.01,
                confidence: 0.975,
                line: None,
            }
        );
        assert_eq!(
            text.hints[0],
            Hint {
                kind: "VENDOR_VAT_NUMBER".into(),
                label: Some("CIF:".into()),
                value: "B12345674".into(),
                groups: vec!["VENDOR".into()],
                confidence: 0.98,
            }
        );
    }

    fn line_field(kind: &str, value: &str, left: f32, top: f32) -> ExpenseField {
        let geometry = Geometry::builder()
            .bounding_box(
                BoundingBox::builder()
                    .left(left)
                    .top(top)
                    .width(0.1)
                    .height(0.02)
                    .build(),
            )
            .build();
        ExpenseField::builder()
            .r#type(ExpenseType::builder().text(kind).build())
            .value_detection(
                ExpenseDetection::builder()
                    .text(value)
                    .confidence(95.0)
                    .geometry(geometry)
                    .build(),
            )
            .page_number(2)
            .build()
    }

    #[test]
    fn line_items_become_line_hints_boxed_in_the_page_frame() {
        let item = LineItemFields::builder()
            .line_item_expense_fields(line_field("ITEM", "Azulejos", 0.08, 0.30))
            .line_item_expense_fields(line_field("QUANTITY", "35", 0.5, 0.30))
            .line_item_expense_fields(line_field("PRICE", "346,50", 0.8, 0.31))
            .build();
        let doc = ExpenseDocument::builder()
            .line_item_groups(LineItemGroup::builder().line_items(item).build())
            .build();
        let output = AnalyzeExpenseOutput::builder()
            .expense_documents(doc)
            .build();
        let lines = text_document(&output).line_hints;
        assert_eq!(lines.len(), 1);
        let line = &lines[0];
        let kinds: Vec<_> = line.fields.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["ITEM", "QUANTITY", "PRICE"]);
        assert_eq!(line.fields[2].value, "346,50");
        assert_eq!(line.page, 2);
        assert!((line.left - 0.08).abs() < 1e-6 && (line.top - 0.30).abs() < 1e-6);
        assert!((line.width - 0.82).abs() < 1e-5 && (line.height - 0.03).abs() < 1e-5);
    }

    #[test]
    fn line_blocks_stand_in_when_there_are_no_words() {
        let doc = ExpenseDocument::builder()
            .blocks(block(BlockType::Line, "l1", "Total 1.639,29", 0.5))
            .build();
        let output = AnalyzeExpenseOutput::builder()
            .expense_documents(doc)
            .build();
        assert_eq!(text_document(&output).words[0].text, "Total 1.639,29");
    }

    #[test]
    fn a_call_has_what_the_request_has_left_at_most_a_minute() {
        assert_eq!(call_timeout(None), TIMEOUT);
        assert_eq!(call_timeout(Some(Duration::from_secs(600))), TIMEOUT);
        assert_eq!(
            call_timeout(Some(Duration::from_secs(20))),
            Duration::from_secs(19)
        );
        assert_eq!(call_timeout(Some(Duration::ZERO)), Duration::ZERO);
    }
}
