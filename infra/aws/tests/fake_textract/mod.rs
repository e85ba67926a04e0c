//! A fake Textract endpoint for tests (the DynamoDB emulator has none): an
//! in-process axum server answering `Textract.AnalyzeExpense` in the
//! documented JSON shape, its LINE and WORD blocks read from the received
//! image by Tesseract, so the one OCR contract suite can hold both adapters
//! to the same findings. It can be given summary fields and line items to
//! answer with besides (`with_expense`), in Textract's JSON shape. It rejects what Textract rejects (formats other than
//! PNG and JPEG, unreadable images) with Textract's error types, and can be
//! told to fail every call (throttling, server errors).

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use shared::embedded::tesseract::Tesseract;
use shared::extraction::Word;
use shared::extraction::sniff::{FileKind, sniff};
use shared::ports::Ocr;
use shared::ports::ocr::{ImageFormat, OcrError};

/// Textract's synchronous limit for one document.
const MAX_DOCUMENT_BYTES: usize = 10 << 20;

pub struct FakeTextract {
    pub url: String,
    state: Arc<Fake>,
}

struct Fake {
    tesseract: Tesseract,
    /// `SummaryFields` and `LineItemGroups` added to every answer.
    expense: Mutex<(Value, Value)>,
    failure: Mutex<Option<(StatusCode, &'static str)>>,
    received: Mutex<Vec<FileKind>>,
}

impl FakeTextract {
    pub async fn start(tesseract: Tesseract) -> FakeTextract {
        let state = Arc::new(Fake {
            tesseract,
            expense: Mutex::new((json!([]), json!([]))),
            failure: Mutex::new(None),
            received: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/", post(analyze_expense))
            .layer(DefaultBodyLimit::max(4 * MAX_DOCUMENT_BYTES))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        FakeTextract { url, state }
    }

    /// Every answer from now on carries these summary fields and line item groups.
    pub fn with_expense(&self, summary_fields: Value, line_item_groups: Value) {
        *self.state.expense.lock().unwrap() = (summary_fields, line_item_groups);
    }

    /// Every call from now on fails with this status and error type.
    pub fn fail_with(&self, status: StatusCode, error_type: &'static str) {
        *self.state.failure.lock().unwrap() = Some((status, error_type));
    }

    /// The kinds of the documents received so far.
    pub fn received(&self) -> Vec<FileKind> {
        self.state.received.lock().unwrap().clone()
    }
}

async fn analyze_expense(
    State(fake): State<Arc<Fake>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if headers.get("x-amz-target").and_then(|v| v.to_str().ok()) != Some("Textract.AnalyzeExpense")
    {
        return error(StatusCode::BAD_REQUEST, "UnknownOperationException", "");
    }
    if let Some((status, error_type)) = *fake.failure.lock().unwrap() {
        return error(status, error_type, "failing as told");
    }
    let Some(bytes) = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| STANDARD.decode(v["Document"]["Bytes"].as_str()?).ok())
    else {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidParameterException",
            "no Document.Bytes",
        );
    };
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return error(
            StatusCode::BAD_REQUEST,
            "DocumentTooLargeException",
            "over 10 MB",
        );
    }
    let kind = sniff(&bytes);
    let format = match kind {
        Some(FileKind::Png) => ImageFormat::Png,
        Some(FileKind::Jpeg) => ImageFormat::Jpeg,
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "UnsupportedDocumentException",
                "Request has unsupported document format; supported formats are JPEG, PNG, PDF and TIFF",
            );
        }
    };
    fake.received.lock().unwrap().extend(kind);
    match fake.tesseract.read(&bytes, format).await {
        Ok(doc) => {
            let (summary, line_items) = fake.expense.lock().unwrap().clone();
            json_response(StatusCode::OK, analysis(&doc.words, summary, line_items))
        }
        Err(OcrError::Unreadable(why)) => {
            error(StatusCode::BAD_REQUEST, "BadDocumentException", &why)
        }
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            &e.to_string(),
        ),
    }
}

/// One expense document: a PAGE block, LINE blocks (words whose tops lie
/// within half a word height) and WORD blocks, with the given summary
/// fields and line item groups.
fn analysis(words: &[Word], summary_fields: Value, line_item_groups: Value) -> Value {
    let mut blocks = vec![json!({"BlockType": "PAGE", "Id": "page-1", "Page": 1,
        "Geometry": {"BoundingBox": {"Left": 0.0, "Top": 0.0, "Width": 1.0, "Height": 1.0}}})];
    let mut lines: Vec<Vec<&Word>> = Vec::new();
    for w in words {
        match lines.last_mut() {
            Some(line) if (line[0].top - w.top).abs() <= line[0].height / 2.0 => line.push(w),
            _ => lines.push(vec![w]),
        }
    }
    for (i, line) in lines.iter().enumerate() {
        let left = line.iter().map(|w| w.left).fold(1.0, f32::min);
        let right = line.iter().map(|w| w.left + w.width).fold(0.0, f32::max);
        let top = line.iter().map(|w| w.top).fold(1.0, f32::min);
        let bottom = line.iter().map(|w| w.top + w.height).fold(0.0, f32::max);
        let text: Vec<&str> = line.iter().map(|w| w.text.as_str()).collect();
        let confidence = line.iter().map(|w| w.confidence).sum::<f32>() / line.len() as f32;
        blocks.push(
            json!({"BlockType": "LINE", "Id": format!("line-{i}"), "Page": 1,
            "Text": text.join(" "), "Confidence": confidence * 100.0,
            "Geometry": {"BoundingBox": {"Left": left, "Top": top,
                "Width": right - left, "Height": bottom - top}}}),
        );
    }
    for (i, w) in words.iter().enumerate() {
        blocks.push(
            json!({"BlockType": "WORD", "Id": format!("word-{i}"), "Page": 1,
            "Text": w.text, "Confidence": w.confidence * 100.0, "TextType": "PRINTED",
            "Geometry": {"BoundingBox": {"Left": w.left, "Top": w.top,
                "Width": w.width, "Height": w.height}}}),
        );
    }
    json!({"DocumentMetadata": {"Pages": 1}, "ExpenseDocuments": [{
        "ExpenseIndex": 1, "SummaryFields": summary_fields, "LineItemGroups": line_item_groups,
        "Blocks": blocks}]})
}

fn error(status: StatusCode, error_type: &str, message: &str) -> Response {
    let mut response = json_response(status, json!({"__type": error_type, "Message": message}));
    if let Ok(value) = HeaderValue::from_str(error_type) {
        response.headers_mut().insert("x-amzn-errortype", value);
    }
    response
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/x-amz-json-1.1")],
        body.to_string(),
    )
        .into_response()
}
