//! Developers: the section's landing page, webhooks (with their delivery
//! log), events and the API reference. Webhooks and events are the REST
//! operations run in-process (`web/rest.rs`) as the signed-in account, in
//! the mode asked for by `?mode=` (a form's `mode` field): live where the
//! plan allows it, else test. Keys are the owner's (`web/keys.rs`); the rest
//! of the section is every member's.

mod events;
mod reference;
mod webhooks;

use axum::Router;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};

use crate::domain::account::Mode;
use crate::domain::lang::Lang;
use crate::http::AppState;

use super::visit::SignedIn;
use super::{acting, page};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/developers", get(landing))
        .route(
            "/developers/webhooks",
            get(webhooks::list).post(webhooks::create),
        )
        .route("/developers/webhooks/{id}", get(webhooks::show))
        .route("/developers/webhooks/{id}/test", post(webhooks::test))
        .route("/developers/webhooks/{id}/rotate", post(webhooks::rotate))
        .route("/developers/webhooks/{id}/enabled", post(webhooks::enabled))
        .route("/developers/webhooks/{id}/delete", post(webhooks::delete))
        .route(
            "/developers/webhooks/{id}/deliveries/{delivery_id}/retry",
            post(webhooks::retry),
        )
        .route("/developers/events", get(events::list))
        .route("/developers/events/{id}", get(events::show))
        .route("/developers/api", get(reference::show))
        .route("/developers/api/openapi.json", get(reference::document))
}

async fn landing(SignedIn(visit, session): SignedIn) -> Response {
    let lang = visit.lang;
    let owner = session.person.role.manages_account();
    page::render(
        &visit,
        lang.pick("Desarrolladores", "Developers"),
        html! {
            p { (lang.pick(
                "Todo lo necesario para conectar tus programas con la API: las mismas operaciones que estas páginas, con una clave.",
                "Everything to connect your programs to the API: the same operations as these pages, with a key."
            )) }
            ul {
                @if owner {
                    li {
                        a href="/developers/keys" { (lang.pick("Claves de la API", "API keys")) }
                        ": " (lang.pick("crea y revoca las claves con que se llama a la API.", "create and revoke the keys that call the API."))
                    }
                }
                li {
                    a href="/developers/webhooks" { "Webhooks" }
                    ": " (lang.pick("recibe los eventos de tu cuenta en tu servidor, firmados; registro de entregas.",
                        "receive your account's events on your server, signed; the delivery log."))
                }
                li {
                    a href="/developers/events" { (lang.pick("Eventos", "Events")) }
                    ": " (lang.pick("lo ocurrido en tu cuenta los últimos 30 días, tal como lo reciben los webhooks.",
                        "what happened in your account in the last 30 days, as webhooks receive it."))
                }
                li {
                    a href="/developers/api" { (lang.pick("Referencia de la API", "API reference")) }
                    ": " (lang.pick("cada operación, sus parámetros y sus respuestas.", "every operation, its parameters and its answers."))
                }
            }
        },
    )
}

/// Whether `id` can be put in a REST path as it is (ids are `we_…`,
/// `dlv_…`, `evt_…`): anything else is not the account's.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `path?mode=…` with the other `pairs`.
fn link(path: &str, mode: Mode, pairs: &[(&str, &str)]) -> String {
    let mut all = vec![("mode", mode.as_str())];
    all.extend_from_slice(pairs);
    format!("{path}?{}", encoded(&all))
}

/// A query string of `pairs`, encoded.
fn encoded(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn mode_name(lang: Lang, mode: Mode) -> &'static str {
    match mode {
        Mode::Live => lang.pick("real", "live"),
        Mode::Test => lang.pick("prueba", "test"),
    }
}

/// A UTC timestamp of the API (`2026-11-21T10:00:05.123Z`) as a `<time>`.
fn when(stamp: &str) -> Markup {
    let shown = stamp.get(..19).unwrap_or(stamp).replace('T', " ");
    html! { time datetime=(stamp) { (shown) " UTC" } }
}
