//! The invoice documents: `GET /invoices/{id}/pdf` (plain PDF, or the
//! Factur-X PDF/A-3 with `?format=facturx`) and `GET /invoices/{id}/xml`
//! (`?format=facturae` (default), `ubl` or `cii`). Generated from the stored
//! invoice on each request; the same invoice in the same state always gives
//! the same bytes.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::invoices::invoice_id;
use super::query::ApiQuery;
use super::state::AppState;
use crate::app::invoices::store;
use crate::app::keys::Caller;
use crate::documents::{cii, facturae, facturx, pdf, ubl};
use crate::invoice::model::Invoice;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_pdf))
        .routes(routes!(get_xml))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct PdfQuery {
    /// Absent (or `pdf`) for the plain PDF; `facturx` for the Factur-X PDF/A-3 (CII XML embedded as factur-x.xml).
    #[param(pattern = "^(pdf|facturx)$")]
    format: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct XmlQuery {
    /// `facturae` (default; Facturae 3.2.2, unsigned), `ubl` (UBL 2.1, EN 16931 / Peppol BIS 3) or `cii` (CII D16B, Factur-X EN 16931 profile).
    #[param(pattern = "^(facturae|ubl|cii)$")]
    format: Option<String>,
}

async fn invoice(state: &AppState, caller: &Caller, raw: &str) -> Result<Invoice, ApiError> {
    Ok(store::get(&state.ports, caller, invoice_id(raw)?).await?.0)
}

fn unknown_format(given: &str, valid: &str) -> ApiError {
    ApiError::invalid(
        "parameter_invalid",
        format!("unknown format {given:?}; valid formats: {valid}"),
    )
    .param("format")
}

fn file(body: Vec<u8>, content_type: &'static str, name: String) -> Response {
    let disposition = format!("inline; filename=\"{name}\"");
    (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response()
}

/// The invoice as PDF
///
/// A4, with everything RD 1619/2012 requires and the VERI*FACTU QR code at the
/// top of the first page. `?format=facturx` gives the Factur-X PDF/A-3 with the
/// CII XML embedded.
#[utoipa::path(get, path = "/api/v1/invoices/{id}/pdf", tag = "invoices", operation_id = "get_invoice_pdf",
    params(("id" = u64, Path, description = "The invoice id"), PdfQuery),
    responses((status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>)))]
async fn get_pdf(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<PdfQuery>,
) -> Result<Response, ApiError> {
    let facturx = match q.format.as_deref() {
        None | Some("pdf") => false,
        Some("facturx") => true,
        Some(other) => return Err(unknown_format(other, "pdf, facturx")),
    };
    let invoice = invoice(&state, &caller, &id).await?;
    let body = if facturx {
        facturx::facturx_pdf(&invoice, &cii::cii(&invoice))
    } else {
        pdf::pdf(&invoice)
    };
    Ok(file(
        body,
        "application/pdf",
        format!("{}.pdf", invoice.number),
    ))
}

/// The invoice as e-invoice XML
///
/// Facturae 3.2.2 (default), UBL 2.1 or CII D16B.
#[utoipa::path(get, path = "/api/v1/invoices/{id}/xml", tag = "invoices", operation_id = "get_invoice_xml",
    params(("id" = u64, Path, description = "The invoice id"), XmlQuery),
    responses((status = 200, description = "The XML", content_type = "application/xml", body = String)))]
async fn get_xml(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<XmlQuery>,
) -> Result<Response, ApiError> {
    let format = q.format.unwrap_or_else(|| "facturae".into());
    let generate: fn(&Invoice) -> String = match format.as_str() {
        "facturae" => facturae::facturae,
        "ubl" => ubl::ubl,
        "cii" => cii::cii,
        other => return Err(unknown_format(other, "facturae, ubl, cii")),
    };
    let invoice = invoice(&state, &caller, &id).await?;
    let xml = generate(&invoice);
    Ok(file(
        xml.into_bytes(),
        "application/xml",
        format!("{}-{format}.xml", invoice.number),
    ))
}
