//! One invoice: its parties, lines and totals, the VERI*FACTU status with
//! the AEAT's answer and reason, its history, a PDF preview, the downloads,
//! and the forms of the actions it allows. Another account's invoice, or
//! one of the other mode, is not found.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::Value;

use crate::domain::lang::Lang;
use crate::http::AppState;

use super::super::caller_for;
use super::super::page;
use super::super::rest::Rest;
use super::super::visit::{SignedIn, Visit};
use super::{status_name, text};

/// The invoice id of a path: digits only, else not found.
pub(super) fn invoice_id(raw: &str) -> Option<u64> {
    raw.parse().ok().filter(|id| *id > 0)
}

pub async fn show(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let caller = match caller_for(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let Some(id) = invoice_id(&id) else {
        return page::not_found(&visit);
    };
    let reply = rest.get(&caller, &format!("/api/v1/invoices/{id}")).await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(&visit);
    }
    if !reply.ok() {
        return page::failure(
            visit.lang,
            &reply.problem().map(|p| p.0).unwrap_or_default(),
        );
    }
    let invoice = reply.json();
    render(
        &visit,
        &invoice,
        caller.mode.as_str(),
        query
            .get("notice")
            .map(|code| notice_text(visit.lang, code)),
        None,
    )
}

/// The invoice page; `notice` says what an action did, `problem` why it was refused.
pub(super) fn render(
    visit: &Visit,
    invoice: &Value,
    mode: &str,
    notice: Option<&str>,
    problem: Option<&str>,
) -> Response {
    let lang = visit.lang;
    let id = &invoice["id"];
    let number = text(&invoice["number"]);
    let status = if problem.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let base = format!("/invoices/{id}");
    page::respond(
        visit,
        status,
        &format!("{} {number}", lang.pick("Factura", "Invoice")),
        html! {
            @if let Some(notice) = notice { p role="status" class="notice" { (notice) } }
            @if let Some(problem) = problem { p role="alert" class="error" { (problem) } }
            (summary(lang, invoice))
            (warnings(lang, invoice))
            (lines(lang, invoice))
            section aria-labelledby="verifactu" {
                h2 id="verifactu" { "VERI*FACTU" }
                p { (lang.pick("Estado: ", "Status: ")) strong { (text(&invoice["verifactu"]["status"])) } }
                @if let Some(reason) = invoice["verifactu"]["status_reason"].as_str() { p { (lang.pick("Motivo: ", "Reason: ")) (reason) } }
                @if !invoice["verifactu"]["answer"].is_null() {
                    details { summary { (lang.pick("Respuesta de la AEAT", "The AEAT's answer")) } pre { (serde_json::to_string_pretty(&invoice["verifactu"]["answer"]).unwrap_or_default()) } }
                }
            }
            section aria-labelledby="documents" {
                h2 id="documents" { (lang.pick("Documentos", "Documents")) }
                ul {
                    li { a href={ (base) "/pdf?mode=" (mode) } download { (lang.pick("Descargar PDF", "Download PDF")) } }
                    li { a href={ (base) "/xml?format=facturae&mode=" (mode) } download { "Facturae" } }
                    li { a href={ (base) "/xml?format=ubl&mode=" (mode) } download { "UBL" } }
                    li { a href={ (base) "/xml?format=cii&mode=" (mode) } download { "CII" } }
                }
                iframe src={ (base) "/pdf?inline=1&mode=" (mode) } title=(lang.pick("Vista previa del PDF", "PDF preview")) width="100%" height="600" {}
            }
            (super::actions::forms(visit, invoice, mode))
            section aria-labelledby="history" {
                h2 id="history" { (lang.pick("Historial", "History")) }
                ul {
                    @for event in invoice["events"].as_array().into_iter().flatten() {
                        li { time { (text(&event["at"])) } " · " (text(&event["type"])) @if let Some(detail) = event["detail"].as_str() { " · " (detail) } }
                    }
                }
            }
            p { a href={ "/invoices?mode=" (mode) } { (lang.pick("Volver a las facturas", "Back to the invoices")) } }
        },
    )
}

fn notice_text(lang: Lang, notice: &str) -> &'static str {
    match notice {
        "issued" => lang.pick("Factura emitida.", "Invoice issued."),
        "sent" => lang.pick("Factura enviada.", "Invoice sent."),
        _ => lang.pick("Hecho.", "Done."),
    }
}

/// What an adviser would point out on the invoice (`warnings` of the
/// API): in Spanish by code, since the API writes them in English.
fn warnings(lang: Lang, invoice: &Value) -> Markup {
    let list = invoice["warnings"].as_array().cloned().unwrap_or_default();
    html! {
        @if !list.is_empty() {
            section aria-labelledby="warnings" {
                h2 id="warnings" { (lang.pick("Avisos", "Warnings")) }
                ul {
                    @for w in &list {
                        li { (warning_text(lang, w)) }
                    }
                }
            }
        }
    }
}

fn warning_text(lang: Lang, warning: &Value) -> String {
    let english = text(&warning["message"]).to_string();
    if lang == Lang::En {
        return english;
    }
    match warning["code"].as_str().unwrap_or_default() {
        "payment_term_over_60_days" => "Un vencimiento cae más de 60 días después de la operación: entre empresas el plazo de pago no puede superar 60 días naturales (art. 4.3 Ley 3/2004).".into(),
        "r2_conditions" => "Rectificación por concurso: el auto de declaración de concurso debe ser posterior al devengo y la rectificación hacerse en los tres meses siguientes al fin del plazo de un mes para comunicar los créditos (art. 80.Tres Ley 37/1992).".into(),
        "r3_too_early" => "Rectificación por impago: aún no ha pasado el plazo de seis meses (un año si la facturación supera 6.010.121,04 €) desde el devengo (art. 80.Cuatro Ley 37/1992).".into(),
        "r3_too_late" => "Rectificación por impago fuera de plazo: debe hacerse en los seis meses siguientes al fin del plazo de seis meses o un año desde el devengo (art. 80.Cuatro Ley 37/1992).".into(),
        _ => english,
    }
}

