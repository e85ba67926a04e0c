//! The tax group: NIF validation, VAT, withholding, Modelos 130 and 303, the
//! quarter summary and the tax calendar. Computed by rules; no quota.

use axum::Json;
use axum::extract::State;
use chrono::NaiveDate;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::json::ApiJson;
use super::query::ApiQuery;
use super::state::AppState;
use crate::app::keys::Caller;
use crate::app::tax_tools::ToolError;
use crate::app::tax_tools::calendar::{CalendarResponse, fiscal_calendar, parse_forms, parse_lang};
use crate::app::tax_tools::model130::{Model130Request, Model130Response, estimate_model_130};
use crate::app::tax_tools::model303::{Model303Request, Model303Response, estimate_model_303};
use crate::app::tax_tools::nif::{NifCheck, validate_tax_id};
use crate::app::tax_tools::quarter::{QuarterResponse, quarter_summary};
use crate::app::tax_tools::vat::{VatRequest, VatResponse, calculate_vat};
use crate::app::tax_tools::withholding::{
    WithholdingRequest, WithholdingResponse, calculate_withholding,
};
use crate::domain::madrid;

/// Longest value `GET /tax/nif` accepts.
const MAX_NIF_INPUT: usize = 64;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_nif))
        .routes(routes!(post_vat))
        .routes(routes!(post_withholding))
        .routes(routes!(post_model_130))
        .routes(routes!(post_model_303))
        .routes(routes!(get_quarter))
        .routes(routes!(get_calendar))
}

impl From<ToolError> for ApiError {
    fn from(e: ToolError) -> Self {
        if e.code == "storage" {
            tracing::error!(error = %e.message, "tax tool storage error");
            return ApiError::unavailable("storage is temporarily unavailable; retry the request");
        }
        let error = ApiError::invalid(e.code, e.message);
        match e.param {
            Some(param) => error.param(param),
            None => error,
        }
    }
}

fn today(state: &AppState) -> NaiveDate {
    madrid::date(state.ports.clock.now())
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct NifQuery {
    /// The identifier: DNI-NIF, NIE, entity NIF (CIF) or K/L/M; spaces, dots, hyphens,
    /// lower case and an `ES` prefix are accepted.
    #[param(max_length = 64)]
    value: String,
}

/// Validate a NIF, NIE or CIF
///
/// Checks format and control character with the official algorithms; validity
/// agrees with python-stdnum's `stdnum.es.nif` (which also accepts both control
/// forms for entities: an unusual one gives a warning). Invalid values are a
/// 200 with `valid: false` and the `reason`.
#[utoipa::path(get, path = "/api/v1/tax/nif", tag = "tax", operation_id = "validate_tax_id", params(NifQuery),
    responses((status = 200, description = "The validation result", body = NifCheck)))]
async fn get_nif(
    _caller: Caller,
    ApiQuery(q): ApiQuery<NifQuery>,
) -> Result<Json<NifCheck>, ApiError> {
    if q.value.chars().count() > MAX_NIF_INPUT {
        return Err(ApiError::invalid(
            "parameter_invalid",
            format!("value is longer than {MAX_NIF_INPUT} characters"),
        )
        .param("value"));
    }
    Ok(Json(validate_tax_id(&q.value)))
}

/// Calculate VAT and equivalence surcharge
///
/// Forward from a base, or back from a VAT-included amount so that base + VAT
/// (+ surcharge) equals the amount to the cent. Rounding: half away from zero,
/// to cents.
#[utoipa::path(post, path = "/api/v1/tax/vat", tag = "tax", operation_id = "calculate_vat", request_body = VatRequest,
    responses((status = 200, description = "Base, VAT, surcharge and total", body = VatResponse)))]
async fn post_vat(
    State(state): State<AppState>,
    _caller: Caller,
    ApiJson(req): ApiJson<VatRequest>,
) -> Result<Json<VatResponse>, ApiError> {
    Ok(Json(calculate_vat(&req, today(&state))?))
}

/// Calculate IRPF withholding
///
/// The withholding of an invoice by type of income, with its VAT and total
/// (`total_invoice = base + VAT + surcharge − withholding`).
#[utoipa::path(post, path = "/api/v1/tax/withholding", tag = "tax", operation_id = "calculate_withholding",
    request_body = WithholdingRequest,
    responses((status = 200, description = "Withholding, VAT and invoice total", body = WithholdingResponse)))]
async fn post_withholding(
    State(state): State<AppState>,
    _caller: Caller,
    ApiJson(req): ApiJson<WithholdingRequest>,
) -> Result<Json<WithholdingResponse>, ApiError> {
    Ok(Json(calculate_withholding(&req, today(&state))?))
}

/// Estimate Modelo 130
///
/// Every box (01–19) of the quarterly IRPF instalment, computed year to date.
/// Income and withholdings left out come from the account's ledger of issued
/// invoices, expenses (box 02) from the book of expenses: the deductible cost
/// of the confirmed expenses dated (operation, else issue date) from 1
/// January to the quarter's end, capital goods by their amortisation (live
/// keys); in simplified direct estimation box 02 adds 5 % for hard-to-justify
/// expenses (RIRPF art. 30, rule 2.ª). Boxes 05 and 15 not given come from this
/// service's returns of the earlier quarters. `*_source` says where each came
/// from, and `invoices` / `expenses` / `amortisation` list what was counted.
#[utoipa::path(post, path = "/api/v1/tax/model-130", tag = "tax", operation_id = "estimate_model_130",
    request_body = Model130Request,
    responses((status = 200, description = "The boxes and the result", body = Model130Response)))]
