//! The analyses group: run an analysis, list and read the stored ones.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::analyze_request::AnalyzeRequest;
use super::async_mode::AsyncMode;
use super::error::ApiError;
use super::jobs;
use super::json::JsonBody;
use super::pagination::{List, ListQuery, PageParams};
use super::quota::charge_unit;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::analyses::{AnalysisType, Module, request};
use crate::app::analyses::{self, AnalysesError, AnalysisResource, AnalysisSummary, Filters};
use crate::app::jobs::{JobResource, Kind};
use crate::app::keys::Caller;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(analyze))
        .routes(routes!(list_analyses))
        .routes(routes!(get_analysis))
}

impl From<AnalysesError> for ApiError {
    fn from(e: AnalysesError) -> Self {
        match e {
            AnalysesError::Invalid(e) => {
                let status = if e.too_large {
                    StatusCode::PAYLOAD_TOO_LARGE
                } else {
                    StatusCode::BAD_REQUEST
                };
                let error = ApiError::status(status, e.code, e.message);
                // A JSON syntax error is in no parameter.
                if e.param.is_empty() {
                    error
                } else {
                    error.param(e.param)
                }
            }
            AnalysesError::ReportTooLarge { bytes, limit } => ApiError::status(
                StatusCode::PAYLOAD_TOO_LARGE,
                "report_too_large",
                format!(
                    "the analysis would take {bytes} bytes, over the {limit} an analysis may keep; send fewer files or columns"
                ),
            ),
            AnalysesError::NotFound(message) => ApiError::not_found(message),
            AnalysesError::Storage(t) => t.into(),
        }
    }
}

/// Run an analysis
///
/// Analyses the rows sent (spreadsheets already read by the client, as JSON)
/// or the cuestionario's answers, and returns a structured report: summary,
/// key figures, strengths, priorities, an action plan by horizon, the glossary
/// of the terms it uses and a data-quality note (which columns were used for
/// what, what was skipped and why). The same request gives the same report as
/// of the same day (Europe/Madrid). `actions` are follow-ups a client can run:
/// `analyze` (another module), `compare` (the previous period), `cuestionario`,
/// `tax_calendar`, `tax_tool`; `params` holds the request to make.
///
/// **Quota.** A live key uses 1 unit, charged only when the analysis succeeds
/// and once per `Idempotency-Key` (a replay returns the same analysis and
/// charges nothing); none left is 429 `quota_exceeded`.
///
/// **Storage.** Live analyses are kept (report and metadata; the rows sent are
/// never kept) for `GET /api/v1/analyses`, and announced by an
/// `analysis.completed` event whose data is the list item.
///
/// **Test keys** validate exactly as live keys do, then return sample data of
/// the same shape with `livemode: false`: no quota, nothing kept, no event.
///
/// **Async mode** (`?async=true` or `Prefer: respond-async`): the request is
/// checked first (every 400/413 above) and then charged (429
/// `quota_exceeded`), and those errors come at once with no job created;
/// then the answer is 202 with a job of kind `analyze` (see `GET
/// /api/v1/jobs/{id}`), whose `result` is the analysis, stored and announced
/// as above. The rows sent are kept only until the job ends. A job that fails
/// (e.g. `report_too_large`) costs no quota.
///
/// **Uploads.** `data` may be `{"upload_id": "upl_…"}`: an `application/json`
/// upload (`POST /api/v1/uploads`, up to 50 MiB) holding the `data` object,
/// read and checked exactly as if it were inline (errors name the same
/// `param`). An upload that cannot be used is 400 `upload_missing` or
/// `upload_size_mismatch` (`param: data.upload_id`); one of another type is
/// 400 `parameter_invalid`. An upload over the synchronous budget
/// (`SVC_SYNC_MAX_BYTES`, 6 MiB by default) is always run in async mode, as
/// if it had asked.
///
/// **Limits.** The body is read raw up to the service's body limit (6 MiB by
/// default on `svc serve`, about 40,000 rows of a 7-column sales sheet, more
/// with `SVC_MAX_BODY_BYTES`; 4 MiB on AWS Lambda), over it 413
/// `body_too_large`: send larger data as an upload. Then per request: 20 files (per period in `compare`), 100,000 rows per file,
/// 200,000 rows in all, 200 columns per row, 1,000 characters per text; over
/// one is 413 `analysis_too_large` with `param`. A stored analysis may take
/// 256 KiB (413 `report_too_large` otherwise). A file without rows, with only
/// empty cells or without any column the module can use is 400 with `param`
/// naming it (e.g. `data.files[0].rows`); unknown fields are 400
/// `parameter_unknown`.
#[utoipa::path(post, path = "/api/v1/analyze", tag = "analyses", operation_id = "analyze",
    request_body(content = AnalyzeRequest, examples(
        ("excel" = (summary = "Sales rows (type excel, module ventas)", value = json!({
            "type": "excel", "lang": "es", "title": "Ventas octubre",
            "data": {"module": "ventas", "files": [{"name": "ventas-octubre.xlsx", "total_rows": 1240, "rows": [
                {"Fecha": "01/10/2026", "Nº factura": "F2026-0101", "Cliente": "Taller Ana SL", "Producto": "Revisión", "Importe": 120.5},
                {"Fecha": "03/10/2026", "Nº factura": "F2026-0102", "Cliente": "Bar Lola", "Producto": "Mantenimiento", "Importe": "89,90 €"}]}]}}))),
        ("compare" = (summary = "Two periods (type compare)", value = json!({
            "type": "compare", "lang": "en",
            "data": {"module": "ventas",
                "a": {"files": [{"name": "ventas-2025.xlsx", "rows": [{"Fecha": "2025-10-01", "Cliente": "Bar Lola", "Importe": 95}]}]},
                "b": {"files": [{"name": "ventas-2026.xlsx", "rows": [{"Fecha": "2026-10-01", "Cliente": "Bar Lola", "Importe": 120.5}]}]}}}))),
        ("folder" = (summary = "Several documents (type folder)", value = json!({
            "type": "folder",
            "data": {"files": [
                {"name": "stock.xlsx", "rows": [{"Referencia": "A-1", "Descripción": "Tornillos", "Existencias": 120, "Coste": 0.5}]},
                {"name": "gastos.xlsx", "rows": [{"Fecha": "2026-10-02", "Proveedor": "Iberdrola", "Concepto": "Luz", "Base": 100, "IVA %": 21, "Total": 121}]}]}}))),
        ("cuestionario" = (summary = "The business check-up (type cuestionario)", value = json!({
            "type": "cuestionario",
            "data": {"answers": {"FIN1": true, "FIN2": false, "FIS1": true, "VEN1": false, "OPE2": null, "DIG3": true, "PER4": false}}})))
    )),
    params(AsyncMode),
    responses((status = 200, description = "The analysis", body = AnalysisResource),
        (status = 202, description = "Async mode: the job (kind `analyze`) whose `result` will be the analysis",
            body = JobResource, headers(
                ("Location" = String, description = "The job: `/api/v1/jobs/{id}`"),
                ("Retry-After" = u32, description = "Seconds to wait before reading the job"),
                ("Preference-Applied" = String, description = "`respond-async` when `Prefer: respond-async` was honoured")))))]
