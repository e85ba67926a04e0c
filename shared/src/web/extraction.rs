//! Extraction: up to five invoices (PDF, JPG, PNG, WebP, or e-invoice XML)
//! uploaded in one multipart form, sent base64 to the REST extraction
//! (`POST /api/v1/invoices/extract`) as the signed-in account, in the mode
//! the page shows; the results give per file the fields read, the service's
//! checks and the warnings. The form says its limits and checks them before
//! the API: the item count, each image's size and the body the API takes
//! (base64 makes a file a third larger).

use std::collections::HashMap;

use axum::Extension;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::get;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use maud::{Markup, html};
use serde_json::{Value, json};

use crate::app::extraction::prepare::{MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES};
use crate::app::extraction::request::MAX_ITEMS;
use crate::app::keys::Caller;
use crate::domain::account::{Account, Mode};
use crate::domain::lang::Lang;
use crate::extraction::sniff::{FileKind, sniff};
use crate::http::AppState;

use super::form::{PostedFile, read_multipart};
use super::page::{self, csrf_field};
use super::rest::Rest;
use super::visit::{SignedIn, Visit};
use super::{acting, text};

/// What the JSON around the files may take (names, types, keys).
const JSON_OVERHEAD: usize = 8 * 1024;
/// Longest file name the API takes.
const MAX_NAME_CHARS: usize = 255;

/// The extraction page and its form. The form's body may be as large as the
/// API's (`max_body_bytes`): the files it holds are checked against what the
/// API's JSON body can carry once they are base64.
pub fn routes(max_body_bytes: usize) -> Router<AppState> {
    Router::new().route(
        "/extraction",
        get(blank)
            .post(extract)
            .layer(DefaultBodyLimit::max(max_body_bytes)),
    )
}

/// The limits the form says beside its field and checks.
struct Limits {
    /// All the files together: what fits base64 in the API's body.
    total: usize,
    /// One image (the API's own limit); a PDF or XML only has the total.
    image: usize,
}

impl Limits {
    fn of(state: &AppState) -> Self {
        let total = state.config.max_body_bytes.saturating_sub(JSON_OVERHEAD) / 4 * 3;
        Limits {
            total: total.min(MAX_DOCUMENT_BYTES),
            image: MAX_IMAGE_BYTES,
        }
    }

    fn help(&self, lang: Lang) -> String {
        let mut text = match lang {
            Lang::Es => format!(
                "Hasta {MAX_ITEMS} archivos PDF, JPG, PNG o WebP (o facturas electrónicas XML), de hasta {} en total",
                size(lang, self.total)
            ),
            Lang::En => format!(
                "Up to {MAX_ITEMS} PDF, JPG, PNG or WebP files (or XML e-invoices), up to {} in all",
                size(lang, self.total)
            ),
        };
        if self.image < self.total {
            text.push_str(&match lang {
                Lang::Es => format!("; cada imagen, hasta {}", size(lang, self.image)),
                Lang::En => format!("; each image up to {}", size(lang, self.image)),
            });
        }
        text.push('.');
        text
    }
}

/// A size in MB (MiB) with one decimal, as the page's language writes it.
fn size(lang: Lang, bytes: usize) -> String {
    let text = format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0));
    match lang {
        Lang::Es => text.replace('.', ","),
        Lang::En => text,
    }
}

/// What the page shows besides the form: the results, or a problem.
#[derive(Default)]
struct Shown {
    /// The problem with the files chosen, beside the field.
    field_error: Option<String>,
    /// The API's refusal of the whole request.
    general_error: Option<String>,
    /// The extraction, when it ran.
    result: Option<Value>,
}

