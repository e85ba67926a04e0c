//! The invoices group: issue, read, list, cancel, rectify, status; and the
//! VERI*FACTU chain verifier and record resubmission (the comparison with
//! the AEAT and the records as sent are in `verifactu`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::middleware::from_fn;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

use super::error::ApiError;
use super::json::ApiJson;
use super::pagination::{List, ListQuery, PageParams};
use super::state::AppState;
use super::unit_of_work::{UnitOfWork, require_idempotency_key};
use crate::app::invoices::error::InvoiceError;
use crate::app::invoices::lifecycle::{self, Filters};
use crate::app::invoices::request::{IssueRequest, RectifyRequest};
use crate::app::invoices::verify_chain::{VerifyChainError, verify_chain};
use crate::app::invoices::{issue, rectify, store};
use crate::app::keys::Caller;
use crate::app::verifactu;
use crate::invoice::kind::Kind;
use crate::invoice::model::Invoice;
use crate::invoice::payments::PaymentStatus;
use crate::invoice::status::Status;
use crate::verifactu::ChainCheck;

/// The invoices group: these routes and the documents of an invoice.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(super::documents::routes())
        .merge(super::series::routes())
        .merge(super::payments::routes())
        .merge(super::invoice_send::routes())
        .merge(super::verifactu::routes())
        .routes(requiring_key(routes!(issue_invoice)))
        .routes(routes!(list_invoices))
        .routes(routes!(get_invoice))
        .routes(routes!(cancel_invoice))
        .routes(requiring_key(routes!(rectify_invoice)))
        .routes(routes!(set_invoice_status))
        .routes(routes!(resubmit_verifactu_record))
        .routes(routes!(verify_invoice_chain))
}

/// Marks a route whose requests must carry an `Idempotency-Key`.
pub(super) fn requiring_key(route: UtoipaMethodRouter<AppState>) -> UtoipaMethodRouter<AppState> {
    let (schemas, paths, method_router) = route;
    (
        schemas,
        paths,
        method_router.route_layer(from_fn(require_idempotency_key)),
    )
}

impl From<InvoiceError> for ApiError {
    fn from(e: InvoiceError) -> Self {
        match e {
            InvoiceError::Invalid {
                code,
                param,
                message,
            } => ApiError::invalid(code, message).param(param),
            InvoiceError::IssuerIncomplete(missing) => ApiError::conflict(
                "issuer_incomplete",
                format!(
                    "the account's issuer details lack: {} (set them in the application)",
                    missing.join(", ")
                ),
            ),
            InvoiceError::NotFound(message) => ApiError::not_found(message),
            InvoiceError::InvalidState(message) => ApiError::conflict("invalid_state", message),
            InvoiceError::IssuerNifTaken(nif) => ApiError::conflict(
                "issuer_nif_taken",
                format!(
                    "the issuer NIF {nif} belongs to another account, which holds its VERI*FACTU chain; an issuer NIF can be used by one account only"
                ),
            ),
            InvoiceError::Storage(t) => t.into(),
        }
    }
}

impl From<VerifyChainError> for ApiError {
    fn from(e: VerifyChainError) -> Self {
        match e {
            VerifyChainError::Account(e) => ApiError::internal(e.to_string()),
            VerifyChainError::NoIssuerNif => ApiError::conflict(
                "issuer_incomplete",
                "the account has no issuer NIF, so no chain",
            ),
            VerifyChainError::Records(e) => e.into(),
        }
    }
}

/// Queues this process's invoice writers of one account and mode (see `KeyedLocks`).
pub(super) async fn serialize(state: &AppState, caller: &Caller, uow: &UnitOfWork) {
    let name = format!("invoices:{}:{}", caller.account_id, caller.mode.as_str());
    uow.hold(state.locks.lock(&name).await);
}

/// Invoice ids are numbers; anything else names no invoice.
pub(super) fn invoice_id(raw: &str) -> Result<u64, ApiError> {
    raw.parse()
        .map_err(|_| ApiError::not_found(format!("no invoice {raw}")))
}

fn created(invoice: Invoice) -> (StatusCode, [(header::HeaderName, String); 1], Json<Invoice>) {
    let location = format!("/api/v1/invoices/{}", invoice.id);
    (
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(invoice),
    )
}

