//! Numbering series (Business → Series): the account's series in the mode
//! the page shows, with the number each would give next; a new series
//! (code, pattern, yearly restart, purpose, default); making one the default
//! of its purpose; deleting one that numbered nothing. The rules are the
//! API's (`/api/v1/series`): a series with invoices cannot be renumbered or
//! deleted, and its refusal is shown beside the field it names.

use std::collections::HashMap;

use axum::Extension;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use maud::html;
use serde_json::{Value, json};

use crate::domain::lang::Lang;
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, csrf_field, see_other};
use super::rest::{Rest, item_path};
use super::visit::Visit;
use super::{caller_for, text};

const PURPOSES: [&str; 4] = [
    "ordinary",
    "simplified",
    "rectifying",
    "rectifying_simplified",
];
const FIELDS: [&str; 4] = ["code", "pattern", "purpose", "description"];

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/business/series", get(list).post(create))
        .route("/business/series/{code}/default", post(make_default))
        .route("/business/series/{code}/delete", post(delete))
}

fn purpose_name(lang: Lang, purpose: &str) -> &'static str {
    match purpose {
        "ordinary" => lang.pick("ordinarias (F1)", "ordinary (F1)"),
        "simplified" => lang.pick("simplificadas (F2)", "simplified (F2)"),
        "rectifying" => lang.pick("rectificativas", "rectifying"),
        _ => lang.pick(
            "rectificativas de simplificadas (R5)",
            "rectifying simplified (R5)",
        ),
    }
}

async fn show(
    rest: &Rest,
    visit: &Visit,
    caller: &crate::app::keys::Caller,
    typed: &HashMap<String, String>,
    problem: page::Problem,
) -> Response {
    let lang = visit.lang;
    let mode = caller.mode.as_str();
    let listed = rest.get(caller, "/api/v1/series").await.json();
    let value = |name: &str| typed.get(name).map_or("", String::as_str);
    let error_for = |field: &str| page::error_for(&problem, field);
    let general = page::unplaced(&problem, |p| FIELDS.contains(&p));
    let status = if problem.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    page::respond(
        visit,
        status,
        lang.pick("Series de numeración", "Numbering series"),
        html! {
            p { (lang.pick(
                "Las facturas simplificadas y las completas van en series distintas (RD 1619/2012 art. 7.1.a); las rectificativas, en una serie propia.",
                "Simplified and full invoices go in separate series (RD 1619/2012 art. 7.1.a); rectifying invoices in a series of their own."
            )) }
            @if let Some(message) = &general { p role="alert" class="error" { (message) } }
            table {
                thead { tr {
                    th scope="col" { (lang.pick("Serie", "Series")) }
                    th scope="col" { (lang.pick("Para", "For")) }
                    th scope="col" { (lang.pick("Siguiente número", "Next number")) }
                    th scope="col" { (lang.pick("Por defecto", "Default")) }
                    th scope="col" { (lang.pick("Acciones", "Actions")) }
                } }
                tbody {
                    @for series in listed["data"].as_array().into_iter().flatten() {
                        @let code = text(&series["code"]);
                        tr {
                            td { code { (code) } @if let Some(d) = series["description"].as_str() { " · " (d) } }
                            td { (purpose_name(lang, text(&series["purpose"]))) }
                            td { code { (text(&series["next_number"])) } }
                            td { @if series["default"] == Value::Bool(true) { (lang.pick("sí", "yes")) } @else {
                                form method="post" action={ "/business/series/" (code) "/default" } {
                                    (csrf_field(visit))
                                    input type="hidden" name="mode" value=(mode);
                                    button type="submit" class="secondary" aria-label={ (lang.pick("Usar por defecto ", "Make default ")) (code) } { (lang.pick("Usar por defecto", "Make default")) }
                                }
                            } }
                            td { @if series["builtin"] != Value::Bool(true) && series["used"] != Value::Bool(true) {
                                form method="post" action={ "/business/series/" (code) "/delete" } {
                                    (csrf_field(visit))
                                    input type="hidden" name="mode" value=(mode);
                                    label { input type="checkbox" name="confirm" value="yes" required; (lang.pick(" Confirmo", " I confirm")) }
                                    button type="submit" class="secondary" aria-label={ (lang.pick("Borrar ", "Delete ")) (code) } { (lang.pick("Borrar", "Delete")) }
                                }
                            } }
                        }
                    }
                }
            }
            form method="post" action="/business/series" novalidate {
                (csrf_field(visit))
                input type="hidden" name="mode" value=(mode);
                fieldset {
                    legend { (lang.pick("Nueva serie", "New series")) }
                    (page::input(lang.pick("Código (letras mayúsculas)", "Code (capital letters)"), "code", "text", value("code"), error_for("code")))
                    (page::input(lang.pick("Formato (vacío: {code}{year}-{n:06})", "Pattern (empty: {code}{year}-{n:06})"), "pattern", "text", value("pattern"), error_for("pattern")))
                    label for="purpose" { (lang.pick("Para", "For"))
                        select id="purpose" name="purpose" {
                            @for purpose in PURPOSES {
                                option value=(purpose) selected[value("purpose") == purpose] { (purpose_name(lang, purpose)) }
                            }
                        }
                    }
                    (page::input(lang.pick("Descripción (opcional)", "Description (optional)"), "description", "text", value("description"), error_for("description")))
                    label { input type="checkbox" name="yearly_restart" value="yes" checked[typed.is_empty() || value("yearly_restart") == "yes"]; (lang.pick(" Empieza de nuevo cada año", " Restarts every year")) }
                    label { input type="checkbox" name="default" value="yes" checked[value("default") == "yes"]; (lang.pick(" Por defecto para su tipo", " Default for its purpose")) }
                }
                button type="submit" { (lang.pick("Crear la serie", "Create the series")) }
            }
        },
    )
}

