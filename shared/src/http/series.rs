//! The numbering series of the invoices group: list, define, change, delete.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ErrorBody};
use super::json::ApiJson;
use super::pagination::List;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::keys::Caller;
use crate::app::series::{self, SeriesCreate, SeriesError, SeriesUpdate, SeriesView};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_series, create_series))
        .routes(routes!(get_series, update_series, delete_series))
}

impl From<SeriesError> for ApiError {
    fn from(e: SeriesError) -> Self {
        match e {
            SeriesError::Invalid {
                code,
                param,
                message,
            } => ApiError::invalid(code, message).param(param),
            SeriesError::NotFound(message) => ApiError::not_found(message),
            SeriesError::Conflict { code, message } => ApiError::conflict(code, message),
            SeriesError::Storage(t) => t.into(),
        }
    }
}

/// A deleted series.
#[derive(Serialize, ToSchema)]
struct Deleted {
    /// `series`.
    object: String,
    code: String,
    deleted: bool,
}

/// List numbering series
///
/// Every series of the account (and mode), by code: the four built-in ones —
/// `F` full invoices, `S` simplified invoices, `R` rectifying invoices of
/// full invoices (R1–R4), `RS` rectifying invoices of simplified ones (R5),
/// each `{code}{year}-{n:06}` restarting every year — and the ones defined.
/// RD 1619/2012 requires rectifying invoices in series of their own (art.
/// 6.1.a) and simplified and full invoices of one year in separate series
/// (art. 7.1.a); a series holds only invoices of its purpose, except that
/// R5 may also go into a simplified series (DGT V2884-16). Until this
/// service had series, simplified invoices (F2) were numbered in `F` and R5
/// in `R`: those invoices keep their numbers (a number, once issued and
/// registered, never changes) and `F` and `R` go on from them without gaps;
/// simplified invoices and R5 are numbered in `S` and `RS` from then on.
#[utoipa::path(get, path = "/api/v1/series", tag = "series", operation_id = "list_series",
    responses((status = 200, description = "Every series (has_more is always false)", body = List<SeriesView>)))]
async fn list_series(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<List<SeriesView>>, ApiError> {
    let data = series::list(&state.ports, &caller).await?;
    Ok(Json(List::new(data, false)))
}

/// Define a numbering series
///
/// A code (1–10 capital letters, unique), a pattern (`{code}` first, then
/// `{year}`, `{n}` or `{n:0W}` and literal `A–Z a–z 0–9 - / _ .`), whether
/// it restarts every year (its pattern then needs `{year}`) and its purpose.
/// With `default: true` it numbers the invoices of its purpose that name no
/// series. 409 `series_exists` for a code in use, `too_many_series` past 50.
#[utoipa::path(post, path = "/api/v1/series", tag = "series", operation_id = "create_series",
    request_body = SeriesCreate, responses((status = 201, description = "The new series", body = SeriesView)))]
async fn create_series(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    ApiJson(req): ApiJson<SeriesCreate>,
) -> Result<(StatusCode, Json<SeriesView>), ApiError> {
    let (view, writes) = series::create(&state.ports, &caller, req).await?;
    uow.extend(writes);
    Ok((StatusCode::CREATED, Json(view)))
}

/// Get a numbering series
#[utoipa::path(get, path = "/api/v1/series/{code}", tag = "series", operation_id = "get_series",
    params(("code" = String, Path, description = "The series code, e.g. F")),
    responses((status = 200, description = "The series", body = SeriesView)))]
async fn get_series(
    State(state): State<AppState>,
    caller: Caller,
    Path(code): Path<String>,
) -> Result<Json<SeriesView>, ApiError> {
    Ok(Json(series::get(&state.ports, &caller, &code).await?))
}

/// Change a numbering series
///
/// Its description and whether it is its purpose's default at any time; its
/// pattern, yearly restart and purpose only while it has numbered no invoice
/// (409 `series_in_use`: a series is never renumbered). A default stops
/// being one only when another series of its purpose becomes the default.
#[utoipa::path(patch, path = "/api/v1/series/{code}", tag = "series", operation_id = "update_series",
    params(("code" = String, Path, description = "The series code")), request_body = SeriesUpdate,
    responses((status = 200, description = "The changed series", body = SeriesView)))]
async fn update_series(
    State(state): State<AppState>,
    caller: Caller,
    Path(code): Path<String>,
    ApiJson(req): ApiJson<SeriesUpdate>,
) -> Result<Json<SeriesView>, ApiError> {
    Ok(Json(
        series::update(&state.ports, &caller, &code, &req).await?,
    ))
}

/// Delete a numbering series
///
/// Only a defined series that has numbered no invoice and is not a default:
/// 409 `series_in_use`, `series_default` or `series_builtin` otherwise.
#[utoipa::path(delete, path = "/api/v1/series/{code}", tag = "series", operation_id = "delete_series",
    params(("code" = String, Path, description = "The series code")),
    responses((status = 200, description = "The series is deleted", body = Deleted),
        (status = 409, description = "`series_builtin`, `series_default` or `series_in_use`: the series stays", body = ErrorBody)))]
async fn delete_series(
    State(state): State<AppState>,
    caller: Caller,
    Path(code): Path<String>,
) -> Result<Json<Deleted>, ApiError> {
    series::delete(&state.ports, &caller, &code).await?;
    Ok(Json(Deleted {
        object: "series".into(),
        code,
        deleted: true,
    }))
}
