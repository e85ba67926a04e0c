//! Issuing an invoice on the web: a customer from the book or typed, lines
//! with their VAT rates, IRPF withholding and the equivalence surcharge.
//! The form is sent to `POST /api/v1/invoices` as JSON with the idempotency
//! key drawn into the form, so a double submit issues once; an error comes
//! back beside the field it names (the form's field names are the API's
//! parameter paths: `customer.tax_id`, `lines[0].vat_rate`).

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use crate::http::AppState;

use super::super::caller_for;
use super::super::form::Submitted;
use super::super::page::{self, csrf_field, see_other};
use super::super::rest::Rest;
use super::super::visit::{SignedIn, Visit};
use super::text;

/// Lines a new form starts with, and the most it may have.
const FIRST_LINES: usize = 1;
const MAX_LINES: usize = 50;
const CUSTOMER_FIELDS: [&str; 7] = [
    "name",
    "tax_id",
    "address",
    "postal_code",
    "city",
    "country",
    "email",
];
const LINE_FIELDS: [&str; 4] = ["description", "quantity", "unit_price", "vat_rate"];
const IRPF_RATES: [&str; 5] = ["1", "2", "7", "15", "19"];

struct Draft<'a> {
    mode: &'a str,
    values: &'a HashMap<String, String>,
    lines: usize,
    idempotency: String,
    /// The API's refusal: its message and the field it names.
    problem: page::Problem,
}

impl Draft<'_> {
    fn value(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    fn error(&self, name: &str) -> Option<&str> {
        page::error_for(&self.problem, name)
    }

    /// The refusal when it names no field of the form.
    fn general_error(&self) -> Option<&str> {
        page::unplaced(&self.problem, |p| self.field_exists(p))
    }

    fn field_exists(&self, name: &str) -> bool {
        CUSTOMER_FIELDS
            .iter()
            .any(|f| name == format!("customer.{f}"))
            || (0..self.lines).any(|i| {
                LINE_FIELDS
                    .iter()
                    .any(|f| name == format!("lines[{i}].{f}"))
            })
            || [
                "customer_id",
                "irpf_rate",
                "issue_date",
                "due_date",
                "notes",
                "series",
            ]
            .contains(&name)
    }
}

fn input(draft: &Draft, label: &str, name: &str, kind: &str, fallback: &str) -> Markup {
    let value = match draft.value(name) {
        "" => fallback,
        typed => typed,
    };
    page::input(label, name, kind, value, draft.error(name))
}

fn render(visit: &Visit, draft: &Draft, book: &Book, status: StatusCode) -> Response {
    let customers = &book.customers;
    let lang = visit.lang;
    page::respond(
        visit,
        status,
        lang.pick("Nueva factura", "New invoice"),
        html! {
            @if draft.mode == "test" {
                p { (lang.pick("Factura de prueba: número TEST-, no se envía a la AEAT.", "Test invoice: TEST- number, never sent to the AEAT.")) }
            }
            @if let Some(error) = draft.general_error() { p role="alert" class="error" { (error) } }
            form method="post" action="/invoices/new" novalidate {
                (csrf_field(visit))
                input type="hidden" name="mode" value=(draft.mode);
                input type="hidden" name="_idem" value=(draft.idempotency);
                input type="hidden" name="lines" value=(draft.lines);
                fieldset {
                    legend { (lang.pick("Cliente", "Customer")) }
                    label for="customer_id" { (lang.pick("De tu agenda", "From your book"))
                        select id="customer_id" name="customer_id" {
                            option value="" { (lang.pick("— Escribir los datos abajo —", "— Type the details below —")) }
                            @for customer in customers["data"].as_array().into_iter().flatten() {
                                option value=(text(&customer["id"])) selected[draft.value("customer_id") == text(&customer["id"])] {
                                    (text(&customer["name"])) @if let Some(tax_id) = customer["tax_id"].as_str() { " · " (tax_id) }
                                }
                            }
                        }
                    }
                    (input(draft, lang.pick("Nombre o razón social", "Name"), "customer.name", "text", ""))
                    (input(draft, lang.pick("NIF o identificador fiscal", "Tax id"), "customer.tax_id", "text", ""))
                    (input(draft, lang.pick("Dirección", "Address"), "customer.address", "text", ""))
                    (input(draft, lang.pick("Código postal", "Postal code"), "customer.postal_code", "text", ""))
                    (input(draft, lang.pick("Municipio", "City"), "customer.city", "text", ""))
                    (input(draft, lang.pick("País (código ISO)", "Country (ISO code)"), "customer.country", "text", "ES"))
                    (input(draft, lang.pick("Correo (opcional)", "Email (optional)"), "customer.email", "email", ""))
                }
                @for i in 0..draft.lines {
                    fieldset {
                        legend { (lang.pick("Línea ", "Line ")) (i + 1) }
                        (input(draft, lang.pick("Concepto", "Description"), &format!("lines[{i}].description"), "text", ""))
                        (input(draft, lang.pick("Cantidad", "Quantity"), &format!("lines[{i}].quantity"), "number", "1"))
                        (input(draft, lang.pick("Precio unitario sin IVA (€)", "Unit price before VAT (€)"), &format!("lines[{i}].unit_price"), "number", ""))
                        (input(draft, lang.pick("IVA (%)", "VAT (%)"), &format!("lines[{i}].vat_rate"), "number", "21"))
                    }
                }
                button type="submit" name="add_line" value="1" class="secondary" { (lang.pick("Añadir una línea", "Add a line")) }
                fieldset {
                    legend { (lang.pick("Retenciones y recargos", "Withholding and surcharge")) }
                    label for="irpf_rate" { (lang.pick("Retención de IRPF", "IRPF withholding"))
                        select id="irpf_rate" name="irpf_rate" aria-invalid=[draft.error("irpf_rate").map(|_| "true")] {
                            option value="" { (lang.pick("Sin retención", "None")) }
                            @for rate in IRPF_RATES {
                                option value=(rate) selected[draft.value("irpf_rate") == rate] { (rate) " %" }
                            }
                        }
                        @if let Some(error) = draft.error("irpf_rate") { small class="error" { (error) } }
                    }
                    label {
                        input type="checkbox" name="equivalence_surcharge" value="yes" checked[draft.value("equivalence_surcharge") == "yes"];
                        (lang.pick(" Recargo de equivalencia (cliente minorista)", " Equivalence surcharge (retailer customer)"))
                    }
                }
                label for="series" { (lang.pick("Serie", "Series"))
                select id="series" name="series" aria-invalid=[draft.error("series").map(|_| "true")] {
                    option value="" { (lang.pick("La de su tipo por defecto", "The default for its kind")) }
                    @for series in book.series["data"].as_array().into_iter().flatten() {
                        option value=(text(&series["code"])) selected[draft.value("series") == text(&series["code"])] { (text(&series["code"])) }
                    }
                }
                @if let Some(error) = draft.error("series") { small class="error" { (error) } }
            }
            (input(draft, lang.pick("Fecha de emisión (vacío: hoy)", "Issue date (empty: today)"), "issue_date", "date", ""))
                (input(draft, lang.pick("Vencimiento (vacío: según tus condiciones de pago)", "Due date (empty: your payment terms)"), "due_date", "date", ""))
                (input(draft, lang.pick("Notas (opcional)", "Notes (optional)"), "notes", "text", ""))
                button type="submit" { (lang.pick("Emitir la factura", "Issue the invoice")) }
            }
        },
    )
}

