//! Developers → Webhooks: the account's webhooks in one mode; a new one
//! (URL, description, the event types as checkboxes) with its signing
//! secret shown once; per webhook a test send, the delivery log with a
//! retry per delivery, the secret's rotation (the new one shown once),
//! pausing and resuming, and deletion with a confirmation. Every change is
//! the REST operation, so its rules and errors are the API's; an error is
//! shown beside the field it names.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::app::keys::Caller;
use crate::domain::account::{Account, Mode};
use crate::domain::lang::Lang;
use crate::domain::one_time_secret;
use crate::http::AppState;
use crate::webhooks::event_type::EventType;

use super::super::form::Submitted;
use super::super::page::{self, Errors, csrf_field, see_other};
use super::super::rest::{Reply, Rest};
use super::super::visit::{SignedIn, Visit};
use super::{acting, encoded, link, mode_name, plain_id, when};

const LIST_PATH: &str = "/developers/webhooks";
/// How many attempts a page of the delivery log shows.
const LOG_PAGE: usize = 20;
/// How much of an endpoint's answer the log shows.
const EXCERPT_CHARS: usize = 200;

#[derive(Deserialize)]
struct Webhook {
    id: String,
    url: String,
    events: Vec<String>,
    description: Option<String>,
    enabled: bool,
    disabled_reason: Option<String>,
    failing_since: Option<String>,
    created_at: String,
    #[serde(default)]
    secret: Option<String>,
    #[serde(default)]
    previous_secret_expires_at: Option<String>,
}

#[derive(Deserialize)]
struct Attempt {
    id: String,
    delivery_id: String,
    event_id: String,
    event_type: String,
    trigger: String,
    created_at: String,
    status_code: Option<u16>,
    duration_ms: u64,
    response_body: String,
    error: Option<String>,
    succeeded: bool,
}

#[derive(Deserialize)]
struct List<T> {
    data: Vec<T>,
    has_more: bool,
}

fn parsed<T: DeserializeOwned>(reply: &Reply) -> Result<T, serde_json::Error> {
    serde_json::from_slice(&reply.bytes)
}

/// The page for a REST call that failed where no form can show why: a 404
/// (another account's, the other mode's, or no such id) or the failure page.
fn failed(visit: &Visit, reply: &Reply) -> Response {
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    let (message, _) = reply.problem().unwrap_or_default();
    let request_id = reply
        .headers
        .get("request-id")
        .and_then(|v| v.to_str().ok());
    page::failure(
        visit.lang,
        &format!("{message} (request id {})", request_id.unwrap_or("none")),
    )
}

/// An `Idempotency-Key` as a form carries it, so a double submit runs once.
fn idempotency(form: &Submitted) -> Option<&str> {
    Some(form.text("idempotency")).filter(|k| one_time_secret::well_formed(k))
}

fn idempotency_field() -> Markup {
    html! { input type="hidden" name="idempotency" value=(one_time_secret::generate()); }
}

fn mode_field(mode: Mode) -> Markup {
    html! { input type="hidden" name="mode" value=(mode.as_str()); }
}

fn error_for(errors: &Errors, field: &str) -> Markup {
    html! {
        @if let Some(error) = errors.get(field) {
            small id={ (field) "-error" } class="error" { (error) }
        }
    }
}

fn described_by(errors: &Errors, field: &str) -> Option<String> {
    errors.get(field).map(|_| format!("{field}-error"))
}

fn events_summary(lang: Lang, events: &[String]) -> String {
    if events.iter().any(|e| e == "*") {
        lang.pick("todos, también los futuros", "all, future ones too")
            .into()
    } else {
        events.join(", ")
    }
}

fn state_text(lang: Lang, webhook: &Webhook) -> String {
    match (&webhook.disabled_reason, webhook.enabled) {
        (_, true) => lang.pick("activo", "enabled").into(),
        (Some(reason), false) => format!("{}: {reason}", lang.pick("desactivado", "disabled")),
        (None, false) => lang.pick("en pausa", "paused").into(),
    }
}