/// Issue an invoice
///
/// Numbers it gap-free in its series (`series`, or the default of its
/// purpose: `F<year>-000001` for full invoices, `S<year>-000001` for
/// simplified ones; see `/api/v1/series`; test keys: `TEST-…` from their own
/// counters), computes its totals (line base = quantity × unit price − discount,
/// rounded to cents; VAT and surcharge per rate group, half away from zero;
/// `total = base + vat_amount + surcharge_amount − irpf_amount`; with
/// `prices_include_vat`, each group's base is its VAT-inclusive amount ÷
/// (1 + rate)), builds its VERI*FACTU record and writes invoice, ledger
/// entry, chain head, idempotency record and `invoice.issued` in one
/// transaction. Kind F1 with a customer tax id; F2 (simplified) without one
/// up to 400 € VAT included; `simplified` and `replaces` ask for a qualified
/// simplified invoice (F1, art. 7.2/7.3), a full one without the customer's
/// identification (F2, art. 6.1.d) or one replacing tickets (F3). Every
/// type has a PDF, Facturae (simplified ones as `FA`), UBL and CII (a
/// customer without name is "Destinatario no identificado"). Needs an `Idempotency-Key`.
/// Send the customer inline (`customer`) or from the address book
/// (`customer_id`), not both (400 `parameter_invalid`, param `customer_id`).
/// With a test key, `test_options.verifactu_error` has the AEAT simulator
/// answer the invoice's record with a chosen AEAT error code, to test how
/// rejections are handled (400 with a live key). A record that breaks one
/// of the AEAT's record rules is 400 `aeat_rule_<code>` (the AEAT's error
/// code; `param` the AEAT element) and nothing is issued.
#[utoipa::path(post, path = "/api/v1/invoices", tag = "invoices", operation_id = "issue_invoice",
    params(("Idempotency-Key" = String, Header, description = "Required: 1–255 printable ASCII characters",
        min_length = 1, max_length = 255, pattern = "^[ -~]+$")),
    request_body = IssueRequest, responses((status = 201, description = "The issued invoice", body = Invoice)))]
async fn issue_invoice(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    ApiJson(req): ApiJson<IssueRequest>,
) -> Result<impl axum::response::IntoResponse, ApiError> {
    serialize(&state, &caller, &uow).await;
    let draft = issue::draft(&state.ports, &caller, req).await?;
    let (invoice, writes) =
        issue::finalize(&state.ports, &caller, &state.config.verifactu, draft).await?;
    uow.extend(writes);
    Ok(created(invoice))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct InvoiceFilters {
    /// Only invoices in this status.
    status: Option<Status>,
    customer_id: Option<String>,
    /// Only invoices of this type.
    kind: Option<Kind>,
    /// Issue date from (inclusive).
    from: Option<NaiveDate>,
    /// Issue date to (inclusive).
    to: Option<NaiveDate>,
    /// unpaid, partially_paid, paid or overdue (derived today, Madrid):
    /// e.g. `overdue` for the invoices to chase.
    payment_status: Option<PaymentStatus>,
}

/// List invoices
///
/// Newest first, with optional filters. `to` may not be before `from` (400
/// `parameter_invalid`, param `to`).
#[utoipa::path(get, path = "/api/v1/invoices", tag = "invoices", operation_id = "list_invoices", params(PageParams, InvoiceFilters),
    responses((status = 200, description = "A page of invoices", body = List<Invoice>)))]
async fn list_invoices(
    State(state): State<AppState>,
    caller: Caller,
    ListQuery { page, filters: q }: ListQuery<InvoiceFilters>,
) -> Result<Json<List<Invoice>>, ApiError> {
    if let (Some(from), Some(to)) = (q.from, q.to)
        && to < from
    {
        return Err(ApiError::invalid("parameter_invalid", "to is before from").param("to"));
    }
    let starting_after = page
        .starting_after
        .map(|id| {
            id.parse::<u64>()
                .ok()
                .filter(|&id| id != 0 && i64::try_from(id).is_ok())
                .ok_or_else(|| {
                    ApiError::invalid(
                        "parameter_invalid",
                        "an invoice id is a whole number from 1 to 9223372036854775807",
                    )
                    .param("starting_after")
                })
        })
        .transpose()?;
    let filters = Filters {
        status: q.status,
        customer_id: q.customer_id,
        kind: q.kind,
        from: q.from,
        to: q.to,
        payment_status: q.payment_status,
    };
    let (data, has_more) =
        lifecycle::list(&state.ports, &caller, &filters, page.limit, starting_after).await?;
    Ok(Json(List::new(data, has_more)))
}