fn render(
    visit: &Visit,
    account: &Account,
    caller: &Caller,
    limits: &Limits,
    shown: Shown,
    status: StatusCode,
) -> Response {
    let lang = visit.lang;
    let mode = caller.mode;
    let error = shown.field_error.as_deref();
    let described = match error {
        Some(_) => "files-help files-error",
        None => "files-help",
    };
    page::respond(
        visit,
        status,
        lang.pick("Extracción de facturas", "Invoice extraction"),
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), mode, "/extraction"))
            @if mode == Mode::Test {
                p { (lang.pick(
                    "Modo de prueba: los archivos se comprueban igual que en modo real, y el resultado son datos de muestra. No gasta cuota.",
                    "Test mode: the files are checked as in live mode, and the result is sample data. It uses no quota."
                )) }
            } @else {
                p { (lang.pick(
                    "Cada envío gasta 1 unidad de cuota si lee algún PDF o imagen; las facturas electrónicas XML no gastan. No se guarda nada de los archivos.",
                    "Each request uses 1 quota unit when it reads a PDF or image; XML e-invoices are free. Nothing of the files is kept."
                )) }
            }
            @if let Some(message) = &shown.general_error { p role="alert" class="error" { (message) } }
            @if let Some(result) = &shown.result { (results(lang, result)) }
            section aria-labelledby="upload" {
                h2 id="upload" { (lang.pick("Subir facturas", "Upload invoices")) }
                form method="post" action="/extraction" enctype="multipart/form-data" {
                    (csrf_field(visit))
                    input type="hidden" name="mode" value=(mode.as_str());
                    label for="files" {
                        (lang.pick("Facturas", "Invoices"))
                        input id="files" name="files" type="file" multiple required
                            accept=".pdf,.jpg,.jpeg,.png,.webp,.xml,application/pdf,image/jpeg,image/png,image/webp,application/xml,text/xml"
                            aria-invalid=[error.map(|_| "true")] aria-describedby=(described);
                        small id="files-help" { (limits.help(lang)) }
                        @if let Some(error) = error { small id="files-error" class="error" { (error) } }
                    }
                    button type="submit" { (lang.pick("Extraer los datos", "Extract the data")) }
                }
            }
        },
    )
}

pub async fn blank(
    State(state): State<AppState>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (account, caller) =
        match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
            Ok(acting) => acting,
            Err(response) => return response,
        };
    render(
        &visit,
        &account,
        &caller,
        &Limits::of(&state),
        Shown::default(),
        StatusCode::OK,
    )
}

/// One file of the form.
struct Chosen {
    name: String,
    kind: Option<FileKind>,
    bytes: Vec<u8>,
}

/// The form as sent: its token, mode and files, and whether the body went
/// over the limit.
#[derive(Default)]
struct Sent {
    token: String,
    mode: String,
    files: Vec<Chosen>,
    /// Files chosen, counted even past the most the API takes.
    count: usize,
    over_limit: bool,
}

async fn read(multipart: Multipart) -> Sent {
    let mut form = read_multipart(multipart).await;
    let posted: Vec<PostedFile> = std::mem::take(&mut form.files)
        .into_iter()
        .filter(|f| f.field == "files")
        .collect();
    let count = posted.len();
    let files = posted
        .into_iter()
        .take(MAX_ITEMS)
        .enumerate()
        .map(|(i, file)| {
            let name: String = file.name.chars().take(MAX_NAME_CHARS).collect();
            Chosen {
                name: if name.trim().is_empty() {
                    format!("archivo-{}", i + 1)
                } else {
                    name
                },
                kind: sniff(&file.bytes),
                bytes: file.bytes,
            }
        })
        .collect();
    Sent {
        token: form.text("_csrf").to_string(),
        mode: form.text("mode").to_string(),
        files,
        count,
        over_limit: form.over_limit,
    }
}