async fn analyze(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    mode: AsyncMode,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let (input, uploaded) = match analyses::uploaded::read(&state.ports, &caller, &body).await? {
        Some((spliced, bytes)) => (Bytes::from(spliced), bytes),
        None => (body.clone(), 0),
    };
    if mode.requested || uploaded > state.config.sync_max_bytes {
        blocking(move || request::read(&input).map_err(AnalysesError::from)).await?;
        let quota_day = charge_unit(&state, &caller, &uow).await?;
        return jobs::accept(&state, &caller, &uow, mode, Kind::Analyze, body, quota_day).await;
    }
    charge_unit(&state, &caller, &uow).await?;
    let ports = state.ports.clone();
    let (resource, writes) = blocking(move || {
        let request = request::read(&input)?;
        analyses::run(&ports, &caller, &request)
    })
    .await?;
    uow.extend(writes);
    Ok(Json(resource).into_response())
}

/// Parsing and analysing 100k rows takes a while: off the async workers.
/// A panic there is passed on to the panic guard of the pipeline.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, AnalysesError> + Send + 'static,
) -> Result<T, AnalysesError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct AnalysisFilters {
    /// Only this type.
    #[serde(rename = "type")]
    #[param(rename = "type", inline)]
    kind: Option<AnalysisType>,
    /// Only this module.
    #[param(inline)]
    module: Option<Module>,
    /// Created on or after this date (Europe/Madrid).
    from: Option<NaiveDate>,
    /// Created on or before this date (Europe/Madrid).
    to: Option<NaiveDate>,
}

/// List analyses
///
/// The stored (live) analyses, newest first, with optional filters (`to` may
/// not be before `from`: 400 `parameter_invalid`, param `to`). Test keys
/// store nothing, so their list is always empty.
#[utoipa::path(get, path = "/api/v1/analyses", tag = "analyses", operation_id = "list_analyses", params(PageParams, AnalysisFilters),
    responses((status = 200, description = "A page of analyses", body = List<AnalysisSummary>)))]
async fn list_analyses(
    State(state): State<AppState>,
    caller: Caller,
    ListQuery { page, filters: q }: ListQuery<AnalysisFilters>,
) -> Result<Json<List<AnalysisSummary>>, ApiError> {
    if let (Some(from), Some(to)) = (q.from, q.to)
        && to < from
    {
        return Err(ApiError::invalid("parameter_invalid", "to is before from").param("to"));
    }
    let filters = Filters {
        kind: q.kind,
        module: q.module,
        from: q.from,
        to: q.to,
    };
    let (data, has_more) = analyses::list(
        &state.ports,
        &caller,
        &filters,
        page.limit,
        page.starting_after.as_deref(),
    )
    .await?;
    Ok(Json(List::new(data, has_more)))
}

/// Get an analysis
///
/// The analysis as `POST /api/v1/analyze` returned it. Analyses of another
/// account, and any id read with a test key, are 404.
#[utoipa::path(get, path = "/api/v1/analyses/{id}", tag = "analyses", operation_id = "get_analysis",
    params(("id" = String, Path, description = "an_…")),
    responses((status = 200, description = "The analysis", body = AnalysisResource)))]
async fn get_analysis(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<([(header::HeaderName, &'static str); 1], String), ApiError> {
    let json = analyses::get(&state.ports, &caller, &id).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json))
}