/// Get an invoice
///
/// With its lines, per-rate breakdown, customer, status, history and VERI*FACTU
/// data (`verifactu.record` holds the literal strings that were hashed).
#[utoipa::path(get, path = "/api/v1/invoices/{id}", tag = "invoices", operation_id = "get_invoice",
    params(("id" = u64, Path, description = "The invoice id")),
    responses((status = 200, description = "The invoice", body = Invoice)))]
async fn get_invoice(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Invoice>, ApiError> {
    let (invoice, _) = store::get(&state.ports, &caller, invoice_id(&id)?).await?;
    Ok(Json(
        verifactu::with_pending_reason(&state.ports, &caller, invoice).await?,
    ))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CancelRequest {
    /// Why it is cancelled (kept in the history; up to 500 characters).
    reason: Option<String>,
}

/// Cancel an invoice issued by mistake
///
/// Final: state `cancelled`, a reversing ledger entry, a RegistroAnulacion in
/// the chain, `invoice.cancelled`. An invoice already cancelled or rectified
/// is 409 `invalid_state` (correct it with a rectifying invoice instead); a
/// RegistroAnulacion that breaks one of the AEAT's record rules is 400
/// `aeat_rule_<code>` and nothing changes.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/cancel", tag = "invoices", operation_id = "cancel_invoice",
    params(("id" = u64, Path, description = "The invoice id")), request_body = CancelRequest,
    responses((status = 200, description = "The cancelled invoice", body = Invoice)))]
async fn cancel_invoice(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<CancelRequest>,
) -> Result<Json<Invoice>, ApiError> {
    let reason = req
        .reason
        .as_deref()
        .map(|r| crate::app::invoices::request::text(r, 500, "reason", false))
        .transpose()?
        .flatten();
    serialize(&state, &caller, &uow).await;
    let (invoice, writes) = lifecycle::cancel(
        &state.ports,
        &caller,
        &state.config.verifactu,
        invoice_id(&id)?,
        reason,
    )
    .await?;
    uow.extend(writes);
    Ok(Json(invoice))
}

/// Rectify an invoice
///
/// Issues a rectifying invoice in the `R<year>-` series that references this
/// one: by `substitution` (the correct full lines; the record reports the
/// rectified amounts) or by `differences` (signed difference lines, or none to
/// credit the whole invoice). R1–R4 for full invoices, R5 for simplified ones.
/// Needs an `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/rectify", tag = "invoices", operation_id = "rectify_invoice",
    params(("id" = u64, Path, description = "The invoice to rectify"),
        ("Idempotency-Key" = String, Header, description = "Required: 1–255 printable ASCII characters",
        min_length = 1, max_length = 255, pattern = "^[ -~]+$")),
    request_body = RectifyRequest, responses((status = 201, description = "The rectifying invoice", body = Invoice)))]
async fn rectify_invoice(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<RectifyRequest>,
) -> Result<impl axum::response::IntoResponse, ApiError> {
    serialize(&state, &caller, &uow).await;
    let (invoice, writes) = rectify::rectify(
        &state.ports,
        &caller,
        &state.config.verifactu,
        invoice_id(&id)?,
        req,
    )
    .await?;
    uow.extend(writes);
    Ok(created(invoice))
}

/// Resubmit an invoice's VERI*FACTU record
///
/// The AEAT's correction path, once what it objected to is fixed (e.g. the
/// account's issuer name did not match the census). Allowed when the
/// invoice's registration record was `rejected` (a new RegistroAlta with
/// Subsanacion S and RechazoPrevio X: the AEAT holds no record of it) or
/// `accepted_with_errors` (a new RegistroAlta with Subsanacion S, replacing
/// the one the AEAT holds), or when its cancellation record was `rejected`
/// (a new RegistroAnulacion with RechazoPrevio S). The record is made again
/// from the stored invoice (same number, date, type, lines and totals) with
/// the account's current issuer name, and appended to the chain as a new
/// link; the invoice's `verifactu` view moves to it (`pending`, new `hash`,
/// `previous_hash` and `record`; the old answer cleared), its issuer name
/// follows the account's, and its history gets `verifactu_resubmitted`.
/// The answer comes with `verifactu.accepted` or `verifactu.rejected` as
/// for any record. 409 `invalid_state` otherwise: a record still `pending`
/// (wait for its answer), an `accepted` one (issue a rectifying invoice to
/// change the invoice), an accepted cancellation, or an account whose
/// issuer NIF changed since the invoice was issued (cancel it and issue it
/// again). Takes no body.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/verifactu/resubmit", tag = "invoices",
    operation_id = "resubmit_verifactu_record", params(("id" = u64, Path, description = "The invoice id")),
    responses((status = 200, description = "The invoice, its corrected record pending", body = Invoice)))]
