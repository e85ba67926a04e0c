//! The aeat group: the API's questions to the AEAT with the account's
//! certificate (`ConsultaFactuSistemaFacturacion`): importing the invoices
//! suppliers registered naming the account into the book of expenses. On
//! AWS its own function, whose role may open certificates.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ErrorBody};
use super::json::ApiJson;
use super::state::AppState;
use crate::app::expenses::import::{ImportError, Imported, import_from_aeat};
use crate::app::keys::Caller;
use crate::app::tax_tools::check_year;
use crate::app::verifactu::certificates::Unusable;
use crate::app::verifactu::query::AskError;
use crate::verifactu::aeat::query::Period;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(import_expenses_from_aeat))
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
    check_year(req.year).map_err(ApiError::from)?;
    let period = Period::new(req.year, req.period).ok_or_else(|| {
        ApiError::invalid(
            "parameter_invalid",
            format!("period {} is not a month; use 1 to 12", req.period),
        )
        .param("period")
    })?;
    Ok(Json(import_from_aeat(&state.ports, &caller, period).await?))
}