/// What the form offers from the account: its customers and series.
struct Book {
    customers: Value,
    series: Value,
}

async fn book(rest: &Rest, caller: &crate::app::keys::Caller) -> Book {
    Book {
        customers: rest.get(caller, "/api/v1/customers?limit=100").await.json(),
        series: rest.get(caller, "/api/v1/series").await.json(),
    }
}

pub async fn blank(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let caller = match caller_for(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let values = HashMap::new();
    let draft = Draft {
        mode: caller.mode.as_str(),
        values: &values,
        lines: FIRST_LINES,
        idempotency: crate::ids::random_token(16),
        problem: None,
    };
    render(&visit, &draft, &book(&rest, &caller).await, StatusCode::OK)
}

/// The JSON request of the typed form.
fn request(values: &HashMap<String, String>, lines: usize) -> Value {
    let get = |name: &str| values.get(name).map_or("", |v| v.trim());
    let mut body = Map::new();
    if get("customer_id").is_empty() {
        let customer: Map<String, Value> = CUSTOMER_FIELDS
            .iter()
            .filter(|f| !get(&format!("customer.{f}")).is_empty())
            .map(|f| (f.to_string(), json!(get(&format!("customer.{f}")))))
            .collect();
        if !customer.is_empty() {
            body.insert("customer".into(), Value::Object(customer));
        }
    } else {
        body.insert("customer_id".into(), json!(get("customer_id")));
    }
    let lines: Vec<Value> = (0..lines)
        .filter(|i| {
            LINE_FIELDS.iter().any(|f| {
                *f != "vat_rate" && *f != "quantity" && !get(&format!("lines[{i}].{f}")).is_empty()
            })
        })
        .map(|i| {
            let field = |f: &str| get(&format!("lines[{i}].{f}")).to_string();
            json!({
                "description": field("description"),
                "quantity": page::typed_number(&field("quantity")),
                "unit_price": page::typed_number(&field("unit_price")),
                "vat_rate": page::typed_number(&field("vat_rate")),
            })
        })
        .collect();
    body.insert("lines".into(), Value::Array(lines));
    if !get("irpf_rate").is_empty() {
        body.insert("irpf_rate".into(), page::typed_number(get("irpf_rate")));
    }
    if get("equivalence_surcharge") == "yes" {
        body.insert("equivalence_surcharge".into(), json!(true));
    }
    for optional in ["issue_date", "due_date", "notes", "series"] {
        if !get(optional).is_empty() {
            body.insert(optional.into(), json!(get(optional)));
        }
    }
    Value::Object(body)
}

pub async fn submit(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(&state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let values = form.fields().clone();
    let key = form.idempotency_key();
    let mut lines = form
        .text("lines")
        .parse::<usize>()
        .unwrap_or(FIRST_LINES)
        .clamp(1, MAX_LINES);
    let mut draft = Draft {
        mode: caller.mode.as_str(),
        values: &values,
        lines,
        idempotency: key.clone(),
        problem: None,
    };
    if form.text("add_line") == "1" {
        lines = (lines + 1).min(MAX_LINES);
        draft.lines = lines;
        return render(visit, &draft, &book(&rest, &caller).await, StatusCode::OK);
    }
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/invoices",
            Some(&request(&values, lines)),
            Some(&key),
        )
        .await;
    if reply.ok() {
        let id = reply.json()["id"].to_string();
        return see_other(
            visit,
            &format!("/invoices/{id}?mode={}&notice=issued", caller.mode.as_str()),
            Vec::new(),
        );
    }
    draft.problem = reply.problem();
    let status = if reply.status.is_client_error() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        reply.status
    };
    render(visit, &draft, &book(&rest, &caller).await, status)
}
