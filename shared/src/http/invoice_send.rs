//! `POST /invoices/{id}/send`: the invoice emailed with its documents
//! (`app::invoices::send`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ErrorBody};
use super::invoices::{invoice_id, requiring_key};
use super::json::ApiJson;
use super::state::AppState;
use crate::app::invoices::send::{self, SendError, SendRequest};
use crate::app::invoices::send_record::InvoiceSend;
use crate::app::keys::Caller;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(requiring_key(routes!(send_invoice)))
}

/// Seconds to wait before retrying after the provider was unreachable.
const RETRY_AFTER: &str = "30";

impl From<SendError> for ApiError {
    fn from(e: SendError) -> Self {
        match e {
            SendError::Invoice(e) => e.into(),
            SendError::NotConfigured => ApiError {
                code: "email_not_configured".into(),
                ..ApiError::unavailable(
                    "this server sends no email: its operator has not configured it (SVC_SMTP_URL or SES, and SVC_EMAIL_FROM)",
                )
            },
            SendError::Unavailable(reason) => ApiError {
                code: "email_unavailable".into(),
                ..ApiError::unavailable(format!(
                    "the email provider could not be reached ({reason}); nothing was sent; retry with the same Idempotency-Key"
                ))
            }
            .header(header::RETRY_AFTER, RETRY_AFTER.into()),
            SendError::Rejected(record) => ApiError::status(
                StatusCode::UNPROCESSABLE_ENTITY,
                "email_rejected",
                format!(
                    "the email provider refused the message to {}: {}; the invoice's history records it (send_failed)",
                    record.to.join(", "),
                    record.reason.unwrap_or_default()
                ),
            )
            .param("to"),
            SendError::OutcomeUnknown(record) => ApiError::conflict(
                "send_outcome_unknown",
                format!(
                    "a request with this Idempotency-Key started sending {} ({}) and was cut before the provider's answer was recorded; the email may have left. Check with the recipient, and send with a new Idempotency-Key if needed",
                    record.id,
                    record.to.join(", ")
                ),
            ),
        }
    }
}

/// Send an invoice by email
///
/// Emails the invoice to `to` (default: the customer's `email`) and `cc`,
/// with the documents of `attach` (default `["pdf"]`; at most one e-invoice
/// format: `facturae`, `ubl` or `cii`), rendered as `GET /invoices/{id}/pdf`
/// and `/xml` render them. The message is in Spanish: subject `Factura
/// <number> de <issuer name>`, then the optional `message`, the amount and
/// the due date. Needs an `Idempotency-Key`: one key sends at most one
/// email, also across retries and crashes.
///
/// When the provider accepts it: 200 with `state` `sent` and its
/// `message_id`, a `sent` entry in the invoice's history (the recipients)
/// and the `invoice.sent` event. When it refuses it for good: 422
/// `email_rejected` (param `to`), recorded as `send_failed` in the history
/// with the reason. A bounce the provider reports later (Amazon SES on AWS)
/// adds a `send_failed` history entry and the `invoice.send_failed` event; a
/// complaint (marked as spam), a `send_complaint` entry. Test keys send nothing: 200 with `simulated: true`,
/// `state` `simulated` and what would have been sent (recipients, subject,
/// attachment names and sizes), with no record or event.
///
/// Errors: 400 `parameter_invalid` (param `to`, `to[1]`, `cc[0]`,
/// `attach[1]`, `message`: an invalid address, no address at all (the
/// customer has no email and `to` is not given), two e-invoice formats);
/// 404 unknown invoice; 409 `invalid_state` (a cancelled invoice), 409
/// `send_outcome_unknown` (an earlier request with this key was cut while
/// sending: the email may have left; use a new key to send again); 503
/// `email_not_configured` (the server has no email set up) or
/// `email_unavailable` (the provider could not be reached; nothing was
/// sent; retry with the same key after `Retry-After`).
#[utoipa::path(post, path = "/api/v1/invoices/{id}/send", tag = "invoices", operation_id = "send_invoice",
    params(("id" = u64, Path, description = "The invoice id"),
        ("Idempotency-Key" = String, Header, description = "Required: 1–255 printable ASCII characters",
        min_length = 1, max_length = 255, pattern = "^[ -~]+$")),
    request_body = SendRequest,
    responses(
        (status = 200, description = "Sent (or, with a test key, simulated)", body = InvoiceSend),
        (status = 409, description = "`invalid_state`, `send_outcome_unknown` or an Idempotency-Key in use", body = ErrorBody),
        (status = 422, description = "`email_rejected`: the provider refused the message (recorded on the invoice), or an Idempotency-Key reused", body = ErrorBody),
        (status = 503, description = "`email_not_configured` or `email_unavailable`", body = ErrorBody)))]
async fn send_invoice(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<SendRequest>,
) -> Result<Json<InvoiceSend>, ApiError> {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let sent = send::send(&state.ports, &caller, invoice_id(&id)?, &req, key).await?;
    Ok(Json(sent))
}
