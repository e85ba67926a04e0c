//! Expenses: the book of received invoices, through the REST operations
//! (`/api/v1/expenses`) as the signed-in account. The list with its filters
//! and totals (`mod.rs`); adding and correcting by hand, confirming a draft,
//! deleting (`form.rs`); adding from a file: an e-invoice is read exactly,
//! any other file goes through extraction and comes back as a form to
//! confirm, with the file kept with the expense (`file.rs`).

mod file;
mod form;

use std::collections::HashMap;

use axum::Extension;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::Method;
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::domain::account::Mode;
use crate::domain::lang::Lang;
use crate::expense::Category;
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, see_other};
use super::rest::Rest;
use super::visit::SignedIn;
use super::{acting, caller_for, text};

pub fn routes(max_body_bytes: usize) -> Router<AppState> {
    Router::new()
        .route("/expenses", get(list))
        .route("/expenses/new", get(form::blank).post(form::create))
        .route(
            "/expenses/from-file",
            get(file::blank)
                .post(file::read)
                .layer(DefaultBodyLimit::max(max_body_bytes)),
        )
        .route("/expenses/import-from-aeat", post(import))
        .route("/expenses/{id}", get(form::edit).post(form::update))
        .route("/expenses/{id}/delete", post(form::delete))
        .route("/expenses/{id}/document", get(file::document))
}

/// A category's name in the page's language.
fn category_name(lang: Lang, category: Category) -> &'static str {
    match category {
        Category::Goods => lang.pick("Mercaderías", "Goods"),
        Category::Supplies => lang.pick("Suministros", "Supplies"),
        Category::Rent => lang.pick("Alquiler", "Rent"),
        Category::Vehicle => lang.pick("Vehículo", "Vehicle"),
        Category::Travel => lang.pick("Viajes", "Travel"),
        Category::Meals => lang.pick("Comidas", "Meals"),
        Category::ProfessionalServices => {
            lang.pick("Servicios profesionales", "Professional services")
        }
        Category::Software => "Software",
        Category::Telecom => lang.pick("Teléfono e internet", "Phone and internet"),
        Category::Insurance => lang.pick("Seguros", "Insurance"),
        Category::Training => lang.pick("Formación", "Training"),
        Category::Marketing => "Marketing",
        Category::BankFees => lang.pick("Comisiones bancarias", "Bank fees"),
        Category::Equipment => lang.pick("Equipos", "Equipment"),
        Category::Other => lang.pick("Otros", "Other"),
    }
}

fn category_of(value: &Value) -> Option<Category> {
    Category::parse(text(value))
}

/// What test mode means here: nothing is kept.
fn test_mode_note(lang: Lang, mode: Mode) -> Markup {
    html! {
        @if mode == Mode::Test {
            p { (lang.pick(
                "Modo de prueba: los gastos se comprueban igual que en modo real, pero no se guardan. El libro de gastos es del modo real (planes Pro y Max).",
                "Test mode: expenses are checked as in live mode but not kept. The book of expenses is live mode's (Pro and Max plans)."
            )) }
        }
    }
}

fn sum(expenses: &[Value], pick: impl Fn(&Value) -> &Value) -> Value {
    let total: Decimal = expenses
        .iter()
        .filter_map(|e| pick(e).as_f64().and_then(|f| Decimal::try_from(f).ok()))
        .sum();
    serde_json::to_value(total.round_dp(2).normalize()).unwrap_or(Value::Null)
}

/// The filters of the list, as the query string names them (the API's).
const FILTERS: [&str; 5] = ["year", "quarter", "supplier", "category", "status"];
/// Expenses shown in one page.
const PAGE: usize = 50;