fn summary(lang: Lang, invoice: &Value) -> Markup {
    let customer = &invoice["customer"];
    html! {
        table { tbody {
            tr { th scope="row" { (lang.pick("Tipo", "Kind")) } td { (text(&invoice["kind"])) } }
            tr { th scope="row" { (lang.pick("Estado", "Status")) } td { (status_name(lang, text(&invoice["status"]))) " · " (text(&invoice["payment_status"])) } }
            tr { th scope="row" { (lang.pick("Fecha", "Date")) } td { (text(&invoice["issue_date"])) } }
            tr { th scope="row" { (lang.pick("Vence", "Due")) } td { (invoice["due_date"].as_str().unwrap_or("—")) } }
            tr { th scope="row" { (lang.pick("Cliente", "Customer")) } td {
                (customer["name"].as_str().unwrap_or("—"))
                @if let Some(tax_id) = customer["tax_id"].as_str() { " · " (tax_id) }
            } }
            tr { th scope="row" { (lang.pick("Modo", "Mode")) } td { @if invoice["livemode"] == Value::Bool(true) { (lang.pick("real", "live")) } @else { (lang.pick("de prueba", "test")) } } }
        } }
    }
}

fn lines(lang: Lang, invoice: &Value) -> Markup {
    html! {
        section aria-labelledby="lines" {
            h2 id="lines" { (lang.pick("Líneas", "Lines")) }
            table {
                thead { tr {
                    th scope="col" { (lang.pick("Concepto", "Description")) }
                    th scope="col" { (lang.pick("Cantidad", "Quantity")) }
                    th scope="col" { (lang.pick("Precio", "Price")) }
                    th scope="col" { (lang.pick("IVA %", "VAT %")) }
                    th scope="col" { (lang.pick("Base", "Base")) }
                } }
                tbody {
                    @for line in invoice["lines"].as_array().into_iter().flatten() {
                        tr {
                            td { (text(&line["description"])) }
                            td { (page::number(lang, &line["quantity"], None).unwrap_or_default()) }
                            td { (page::euros(lang, &line["unit_price"])) }
                            td { (page::percent(lang, &line["vat_rate"])) }
                            td { (page::euros(lang, &line["base"])) }
                        }
                    }
                }
            }
            table { tbody {
                tr { th scope="row" { (lang.pick("Base imponible", "Taxable base")) } td { (page::euros(lang, &invoice["base"])) } }
                tr { th scope="row" { (lang.pick("Impuesto", "Tax")) } td { (page::euros(lang, &invoice["vat_amount"])) } }
                @if invoice["surcharge_amount"].as_f64().unwrap_or(0.0) != 0.0 {
                    tr { th scope="row" { (lang.pick("Recargo de equivalencia", "Equivalence surcharge")) } td { (page::euros(lang, &invoice["surcharge_amount"])) } }
                }
                @if invoice["irpf_amount"].as_f64().unwrap_or(0.0) != 0.0 {
                    tr { th scope="row" { (lang.pick("Retención IRPF", "IRPF withheld")) } td { "−" (page::euros(lang, &invoice["irpf_amount"])) } }
                }
                tr { th scope="row" { "Total" } td { strong { (page::euros(lang, &invoice["total"])) } } }
                @if invoice["rectifications_total"].as_f64().unwrap_or(0.0) != 0.0 {
                    tr { th scope="row" { (lang.pick("Rectificaciones", "Rectifications")) } td { (page::euros(lang, &invoice["rectifications_total"])) } }
                    tr { th scope="row" { (lang.pick("Total tras rectificaciones", "Total after rectifications")) } td { (page::euros(lang, &super::actions::balance(invoice))) } }
                }
                tr { th scope="row" { (lang.pick("Pendiente", "Due")) } td { (page::euros(lang, &invoice["amount_due"])) } }
            } }
        }
    }
}

/// A document of the invoice, as the REST operation answers it.
async fn document(
    state: &AppState,
    rest: &Rest,
    visit: &Visit,
    id: &str,
    query: &HashMap<String, String>,
    path: &str,
) -> Response {
    let caller = match caller_for(state, visit, query.get("mode").map(String::as_str)).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let Some(id) = invoice_id(id) else {
        return page::not_found(visit);
    };
    let reply = rest
        .get(&caller, &format!("/api/v1/invoices/{id}/{path}"))
        .await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    if !reply.ok() {
        return page::failure(
            visit.lang,
            &reply.problem().map(|p| p.0).unwrap_or_default(),
        );
    }
    reply.download()
}

/// The PDF: a download, or with `?inline=1` the preview the invoice page
/// frames (the one response another page of this origin may frame).
pub async fn pdf(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let mut response = document(&state, &rest, &visit, &id, &query, "pdf").await;
    if query.contains_key("inline") && response.status().is_success() {
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_DISPOSITION,
            HeaderValue::from_static("inline"),
        );
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; frame-ancestors 'self'"),
        );
        headers.insert(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("SAMEORIGIN"),
        );
    }
    response
}

/// An e-invoice: `?format=facturae|ubl|cii`.
pub async fn xml(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let format = match query.get("format").map(String::as_str) {
        Some(format @ ("facturae" | "ubl" | "cii")) => format,
        _ => return page::not_found(&visit),
    };
    document(
        &state,
        &rest,
        &visit,
        &id,
        &query,
        &format!("xml?format={format}"),
    )
    .await
}
