//! The extraction use case, callable without HTTP (REST, MCP and the jobs
//! worker run the same two phases): `prepare` (format checks, e-invoices,
//! PDF opening; cheap, before the quota charge) and `finish` (field parsing
//! and OCR, then the checks). Nothing is stored: neither the files nor the data.

mod ai;
pub mod prepare;
pub mod request;
mod sample;
pub mod uploaded;

use chrono::NaiveDate;
use serde::Serialize;
use tokio::task::JoinSet;
use utoipa::ToSchema;

use crate::app::accounts::{self, AccountError};
use crate::app::keys::Caller;
use crate::domain::madrid;
use crate::extraction::checks::check;
use crate::extraction::qr;
use crate::extraction::qr_image::read_codes;
use crate::extraction::result::ExtractedInvoice;
use crate::extraction::text::parse;
use crate::extraction::{Fields, Source, TextDocument};
use crate::ports::Ports;
use crate::ports::ai::AiSource;
use crate::ports::ocr::OcrError;
use crate::tax::nif::Nif;
pub use prepare::{Item, ItemError, Prepared, Work, chargeable, prepare};
pub use request::ExtractRequest;

/// An item that gave no invoice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"file_name": "escaneo.pdf", "code": "pdf_scanned",
    "message": "the PDF has no usable text layer (a scan); send its pages as images (image/jpeg, image/png or image/webp) to have them read by OCR"}))]
pub struct ExtractionError {
    pub file_name: String,
    /// `pdf_scanned`, `file_unreadable`, `mime_mismatch`, `mime_unsupported`,
    /// `file_too_large`, `pdf_encrypted`, `no_invoice_found`,
    /// `ocr_unavailable` or `ocr_failed` (the OCR engine failed; retry later).
    pub code: String,
    pub message: String,
}

/// The result of an extraction request: every item is in exactly one of the
/// two arrays, in request order (files, then texts). A Facturae batch file
/// with several invoices gives one entry per invoice, each with its name.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Extraction {
    /// Always `extraction`.
    pub object: &'static str,
    pub invoices: Vec<ExtractedInvoice>,
    pub errors: Vec<ExtractionError>,
    /// False when made with a test key (sample data).
    pub livemode: bool,
}

enum Outcome {
    Invoices(Vec<ExtractedInvoice>),
    Error(ExtractionError),
}

fn failed(file_name: &str, error: ItemError) -> Outcome {
    Outcome::Error(ExtractionError {
        file_name: file_name.to_string(),
        code: error.code.to_string(),
        message: error.message,
    })
}

/// Nothing recognisable as an invoice: no amount, no number, no tax id.
fn is_empty(fields: &Fields) -> bool {
    fields.total.is_none()
        && fields.base.is_none()
        && fields.vat_amount.is_none()
        && fields.invoice_number.is_none()
        && fields.issuer_nif.is_none()
}

/// What the second phase reads an invoice from: positioned text, what was
/// noticed on the way, and the payloads of the QR codes found beside it.
struct Reading<'a> {
    source: Source,
    document: &'a TextDocument,
    notes: Vec<(String, String)>,
    qr_codes: &'a [String],
}

/// Parses the text, with the AI model's reading when one is configured; a
/// tax QR code (or TicketBAI identifier) then overrides what it carries,
/// with a `qr_mismatch` warning for each value read otherwise that differs.
async fn parsed(
    ai: Option<&AiSource>,
    file_name: &str,
    reading: Reading<'_>,
    own_nif: Option<&Nif>,
    today: NaiveDate,
) -> Outcome {
    let mut fields = parse(reading.document, own_nif);
    if let Some(ai) = ai {
        fields = ai::consult(ai, reading.document, fields, own_nif, today).await;
    }
    let code = qr::read(reading.qr_codes, reading.document);
    if let Some(code) = &code {
        let mismatches = qr::apply(&mut fields, code);
        fields.notes.extend(mismatches);
    }
    if is_empty(&fields) {
        return failed(
            file_name,
            ItemError::new(
                "no_invoice_found",
                "no invoice was found: no amounts, invoice number or tax id could be read",
            ),
        );
    }
    fields.notes.extend(reading.notes);
    let mut invoice = check(fields, reading.source, file_name, today);
    invoice.qr = code;
    Outcome::Invoices(vec![invoice])
}

fn ocr_error(e: OcrError) -> ItemError {
    match e {
        OcrError::Unavailable(m) => ItemError::new(
            "ocr_unavailable",
            format!(
                "images cannot be read on this host ({m}); send the invoice as a text PDF, an e-invoice or text"
            ),
        ),
        OcrError::Unreadable(m) => {
            ItemError::new("file_unreadable", format!("the image cannot be read: {m}"))
        }
        // The engine's own words (an SDK's, on AWS) stay in the log.
        OcrError::Failed(m) => {
            tracing::error!(error = %m, "OCR failed");
            ItemError::new("ocr_failed", "the OCR engine failed; try again later")
        }
    }
}

