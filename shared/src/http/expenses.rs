//! The expenses group: the book of received invoices.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::json::ApiJson;
use super::pagination::{List, ListQuery, PageParams};
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::expenses::{self, ExpenseError, Filters, Version};
use crate::app::keys::Caller;
use crate::app::tax_tools::{check_quarter, check_year};
use crate::expense::{Category, Expense, ExpenseFields, Status};
use crate::tax::quarter::quarter_dates;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_expenses, create_expense))
        .routes(routes!(get_expense, update_expense, delete_expense))
        .routes(routes!(get_expense_history))
        .routes(routes!(get_expense_document))
}

impl From<ExpenseError> for ApiError {
    fn from(e: ExpenseError) -> Self {
        match e {
            ExpenseError::Invalid {
                code,
                field,
                message,
            } => ApiError::invalid(code, message).param(field),
            ExpenseError::NotFound(what) => ApiError::not_found(format!("no expense {what}")),
            ExpenseError::Duplicate(existing) => ApiError::conflict(
                "expense_exists",
                format!(
                    "the book has this invoice already (same supplier, number and date): {existing}"
                ),
            )
            .param("number")
            .header(header::LOCATION, format!("/api/v1/expenses/{existing}")),
            ExpenseError::TooLarge(message) => {
                ApiError::status(StatusCode::PAYLOAD_TOO_LARGE, "file_too_large", message)
                    .param("document")
            }
            ExpenseError::Upload(u) => u.into(),
            ExpenseError::Blobs(b) => {
                tracing::error!(error = %b, "expense document storage error");
                ApiError::unavailable(
                    "document storage is temporarily unavailable; retry the request",
                )
            }
            ExpenseError::Storage(t) => t.into(),
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct ExpenseFilters {
    /// Issue date from (inclusive).
    from: Option<NaiveDate>,
    /// Issue date to (inclusive).
    to: Option<NaiveDate>,
    /// With `quarter`: the expenses issued in that quarter.
    #[param(minimum = 2000, maximum = 2100)]
    year: Option<i32>,
    /// 1–4, with `year`.
    #[param(minimum = 1, maximum = 4)]
    quarter: Option<u8>,
    /// The supplier's tax id, or a part of its name (any case).
    supplier: Option<String>,
    category: Option<Category>,
    /// `confirmed` or `draft` (imports from the AEAT to confirm).
    status: Option<Status>,
}

impl ExpenseFilters {
    fn into_filters(self) -> Result<Filters, ApiError> {
        let (mut from, mut to) = (self.from, self.to);
        match (self.year, self.quarter) {
            (None, None) => {}
            (Some(year), Some(quarter)) => {
                let year = check_year(year).map_err(ApiError::from)?;
                let quarter = check_quarter(quarter).map_err(ApiError::from)?;
                let (start, end) = quarter_dates(year, quarter);
                from = Some(from.map_or(start, |f| f.max(start)));
                to = Some(to.map_or(end, |t| t.min(end)));
            }
            (Some(_), None) => {
                return Err(
                    ApiError::invalid("parameter_invalid", "year needs quarter").param("quarter")
                );
            }
            (None, Some(_)) => {
                return Err(
                    ApiError::invalid("parameter_invalid", "quarter needs year").param("year")
                );
            }
        }
        if let (Some(from), Some(to)) = (from, to)
            && to < from
        {
            return Err(ApiError::invalid("parameter_invalid", "to is before from").param("to"));
        }
        Ok(Filters {
            from,
            to,
            supplier: self
                .supplier
                .map(|s| s.trim().to_lowercase())
                .filter(|s| !s.is_empty()),
            category: self.category,
            status: self.status,
        })
    }
}

/// List expenses
///
/// The book of received invoices, newest issue date first, with optional
/// filters. Test keys keep no expenses: their list is empty.
#[utoipa::path(get, path = "/api/v1/expenses", tag = "expenses", operation_id = "list_expenses",
    params(PageParams, ExpenseFilters),
    responses((status = 200, description = "A page of expenses", body = List<Expense>)))]
async fn list_expenses(
    State(state): State<AppState>,
    caller: Caller,
    ListQuery { page, filters }: ListQuery<ExpenseFilters>,
) -> Result<Json<List<Expense>>, ApiError> {
    let filters = filters.into_filters()?;
    let (data, has_more) = expenses::list(
        &state.ports,
        &caller,
        &filters,
        page.limit,
        page.starting_after.as_deref(),
    )
    .await?;
    Ok(Json(List::new(data, has_more)))
}

/// Add an expense
///
/// A received invoice, in layers: the e-invoice sent as `document`
/// (Facturae, UBL, CII, or a PDF carrying one: read exactly, as extraction
/// does), then `extracted` (an element of `invoices` from `POST
/// /api/v1/invoices/extract`, as returned or corrected), then the fields
/// typed in the request, each overriding the one before. In the end the
/// supplier (name and tax id, checked), number, issue date and lines are
/// needed. VAT quotas, surcharge, IRPF and the total left out are computed;
/// stated ones more than 2 cents from the others' figures are refused,
/// naming the field.
///
/// Any other document (a PDF, a photo) is kept as it is, with the fields
/// taken from `extracted` and the request. It is kept until the expense is
/// deleted: `GET /api/v1/expenses/{id}/document`.
///
/// The same invoice (supplier tax id, number without spaces or case, and
/// issue date) is 409 `expense_exists`, naming the expense in the book (also
/// in `Location`). Uses no quota. Test keys check everything and answer the
/// expense as it would be (`livemode: false`), storing nothing; its
/// `expense.created` event goes to test webhooks.
///
/// Deductions: `vat_deductible_percent` (default 100, 50 for `vehicle`, 0
/// when the supplier charged equivalence surcharge) gives the input VAT of
/// Modelo 303; `expense_deductible_percent` (default 100) the cost for
/// Modelo 130, where VAT not deducted is cost.
#[utoipa::path(post, path = "/api/v1/expenses", tag = "expenses", operation_id = "create_expense",
    request_body = ExpenseFields,
    responses((status = 201, description = "The expense", body = Expense)))]
