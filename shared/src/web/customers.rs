//! Customers: the address book of the account (in the mode the page shows),
//! searched by name or tax id, created, edited and deleted through the REST
//! operations (`/api/v1/customers`), with the API's errors beside their fields.

use std::collections::HashMap;

use axum::Extension;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use maud::html;
use serde_json::{Map, Value, json};

use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, csrf_field, see_other};
use super::rest::{Rest, item_path};
use super::visit::{SignedIn, Visit};
use super::{caller_for, text};

const FIELDS: [&str; 7] = [
    "name",
    "tax_id",
    "address",
    "postal_code",
    "city",
    "country",
    "email",
];
/// The book is read in pages of this many for a search.
const PAGE: usize = 100;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/customers", get(list))
        .route("/customers/new", get(blank).post(create))
        .route("/customers/{id}", get(edit).post(update))
        .route("/customers/{id}/delete", post(delete))
}

pub async fn list(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let lang = visit.lang;
    let caller = match caller_for(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let mode = caller.mode.as_str();
    let search = query
        .get("q")
        .map(|q| q.trim().to_lowercase())
        .unwrap_or_default();
    let mut found = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let path = match &after {
            Some(id) => format!("/api/v1/customers?limit={PAGE}&starting_after={id}"),
            None => format!("/api/v1/customers?limit={PAGE}"),
        };
        let page = rest.get(&caller, &path).await.json();
        let data = page["data"].as_array().cloned().unwrap_or_default();
        after = data.last().map(|c| text(&c["id"]).to_string());
        found.extend(data.into_iter().filter(|c| {
            search.is_empty()
                || text(&c["name"]).to_lowercase().contains(&search)
                || text(&c["tax_id"]).to_lowercase().contains(&search)
        }));
        if page["has_more"] != Value::Bool(true) || after.is_none() {
            break;
        }
    }
    page::render(
        &visit,
        lang.pick("Clientes", "Customers"),
        html! {
            p { a href={ "/customers/new?mode=" (mode) } role="button" { (lang.pick("Nuevo cliente", "New customer")) } }
            form method="get" action="/customers" role="search" {
                input type="hidden" name="mode" value=(mode);
                label for="q" { (lang.pick("Buscar por nombre o NIF", "Search by name or tax id"))
                    input id="q" name="q" type="search" value=(query.get("q").map(String::as_str).unwrap_or(""));
                }
                button type="submit" class="secondary" { (lang.pick("Buscar", "Search")) }
            }
            @if found.is_empty() {
                p { (lang.pick("No hay clientes.", "No customers.")) }
            } @else {
                table {
                    thead { tr {
                        th scope="col" { (lang.pick("Nombre", "Name")) }
                        th scope="col" { (lang.pick("NIF", "Tax id")) }
                        th scope="col" { (lang.pick("Municipio", "City")) }
                        th scope="col" { (lang.pick("Correo", "Email")) }
                    } }
                    tbody {
                        @for customer in &found {
                            tr {
                                td { a href={ "/customers/" (text(&customer["id"])) "?mode=" (mode) } { (text(&customer["name"])) } }
                                td { (text(&customer["tax_id"])) }
                                td { (text(&customer["city"])) }
                                td { (text(&customer["email"])) }
                            }
                        }
                    }
                }
            }
        },
    )
}