/// The second phase: parse texts, OCR images (concurrently), consult the AI
/// model when one is configured (concurrently), check every invoice.
/// `own_nif` is the caller's own tax id (the account's issuer NIF), which tells
/// issuer and recipient apart on purchase invoices; `today` is the Madrid date.
pub async fn finish(
    ports: &Ports,
    prepared: Prepared,
    own_nif: Option<Nif>,
    today: NaiveDate,
) -> Extraction {
    let mut outcomes: Vec<(String, Option<Outcome>)> = Vec::with_capacity(prepared.items.len());
    let mut reading = JoinSet::new();
    for (index, item) in prepared.items.into_iter().enumerate() {
        let outcome = match item.work {
            Work::Failed(e) => Some(failed(&item.file_name, e)),
            Work::Einvoice { source, invoices } => Some(Outcome::Invoices(
                invoices
                    .into_iter()
                    .map(|f| check(f, source, &item.file_name, today))
                    .collect(),
            )),
            Work::Text {
                source,
                document,
                notes,
                qr_codes,
            } => match ports.ai.clone() {
                None => Some(
                    parsed(
                        None,
                        &item.file_name,
                        Reading {
                            source,
                            document: &document,
                            notes,
                            qr_codes: &qr_codes,
                        },
                        own_nif.as_ref(),
                        today,
                    )
                    .await,
                ),
                Some(ai) => {
                    let own_nif = own_nif.clone();
                    let file_name = item.file_name.clone();
                    reading.spawn(async move {
                        let read = Reading {
                            source,
                            document: &document,
                            notes,
                            qr_codes: &qr_codes,
                        };
                        let outcome =
                            parsed(Some(&ai), &file_name, read, own_nif.as_ref(), today).await;
                        (index, outcome)
                    });
                    None
                }
            },
            Work::Image { bytes, format } => {
                let engine = ports.ocr.clone();
                let ai = ports.ai.clone();
                let own_nif = own_nif.clone();
                let file_name = item.file_name.clone();
                reading.spawn(async move {
                    let (read, qr_codes) = tokio::join!(
                        engine.read(&bytes, format),
                        read_codes(bytes.clone(), format)
                    );
                    let outcome = match read.map(TextDocument::straightened) {
                        Ok(document) => {
                            parsed(
                                ai.as_ref(),
                                &file_name,
                                Reading {
                                    source: Source::Ocr,
                                    document: &document,
                                    notes: Vec::new(),
                                    qr_codes: &qr_codes,
                                },
                                own_nif.as_ref(),
                                today,
                            )
                            .await
                        }
                        Err(e) => failed(&file_name, ocr_error(e)),
                    };
                    (index, outcome)
                });
                None
            }
        };
        outcomes.push((item.file_name, outcome));
    }
    while let Some(joined) = reading.join_next().await {
        if let Ok((index, outcome)) = joined
            && let Some((_, slot)) = outcomes.get_mut(index)
        {
            *slot = Some(outcome);
        }
    }
    let mut extraction = Extraction {
        object: "extraction",
        invoices: Vec::new(),
        errors: Vec::new(),
        livemode: true,
    };
    for (file_name, outcome) in outcomes {
        match outcome {
            Some(Outcome::Invoices(invoices)) => extraction.invoices.extend(invoices),
            Some(Outcome::Error(e)) => extraction.errors.push(e),
            None => extraction.errors.push(ExtractionError {
                file_name,
                code: "ocr_failed".into(),
                message: "the OCR of this item stopped unexpectedly; try again".into(),
            }),
        }
    }
    extraction
}

/// The second phase for a caller, as of today (Europe/Madrid): a test key
/// gets `sample`; a live key gets `finish` with the account's own NIF, read
/// only when an item goes to the field parser (e-invoices name both parties).
pub async fn run(
    ports: &Ports,
    caller: &Caller,
    prepared: Prepared,
) -> Result<Extraction, AccountError> {
    let today = madrid::date(ports.clock.now());
    if !caller.mode.is_live() {
        return Ok(sample(prepared, today));
    }
    let own_nif = if prepared.chargeable() {
        accounts::get(ports, &caller.account_id).await?.issuer.nif
    } else {
        None
    };
    Ok(finish(ports, prepared, own_nif, today).await)
}

/// What a test key gets: the same validation (the first phase's errors stand),
/// then a sample invoice of the same shape for every item that would be read.
pub fn sample(prepared: Prepared, today: NaiveDate) -> Extraction {
    let mut extraction = Extraction {
        object: "extraction",
        invoices: Vec::new(),
        errors: Vec::new(),
        livemode: false,
    };
    for item in prepared.items {
        let source = match item.work {
            Work::Failed(e) => {
                extraction.errors.push(ExtractionError {
                    file_name: item.file_name,
                    code: e.code.to_string(),
                    message: e.message,
                });
                continue;
            }
            Work::Einvoice { source, .. } | Work::Text { source, .. } => source,
            Work::Image { .. } => Source::Ocr,
        };
        extraction
            .invoices
            .push(check(sample::fields(today), source, &item.file_name, today));
    }
    extraction
}
