//! The extraction group: `POST /api/v1/invoices/extract`.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::async_mode::AsyncMode;
use super::error::ApiError;
use super::jobs;
use super::json::{self, JsonBody};
use super::quota::charge_unit;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::extraction::{self, ExtractRequest, Extraction};
use crate::app::jobs::{JobResource, Kind};
use crate::app::keys::Caller;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(extract_invoices))
}

/// Extract invoice data
///
/// Reads up to five invoices per request from `files` (base64 PDF, JPEG, PNG,
/// WebP, or e-invoice XML, or the same uploaded with `POST /api/v1/uploads`
/// and given by `upload_id`) and `texts` (text already extracted), and checks
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
/// `file_too_large` (an image over 5 MiB, a PDF or XML over 50 MiB, a text
/// over 200,000 characters, an image over the pixel limits, a PDF beyond the
/// page limits, an e-invoice XML beyond its reading limits: 200,000
/// elements, 64 levels, 100 attributes per element and 200,000 in all),
/// `pdf_encrypted`, `no_invoice_found`, `ocr_unavailable`, `ocr_failed`).
/// No items, more than five, malformed JSON or a body over the size limit
/// (6 MiB by default; 4 MiB on AWS Lambda) are a 400/413 for the whole
/// request and cost nothing; so are a file with both `data` and `upload_id`
/// or neither (400, `param: files[i]`), and an upload that cannot be used
/// (400 `upload_missing`, `upload_size_mismatch`, or `upload_mismatch` when
/// the `mime` given is not the upload's).
///
/// Quota: 1 unit per request with a live key when at least one item is read
/// by the field parser or OCR; a request whose items are all e-invoices read
/// natively (or all rejected by the format checks) is free. An
/// `Idempotency-Key` replays the same response and charges once. Test keys
/// validate exactly as live keys, then return a sample invoice of the same
/// shape per readable item (`livemode: false`) and use no quota. Nothing is
/// stored and nothing of the content is logged: neither the files nor the
/// extracted data — except that a request sent with an `Idempotency-Key`
/// keeps its response with the key for 24 hours, to replay it, and that a
/// request in async mode keeps its body until its job ends and the job's
/// result for 24 hours after.
///
/// **Async mode** (`?async=true` or `Prefer: respond-async`): the checks
/// that make a 400/413 and the quota charge happen first, and their errors
/// come at once with no job created; then the answer is 202 with a job of
/// kind `invoices.extract` (see `GET /api/v1/jobs/{id}`), whose `result` is
/// this operation's response. A job that fails costs no quota. A request
/// whose uploads hold more than the synchronous budget (`SVC_SYNC_MAX_BYTES`,
/// 6 MiB by default) is always run in async mode, as if it had asked.
#[utoipa::path(post, path = "/api/v1/invoices/extract", tag = "extraction", operation_id = "extract_invoices",
    params(AsyncMode),
    request_body = ExtractRequest,
    responses((status = 200, description = "One entry per item, in `invoices` or in `errors`", body = Extraction),
        (status = 202, description = "Async mode: the job (kind `invoices.extract`) whose `result` will be the extraction",
            body = JobResource, headers(
                ("Location" = String, description = "The job: `/api/v1/jobs/{id}`"),
                ("Retry-After" = u32, description = "Seconds to wait before reading the job"),
                ("Preference-Applied" = String, description = "`respond-async` when `Prefer: respond-async` was honoured")))))]
async fn extract_invoices(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    mode: AsyncMode,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let mut request: ExtractRequest = json::parse(&body)?;
    request
        .validate()
        .map_err(|e| ApiError::invalid(e.code, e.message).param(e.param))?;
    let uploads = extraction::uploaded::find(&state.ports, &caller, &mut request).await?;
    if mode.requested || uploads.total() > state.config.sync_max_bytes {
        // The job prepares the request itself; here only whether it costs
        // a unit is needed, and the errors that make it a 400.
        let chargeable = extraction::chargeable(&state.ports, &uploads, request).await?;
        let quota_day = charge(&state, &caller, &uow, chargeable).await?;
        return jobs::accept(&state, &caller, &uow, mode, Kind::Extract, body, quota_day).await;
    }
    let prepared = extraction::prepare(&state.ports, &uploads, request).await?;
    charge(&state, &caller, &uow, prepared.chargeable()).await?;
    let extraction = extraction::run(&state.ports, &caller, prepared)
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(extraction).into_response())
}

/// A unit for a live key's chargeable request: the quota day charged, if any.
async fn charge(
    state: &AppState,
    caller: &Caller,
    uow: &UnitOfWork,
    chargeable: bool,
) -> Result<Option<String>, ApiError> {
    if caller.mode.is_live() && chargeable {
        charge_unit(state, caller, uow).await
    } else {
        Ok(None)
    }
}