/// The new-webhook form as sent, to show it again with its errors.
#[derive(Default)]
struct Draft {
    url: String,
    description: String,
    all: bool,
    events: Vec<&'static str>,
}

impl Draft {
    fn of(form: &Submitted) -> Self {
        Draft {
            url: form.text("url").to_string(),
            description: form.text("description").to_string(),
            all: form.text("all_events") == "yes",
            events: EventType::SUBSCRIBABLE
                .into_iter()
                .map(EventType::code)
                .filter(|code| form.text(&format!("event.{code}")) == "yes")
                .collect(),
        }
    }

    fn events(&self) -> Vec<&'static str> {
        if self.all {
            vec!["*"]
        } else {
            self.events.clone()
        }
    }
}

fn new_form(visit: &Visit, mode: Mode, draft: &Draft, errors: &Errors) -> Markup {
    let lang = visit.lang;
    html! {
        form method="post" action=(LIST_PATH) {
            (csrf_field(visit))
            (mode_field(mode))
            (idempotency_field())
            label for="url" {
                (lang.pick("URL de tu servidor", "Your server's URL"))
                input id="url" name="url" type="url" value=(draft.url) autocomplete="off" required
                    placeholder="https://example.com/hooks/svc"
                    aria-invalid=[errors.get("url").map(|_| "true")]
                    aria-describedby=(described_by(errors, "url").map_or("url-hint".into(), |e| format!("url-hint {e}")));
                (error_for(errors, "url"))
            }
            small id="url-hint" { (lang.pick(
                "En modo real solo https y una dirección pública; en modo de prueba también http.",
                "Live mode takes https and a public address only; test mode takes http too."
            )) }
            label for="description" {
                (lang.pick("Descripción (opcional)", "Description (optional)"))
                input id="description" name="description" type="text" value=(draft.description) autocomplete="off"
                    maxlength="500"
                    aria-invalid=[errors.get("description").map(|_| "true")]
                    aria-describedby=[described_by(errors, "description")];
                (error_for(errors, "description"))
            }
            fieldset aria-describedby=[described_by(errors, "events")] {
                legend { (lang.pick("Eventos que recibe", "Events it receives")) }
                label {
                    input type="checkbox" name="all_events" value="yes" checked[draft.all];
                    (lang.pick(" Todos, también los que se añadan en el futuro", " All, including those added in the future"))
                }
                @for kind in EventType::SUBSCRIBABLE {
                    label {
                        input type="checkbox" name={ "event." (kind.code()) } value="yes"
                            checked[draft.events.contains(&kind.code())];
                        " " code { (kind.code()) }
                    }
                }
                (error_for(errors, "events"))
            }
            button type="submit" { (lang.pick("Crear webhook", "Create webhook")) }
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn list_page(
    rest: &Rest,
    visit: &Visit,
    account: &Account,
    caller: &Caller,
    status: StatusCode,
    notice: Option<&str>,
    draft: &Draft,
    errors: &Errors,
) -> Response {
    let lang = visit.lang;
    let mode = caller.mode;
    let reply = rest.get(caller, "/api/v1/webhooks?limit=100").await;
    if !reply.ok() {
        return failed(visit, &reply);
    }
    let list: List<Webhook> = match parsed(&reply) {
        Ok(list) => list,
        Err(e) => return page::failure(visit.lang, &e),
    };
    page::respond(
        visit,
        status,
        "Webhooks",
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), mode, LIST_PATH))
            @if let Some(notice) = notice { p role="status" class="notice" { (notice) } }
            @if let Some(error) = errors.get("form") { p role="alert" class="error" { (error) } }
            p { (lang.pick(
                "Un webhook recibe los eventos de tu cuenta en tu servidor: un POST firmado por cada evento, reintentado durante unas 20 horas si falla. Cada modo tiene los suyos.",
                "A webhook receives your account's events on your server: a signed POST per event, retried for about 20 hours when it fails. Each mode has its own."
            )) }
            section aria-labelledby="list" {
                h2 id="list" { (lang.pick("Webhooks en modo ", "Webhooks in ")) (mode_name(lang, mode)) }
                @if list.data.is_empty() {
                    p { (lang.pick("Aún no hay webhooks en este modo.", "No webhooks in this mode yet.")) }
                } @else {
                    table {
                        thead { tr {
                            th scope="col" { "URL" }
                            th scope="col" { (lang.pick("Eventos", "Events")) }
                            th scope="col" { (lang.pick("Estado", "Status")) }
                            th scope="col" { (lang.pick("Creado", "Created")) }
                        } }
                        tbody {
                            @for webhook in &list.data {
                                tr {
                                    td { a href=(link(&format!("{LIST_PATH}/{}", webhook.id), mode, &[])) { (webhook.url) } }
                                    td { (events_summary(lang, &webhook.events)) }
                                    td { (state_text(lang, webhook)) }
                                    td { (when(&webhook.created_at)) }
                                }
                            }
                        }
                    }
                }
            }
            section aria-labelledby="new" {
                h2 id="new" { (lang.pick("Nuevo webhook", "New webhook")) }
                (new_form(visit, mode, draft, errors))
            }
        },
    )
}