async fn resubmit_verifactu_record(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
) -> Result<Json<Invoice>, ApiError> {
    serialize(&state, &caller, &uow).await;
    let (invoice, writes) = verifactu::resubmit::resubmit(
        &state.ports,
        &caller,
        &state.config.verifactu,
        invoice_id(&id)?,
    )
    .await?;
    uow.extend(writes);
    Ok(Json(invoice))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct StatusRequest {
    /// accepted, rejected, paid or unpaid. Allowed: issued → accepted, rejected,
    /// paid, unpaid; accepted → paid, unpaid, rejected; rejected → accepted;
    /// paid ↔ unpaid; nothing from cancelled. Setting the current state changes nothing.
    #[schema(pattern = "^(accepted|rejected|paid|unpaid)$")]
    status: String,
}

/// Set an invoice's status
///
/// `paid` and `unpaid` go through the invoice's payments, so status and
/// `payment_status` agree: `paid` records a payment of what is outstanding
/// (`amount_due`), dated today, method `other` (`invoice.payment_received`,
/// then `invoice.paid`); `unpaid` records a refund of everything paid, dated
/// today, method `other` (then `invoice.unpaid`). Record real payments with
/// `POST /invoices/{id}/payments`.
#[utoipa::path(post, path = "/api/v1/invoices/{id}/status", tag = "invoices", operation_id = "set_invoice_status",
    params(("id" = u64, Path, description = "The invoice id")), request_body = StatusRequest,
    responses((status = 200, description = "The invoice", body = Invoice)))]
async fn set_invoice_status(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<StatusRequest>,
) -> Result<Json<Invoice>, ApiError> {
    serialize(&state, &caller, &uow).await;
    let to = Status::parse(&req.status)
        .filter(|s| !matches!(s, Status::Issued | Status::Cancelled))
        .ok_or_else(|| {
            ApiError::invalid(
                "parameter_invalid",
                format!(
                    "{:?} is not one of accepted, rejected, paid, unpaid",
                    req.status
                ),
            )
            .param("status")
        })?;
    let (invoice, writes) =
        lifecycle::set_status(&state.ports, &caller, invoice_id(&id)?, to).await?;
    uow.extend(writes);
    Ok(Json(invoice))
}

#[derive(Serialize, ToSchema)]
struct ChainReport {
    /// `ok` or `broken`.
    status: &'static str,
    issuer_nif: String,
    records: usize,
    /// The first break: which record, and the expected and found hash or link.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_break: Option<ChainBreak>,
}

#[derive(Serialize, ToSchema)]
struct ChainBreak {
    index: usize,
    number: String,
    problem: String,
    expected: String,
    found: String,
}

/// Verify the VERI*FACTU chain
///
/// Recomputes every fingerprint of the account's chain (its issuer NIF, this
/// key's mode) from the stored records and checks every link; reports `ok` or
/// the first break.
#[utoipa::path(get, path = "/api/v1/verifactu/chain/verify", tag = "invoices", operation_id = "verify_chain",
    responses((status = 200, description = "The verification", body = ChainReport)))]
async fn verify_invoice_chain(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<ChainReport>, ApiError> {
    let verification = verify_chain(&state.ports, &caller).await?;
    let first_break = match verification.check {
        ChainCheck::Ok { .. } => None,
        ChainCheck::Broken {
            index,
            number,
            expected,
            found,
            problem,
        } => Some(ChainBreak {
            index,
            number,
            problem,
            expected,
            found,
        }),
    };
    Ok(Json(ChainReport {
        status: if first_break.is_some() {
            "broken"
        } else {
            "ok"
        },
        issuer_nif: verification.issuer_nif,
        records: verification.records,
        first_break,
    }))
}
