//! `POST /api/v1/invoices/{id}/payments`: a payment or refund against an
//! invoice (part of the invoices group).

use axum::Json;
use axum::extract::{Path, State};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::invoices::{invoice_id, requiring_key, serialize};
use super::json::ApiJson;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::invoices::payments::{self, NewPayment};
use crate::app::keys::Caller;
use crate::invoice::model::Invoice;
use crate::invoice::payments::PaymentMethod;
use crate::tax::money::decimal_from_json;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(requiring_key(routes!(record_payment)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"amount": 500, "date": "2026-11-25", "method": "transfer", "reference": "TRF 2026-11-25 Taller Ana"}))]
pub struct RecordPaymentRequest {
    /// Positive for a payment, negative for a refund; not 0, up to 2
    /// decimals. The amount paid stays between 0 and the total: more than
    /// what is outstanding is 400 `overpayment`, a refund of more than was
    /// paid 400 `refund_exceeds_paid`.
    #[serde(deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub amount: Decimal,
    /// The effective payment date (the cash, debit or set-off date); default
    /// today (Madrid); not in the future, not before the issue date.
    pub date: Option<NaiveDate>,
    /// `transfer`, `direct_debit`, `card`, `cash` or `other`.
    pub method: PaymentMethod,
    /// The payment's reference (a transfer's concept, a receipt number): up to 140 characters.
    pub reference: Option<String>,
}

impl From<RecordPaymentRequest> for NewPayment {
    fn from(r: RecordPaymentRequest) -> Self {
        NewPayment {
            amount: r.amount,
            date: r.date,
            method: r.method,
            reference: r.reference,
        }
    }
}

/// Record a payment or a refund
///
/// Adds the payment to the invoice's `payments` (with an id `pay_…` and
/// `created_at`) and answers the invoice with its derived `payment_status`,
/// `amount_paid`, `amount_due` and `paid_at`. Payments cover the instalments
/// in date order. Every payment and refund sends `invoice.payment_received`;
/// the one that completes the total also sends `invoice.paid` and sets the
/// status `paid` (unless the invoice is `rejected`); a refund that takes a
/// `paid` invoice below its total sets it `unpaid` with `invoice.unpaid`.
/// Cancelled invoices, and invoices whose total is 0 or negative (credits:
/// nothing to collect), take no payments: 409 `invalid_state`. Rectifying
/// invoices with a positive total take them like any other; a rectified
/// invoice keeps its own. A test key records against test invoices only (a
/// live invoice is 404 to it, and the reverse). Needs an `Idempotency-Key`:
/// a retried payment is never recorded twice.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/payments", tag = "invoices", operation_id = "record_payment",
    params(("id" = u64, Path, description = "The invoice id"),
        ("Idempotency-Key" = String, Header, description = "Required: 1–255 printable ASCII characters",
        min_length = 1, max_length = 255, pattern = "^[ -~]+$")),
    request_body = RecordPaymentRequest,
    responses((status = 200, description = "The invoice with the payment", body = Invoice)))]
async fn record_payment(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<RecordPaymentRequest>,
) -> Result<Json<Invoice>, ApiError> {
    serialize(&state, &caller, &uow).await;
    let (invoice, writes) =
        payments::record(&state.ports, &caller, invoice_id(&id)?, req.into()).await?;
    uow.extend(writes);
    Ok(Json(invoice))
}