pub async fn list(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Query(query): Query<HashMap<String, String>>,
    SignedIn(visit, _): SignedIn,
) -> Response {
    let lang = visit.lang;
    let (account, caller) =
        match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
            Ok(acting) => acting,
            Err(response) => return response,
        };
    let notice = (query.get("done").map(String::as_str) == Some("deleted"))
        .then(|| lang.pick("Webhook eliminado.", "Webhook deleted."));
    list_page(
        &rest,
        &visit,
        &account,
        &caller,
        StatusCode::OK,
        notice,
        &Draft::default(),
        &Errors::default(),
    )
    .await
}

/// The field of the form that a REST error's `param` names.
fn field_of(param: Option<&str>) -> &'static str {
    match param {
        Some("url") => "url",
        Some("description") => "description",
        Some(p) if p.starts_with("events") => "events",
        _ => "form",
    }
}

pub async fn create(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let Some(session) = visit.signed_in() else {
        return page::not_found(visit);
    };
    let (account, caller) = match acting(&state, visit, Some(form.text("mode"))).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let draft = Draft::of(&form);
    let mut errors = Errors::default();
    if draft.events().is_empty() {
        errors.add(
            "events",
            lang.pick(
                "Elige al menos un tipo de evento, o «Todos».",
                "Choose at least one event type, or “All”.",
            ),
        );
    } else {
        let description = Some(draft.description.as_str()).filter(|d| !d.is_empty());
        let body = json!({"url": draft.url, "events": draft.events(), "description": description});
        let reply = rest
            .call(
                &caller,
                Method::POST,
                "/api/v1/webhooks",
                Some(&body),
                idempotency(&form),
            )
            .await;
        if reply.ok() {
            let webhook: Webhook = match parsed(&reply) {
                Ok(webhook) => webhook,
                Err(e) => return page::failure(visit.lang, &e),
            };
            tracing::info!(account = %caller.account_id, person = %session.person.id, webhook = %webhook.id, "webhook created on the web");
            return secret_page(
                visit,
                lang.pick("Tu webhook nuevo", "Your new webhook"),
                &webhook,
                caller.mode,
            );
        }
        if reply.status.is_server_error() {
            return failed(visit, &reply);
        }
        let (message, param) = reply.problem().unwrap_or_default();
        errors.add(field_of(param.as_deref()), message);
    }
    list_page(
        &rest,
        visit,
        &account,
        &caller,
        StatusCode::UNPROCESSABLE_ENTITY,
        None,
        &draft,
        &errors,
    )
    .await
}

