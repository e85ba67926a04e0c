//! The extraction group: `POST /api/v1/invoices/extract`.

use axum::Json;
use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::json::ApiJson;
use super::quota::charge_unit;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::accounts;
use crate::app::extraction::{self, ExtractRequest, Extraction};
use crate::app::keys::Caller;
use crate::domain::madrid;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(extract_invoices))
}

/// Extract invoice data
///
/// Reads up to five invoices per request from `files` (base64 PDF, JPEG, PNG,
/// WebP, or e-invoice XML) and `texts` (text already extracted), and checks
/// each one with the service's own rules (`checks`, `warnings`). In order:
/// e-invoices (Facturae 3.x, UBL 2.1 Invoice/CreditNote, CII, and PDFs that
/// carry one: Factur-X, ZUGFeRD, XRechnung) are read exactly, without OCR;
/// PDFs with a text layer go to the Spanish field parser; images go through
/// OCR (Tesseract on the embedded host, AWS Textract on Lambda) and the same
/// parser. A PDF without a usable text layer (a scan) is `pdf_scanned` in
/// `errors`: send its pages as images.
///
/// One bad item never fails the others: it gets an entry in `errors`
/// (`pdf_scanned`, `file_unreadable`, `mime_mismatch`, `mime_unsupported`,
/// `file_too_large` (a decoded file over 5 MiB, a text over 200,000
/// characters, an image over the pixel limits, a PDF beyond the page limits),
/// `pdf_encrypted`, `no_invoice_found`, `ocr_unavailable`, `ocr_failed`).
/// No items, more than five, malformed JSON or a body over the size limit
/// (6 MiB by default) are a 400/413 for the whole request and cost nothing.
///
/// Quota: 1 unit per request with a live key when at least one item is read
/// by the field parser or OCR; a request whose items are all e-invoices read
/// natively (or all rejected by the format checks) is free. An
/// `Idempotency-Key` replays the same response and charges once. Test keys
/// validate exactly as live keys, then return a sample invoice of the same
/// shape per readable item (`livemode: false`) and use no quota. Nothing is
/// stored and nothing of the content is logged: neither the files nor the
/// extracted data — except that a request sent with an `Idempotency-Key`
/// keeps its response with the key for 24 hours, to replay it.
#[utoipa::path(post, path = "/api/v1/invoices/extract", tag = "extraction", operation_id = "extract_invoices",
    request_body = ExtractRequest,
    responses((status = 200, description = "One entry per item, in `invoices` or in `errors`", body = Extraction)))]
async fn extract_invoices(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    ApiJson(request): ApiJson<ExtractRequest>,
) -> Result<Json<Extraction>, ApiError> {
    request
        .validate()
        .map_err(|e| ApiError::invalid(e.code, e.message).param(e.param))?;
    let prepared = extraction::prepare(request).await;
    let today = madrid::date(state.ports.clock.now());
    if !caller.mode.is_live() {
        return Ok(Json(extraction::sample(prepared, today)));
    }
    // The caller's own NIF tells issuer from recipient in the field parser;
    // e-invoices name both, so a request of only those needs no account read.
    let own_nif = if prepared.chargeable() {
        charge_unit(&state, &caller, &uow).await?;
        accounts::get(&state.ports, &caller.account_id)
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?
            .issuer
            .nif
    } else {
        None
    };
    Ok(Json(
        extraction::finish(&state.ports, prepared, own_nif, today).await,
    ))
}
