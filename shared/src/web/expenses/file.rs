//! An expense from a file. The file is kept first as an upload of the
//! account (as `POST /api/v1/uploads` keeps one, for a day), then given to
//! `POST /api/v1/expenses` as the document: an e-invoice (XML, or a PDF
//! carrying one) is read exactly and the expense is added at once. Any
//! other file goes to the extraction (`POST /api/v1/invoices/extract`, 1
//! quota unit in live mode) and comes back as the form to confirm, which
//! sends what was read as `extracted` and the upload as the document.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Multipart, Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use maud::html;
use serde_json::{Value, json};

use crate::app::keys::Caller;
use crate::app::uploads;
use crate::extraction::sniff::{FileKind, sniff};
use crate::http::AppState;

use super::super::form::read_multipart;
use super::super::page::{self, csrf_field, see_other};
use super::super::rest::{Rest, item_path};
use super::super::visit::{SignedIn, Visit};
use super::super::{caller_for, text};
use super::form::{Draft, render_new, values_of_extracted};
use super::test_mode_note;

/// What extraction reads that an expense takes (`ExtractedFields`).
const EXTRACTED: [&str; 12] = [
    "issuer_name",
    "issuer_nif",
    "invoice_number",
    "invoice_date",
    "base",
    "vat_rate",
    "vat_amount",
    "vat_breakdown",
    "irpf_rate",
    "irpf_amount",
    "total",
    "currency",
];

fn render(visit: &Visit, mode: &str, error: Option<&str>, status: StatusCode) -> Response {
    let lang = visit.lang;
    page::respond(
        visit,
        status,
        lang.pick("Gasto desde un archivo", "Expense from a file"),
        html! {
            (test_mode_note(lang, mode.parse().unwrap_or(crate::domain::account::Mode::Test)))
            p { (lang.pick(
                "Una factura electrónica (Facturae, UBL, CII o un PDF que la lleve) se lee tal cual y se añade sin gastar cuota. Un PDF o una foto pasa por la extracción (1 unidad de cuota en modo real) y después revisas los datos antes de guardarlos. El archivo se guarda con el gasto.",
                "An e-invoice (Facturae, UBL, CII or a PDF carrying one) is read as it is and added without using quota. A PDF or a photo goes through extraction (1 quota unit in live mode), and you then check the data before saving. The file is kept with the expense."
            )) }
            form method="post" action="/expenses/from-file" enctype="multipart/form-data" {
                (csrf_field(visit))
                input type="hidden" name="mode" value=(mode);
                label for="file" {
                    (lang.pick("Factura recibida", "Received invoice"))
                    input id="file" name="file" type="file" required
                        accept=".pdf,.jpg,.jpeg,.png,.webp,.xml,application/pdf,image/jpeg,image/png,image/webp,application/xml,text/xml"
                        aria-invalid=[error.map(|_| "true")] aria-describedby=[error.map(|_| "file-error")];
                    @if let Some(error) = error { small id="file-error" class="error" { (error) } }
                }
                button type="submit" { (lang.pick("Leer la factura", "Read the invoice")) }
            }
            p { a href={ "/expenses?mode=" (mode) } { (lang.pick("Volver a los gastos", "Back to the expenses")) } }
        },
    )
}

