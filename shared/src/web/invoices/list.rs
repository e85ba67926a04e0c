//! The invoice list: newest first, filtered by status, issue dates and
//! customer, in live or test mode, 25 a page.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Query, State};
use axum::response::Response;
use maud::html;
use serde_json::Value;

use crate::http::AppState;

use super::super::page;
use super::super::rest::Rest;
use super::super::visit::SignedIn;
use super::{status_name, text};

const PAGE: usize = 25;
const FILTERS: [&str; 4] = ["status", "from", "to", "customer_id"];
const STATUSES: [&str; 6] = [
    "issued",
    "accepted",
    "rejected",
    "paid",
    "unpaid",
    "cancelled",
];

pub async fn list(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let lang = visit.lang;
    let (account, caller) =
        match super::super::acting(&state, &visit, query.get("mode").map(String::as_str)).await {
            Ok(acting) => acting,
            Err(response) => return response,
        };
    let mode = caller.mode.as_str();
    let params = {
        let mut params = url::form_urlencoded::Serializer::new(String::new());
        params.append_pair("limit", &PAGE.to_string());
        for name in FILTERS.into_iter().chain(["starting_after"]) {
            if let Some(value) = query.get(name).filter(|v| !v.is_empty()) {
                params.append_pair(name, value);
            }
        }
        params.finish()
    };
    let reply = rest
        .get(&caller, &format!("/api/v1/invoices?{params}"))
        .await;
    let customers = rest
        .get(&caller, "/api/v1/customers?limit=100")
        .await
        .json();
    let problem = reply.problem();
    let listed = reply.json();
    let invoices = listed["data"].as_array().cloned().unwrap_or_default();
    let next = (listed["has_more"] == Value::Bool(true))
        .then(|| invoices.last().map(|i| i["id"].to_string()))
        .flatten();
    let filter_value = |name: &str| query.get(name).cloned().unwrap_or_default();
    let next_link = next.map(|after| {
        let mut link = url::form_urlencoded::Serializer::new(String::new());
        link.append_pair("mode", mode);
        for name in FILTERS {
            link.append_pair(name, &filter_value(name));
        }
        link.append_pair("starting_after", &after);
        format!("/invoices?{}", link.finish())
    });
    page::render(
        &visit,
        lang.pick("Facturas", "Invoices"),
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), caller.mode, "/invoices"))
            p { a href={ "/invoices/new?mode=" (mode) } role="button" { (lang.pick("Nueva factura", "New invoice")) } }
            // With htmx the filters swap the table in place (and push the URL);
        // without it the form loads the page.
        form method="get" action="/invoices" hx-get="/invoices" hx-target="#invoice-list"
            hx-select="#invoice-list" hx-swap="outerHTML" hx-push-url="true" {
                input type="hidden" name="mode" value=(mode);
                fieldset {
                    legend { (lang.pick("Filtrar", "Filter")) }
                    label for="status" { (lang.pick("Estado", "Status"))
                        select id="status" name="status" {
                            option value="" { (lang.pick("Todos", "All")) }
                            @for status in STATUSES {
                                option value=(status) selected[filter_value("status") == status] { (status_name(lang, status)) }
                            }
                        }
                    }
                    label for="from" { (lang.pick("Desde", "From")) input id="from" name="from" type="date" value=(filter_value("from")); }
                    label for="to" { (lang.pick("Hasta", "To")) input id="to" name="to" type="date" value=(filter_value("to")); }
                    label for="customer_id" { (lang.pick("Cliente", "Customer"))
                        select id="customer_id" name="customer_id" {
                            option value="" { (lang.pick("Todos", "All")) }
                            @for customer in customers["data"].as_array().into_iter().flatten() {
                                option value=(text(&customer["id"])) selected[filter_value("customer_id") == text(&customer["id"])] { (text(&customer["name"])) }
                            }
                        }
                    }
                }
                button type="submit" class="secondary" { (lang.pick("Filtrar", "Filter")) }
            }
            div id="invoice-list" aria-live="polite" {
                @if let Some((message, _)) = problem {
                    p role="alert" class="error" { (message) }
                }
                @if invoices.is_empty() {
                    p { (lang.pick("No hay facturas.", "No invoices.")) }
                } @else {
                    table {
                        thead { tr {
                            th scope="col" { (lang.pick("Número", "Number")) }
                            th scope="col" { (lang.pick("Fecha", "Date")) }
                            th scope="col" { (lang.pick("Cliente", "Customer")) }
                            th scope="col" { "Total" }
                            th scope="col" { (lang.pick("Estado", "Status")) }
                            th scope="col" { "VERI*FACTU" }
                        } }
                        tbody {
                            @for invoice in &invoices {
                                tr {
                                    td { a href={ "/invoices/" (invoice["id"]) "?mode=" (mode) } { (text(&invoice["number"])) } }
                                    td { (text(&invoice["issue_date"])) }
                                    td { (invoice["customer"]["name"].as_str().unwrap_or("—")) }
                                    td { (page::euros(lang, &invoice["total"])) }
                                    td { (status_name(lang, text(&invoice["status"]))) }
                                    td { (text(&invoice["verifactu"]["status"])) }
                                }
                            }
                        }
                    }
                }
                @if let Some(link) = next_link {
                    p { a href=(link) { (lang.pick("Siguientes", "Next")) } }
                }
            }
        },
    )
}