/// A webhook's secret, shown this once with a copy button.
fn secret_page(visit: &Visit, title: &str, webhook: &Webhook, mode: Mode) -> Response {
    let lang = visit.lang;
    let secret = webhook.secret.as_deref().unwrap_or_default();
    let detail = link(&format!("{LIST_PATH}/{}", webhook.id), mode, &[]);
    page::render(
        visit,
        title,
        html! {
            p { (lang.pick("Webhook: ", "Webhook: ")) code { (webhook.url) } }
            p role="status" { (lang.pick(
                "Este es su secreto de firma. Cópialo ahora: no volverás a verlo. Con él compruebas la cabecera Svc-Signature de cada entrega.",
                "This is its signing secret. Copy it now: you will not see it again. It checks the Svc-Signature header of every delivery."
            )) }
            p { code id="webhook-secret" class="secret" { (secret) } }
            button type="button" data-copy="webhook-secret" data-copied=(lang.pick("Copiado", "Copied")) { (lang.pick("Copiar el secreto", "Copy the secret")) }
            @if let Some(until) = &webhook.previous_secret_expires_at {
                p { (lang.pick("El secreto anterior sigue firmando a su lado hasta ", "The previous secret keeps signing beside it until ")) (when(until)) "." }
            }
            p { a href=(detail) { (lang.pick("Ir al webhook", "Go to the webhook")) } }
        },
    )
}

/// What a `done=` after a change says on the webhook's page.
fn done_notice(lang: Lang, done: Option<&str>) -> Option<&'static str> {
    Some(match done? {
        "test-ok" => lang.pick(
            "Prueba entregada: tu servidor respondió con éxito.",
            "Test delivered: your server answered with success.",
        ),
        "test-failed" => lang.pick(
            "La prueba no se entregó: mira la respuesta en el registro de entregas.",
            "The test was not delivered: see the answer in the delivery log.",
        ),
        "retry-ok" => lang.pick(
            "Entrega reenviada: tu servidor respondió con éxito.",
            "Delivery sent again: your server answered with success.",
        ),
        "retry-failed" => lang.pick(
            "El reintento falló: mira la respuesta en el registro de entregas.",
            "The retry failed: see the answer in the delivery log.",
        ),
        "enabled" => lang.pick(
            "Webhook activado: recibirá los eventos nuevos.",
            "Webhook enabled: it will receive new events.",
        ),
        "disabled" => lang.pick(
            "Webhook en pausa: no recibirá eventos.",
            "Webhook paused: it will receive no events.",
        ),
        _ => return None,
    })
}

fn trigger_text(lang: Lang, trigger: &str) -> &str {
    match trigger {
        "scheduled" => lang.pick("programada", "scheduled"),
        "manual" => lang.pick("reintento", "retry"),
        "test" => lang.pick("prueba", "test"),
        other => other,
    }
}

fn excerpt(text: &str) -> String {
    let mut chars = text.chars();
    let mut shown: String = chars.by_ref().take(EXCERPT_CHARS).collect();
    if chars.next().is_some() {
        shown.push('…');
    }
    shown
}