/// What is wrong with the files before the API sees them, in the page's language.
fn check(lang: Lang, sent: &Sent, limits: &Limits) -> Option<String> {
    if sent.over_limit {
        return Some(match lang {
            Lang::Es => format!(
                "Los archivos pasan de {} en total. Envía menos o más pequeños.",
                size(lang, limits.total)
            ),
            Lang::En => format!(
                "The files are over {} in all. Send fewer or smaller ones.",
                size(lang, limits.total)
            ),
        });
    }
    if sent.count == 0 {
        return Some(
            lang.pick("Elige al menos un archivo.", "Choose at least one file.")
                .into(),
        );
    }
    if sent.count > MAX_ITEMS {
        return Some(match lang {
            Lang::Es => format!(
                "Como mucho {MAX_ITEMS} archivos por envío; has elegido {}. Envía el resto en otro.",
                sent.count
            ),
            Lang::En => format!(
                "At most {MAX_ITEMS} files at a time; you chose {}. Send the rest in another.",
                sent.count
            ),
        });
    }
    for file in &sent.files {
        let problem = match file.kind {
            _ if file.bytes.is_empty() => Some(match lang {
                Lang::Es => format!("«{}» está vacío.", file.name),
                Lang::En => format!("“{}” is empty.", file.name),
            }),
            None => Some(match lang {
                Lang::Es => format!(
                    "«{}» no es un PDF, JPG, PNG, WebP ni una factura electrónica XML.",
                    file.name
                ),
                Lang::En => format!(
                    "“{}” is not a PDF, JPG, PNG, WebP or XML e-invoice.",
                    file.name
                ),
            }),
            Some(FileKind::Png | FileKind::Jpeg | FileKind::Webp)
                if file.bytes.len() > limits.image =>
            {
                Some(match lang {
                    Lang::Es => format!(
                        "«{}» pasa de {}, lo más que puede tener una imagen.",
                        file.name,
                        size(lang, limits.image)
                    ),
                    Lang::En => format!(
                        "“{}” is over {}, the most an image may have.",
                        file.name,
                        size(lang, limits.image)
                    ),
                })
            }
            _ => None,
        };
        if problem.is_some() {
            return problem;
        }
    }
    let total: usize = sent.files.iter().map(|f| f.bytes.len()).sum();
    (total > limits.total).then(|| match lang {
        Lang::Es => format!(
            "Los archivos suman {}, más de los {} que caben en un envío. Envía menos o más pequeños.",
            size(lang, total),
            size(lang, limits.total)
        ),
        Lang::En => format!(
            "The files add up to {}, over the {} one request takes. Send fewer or smaller ones.",
            size(lang, total),
            size(lang, limits.total)
        ),
    })
}

pub async fn extract(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    multipart: Multipart,
) -> Response {
    let lang = visit.lang;
    let sent = read(multipart).await;
    // A body over the limit may end before its token is read (a declared
    // length over the limit ends it at once): it is refused for its size,
    // with nothing done.
    if !sent.over_limit && !visit.csrf_matches(&sent.token) {
        tracing::warn!(path = %visit.path, "upload refused: CSRF token missing or wrong");
        return page::forbidden(&visit);
    }
    let (account, caller) = match acting(&state, &visit, Some(&sent.mode)).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let limits = Limits::of(&state);
    if let Some(problem) = check(lang, &sent, &limits) {
        let shown = Shown {
            field_error: Some(problem),
            ..Shown::default()
        };
        let status = if sent.over_limit {
            StatusCode::PAYLOAD_TOO_LARGE
        } else {
            StatusCode::UNPROCESSABLE_ENTITY
        };
        return render(&visit, &account, &caller, &limits, shown, status);
    }
    let files: Vec<Value> = sent
        .files
        .iter()
        .map(|file| {
            json!({
                "name": file.name,
                "mime": file.kind.expect("checked: every file has a kind").mime(),
                "data": B64.encode(&file.bytes),
            })
        })
        .collect();
    drop(sent);
    let body = json!({ "files": files });
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/invoices/extract",
            Some(&body),
            None,
        )
        .await;
    drop(body);
    if reply.ok() {
        let shown = Shown {
            result: Some(reply.json()),
            ..Shown::default()
        };
        return render(&visit, &account, &caller, &limits, shown, StatusCode::OK);
    }
    let (message, param) = reply.problem().unwrap_or_default();
    let beside_field = param.as_deref().is_some_and(|p| p.starts_with("files"));
    let shown = Shown {
        field_error: beside_field.then(|| message.clone()),
        general_error: (!beside_field).then_some(message),
        result: None,
    };
    let status = if reply.status.is_client_error() {
        reply.status
    } else {
        StatusCode::BAD_GATEWAY
    };
    render(&visit, &account, &caller, &limits, shown, status)
}