async fn post_model_130(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<Model130Request>,
) -> Result<Json<Model130Response>, ApiError> {
    Ok(Json(estimate_model_130(&state.ports, &caller, &req).await?))
}

/// Estimate Modelo 303
///
/// The quarterly VAT return from both books (live keys). Output VAT: the
/// issued invoices of the quarter per rate (01–09), the VAT self-assessed on
/// intra-EU purchases (10/11) and other reverse-charge purchases (12/13),
/// rectifying invoices (14/15), equivalence surcharge (16–26), total 27.
/// Input VAT: the confirmed expenses received in the quarter, as far as
/// deductible (their `deductible.vat`): domestic purchases and deducted
/// self-assessed VAT in 28/29 (capital goods 30/31), imports 32–35, intra-EU
/// goods 36–39, suppliers' credit notes 40/41; total 45. Result: 46 = 27 −
/// 45, then 64, 66, the amounts to offset from earlier quarters
/// (`carried_forward`: box 110, applied 78, left 87), 69 and 71. Expenses
/// with equivalence surcharge deduct nothing (LIVA art. 154.Dos); drafts
/// are not counted. `not_handled` lists the parts left at 0. Every invoice
/// and expense counted is listed, with the boxes it went to.
#[utoipa::path(post, path = "/api/v1/tax/model-303", tag = "tax", operation_id = "estimate_model_303",
    request_body = Model303Request,
    responses((status = 200, description = "The boxes, the result and what was counted", body = Model303Response)))]
async fn post_model_303(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<Model303Request>,
) -> Result<Json<Model303Response>, ApiError> {
    Ok(Json(estimate_model_303(&state.ports, &caller, &req).await?))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct QuarterQuery {
    /// 2000–2100.
    #[param(minimum = 2000, maximum = 2100)]
    year: i32,
    /// 1–4.
    #[param(minimum = 1, maximum = 4)]
    quarter: u8,
}

/// Quarter summary from both books
///
/// Output VAT and surcharge per rate, IRPF withheld by clients, totals, and
/// with the confirmed expenses: the Modelo 303 boxes (output, input and
/// result, nothing carried from earlier quarters), the Modelo 130 inputs
/// (income, expenses and withholdings year to date) and the Modelo 111/115
/// figures of the IRPF the account withheld from its suppliers (rent: 115).
/// Lists the invoices and expenses counted. Live keys only see the live
/// books; test keys get an empty quarter.
#[utoipa::path(get, path = "/api/v1/tax/quarter", tag = "tax", operation_id = "quarter_summary", params(QuarterQuery),
    responses((status = 200, description = "The quarter", body = QuarterResponse)))]
async fn get_quarter(
    State(state): State<AppState>,
    caller: Caller,
    ApiQuery(q): ApiQuery<QuarterQuery>,
) -> Result<Json<QuarterResponse>, ApiError> {
    Ok(Json(
        quarter_summary(&state.ports, &caller, q.year, q.quarter).await?,
    ))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct CalendarQuery {
    /// First day (YYYY-MM-DD); default today (Europe/Madrid).
    from: Option<NaiveDate>,
    /// Last day; default 90 days after `from`. At most 3 years after `from`.
    to: Option<NaiveDate>,
    /// Comma-separated forms: 303, 130, 131, 111, 115, 349, 390, 190, 180, 184, 347, 100, 200, 202, 420 (IGIC, Canary Islands); default all.
    #[param(
        pattern = "^(303|130|131|111|115|349|390|190|180|184|347|100|200|202|420)(,(303|130|131|111|115|349|390|190|180|184|347|100|200|202|420))*$"
    )]
    forms: Option<String>,
    /// `es` (default) or `en`.
    #[param(pattern = "^(es|en)$")]
    lang: Option<String>,
}

/// Tax calendar
///
/// Filing deadlines whose last day falls in the range, computed by rule: the
/// legal day, moved past weekends and national holidays, with the direct-debit
/// cut-off (3 business days before) for forms with a payment. `to` may not be
/// before `from`, nor more than 3 years after it (400 `parameter_invalid`,
/// param `to`).
#[utoipa::path(get, path = "/api/v1/tax/calendar", tag = "tax", operation_id = "fiscal_calendar",
    params(CalendarQuery),
    responses((status = 200, description = "The deadlines, soonest first", body = CalendarResponse)))]
async fn get_calendar(
    State(state): State<AppState>,
    _caller: Caller,
    ApiQuery(q): ApiQuery<CalendarQuery>,
) -> Result<Json<CalendarResponse>, ApiError> {
    let forms = parse_forms(q.forms.as_deref())?;
    let lang = parse_lang(q.lang.as_deref())?;
    Ok(Json(fiscal_calendar(
        q.from,
        q.to,
        &forms,
        lang,
        today(&state),
    )?))
}