/// A webhook's page: what it is, the test send, the delivery log (a page
/// after `starting_after`), the secret, pausing, deletion.
#[allow(clippy::too_many_arguments)]
async fn detail(
    rest: &Rest,
    visit: &Visit,
    caller: &Caller,
    id: &str,
    starting_after: Option<&str>,
    status: StatusCode,
    notice: Option<&str>,
    errors: &Errors,
) -> Response {
    let lang = visit.lang;
    let mode = caller.mode;
    if !plain_id(id) {
        return page::not_found(visit);
    }
    let reply = rest.get(caller, &format!("/api/v1/webhooks/{id}")).await;
    if !reply.ok() {
        return failed(visit, &reply);
    }
    let webhook: Webhook = match parsed(&reply) {
        Ok(webhook) => webhook,
        Err(e) => return page::failure(visit.lang, &e),
    };
    let limit = LOG_PAGE.to_string();
    let mut pairs = vec![("limit", limit.as_str())];
    pairs.extend(starting_after.map(|after| ("starting_after", after)));
    let reply = rest
        .get(
            caller,
            &format!("/api/v1/webhooks/{id}/deliveries?{}", encoded(&pairs)),
        )
        .await;
    if !reply.ok() {
        return failed(visit, &reply);
    }
    let log: List<Attempt> = match parsed(&reply) {
        Ok(log) => log,
        Err(e) => return page::failure(visit.lang, &e),
    };
    let base = format!("{LIST_PATH}/{id}");
    let action = |what: &str| format!("{base}/{what}");
    page::respond(
        visit,
        status,
        &format!("Webhook {}", webhook.id),
        html! {
            @if let Some(notice) = notice { p role="status" class="notice" { (notice) } }
            @if let Some(error) = errors.get("form") { p role="alert" class="error" { (error) } }
            table {
                tbody {
                    tr { th scope="row" { "URL" } td { code { (webhook.url) } } }
                    tr { th scope="row" { (lang.pick("Modo", "Mode")) } td { (mode_name(lang, mode)) } }
                    tr { th scope="row" { (lang.pick("Eventos", "Events")) } td { (events_summary(lang, &webhook.events)) } }
                    @if let Some(description) = &webhook.description {
                        tr { th scope="row" { (lang.pick("Descripción", "Description")) } td { (description) } }
                    }
                    tr { th scope="row" { (lang.pick("Estado", "Status")) } td { (state_text(lang, &webhook)) } }
                    @if let Some(since) = &webhook.failing_since {
                        tr { th scope="row" { (lang.pick("Falla desde", "Failing since")) } td { (when(since)) } }
                    }
                    tr { th scope="row" { (lang.pick("Creado", "Created")) } td { (when(&webhook.created_at)) } }
                }
            }
            section aria-labelledby="test" {
                h2 id="test" { (lang.pick("Prueba", "Test")) }
                p { (lang.pick(
                    "Envía ahora un evento webhook.test firmado a esta URL. No se reintenta.",
                    "Sends a signed webhook.test event to this URL now. It is not retried."
                )) }
                form method="post" action=(action("test")) {
                    (csrf_field(visit))
                    (mode_field(mode))
                    button type="submit" { (lang.pick("Enviar una prueba", "Send a test")) }
                }
            }
            section aria-labelledby="log" {
                h2 id="log" { (lang.pick("Registro de entregas", "Delivery log")) }
                @if log.data.is_empty() {
                    p { (lang.pick("Sin entregas en los últimos 30 días.", "No deliveries in the last 30 days.")) }
                } @else {
                    table {
                        thead { tr {
                            th scope="col" { (lang.pick("Fecha", "Time")) }
                            th scope="col" { (lang.pick("Evento", "Event")) }
                            th scope="col" { (lang.pick("Origen", "Trigger")) }
                            th scope="col" { (lang.pick("Resultado", "Result")) }
                            th scope="col" { (lang.pick("Respuesta", "Response")) }
                            th scope="col" { (lang.pick("Acciones", "Actions")) }
                        } }
                        tbody {
                            @for attempt in &log.data {
                                tr {
                                    td { (when(&attempt.created_at)) }
                                    td { code { (attempt.event_type) } br; small { (attempt.event_id) } }
                                    td { (trigger_text(lang, &attempt.trigger)) }
                                    td {
                                        @if attempt.succeeded {
                                            (lang.pick("entregada", "delivered"))
                                        } @else {
                                            strong class="error" { (lang.pick("fallida", "failed")) }
                                        }
                                        br;
                                        small {
                                            @if let Some(code) = attempt.status_code { "HTTP " (code) " · " }
                                            (attempt.duration_ms) " ms"
                                        }
                                    }
                                    td {
                                        @if let Some(error) = &attempt.error { (error) br; }
                                        @if !attempt.response_body.is_empty() { code { (excerpt(&attempt.response_body)) } }
                                    }
                                    td {
                                        form method="post" action=(action(&format!("deliveries/{}/retry", attempt.delivery_id))) {
                                            (csrf_field(visit))
                                            (mode_field(mode))
                                            button type="submit" class="secondary"
                                                aria-label={ (lang.pick("Reintentar la entrega ", "Retry delivery ")) (attempt.delivery_id) } {
                                                (lang.pick("Reintentar", "Retry"))
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                @if starting_after.is_some() || log.has_more {
                    p {
                        @if starting_after.is_some() {
                            a href=(link(&base, mode, &[])) { (lang.pick("Las más recientes", "Most recent")) }
                            " "
                        }
                        @if log.has_more {
                            @if let Some(last) = log.data.last() {
                                a href=(link(&base, mode, &[("starting_after", last.id.as_str())])) {
                                    (lang.pick("Entregas anteriores", "Older deliveries"))
                                }
                            }
                        }
                    }
                }
            }
            section aria-labelledby="secret" {
                h2 id="secret" { (lang.pick("Secreto de firma", "Signing secret")) }
                p { (lang.pick(
                    "Rotarlo crea un secreto nuevo, que verás una vez. El anterior sigue firmando a su lado 24 horas, para que cambies tu servidor sin perder entregas.",
                    "Rotating creates a new secret, shown once. The previous one keeps signing beside it for 24 hours, so you can change your server without losing deliveries."
                )) }
                form method="post" action=(action("rotate")) {
                    (csrf_field(visit))
                    (mode_field(mode))
                    (idempotency_field())
                    button type="submit" class="secondary" { (lang.pick("Rotar el secreto", "Rotate the secret")) }
                }
            }
            section aria-labelledby="pause" {
                h2 id="pause" { (lang.pick("Pausa", "Pause")) }
                form method="post" action=(action("enabled")) {
                    (csrf_field(visit))
                    (mode_field(mode))
                    @if webhook.enabled {
                        input type="hidden" name="enabled" value="false";
                        button type="submit" class="secondary" { (lang.pick("Poner en pausa", "Pause")) }
                    } @else {
                        input type="hidden" name="enabled" value="true";
                        button type="submit" { (lang.pick("Activar", "Enable")) }
                    }
                }
            }
            section aria-labelledby="delete" {
                h2 id="delete" { (lang.pick("Eliminar", "Delete")) }
                form method="post" action=(action("delete")) {
                    (csrf_field(visit))
                    (mode_field(mode))
                    label {
                        input type="checkbox" name="confirm" value="yes" required
                            aria-invalid=[errors.get("confirm").map(|_| "true")]
                            aria-describedby=[described_by(errors, "confirm")];
                        (lang.pick(" Confirmo que quiero eliminar este webhook", " I confirm I want to delete this webhook"))
                    }
                    (error_for(errors, "confirm"))
                    button type="submit" class="secondary" { (lang.pick("Eliminar el webhook", "Delete the webhook")) }
                }
            }
            p { a href=(link(LIST_PATH, mode, &[])) { (lang.pick("Volver a los webhooks", "Back to the webhooks")) } }
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
    let q = |name: &str| query.get(name).map(String::as_str);
    let (_, caller) = match acting(&state, &visit, q("mode")).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    detail(
        &rest,
        &visit,
        &caller,
        &id,
        q("starting_after").filter(|s| !s.is_empty()),
        StatusCode::OK,
        done_notice(visit.lang, q("done")),
        &Errors::default(),
    )
    .await
}

/// The acting caller of a form about webhook `id`, or the page to answer
/// instead (signed out or an id that cannot be the account's: 404).
async fn acting_on(state: &AppState, form: &Submitted, id: &str) -> Result<Caller, Response> {
    let visit = &form.visit;
    if !plain_id(id) {
        return Err(page::not_found(visit));
    }
    let (_, caller) = acting(state, visit, Some(form.text("mode"))).await?;
    Ok(caller)
}

/// After a change of webhook `id` that failed: its page with the error (a
/// 404 or a failure of the service is its own page).
async fn refused(
    rest: &Rest,
    form: &Submitted,
    caller: &Caller,
    id: &str,
    reply: &Reply,
) -> Response {
    if reply.status == StatusCode::NOT_FOUND || reply.status.is_server_error() {
        return failed(&form.visit, reply);
    }
    let (message, _) = reply.problem().unwrap_or_default();
    let mut errors = Errors::default();
    errors.add("form", message);
    detail(
        rest,
        &form.visit,
        caller,
        id,
        None,
        StatusCode::UNPROCESSABLE_ENTITY,
        None,
        &errors,
    )
    .await
}

/// Back to webhook `id`'s page, saying what was `done`.
fn back_to(form: &Submitted, caller: &Caller, id: &str, done: &str) -> Response {
    let path = link(&format!("{LIST_PATH}/{id}"), caller.mode, &[("done", done)]);
    see_other(&form.visit, &path, Vec::new())
}

pub async fn test(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let caller = match acting_on(&state, &form, &id).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let path = format!("/api/v1/webhooks/{id}/test");
    attempt(
        &rest,
        &form,
        &caller,
        &id,
        &path,
        ("test-ok", "test-failed"),
    )
    .await
}

/// Runs an operation that makes one delivery attempt (a test, a retry) and
/// goes back to the webhook's page saying whether it succeeded.
async fn attempt(
    rest: &Rest,
    form: &Submitted,
    caller: &Caller,
    id: &str,
    path: &str,
    (ok, failed): (&str, &str),
) -> Response {
    let reply = rest.call(caller, Method::POST, path, None, None).await;
    if !reply.ok() {
        return refused(rest, form, caller, id, &reply).await;
    }
    match parsed::<Attempt>(&reply) {
        Ok(attempt) if attempt.succeeded => back_to(form, caller, id, ok),
        Ok(_) => back_to(form, caller, id, failed),
        Err(e) => page::failure(form.visit.lang, &e),
    }
}

pub async fn retry(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path((id, delivery_id)): Path<(String, String)>,
    form: Submitted,
) -> Response {
    if !plain_id(&delivery_id) {
        return page::not_found(&form.visit);
    }
    let caller = match acting_on(&state, &form, &id).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let path = format!("/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry");
    attempt(
        &rest,
        &form,
        &caller,
        &id,
        &path,
        ("retry-ok", "retry-failed"),
    )
    .await
}

pub async fn rotate(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let caller = match acting_on(&state, &form, &id).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let reply = rest
        .call(
            &caller,
            Method::POST,
            &format!("/api/v1/webhooks/{id}/rotate-secret"),
            None,
            idempotency(&form),
        )
        .await;
    if !reply.ok() {
        return refused(&rest, &form, &caller, &id, &reply).await;
    }
    let visit = &form.visit;
    match parsed::<Webhook>(&reply) {
        Ok(webhook) => {
            tracing::info!(account = %caller.account_id, webhook = %webhook.id, "webhook secret rotated on the web");
            let title = visit.lang.pick("Tu secreto nuevo", "Your new secret");
            secret_page(visit, title, &webhook, caller.mode)
        }
        Err(e) => page::failure(visit.lang, &e),
    }
}

pub async fn enabled(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let caller = match acting_on(&state, &form, &id).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let enable = form.text("enabled") == "true";
    let reply = rest
        .call(
            &caller,
            Method::PATCH,
            &format!("/api/v1/webhooks/{id}"),
            Some(&json!({ "enabled": enable })),
            None,
        )
        .await;
    if !reply.ok() {
        return refused(&rest, &form, &caller, &id, &reply).await;
    }
    back_to(
        &form,
        &caller,
        &id,
        if enable { "enabled" } else { "disabled" },
    )
}

pub async fn delete(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let caller = match acting_on(&state, &form, &id).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let visit = &form.visit;
    if form.text("confirm") != "yes" {
        let mut errors = Errors::default();
        errors.add(
            "confirm",
            visit.lang.pick(
                "Marca la casilla para confirmar que quieres eliminarlo.",
                "Tick the box to confirm you want to delete it.",
            ),
        );
        return detail(
            &rest,
            visit,
            &caller,
            &id,
            None,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            &errors,
        )
        .await;
    }
    let reply = rest
        .call(
            &caller,
            Method::DELETE,
            &format!("/api/v1/webhooks/{id}"),
            None,
            None,
        )
        .await;
    if !reply.ok() {
        return refused(&rest, &form, &caller, &id, &reply).await;
    }
    tracing::info!(account = %caller.account_id, webhook = %id, "webhook deleted on the web");
    let path = link(LIST_PATH, caller.mode, &[("done", "deleted")]);
    see_other(visit, &path, Vec::new())
}