async fn create_expense(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    ApiJson(fields): ApiJson<ExpenseFields>,
) -> Result<(StatusCode, Json<Expense>), ApiError> {
    let (expense, writes) = expenses::create(&state.ports, &caller, fields).await?;
    uow.extend(writes);
    Ok((StatusCode::CREATED, Json(expense)))
}

/// Get an expense
#[utoipa::path(get, path = "/api/v1/expenses/{id}", tag = "expenses", operation_id = "get_expense",
    params(("id" = String, Path, description = "exp_…")),
    responses((status = 200, description = "The expense", body = Expense)))]
async fn get_expense(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Expense>, ApiError> {
    Ok(Json(expenses::get(&state.ports, &caller, &id).await?))
}

/// Correct an expense
///
/// Unlike an issued invoice, a received one may be corrected: the fields
/// sent replace the kept ones (a `document` replaces the kept file; an
/// e-invoice's fields go under the typed ones), and `status: confirmed`
/// confirms a draft. IRPF and the total are computed again when the lines,
/// the IRPF rate or the treatment change and they are not sent. Every
/// version stays in `GET /api/v1/expenses/{id}/history`; `expense.updated`
/// carries the old values in `previous_attributes`.
#[utoipa::path(patch, path = "/api/v1/expenses/{id}", tag = "expenses", operation_id = "update_expense",
    params(("id" = String, Path, description = "exp_…")), request_body = ExpenseFields,
    responses((status = 200, description = "The corrected expense", body = Expense)))]
async fn update_expense(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiJson(fields): ApiJson<ExpenseFields>,
) -> Result<Json<Expense>, ApiError> {
    Ok(Json(
        expenses::update(&state.ports, &caller, &id, fields).await?,
    ))
}

/// Delete an expense
///
/// Removes it from the book with its document; its history stays.
#[utoipa::path(delete, path = "/api/v1/expenses/{id}", tag = "expenses", operation_id = "delete_expense",
    params(("id" = String, Path, description = "exp_…")),
    responses((status = 200, description = "The deleted expense", body = Expense)))]
async fn delete_expense(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Expense>, ApiError> {
    Ok(Json(expenses::delete(&state.ports, &caller, &id).await?))
}

/// An expense's history
///
/// Every version as written (`created`, `updated`, `deleted`), oldest first;
/// also after the expense was deleted.
#[utoipa::path(get, path = "/api/v1/expenses/{id}/history", tag = "expenses", operation_id = "get_expense_history",
    params(("id" = String, Path, description = "exp_…")),
    responses((status = 200, description = "The versions", body = List<Version>)))]
async fn get_expense_history(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<List<Version>>, ApiError> {
    Ok(Json(List::new(
        expenses::history(&state.ports, &caller, &id).await?,
        false,
    )))
}

/// An expense's document
///
/// The file kept with the expense, as it was sent.
#[utoipa::path(get, path = "/api/v1/expenses/{id}/document", tag = "expenses", operation_id = "get_expense_document",
    params(("id" = String, Path, description = "exp_…")),
    responses((status = 200, description = "The file", content_type = "application/octet-stream", body = Vec<u8>)))]
async fn get_expense_document(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let (doc, bytes) = expenses::document(&state.ports, &caller, &id).await?;
    let name: String = doc
        .file_name
        .chars()
        .filter(|c| c.is_ascii_graphic() && *c != '"' || *c == ' ')
        .collect();
    Ok((
        [
            (header::CONTENT_TYPE, doc.mime),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        bytes,
    )
        .into_response())
}