/// A value of the extraction as the page shows it: `—` when not read.
fn shown_value(value: &Value) -> String {
    match value {
        Value::Null => "—".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn source_name(lang: Lang, source: &str) -> String {
    match source {
        "pdf_text" => lang.pick("texto del PDF", "the PDF's text").into(),
        "ocr" => lang.pick("imagen (OCR)", "image (OCR)").into(),
        "text" => lang.pick("texto", "text").into(),
        "einvoice:facturae" => "Facturae".into(),
        "einvoice:ubl" => "UBL".into(),
        "einvoice:cii" => "CII".into(),
        "einvoice:facturx" => "Factur-X / ZUGFeRD".into(),
        other => other.into(),
    }
}

fn results(lang: Lang, result: &Value) -> Markup {
    let invoices = result["invoices"].as_array().cloned().unwrap_or_default();
    let errors = result["errors"].as_array().cloned().unwrap_or_default();
    html! {
        section aria-labelledby="results" {
            h2 id="results" { (lang.pick("Resultado", "Result")) }
            @if result["livemode"] == Value::Bool(false) {
                p class="notice" { (lang.pick("Datos de muestra (modo de prueba).", "Sample data (test mode).")) }
            }
            p { (match lang {
                Lang::Es => format!("Facturas leídas: {}. Archivos sin leer: {}.", invoices.len(), errors.len()),
                Lang::En => format!("Invoices read: {}. Files not read: {}.", invoices.len(), errors.len()),
            }) }
        }
        @for (i, invoice) in invoices.iter().enumerate() {
            (extracted(lang, i, invoice))
        }
        @for (i, error) in errors.iter().enumerate() {
            section aria-labelledby={ "unread-" (i) } {
                h2 id={ "unread-" (i) } { (text(&error["file_name"])) }
                p role="alert" class="error" {
                    (lang.pick("No se ha podido leer: ", "Could not be read: ")) (text(&error["message"]))
                    " (" code { (text(&error["code"])) } ")"
                }
            }
        }
    }
}

/// One invoice read: its fields, checks, warnings and lines.
fn extracted(lang: Lang, i: usize, invoice: &Value) -> Markup {
    let id = format!("invoice-{i}");
    let confidence = |field: &str| match invoice["confidence"][field].as_f64() {
        Some(c) => format!("{:.0} %", c * 100.0),
        None => "—".into(),
    };
    let fields: [(&str, &str, String); 14] = [
        (
            "issuer_name",
            lang.pick("Emisor", "Issuer"),
            shown_value(&invoice["issuer_name"]),
        ),
        (
            "issuer_nif",
            lang.pick("NIF del emisor", "Issuer's tax id"),
            shown_value(&invoice["issuer_nif"]),
        ),
        (
            "recipient_name",
            lang.pick("Destinatario", "Recipient"),
            shown_value(&invoice["recipient_name"]),
        ),
        (
            "recipient_nif",
            lang.pick("NIF del destinatario", "Recipient's tax id"),
            shown_value(&invoice["recipient_nif"]),
        ),
        (
            "invoice_number",
            lang.pick("Número", "Number"),
            shown_value(&invoice["invoice_number"]),
        ),
        (
            "invoice_date",
            lang.pick("Fecha", "Date"),
            shown_value(&invoice["invoice_date"]),
        ),
        (
            "due_date",
            lang.pick("Vencimiento", "Due date"),
            shown_value(&invoice["due_date"]),
        ),
        (
            "base",
            lang.pick("Base imponible", "Taxable base"),
            page::euros(lang, &invoice["base"]),
        ),
        (
            "vat_rate",
            lang.pick("Tipo de IVA", "VAT rate"),
            page::percent(lang, &invoice["vat_rate"]),
        ),
        (
            "vat_amount",
            lang.pick("IVA", "VAT"),
            page::euros(lang, &invoice["vat_amount"]),
        ),
        (
            "irpf_rate",
            lang.pick("Retención de IRPF", "IRPF withholding rate"),
            page::percent(lang, &invoice["irpf_rate"]),
        ),
        (
            "irpf_amount",
            lang.pick("Importe retenido", "Amount withheld"),
            page::euros(lang, &invoice["irpf_amount"]),
        ),
        ("total", "Total", page::euros(lang, &invoice["total"])),
        ("iban", "IBAN", shown_value(&invoice["iban"])),
    ];
    let checks = &invoice["checks"];
    let check_rows = [
        (
            "totals_ok",
            lang.pick("Los importes cuadran", "The amounts add up"),
        ),
        (
            "nif_valid",
            lang.pick("NIF del emisor válido", "Issuer's tax id valid"),
        ),
        (
            "recipient_nif_valid",
            lang.pick("NIF del destinatario válido", "Recipient's tax id valid"),
        ),
        ("date_valid", lang.pick("Fecha válida", "Date valid")),
        (
            "vat_rate_valid",
            lang.pick(
                "Tipos de IVA vigentes en esa fecha",
                "VAT rates in force on that date",
            ),
        ),
    ];
    let warnings = invoice["warnings"].as_array().cloned().unwrap_or_default();
    let lines = invoice["lines"].as_array().cloned().unwrap_or_default();
    html! {
        section aria-labelledby=(id) {
            h2 id=(id) { (text(&invoice["file_name"])) }
            p {
                (lang.pick("Leído de: ", "Read from: ")) (source_name(lang, text(&invoice["source"])))
                " · " (lang.pick("Moneda: ", "Currency: ")) (text(&invoice["currency"]))
            }
            h3 { (lang.pick("Datos extraídos", "Extracted fields")) }
            table {
                thead { tr {
                    th scope="col" { (lang.pick("Campo", "Field")) }
                    th scope="col" { (lang.pick("Valor", "Value")) }
                    th scope="col" { (lang.pick("Confianza", "Confidence")) }
                } }
                tbody {
                    @for (field, label, value) in &fields {
                        tr {
                            th scope="row" { (label) }
                            td { (value) }
                            td { (confidence(field)) }
                        }
                    }
                }
            }
            h3 { (lang.pick("Comprobaciones", "Checks")) }
            table {
                thead { tr {
                    th scope="col" { (lang.pick("Comprobación", "Check")) }
                    th scope="col" { (lang.pick("Resultado", "Result")) }
                } }
                tbody {
                    @for (check, label) in check_rows {
                        tr {
                            th scope="row" { (label) }
                            td {
                                @match checks[check].as_bool() {
                                    Some(true) => strong class="passed" { (lang.pick("Correcta", "Passed")) },
                                    Some(false) => strong class="failed error" { (lang.pick("Falla", "Failed")) },
                                    None => (lang.pick("No aplica", "Not applicable")),
                                }
                            }
                        }
                    }
                }
            }
            h3 { (lang.pick("Avisos", "Warnings")) }
            @if warnings.is_empty() {
                p { (lang.pick("Ninguno.", "None.")) }
            } @else {
                ul {
                    @for warning in &warnings {
                        li { (text(&warning["message"])) " (" code { (text(&warning["code"])) } ")" }
                    }
                }
            }
            @if !lines.is_empty() {
                h3 { (lang.pick("Líneas", "Lines")) }
                table {
                    thead { tr {
                        th scope="col" { (lang.pick("Concepto", "Description")) }
                        th scope="col" { (lang.pick("Cantidad", "Quantity")) }
                        th scope="col" { (lang.pick("Precio", "Price")) }
                        th scope="col" { (lang.pick("Importe", "Amount")) }
                        th scope="col" { (lang.pick("IVA", "VAT")) }
                    } }
                    tbody {
                        @for line in &lines {
                            tr {
                                td { (text(&line["description"])) }
                                td { (page::number(lang, &line["quantity"], None).unwrap_or_else(|| "—".into())) }
                                td { (page::euros(lang, &line["unit_price"])) }
                                td { (page::euros(lang, &line["amount"])) }
                                td { (page::percent(lang, &line["vat_rate"])) }
                            }
                        }
                    }
                }
            }
        }
    }
}
