//! VERI*FACTU records against the AEAT: the comparison of a month's records
//! with what the AEAT holds, and an invoice's records as sent with the
//! answers as received.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ErrorBody};
use super::invoices::invoice_id;
use super::query::ApiQuery;
use super::state::AppState;
use crate::app::keys::Caller;
use crate::app::verifactu::certificates::Unusable;
use crate::app::verifactu::compare::{self, Comparison, Field, compare_records};
use crate::app::verifactu::query::AskError;
use crate::app::verifactu::sent_records::{SentRecord, sent_records};
use crate::verifactu::aeat::Operation;
use crate::verifactu::aeat::query::{HeldState, Period};
use crate::verifactu::status::RecordStatus;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(compare_verifactu_records))
        .routes(routes!(get_verifactu_records))
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
    if !(2000..=2100).contains(&q.year) {
        return Err(
            ApiError::invalid("parameter_invalid", "year must be from 2000 to 2100").param("year"),
        );
    }
    let period = Period::new(q.year, q.period).ok_or_else(|| {
        ApiError::invalid("parameter_invalid", "period must be a month, 1 to 12").param("period")
    })?;
    let comparison = compare_records(&state.ports, &caller, period).await?;
    Ok(Json(response(comparison)))
}

/// One record of an invoice as sent.
#[derive(Serialize, ToSchema)]
struct SentRecordView {
    /// `Alta` (the registration, or a correction of it) or `Anulacion`.
    #[schema(value_type = String)]
    operation: &'static str,
    status: RecordStatus,
    hash: String,
    /// The record element (`sf:RegistroAlta` / `sf:RegistroAnulacion`) as sent.
    xml: String,
    /// The SOAP envelope of the AEAT's answer to the message that carried
    /// it, as received; null while pending, and for a record whose answer
    /// was lost and that a query showed the AEAT held.
    answer_xml: Option<String>,
}

/// An invoice's VERI*FACTU records.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"object": "verifactu_records", "invoice_id": 12, "records": [{
    "operation": "Alta", "status": "accepted", "hash": "3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60",
    "xml": "<sf:RegistroAlta xmlns:sf=\"https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd\"><sf:IDVersion>1.0</sf:IDVersion>…</sf:RegistroAlta>",
    "answer_xml": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><env:Envelope xmlns:env=\"http://schemas.xmlsoap.org/soap/envelope/\">…</env:Envelope>"}]}))]
struct SentRecordsResponse {
    /// `verifactu_records`.
    object: &'static str,
    invoice_id: u64,
    /// Oldest first: the registration, its corrections, the cancellation.
    records: Vec<SentRecordView>,
}

fn sent_view(record: SentRecord) -> SentRecordView {
    SentRecordView {
        operation: record.operation.as_str(),
        status: record.status,
        hash: record.hash,
        xml: record.xml,
        answer_xml: record.answer_xml,
    }
}

/// Get an invoice's VERI*FACTU records as sent
///
/// The invoice's records as they went to the AEAT (the RegistroAlta, any
/// correction of it, and the RegistroAnulacion once cancelled), oldest
/// first, each with the AEAT's answer envelope as received (test invoices:
/// the simulator's). JSON with the XML as strings.
#[utoipa::path(get, path = "/api/v1/invoices/{id}/verifactu/record", tag = "invoices", operation_id = "get_verifactu_records",
    params(("id" = u64, Path, description = "The invoice id")),
    responses(
        (status = 200, description = "The records and their answers", body = SentRecordsResponse),
        (status = 404, description = "No invoice of the account (in the key's mode) with that id", body = ErrorBody)))]
async fn get_verifactu_records(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<SentRecordsResponse>, ApiError> {
    let id = invoice_id(&id)?;
    let records = sent_records(&state.ports, &caller, id).await?;
    Ok(Json(SentRecordsResponse {
        object: "verifactu_records",
        invoice_id: id,
        records: records.into_iter().map(sent_view).collect(),
    }))
}