/// The form, for a new customer (`id` None) or an existing one.
fn form_page(
    visit: &Visit,
    mode: &str,
    id: Option<&str>,
    values: &Map<String, Value>,
    problem: page::Problem,
    status: StatusCode,
) -> Response {
    let lang = visit.lang;
    let labels = [
        lang.pick("Nombre o razón social", "Name"),
        lang.pick("NIF o identificador fiscal", "Tax id"),
        lang.pick("Dirección", "Address"),
        lang.pick("Código postal", "Postal code"),
        lang.pick("Municipio", "City"),
        lang.pick("País (código ISO)", "Country (ISO code)"),
        lang.pick("Correo", "Email"),
    ];
    let error_for = |field: &str| page::error_for(&problem, field);
    let general = page::unplaced(&problem, |p| FIELDS.contains(&p));
    let action = match id {
        Some(id) => format!("/customers/{id}"),
        None => "/customers/new".into(),
    };
    let title = if id.is_some() {
        lang.pick("Cliente", "Customer")
    } else {
        lang.pick("Nuevo cliente", "New customer")
    };
    page::respond(
        visit,
        status,
        title,
        html! {
            @if let Some(message) = general { p role="alert" class="error" { (message) } }
            form method="post" action=(action) novalidate {
                (csrf_field(visit))
                input type="hidden" name="mode" value=(mode);
                @for (field, label) in FIELDS.iter().zip(labels) {
                    (page::input(label, field, if *field == "email" { "email" } else { "text" }, text(values.get(*field).unwrap_or(&Value::Null)), error_for(field)))
                }
                button type="submit" { (lang.pick("Guardar", "Save")) }
            }
            @if let Some(id) = id {
                form method="post" action={ "/customers/" (id) "/delete" } {
                    (csrf_field(visit))
                    input type="hidden" name="mode" value=(mode);
                    label { input type="checkbox" name="confirm" value="yes" required; (lang.pick(" Confirmo que quiero borrarlo", " I confirm I want to delete it")) }
                    button type="submit" class="secondary" { (lang.pick("Borrar", "Delete")) }
                }
            }
            p { a href={ "/customers?mode=" (mode) } { (lang.pick("Volver a los clientes", "Back to the customers")) } }
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
    let mut values = Map::new();
    values.insert("country".into(), json!("ES"));
    form_page(
        &visit,
        caller.mode.as_str(),
        None,
        &values,
        None,
        StatusCode::OK,
    )
}

/// The typed fields as the API's JSON: empty ones left out (on an edit, sent as null to clear them).
fn typed(form: &Submitted, clear_empty: bool) -> Map<String, Value> {
    FIELDS
        .iter()
        .filter_map(|field| match form.text(field) {
            "" if clear_empty && *field != "name" => Some((field.to_string(), Value::Null)),
            "" => None,
            value => Some((field.to_string(), json!(value))),
        })
        .collect()
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
    let body = Value::Object(typed(&form, false));
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/customers",
            Some(&body),
            None,
        )
        .await;
    let mode = caller.mode.as_str();
    if reply.ok() {
        return see_other(visit, &format!("/customers?mode={mode}"), Vec::new());
    }
    let Value::Object(values) = body else {
        unreachable!("built as an object")
    };
    form_page(
        visit,
        mode,
        None,
        &values,
        reply.problem(),
        StatusCode::UNPROCESSABLE_ENTITY,
    )
}

pub async fn edit(
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
    let path = item_path("/api/v1/customers", &id);
    let reply = rest.get(&caller, &path).await;
    if !reply.ok() {
        return page::not_found(&visit);
    }
    let Value::Object(values) = reply.json() else {
        return page::not_found(&visit);
    };
    form_page(
        &visit,
        caller.mode.as_str(),
        Some(&id),
        &values,
        None,
        StatusCode::OK,
    )
}

pub async fn update(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(&state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let path = item_path("/api/v1/customers", &id);
    let body = Value::Object(typed(&form, true));
    let reply = rest
        .call(&caller, Method::PATCH, &path, Some(&body), None)
        .await;
    let mode = caller.mode.as_str();
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    if reply.ok() {
        return see_other(visit, &format!("/customers?mode={mode}"), Vec::new());
    }
    let Value::Object(values) = body else {
        unreachable!("built as an object")
    };
    form_page(
        visit,
        mode,
        Some(&id),
        &values,
        reply.problem(),
        StatusCode::UNPROCESSABLE_ENTITY,
    )
}

pub async fn delete(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(&state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let mode = caller.mode.as_str();
    if form.text("confirm") != "yes" {
        return see_other(visit, &format!("/customers/{id}?mode={mode}"), Vec::new());
    }
    let path = item_path("/api/v1/customers", &id);
    let reply = rest.call(&caller, Method::DELETE, &path, None, None).await;
    if reply.ok() {
        see_other(visit, &format!("/customers?mode={mode}"), Vec::new())
    } else {
        page::not_found(visit)
    }
}
