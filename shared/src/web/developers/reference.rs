//! Developers → API reference: the OpenAPI document rendered by Redoc,
//! vendored (`static/VENDOR.md`) and served from `/static`, nothing from
//! another host. The document is the committed one the API serves at
//! `/api/v1/openapi.json`, served here too because the API's copy needs a
//! key. Redoc injects inline styles and starts a search worker from a blob,
//! so this page has its own, looser CSP; telemetry is off (and `connect-src`
//! would refuse it anyway).

use std::sync::OnceLock;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use maud::html;

use super::super::assets;
use super::super::page;
use super::super::visit::SignedIn;

/// Where this page's Redoc reads the document.
pub const DOCUMENT_PATH: &str = "/developers/api/openapi.json";

/// The CSP of the reference page (the router keeps a handler's own CSP).
pub const REFERENCE_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; \
form-action 'self'; worker-src 'self' blob:";

pub async fn show(SignedIn(visit, _): SignedIn) -> Response {
    let lang = visit.lang;
    let mut response = page::render(
        &visit,
        lang.pick("Referencia de la API", "API reference"),
        html! {
            p {
                (lang.pick(
                    "Cada operación de la API con sus parámetros, sus respuestas y sus errores. Llámala con una clave: ",
                    "Every operation of the API with its parameters, answers and errors. Call it with a key: "
                ))
                code { "Authorization: Bearer svc_test_…" }
                ". "
                a href=(DOCUMENT_PATH) { (lang.pick("Descargar el documento OpenAPI (JSON)", "Download the OpenAPI document (JSON)")) }
            }
            noscript { p { (lang.pick(
                "La referencia necesita JavaScript; sin él, descarga el documento OpenAPI.",
                "The reference needs JavaScript; without it, download the OpenAPI document."
            )) } }
            redoc spec-url=(DOCUMENT_PATH) disable-telemetry="true" {}
            script type="module" src=(assets::REDOC) {}
        },
    );
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(REFERENCE_CSP),
    );
    response
}

/// The committed OpenAPI document, as `/api/v1/openapi.json` serves it.
pub async fn document(SignedIn(..): SignedIn) -> Response {
    static JSON: OnceLock<String> = OnceLock::new();
    let json = JSON.get_or_init(|| crate::http::openapi::served().to_string());
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "private, max-age=300"),
        ],
        json.as_str(),
    )
        .into_response()
}