pub async fn blank(
    State(state): State<AppState>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let caller = match caller_for(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    render(&visit, caller.mode.as_str(), None, StatusCode::OK)
}

/// Keeps the file as an upload of `caller`; its id, or the API's refusal.
async fn keep(
    state: &AppState,
    rest: &Rest,
    caller: &Caller,
    name: &str,
    kind: FileKind,
    bytes: Vec<u8>,
) -> Result<String, String> {
    let declared = json!({"name": name, "mime": kind.mime(), "size": bytes.len()});
    let reply = rest
        .call(
            caller,
            Method::POST,
            "/api/v1/uploads",
            Some(&declared),
            None,
        )
        .await;
    if !reply.ok() {
        return Err(reply.problem().map(|p| p.0).unwrap_or_default());
    }
    let id = text(&reply.json()["id"]).to_string();
    let upload = uploads::find(&state.ports, caller, &id, "file")
        .await
        .map_err(|e| e.to_string())?;
    state
        .ports
        .blobs
        .put(&upload.blob_key(), bytes)
        .await
        .map_err(|e| e.to_string())?;
    Ok(id)
}

pub async fn read(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    multipart: Multipart,
) -> Response {
    let lang = visit.lang;
    let sent = read_multipart(multipart).await;
    if !sent.over_limit && !visit.csrf_matches(sent.text("_csrf")) {
        tracing::warn!(path = %visit.path, "upload refused: CSRF token missing or wrong");
        return page::forbidden(&visit);
    }
    let caller = match caller_for(&state, &visit, Some(sent.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let mode = caller.mode.as_str().to_string();
    let refuse = |message: &str, status| render(&visit, &mode, Some(message), status);
    if sent.over_limit {
        return refuse(
            lang.pick("El archivo es demasiado grande.", "The file is too large."),
            StatusCode::PAYLOAD_TOO_LARGE,
        );
    }
    let file = sent.files.into_iter().find(|f| f.field == "file");
    let Some((file, kind)) = file.and_then(|f| {
        let kind = sniff(&f.bytes)?;
        Some((f, kind))
    }) else {
        return refuse(
            lang.pick(
                "Elige un PDF, JPG, PNG, WebP o una factura electrónica XML.",
                "Choose a PDF, JPG, PNG, WebP or an XML e-invoice.",
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
        );
    };
    let name = match file.name.trim() {
        "" => "factura".to_string(),
        typed => typed.chars().take(255).collect(),
    };
    let upload = match keep(&state, &rest, &caller, &name, kind, file.bytes).await {
        Ok(upload) => upload,
        Err(message) => return refuse(&message, StatusCode::UNPROCESSABLE_ENTITY),
    };
    if matches!(kind, FileKind::Xml | FileKind::Pdf) {
        let body = json!({"document": {"upload_id": upload, "file_name": name}});
        let reply = rest
            .call(&caller, Method::POST, "/api/v1/expenses", Some(&body), None)
            .await;
        if reply.ok() {
            let id = text(&reply.json()["id"]).to_string();
            return match caller.mode {
                crate::domain::account::Mode::Live => see_other(
                    &visit,
                    &format!("/expenses/{id}?mode={mode}&notice=saved"),
                    Vec::new(),
                ),
                crate::domain::account::Mode::Test => {
                    see_other(&visit, &format!("/expenses?mode={mode}"), Vec::new())
                }
            };
        }
        if reply.status == StatusCode::CONFLICT || kind == FileKind::Xml {
            let message = reply.problem().map(|p| p.0).unwrap_or_default();
            return refuse(&message, StatusCode::UNPROCESSABLE_ENTITY);
        }
    }
    let request = json!({"files": [{"upload_id": upload, "name": name}]});
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/invoices/extract",
            Some(&request),
            None,
        )
        .await;
    let result = reply.json();
    let Some(invoice) = result["invoices"].get(0).filter(|_| reply.ok()) else {
        let message = result["errors"][0]["message"]
            .as_str()
            .map(str::to_string)
            .or_else(|| reply.problem().map(|p| p.0))
            .unwrap_or_else(|| {
                lang.pick(
                    "No se encontró ninguna factura en el archivo.",
                    "No invoice was found in the file.",
                )
                .into()
            });
        return refuse(&message, StatusCode::UNPROCESSABLE_ENTITY);
    };
    let extracted: serde_json::Map<String, Value> = EXTRACTED
        .iter()
        .filter_map(|f| Some((f.to_string(), invoice.get(*f)?.clone())))
        .collect();
    let draft = Draft {
        mode,
        values: values_of_extracted(invoice),
        extracted: Some(Value::Object(extracted)),
        upload_id: Some(upload),
        idempotency: crate::ids::random_token(16),
        problem: None,
    };
    render_new(&visit, &draft, StatusCode::OK)
}

/// The document kept with an expense, as the REST operation answers it.
pub async fn document(
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
    let path = format!("{}/document", item_path("/api/v1/expenses", &id));
    let reply = rest.get(&caller, &path).await;
    if !reply.ok() {
        return page::not_found(&visit);
    }
    reply.download()
}
