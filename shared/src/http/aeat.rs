//! The aeat group: the API's questions to the AEAT with the account's
//! certificate (`ConsultaFactuSistemaFacturacion`): comparing a month's
//! VERI*FACTU records with what the AEAT holds, and importing the invoices
//! suppliers registered naming the account into the book of expenses. On
//! AWS its own function, whose role may open certificates.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ErrorBody};
use super::json::ApiJson;
use super::query::ApiQuery;
use super::state::AppState;
use crate::app::expenses::import::{ImportError, Imported, import_from_aeat};
use crate::app::keys::Caller;
use crate::app::tax_tools::check_year;
use crate::app::verifactu::certificates::Unusable;
use crate::app::verifactu::compare::{self, Comparison, Field, compare_records};
use crate::app::verifactu::query::AskError;
use crate::verifactu::aeat::Operation;
use crate::verifactu::aeat::query::{HeldState, Period};
use crate::verifactu::status::RecordStatus;

/// The month a request names (`year` 2000–2100, `period` 1–12), as the AEAT files records.
fn month(year: i32, period: u32) -> Result<Period, ApiError> {
    check_year(year).map_err(ApiError::from)?;
    Period::new(year, period).ok_or_else(|| {
        ApiError::invalid(
            "parameter_invalid",
            format!("period {period} is not a month; use 1 to 12"),
        )
        .param("period")
    })
}

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(compare_verifactu_records))
        .routes(routes!(import_expenses_from_aeat))
}

impl From<AskError> for ApiError {
    fn from(e: AskError) -> Self {
        match e {
            AskError::Account(e) => ApiError::internal(format!("{e:?}")),
            AskError::NoIssuer => ApiError::conflict(
                "issuer_incomplete",
                "the account's issuer has no NIF or name, so the AEAT cannot be asked (set them in the application)",
            ),
            AskError::Certificate(unusable) => {
                let message = match &unusable {
                    Unusable::Missing => "no certificate of the issuer is stored: a live key asks the AEAT with it (the operator imports it with `svc issuer certificate`)".to_string(),
                    Unusable::Expired => "the issuer's certificate has expired: import a renewed one".to_string(),
                    Unusable::Sealed(why) => format!("this host cannot open the issuer's certificate: {why}"),
                };
                let code = unusable.reason();
                let code = code.split(':').next().unwrap_or_default();
                ApiError::conflict(code, message)
            }
            AskError::Aeat(reason) => {
                let code = reason.split(':').next().unwrap_or("aeat_unavailable");
                ApiError::status(
                    StatusCode::BAD_GATEWAY,
                    code,
                    format!("the AEAT could not be asked: {reason}; try again later"),
                )
            }
            AskError::Storage(e) => e.into(),
        }
    }
}

impl From<ImportError> for ApiError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Ask(ask) => ask.into(),
            ImportError::Book(book) => book.into(),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"year": 2026, "period": 10}))]
struct ImportRequest {
    #[schema(minimum = 2000, maximum = 2100)]
    year: i32,
    /// The month, 1–12: the AEAT files each record under its operation
    /// date's month, or else its issue date's.
    #[schema(minimum = 1, maximum = 12)]
    period: u32,
}

/// Import received invoices from the AEAT
///
/// Asks the AEAT (`ConsultaFactuSistemaFacturacion`, as the recipient, with
/// the account's certificate) which invoices suppliers registered with
/// VERI*FACTU naming the account's NIF in that month, and adds each to the
/// book as a `draft` (`source: aeat`) to confirm with `PATCH {"status":
/// "confirmed"}`: drafts do not count in the tax forms. The AEAT's records
/// carry no IRPF withholding and no category (`other`); each draft says so
/// in `notes`. Left out, in `skipped` with the reason: invoices already in
/// the book (with their `expense_id`), cancelled by the supplier, in IGIC or
/// IPSI. Running it again adds only what is new. Uses no quota. Test keys
/// ask the simulator and store nothing. Needs the account's issuer NIF
/// (409 `issuer_incomplete`) and, with a live key, a usable certificate
/// (409 `certificate_missing` / `certificate_expired`); an AEAT that cannot
/// be reached is 502 `aeat_unavailable`.
#[utoipa::path(post, path = "/api/v1/expenses/import-from-aeat", tag = "expenses", operation_id = "import_expenses_from_aeat",
    request_body = ImportRequest,
    responses((status = 200, description = "What was imported and what was left out", body = Imported),
        (status = 502, description = "The AEAT could not be asked or its answer read (`aeat_unavailable`, `aeat_fault`, `aeat_unreadable_answer`)", body = ErrorBody)))]
async fn import_expenses_from_aeat(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<ImportRequest>,
) -> Result<Json<Imported>, ApiError> {
    let period = month(req.year, req.period)?;
    Ok(Json(import_from_aeat(&state.ports, &caller, period).await?))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct RecordsQuery {
    /// 2000–2100.
    #[param(minimum = 2000, maximum = 2100)]
    year: i32,
    /// The month, 1–12 (the AEAT files a record under its operation date's
    /// month, or else its issue date's).
    #[param(minimum = 1, maximum = 12)]
    period: u32,
}

/// One invoice in a comparison.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"number": "F2026-000012", "issue_date": "2026-11-02", "invoice_id": 12,
    "operation": "Alta", "status": "pending", "aeat_state": null, "differences": []}))]