pub async fn list(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let lang = visit.lang;
    let (account, caller) =
        match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
            Ok(acting) => acting,
            Err(response) => return response,
        };
    let mode = caller.mode.as_str();
    let today = crate::domain::madrid::date(state.ports.clock.now());
    let (this_year, this_month) = (
        chrono::Datelike::year(&today),
        chrono::Datelike::month(&today),
    );
    let value = |name: &str| query.get(name).map_or("", |v| v.trim());
    let chosen = |q: &mut form_urlencoded::Serializer<String>| {
        for name in FILTERS {
            if !value(name).is_empty() {
                q.append_pair(name, value(name));
            }
        }
    };
    let api_query = {
        let mut q = form_urlencoded::Serializer::new(String::new());
        chosen(&mut q);
        q.append_pair("limit", &PAGE.to_string());
        if !value("after").is_empty() {
            q.append_pair("starting_after", value("after"));
        }
        q.finish()
    };
    let reply = rest
        .get(&caller, &format!("/api/v1/expenses?{api_query}"))
        .await;
    let problem = reply.problem();
    let page_json = reply.json();
    let expenses = page_json["data"].as_array().cloned().unwrap_or_default();
    let more = page_json["has_more"] == Value::Bool(true);
    let next_query = {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("mode", mode);
        chosen(&mut q);
        if let Some(last) = expenses.last() {
            q.append_pair("after", text(&last["id"]));
        }
        q.finish()
    };
    page::render(
        &visit,
        lang.pick("Gastos", "Expenses"),
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), caller.mode, "/expenses"))
            (test_mode_note(lang, caller.mode))
            p {
                a href={ "/expenses/from-file?mode=" (mode) } role="button" { (lang.pick("Añadir desde un archivo", "Add from a file")) }
                " "
                a href={ "/expenses/new?mode=" (mode) } role="button" class="secondary" { (lang.pick("Añadir a mano", "Add by hand")) }
            }
            form method="get" action="/expenses" role="search" {
                input type="hidden" name="mode" value=(mode);
                div class="grid" {
                    (page::input(lang.pick("Año", "Year"), "year", "number", value("year"), None))
                    label for="quarter" { (lang.pick("Trimestre", "Quarter"))
                        select id="quarter" name="quarter" {
                            option value="" { (lang.pick("Todos", "All")) }
                            @for q in ["1", "2", "3", "4"] { option value=(q) selected[value("quarter") == q] { (q) "T" } }
                        }
                    }
                    label for="category" { (lang.pick("Categoría", "Category"))
                        select id="category" name="category" {
                            option value="" { (lang.pick("Todas", "All")) }
                            @for c in Category::ALL { option value=(c.code()) selected[value("category") == c.code()] { (category_name(lang, c)) } }
                        }
                    }
                    label for="status" { (lang.pick("Estado", "Status"))
                        select id="status" name="status" {
                            option value="" { (lang.pick("Todos", "All")) }
                            option value="confirmed" selected[value("status") == "confirmed"] { (lang.pick("Confirmados", "Confirmed")) }
                            option value="draft" selected[value("status") == "draft"] { (lang.pick("Borradores", "Drafts")) }
                        }
                    }
                }
                (page::input(lang.pick("Proveedor (NIF o nombre)", "Supplier (tax id or name)"), "supplier", "search", value("supplier"), None))
                button type="submit" class="secondary" { (lang.pick("Filtrar", "Filter")) }
            }
            @if let Some((message, _)) = &problem { p role="alert" class="error" { (message) } }
            @if let (Some(imported), Some(skipped)) = (query.get("imported"), query.get("skipped")) {
                p role="status" { (match lang {
                    Lang::Es => format!("Importadas de la AEAT como borrador: {imported}. Omitidas (ya en el libro, anuladas o no de IVA): {skipped}."),
                    Lang::En => format!("Imported from the AEAT as drafts: {imported}. Left out (already in the book, cancelled or not VAT): {skipped}."),
                }) }
            }
            @if let Some(message) = query.get("import_error") { p role="alert" class="error" { (message) } }
            @if expenses.is_empty() {
                p { (lang.pick("No hay gastos.", "No expenses.")) }
            } @else {
                table {
                    thead { tr {
                        th scope="col" { (lang.pick("Fecha", "Date")) }
                        th scope="col" { (lang.pick("Proveedor", "Supplier")) }
                        th scope="col" { (lang.pick("Número", "Number")) }
                        th scope="col" { (lang.pick("Categoría", "Category")) }
                        th scope="col" { "Total" }
                        th scope="col" { (lang.pick("IVA deducible", "Deductible VAT")) }
                        th scope="col" { (lang.pick("Estado", "Status")) }
                    } }
                    tbody {
                        @for e in &expenses {
                            tr {
                                td { (text(&e["issue_date"])) }
                                td { a href={ "/expenses/" (text(&e["id"])) "?mode=" (mode) } { (text(&e["supplier"]["name"])) } }
                                td { (text(&e["number"])) }
                                td { (category_of(&e["category"]).map_or("", |c| category_name(lang, c))) }
                                td { (page::euros(lang, &e["total"])) }
                                td { (page::euros(lang, &e["deductible"]["vat"])) }
                                td { @if e["status"] == "draft" { mark { (lang.pick("Borrador", "Draft")) } } @else { (lang.pick("Confirmado", "Confirmed")) } }
                            }
                        }
                    }
                    tfoot { tr {
                        th scope="row" colspan="4" { (lang.pick("Total de esta página", "Total of this page")) }
                        td { (page::euros(lang, &sum(&expenses, |e| &e["total"]))) }
                        td { (page::euros(lang, &sum(&expenses, |e| &e["deductible"]["vat"]))) }
                        td {}
                    } }
                }
                @if more { p { a href={ "/expenses?" (next_query) } { (lang.pick("Siguientes", "Next")) } } }
            }
            section aria-labelledby="import" {
                h2 id="import" { (lang.pick("Importar de la AEAT", "Import from the AEAT")) }
                p { (lang.pick(
                    "Trae las facturas que tus proveedores registraron en VERI*FACTU a tu nombre en un mes, como borradores para revisar y confirmar. Necesita tu certificado.",
                    "Brings the invoices your suppliers registered with VERI*FACTU in your name in a month, as drafts to check and confirm. Needs your certificate."
                )) }
                form method="post" action="/expenses/import-from-aeat" {
                    (page::csrf_field(&visit))
                    input type="hidden" name="mode" value=(mode);
                    div class="grid" {
                        (page::input(lang.pick("Año", "Year"), "import_year", "number", &this_year.to_string(), None))
                        (page::input(lang.pick("Mes (1 a 12)", "Month (1 to 12)"), "import_month", "number", &this_month.to_string(), None))
                    }
                    button type="submit" class="secondary" { (lang.pick("Importar", "Import")) }
                }
            }
        },
    )
}

/// Imports a month from the AEAT through the REST operation, then lists the drafts with what it did.
pub async fn import(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(&state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let mode = caller.mode.as_str();
    let number = |name: &str| {
        let typed = form.text(name);
        typed.parse::<i64>().map_or_else(
            |_| serde_json::Value::String(typed.to_string()),
            serde_json::Value::from,
        )
    };
    let body = serde_json::json!({"year": number("import_year"), "period": number("import_month")});
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/expenses/import-from-aeat",
            Some(&body),
            None,
        )
        .await;
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("mode", mode);
    if reply.ok() {
        let done = reply.json();
        let count = |key: &str| done[key].as_array().map_or(0, Vec::len).to_string();
        query.append_pair("status", "draft");
        query.append_pair("imported", &count("imported"));
        query.append_pair("skipped", &count("skipped"));
    } else {
        let message = reply.problem().map(|p| p.0).unwrap_or_default();
        query.append_pair("import_error", &message);
    }
    see_other(visit, &format!("/expenses?{}", query.finish()), Vec::new())
}
