//! An invoice's VERI*FACTU records as sent, with the AEAT's answers as
//! received (the comparison with what the AEAT holds is in `aeat`).

use axum::Json;
use axum::extract::{Path, State};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, ErrorBody};
use super::invoices::invoice_id;
use super::state::AppState;
use crate::app::keys::Caller;
use crate::app::verifactu::sent_records::{SentRecord, sent_records};
use crate::verifactu::status::RecordStatus;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_verifactu_records))
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