struct ComparedRecord {
    number: String,
    issue_date: NaiveDate,
    /// Our invoice; null for a record the AEAT holds that this account did not send.
    invoice_id: Option<u64>,
    /// Our newest record of the invoice: `Alta` or `Anulacion`.
    #[schema(value_type = Option<String>)]
    operation: Option<&'static str>,
    /// Our record's status.
    status: Option<RecordStatus>,
    /// What the AEAT holds: `Correcto`, `AceptadoConErrores` or `Anulado`;
    /// null when it holds nothing.
    #[schema(value_type = Option<String>)]
    aeat_state: Option<&'static str>,
    /// In `different`: `hash` (the AEAT holds another record of the
    /// invoice) and/or `state` (another state than ours; ours may be pending).
    #[schema(value_type = Vec<String>)]
    differences: Vec<&'static str>,
}

/// A month's records compared with the AEAT's.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"object": "verifactu_comparison", "issuer_nif": "B12345674", "year": 2026, "period": 11,
    "matching": 41,
    "missing_at_aeat": [{"number": "F2026-000012", "issue_date": "2026-11-02", "invoice_id": 12,
        "operation": "Alta", "status": "pending", "aeat_state": null, "differences": []}],
    "different": [{"number": "F2026-000007", "issue_date": "2026-11-01", "invoice_id": 7,
        "operation": "Anulacion", "status": "pending", "aeat_state": "Anulado", "differences": ["state"]}],
    "only_at_aeat": []}))]
struct ComparisonResponse {
    /// `verifactu_comparison`.
    object: &'static str,
    issuer_nif: String,
    year: i32,
    period: u32,
    /// How many of ours the AEAT holds with the same Huella and state.
    matching: usize,
    /// Ours (submitted or pending) that the AEAT does not hold.
    missing_at_aeat: Vec<ComparedRecord>,
    /// Held with another Huella or another state than ours.
    different: Vec<ComparedRecord>,
    /// Held by the AEAT, not sent from this account.
    only_at_aeat: Vec<ComparedRecord>,
}

fn field_name(field: Field) -> &'static str {
    match field {
        Field::Hash => "hash",
        Field::State => "state",
    }
}

fn compared(entries: Vec<compare::Entry>) -> Vec<ComparedRecord> {
    entries
        .into_iter()
        .map(|e| ComparedRecord {
            number: e.number,
            issue_date: e.issue_date,
            invoice_id: e.invoice_id,
            operation: e.operation.map(Operation::as_str),
            status: e.our_status,
            aeat_state: e.aeat_state.map(HeldState::as_str),
            differences: e.differences.into_iter().map(field_name).collect(),
        })
        .collect()
}

fn response(comparison: Comparison) -> ComparisonResponse {
    ComparisonResponse {
        object: "verifactu_comparison",
        issuer_nif: comparison.issuer_nif,
        year: comparison.period.year(),
        period: comparison.period.month(),
        matching: comparison.matching,
        missing_at_aeat: compared(comparison.missing_at_aeat),
        different: compared(comparison.different),
        only_at_aeat: compared(comparison.only_at_aeat),
    }
}

/// Compare the month's VERI*FACTU records with the AEAT's
///
/// Asks the AEAT (`ConsultaFactuSistemaFacturacion`, as issuer, every page)
/// which records of the account's issuer NIF it holds for the month, and
/// compares them with the account's: by invoice, our newest record the AEAT
/// should hold (a rejected one is not held). Live keys ask the AEAT with the
/// account's certificate (409 `certificate_missing`, `certificate_expired`
/// or `certificate_unreadable` when it cannot be used); test keys ask the
/// service's AEAT simulator. Uses no quota. 502 when the AEAT cannot be
/// asked (`aeat_unavailable`, `aeat_fault`, `aeat_unreadable_answer`).
#[utoipa::path(get, path = "/api/v1/verifactu/records", tag = "invoices", operation_id = "compare_verifactu_records",
    params(RecordsQuery),
    responses(
        (status = 200, description = "The comparison", body = ComparisonResponse),
        (status = 400, description = "`parameter_missing` or `parameter_invalid`, naming `year` or `period`", body = ErrorBody),
        (status = 409, description = "`issuer_incomplete` (no issuer NIF), or a live key's `certificate_missing`, `certificate_expired` or `certificate_unreadable`", body = ErrorBody),
        (status = 502, description = "`aeat_unavailable`, `aeat_fault` or `aeat_unreadable_answer`: try again later", body = ErrorBody)))]
async fn compare_verifactu_records(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(q): ApiQuery<RecordsQuery>,
) -> Result<Json<ComparisonResponse>, ApiError> {
    let comparison = compare_records(&state.ports, &caller, month(q.year, q.period)?).await?;
    Ok(Json(response(comparison)))
}
