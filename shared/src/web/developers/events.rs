//! Developers → Events: the account's events of the last 30 days in one
//! mode, filtered by type and by delivery success, a page at a time (the
//! REST `starting_after`); and one event's JSON, exactly as webhooks
//! receive it.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;
use serde::Deserialize;

use crate::domain::lang::Lang;
use crate::http::AppState;
use crate::webhooks::event_type::EventType;

use super::super::page::{self, Errors};
use super::super::rest::Rest;
use super::super::visit::SignedIn;
use super::{acting, encoded, link, mode_name, plain_id, when};

const LIST_PATH: &str = "/developers/events";

#[derive(Deserialize)]
struct Event {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    created_at: String,
}

#[derive(Deserialize)]
struct List {
    data: Vec<Event>,
    has_more: bool,
}

fn delivery_text(lang: Lang, value: &str) -> &'static str {
    match value {
        "true" => lang.pick(
            "Entregados a todos sus webhooks",
            "Delivered to all their webhooks",
        ),
        "false" => lang.pick(
            "Con alguna entrega pendiente o fallida",
            "With a pending or failed delivery",
        ),
        _ => lang.pick("Todos", "All"),
    }
}

pub async fn list(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Query(query): Query<HashMap<String, String>>,
    SignedIn(visit, _): SignedIn,
) -> Response {
    let lang = visit.lang;
    let q = |name: &str| query.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    let (account, caller) = match acting(&state, &visit, q("mode")).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let mode = caller.mode;
    let kind = q("type").unwrap_or("");
    let delivery = q("delivery_success")
        .filter(|v| matches!(*v, "true" | "false"))
        .unwrap_or("");
    let mut filters: Vec<(&str, &str)> = Vec::new();
    if !kind.is_empty() {
        filters.push(("type", kind));
    }
    if !delivery.is_empty() {
        filters.push(("delivery_success", delivery));
    }
    let mut pairs = filters.clone();
    pairs.extend(q("starting_after").map(|after| ("starting_after", after)));
    let reply = rest
        .get(&caller, &format!("/api/v1/events?{}", encoded(&pairs)))
        .await;
    let mut errors = Errors::default();
    let (events, has_more, status) = if reply.ok() {
        match serde_json::from_slice::<List>(&reply.bytes) {
            Ok(list) => (list.data, list.has_more, StatusCode::OK),
            Err(e) => return page::failure(lang, &e),
        }
    } else if reply.status.is_client_error() {
        let (message, param) = reply.problem().unwrap_or_default();
        let field = if param.as_deref() == Some("type") {
            "type"
        } else {
            "form"
        };
        errors.add(field, message);
        (Vec::new(), false, StatusCode::BAD_REQUEST)
    } else {
        let (message, _) = reply.problem().unwrap_or_default();
        return page::failure(lang, &message);
    };
    let type_error = errors.get("type");
    page::respond(
        &visit,
        status,
        lang.pick("Eventos", "Events"),
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), mode, LIST_PATH))
            p { (lang.pick(
                "Lo ocurrido en tu cuenta los últimos 30 días, del más reciente al más antiguo, tal como lo reciben tus webhooks: úsalo para recuperar lo que tu servidor no recibió.",
                "What happened in your account in the last 30 days, newest first, as your webhooks receive it: use it to recover what your server missed."
            )) }
            @if let Some(error) = errors.get("form") { p role="alert" class="error" { (error) } }
            form method="get" action=(LIST_PATH) {
                input type="hidden" name="mode" value=(mode.as_str());
                label for="type" {
                    (lang.pick("Tipo", "Type"))
                    select id="type" name="type"
                        aria-invalid=[type_error.map(|_| "true")]
                        aria-describedby=[type_error.map(|_| "type-error")] {
                        option value="" selected[kind.is_empty()] { (lang.pick("Todos", "All")) }
                        @for each in EventType::SUBSCRIBABLE {
                            option value=(each.code()) selected[kind == each.code()] { (each.code()) }
                        }
                    }
                    @if let Some(error) = type_error { small id="type-error" class="error" { (error) } }
                }
                label for="delivery_success" {
                    (lang.pick("Entrega", "Delivery"))
                    select id="delivery_success" name="delivery_success" {
                        @for value in ["", "true", "false"] {
                            option value=(value) selected[delivery == value] { (delivery_text(lang, value)) }
                        }
                    }
                }
                button type="submit" { (lang.pick("Filtrar", "Filter")) }
            }
            section aria-labelledby="found" {
                h2 id="found" { (lang.pick("Eventos en modo ", "Events in ")) (mode_name(lang, mode)) }
                @if events.is_empty() {
                    p { (lang.pick("No hay eventos que mostrar.", "No events to show.")) }
                } @else {
                    table {
                        thead { tr {
                            th scope="col" { (lang.pick("Evento", "Event")) }
                            th scope="col" { (lang.pick("Tipo", "Type")) }
                            th scope="col" { (lang.pick("Fecha", "Date")) }
                        } }
                        tbody {
                            @for event in &events {
                                tr {
                                    td { a href=(link(&format!("{LIST_PATH}/{}", event.id), mode, &[])) { code { (event.id) } } }
                                    td { code { (event.kind) } }
                                    td { (when(&event.created_at)) }
                                }
                            }
                        }
                    }
                }
                @if q("starting_after").is_some() || has_more { p {
                    @if q("starting_after").is_some() {
                        a href=(link(LIST_PATH, mode, &filters)) { (lang.pick("Los más recientes", "Newest")) }
                        " "
                    }
                    @if has_more {
                        @if let Some(last) = events.last() {
                            a href=(link(LIST_PATH, mode, &[filters.as_slice(), &[("starting_after", last.id.as_str())]].concat())) {
                                (lang.pick("Eventos anteriores", "Older events"))
                            }
                        }
                    }
                } }
            }
        },
    )
}

pub async fn show(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    SignedIn(visit, _): SignedIn,
) -> Response {
    let lang = visit.lang;
    if !plain_id(&id) {
        return page::not_found(&visit);
    }
    let (_, caller) = match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let reply = rest.get(&caller, &format!("/api/v1/events/{id}")).await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(&visit);
    }
    if !reply.ok() {
        let (message, _) = reply.problem().unwrap_or_default();
        return page::failure(lang, &message);
    }
    let event = reply.json();
    let pretty = serde_json::to_string_pretty(&event).unwrap_or_default();
    let kind = event["type"].as_str().unwrap_or_default();
    let created = event["created_at"].as_str().unwrap_or_default();
    page::render(
        &visit,
        &format!("{} {id}", lang.pick("Evento", "Event")),
        html! {
            table {
                tbody {
                    tr { th scope="row" { (lang.pick("Tipo", "Type")) } td { code { (kind) } } }
                    tr { th scope="row" { (lang.pick("Fecha", "Date")) } td { (when(created)) } }
                    tr { th scope="row" { (lang.pick("Modo", "Mode")) } td { (mode_name(lang, caller.mode)) } }
                }
            }
            h2 id="json" { (lang.pick("Tal como lo reciben tus webhooks", "As your webhooks receive it")) }
            pre role="region" aria-labelledby="json" tabindex="0" { code { (pretty) } }
            p { a href=(link(LIST_PATH, caller.mode, &[])) { (lang.pick("Volver a los eventos", "Back to the events")) } }
        },
    )
}