pub async fn list(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    super::visit::SignedIn(visit, _): super::visit::SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let caller = match caller_for(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    show(&rest, &visit, &caller, &HashMap::new(), None).await
}

pub async fn create(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(&state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let mut body = json!({
        "code": form.text("code"),
        "purpose": form.text("purpose"),
        "yearly_restart": form.text("yearly_restart") == "yes",
        "default": form.text("default") == "yes",
    });
    for optional in ["pattern", "description"] {
        if !form.text(optional).is_empty() {
            body[optional] = json!(form.text(optional));
        }
    }
    let reply = rest
        .call(&caller, Method::POST, "/api/v1/series", Some(&body), None)
        .await;
    if reply.ok() {
        return see_other(
            visit,
            &format!("/business/series?mode={}", caller.mode.as_str()),
            Vec::new(),
        );
    }
    show(&rest, visit, &caller, form.fields(), reply.problem()).await
}

async fn change(
    state: &AppState,
    rest: &Rest,
    form: &Submitted,
    method: Method,
    path: String,
    body: Option<Value>,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let reply = rest.call(&caller, method, &path, body.as_ref(), None).await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    if reply.ok() {
        return see_other(
            visit,
            &format!("/business/series?mode={}", caller.mode.as_str()),
            Vec::new(),
        );
    }
    show(rest, visit, &caller, &HashMap::new(), reply.problem()).await
}

pub async fn make_default(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(code): Path<String>,
    form: Submitted,
) -> Response {
    change(
        &state,
        &rest,
        &form,
        Method::PATCH,
        item_path("/api/v1/series", &code),
        Some(json!({"default": true})),
    )
    .await
}

pub async fn delete(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(code): Path<String>,
    form: Submitted,
) -> Response {
    if form.text("confirm") != "yes" {
        return see_other(
            &form.visit,
            &format!("/business/series?mode={}", form.text("mode")),
            Vec::new(),
        );
    }
    change(
        &state,
        &rest,
        &form,
        Method::DELETE,
        item_path("/api/v1/series", &code),
        None,
    )
    .await
}
