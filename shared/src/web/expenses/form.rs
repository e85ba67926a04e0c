//! An expense by hand: the form for a new one, for one to confirm after
//! extraction (with what extraction read and the kept file carried along),
//! and for one in the book (its figures, notes, document and history above
//! the form; confirming a draft; deleting). The form's field names are the
//! API's parameter paths (`supplier_tax_id`, `lines[0].base`), so an error
//! comes back beside its field.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use crate::expense::{Category, Treatment};
use crate::http::AppState;

use super::super::form::Submitted;
use super::super::page::{self, csrf_field, see_other};
use super::super::rest::{Rest, item_path};
use super::super::visit::{SignedIn, Visit};
use super::super::{caller_for, text};
use super::{category_name, test_mode_note};

/// Rows of lines the form has: one per VAT rate of the invoice.
pub const LINES: usize = 3;
const TEXT_FIELDS: [&str; 12] = [
    "supplier_name",
    "supplier_tax_id",
    "supplier_country",
    "number",
    "issue_date",
    "received_date",
    "paid_date",
    "irpf_rate",
    "vat_deductible_percent",
    "expense_deductible_percent",
    "description",
    "category",
];
const LINE_FIELDS: [&str; 4] = ["rate", "base", "vat_amount", "surcharge_rate"];
const NUMBERS: [&str; 3] = [
    "irpf_rate",
    "vat_deductible_percent",
    "expense_deductible_percent",
];

/// The form as drawn: its values (the form's names), where it goes, and what came back.
pub struct Draft {
    pub mode: String,
    pub values: HashMap<String, String>,
    /// What extraction read, sent with the form as the API's `extracted`.
    pub extracted: Option<Value>,
    /// The kept file, sent as the API's `document.upload_id`.
    pub upload_id: Option<String>,
    pub idempotency: String,
    pub problem: page::Problem,
}

impl Draft {
    fn value(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    fn error(&self, name: &str) -> Option<&str> {
        page::error_for(&self.problem, name)
    }

    fn general_error(&self) -> Option<&str> {
        page::unplaced(&self.problem, |p| {
            TEXT_FIELDS.contains(&p)
                || ["treatment", "capital_good"].contains(&p)
                || (0..LINES).any(|i| LINE_FIELDS.iter().any(|f| p == format!("lines[{i}].{f}")))
        })
    }

    fn input(&self, label: &str, name: &str, kind: &str) -> Markup {
        page::input(label, name, kind, self.value(name), self.error(name))
    }
}

/// The form's values from an expense of the API (to correct it) or from
/// what extraction read (to confirm it).
pub fn values_of(expense: &Value) -> HashMap<String, String> {
    let mut values = HashMap::new();
    if expense["capital_good"] == Value::Bool(true) {
        values.insert("capital_good".into(), "yes".into());
    }
    let mut put = |name: String, value: &Value| {
        let shown = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return,
        };
        values.insert(name, shown);
    };
    put("supplier_name".into(), &expense["supplier"]["name"]);
    put("supplier_tax_id".into(), &expense["supplier"]["tax_id"]);
    put("supplier_country".into(), &expense["supplier"]["country"]);
    for field in [
        "number",
        "issue_date",
        "received_date",
        "paid_date",
        "irpf_rate",
        "vat_deductible_percent",
        "expense_deductible_percent",
        "description",
        "category",
        "treatment",
    ] {
        put(field.into(), &expense[field]);
    }
    for (i, line) in expense["lines"]
        .as_array()
        .into_iter()
        .flatten()
        .take(LINES)
        .enumerate()
    {
        for f in LINE_FIELDS {
            put(format!("lines[{i}].{f}"), &line[f]);
        }
    }
    values
}

/// What extraction read, as the form shows it to confirm.
pub fn values_of_extracted(read: &Value) -> HashMap<String, String> {
    let lines: Vec<Value> = match read["vat_breakdown"].as_array() {
        Some(lines) if !lines.is_empty() => lines.clone(),
        _ => vec![
            json!({"rate": read["vat_rate"], "base": read["base"], "vat_amount": read["vat_amount"]}),
        ],
    };
    values_of(&json!({
        "supplier": {"name": read["issuer_name"], "tax_id": read["issuer_nif"]},
        "number": read["invoice_number"],
        "issue_date": read["invoice_date"],
        "irpf_rate": read["irpf_rate"],
        "lines": lines,
    }))
}

/// The JSON request of the form: the fields typed (empty ones left out).
fn request(draft: &Draft) -> Value {
    let get = |name: &str| draft.value(name).trim();
    let mut body = Map::new();
    for field in TEXT_FIELDS {
        if !get(field).is_empty() {
            let value = if NUMBERS.contains(&field) {
                page::typed_number(get(field))
            } else {
                json!(get(field))
            };
            body.insert(field.into(), value);
        }
    }
    body.insert(
        "treatment".into(),
        json!(match get("treatment") {
            "" => "domestic",
            t => t,
        }),
    );
    body.insert("capital_good".into(), json!(get("capital_good") == "yes"));
    let lines: Vec<Value> = (0..LINES)
        .filter(|i| !get(&format!("lines[{i}].base")).is_empty())
        .map(|i| {
            let mut line = Map::new();
            for f in LINE_FIELDS {
                let typed = get(&format!("lines[{i}].{f}"));
                if !typed.is_empty() {
                    line.insert(f.into(), page::typed_number(typed));
                }
            }
            Value::Object(line)
        })
        .collect();
    if !lines.is_empty() || draft.extracted.is_none() {
        body.insert("lines".into(), Value::Array(lines));
    }
    if let Some(extracted) = &draft.extracted {
        body.insert("extracted".into(), extracted.clone());
    }
    if let Some(id) = &draft.upload_id {
        body.insert("document".into(), json!({ "upload_id": id }));
    }
    Value::Object(body)
}

fn treatment_name(visit: &Visit, t: Treatment) -> &'static str {
    let lang = visit.lang;
    match t {
        Treatment::Domestic => lang.pick("Nacional (IVA soportado)", "Domestic (VAT charged)"),
        Treatment::IntraEuGoods => lang.pick("Compra de bienes en la UE", "Goods from the EU"),
        Treatment::IntraEuServices => lang.pick("Servicios de la UE", "Services from the EU"),
        Treatment::ReverseCharge => {
            lang.pick("Inversión del sujeto pasivo", "Spanish reverse charge")
        }
        Treatment::Import => lang.pick("Importación (DUA)", "Import (customs)"),
        Treatment::NonEuServices => lang.pick(
            "Servicios de fuera de la UE",
            "Services from outside the EU",
        ),
    }
}

const TREATMENTS: [Treatment; 6] = [
    Treatment::Domestic,
    Treatment::IntraEuGoods,
    Treatment::IntraEuServices,
    Treatment::ReverseCharge,
    Treatment::Import,
    Treatment::NonEuServices,
];

/// The form; `id` is the expense's when it is in the book.
pub fn form(visit: &Visit, draft: &Draft, id: Option<&str>) -> Markup {
    let lang = visit.lang;
    let action = match id {
        Some(id) => format!("/expenses/{id}"),
        None => "/expenses/new".into(),
    };
    let category = draft.value("category");
    let treatment = draft.value("treatment");
    html! {
        @if let Some(message) = draft.general_error() { p role="alert" class="error" { (message) } }
        form method="post" action=(action) novalidate {
            (csrf_field(visit))
            input type="hidden" name="mode" value=(draft.mode);
            input type="hidden" name="_idem" value=(draft.idempotency);
            @if let Some(extracted) = &draft.extracted { input type="hidden" name="extracted" value=(extracted.to_string()); }
            @if let Some(upload) = &draft.upload_id { input type="hidden" name="upload_id" value=(upload); }
            fieldset {
                legend { (lang.pick("Proveedor y factura", "Supplier and invoice")) }
                (draft.input(lang.pick("Nombre o razón social", "Name"), "supplier_name", "text"))
                div class="grid" {
                    (draft.input(lang.pick("NIF", "Tax id"), "supplier_tax_id", "text"))
                    (draft.input(lang.pick("País (código ISO, ES por defecto)", "Country (ISO code, ES by default)"), "supplier_country", "text"))
                }
                div class="grid" {
                    (draft.input(lang.pick("Número de factura", "Invoice number"), "number", "text"))
                    (draft.input(lang.pick("Fecha de expedición", "Issue date"), "issue_date", "date"))
                    (draft.input(lang.pick("Fecha de recepción (si es otra)", "Received on (if another day)"), "received_date", "date"))
                    (draft.input(lang.pick("Fecha de pago (la retención va al 111/115 de ese trimestre)", "Paid on (its withholding goes to that quarter's 111/115)"), "paid_date", "date"))
                }
                div class="grid" {
                    label for="category" { (lang.pick("Categoría", "Category"))
                        select id="category" name="category" aria-invalid=[draft.error("category").map(|_| "true")] {
                            @for c in Category::ALL { option value=(c.code()) selected[category == c.code() || (category.is_empty() && c == Category::Other)] { (category_name(lang, c)) } }
                        }
                    }
                    label for="treatment" { (lang.pick("Tratamiento del IVA", "VAT treatment"))
                        select id="treatment" name="treatment" aria-invalid=[draft.error("treatment").map(|_| "true")] {
                            @for t in TREATMENTS {
                                @let code = serde_json::to_value(t).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                                option value=(code) selected[treatment == code || (treatment.is_empty() && t == Treatment::Domestic)] { (treatment_name(visit, t)) }
                            }
                        }
                        @if let Some(error) = draft.error("treatment") { small class="error" { (error) } }
                    }
                }
                label { input type="checkbox" name="capital_good" value="yes" checked[draft.value("capital_good") == "yes"]; (lang.pick(" Bien de inversión", " Capital good")) }
            }
            fieldset {
                legend { (lang.pick("Importes por tipo de IVA", "Amounts per VAT rate")) }
                @for i in 0..LINES {
                    div class="grid" {
                        (draft.input(lang.pick("Base (€)", "Base (€)"), &format!("lines[{i}].base"), "number"))
                        (draft.input(lang.pick("IVA (%)", "VAT (%)"), &format!("lines[{i}].rate"), "number"))
                        (draft.input(lang.pick("Cuota de IVA (€, si no, se calcula)", "VAT (€, else computed)"), &format!("lines[{i}].vat_amount"), "number"))
                        (draft.input(lang.pick("Recargo de equivalencia (%)", "Equivalence surcharge (%)"), &format!("lines[{i}].surcharge_rate"), "number"))
                    }
                }
                @if let Some(error) = draft.error("lines") { p class="error" { (error) } }
                div class="grid" {
                    (draft.input(lang.pick("Retención de IRPF practicada (%)", "IRPF withheld (%)"), "irpf_rate", "number"))
                    (draft.input(lang.pick("IVA deducible (%)", "Deductible VAT (%)"), "vat_deductible_percent", "number"))
                    (draft.input(lang.pick("Gasto deducible (%)", "Deductible expense (%)"), "expense_deductible_percent", "number"))
                }
                small { (lang.pick(
                    "Vacío: el IVA es deducible al 100 % (50 % en vehículos) y el gasto al 100 % (0 % en vehículos: en el IRPF solo cuentan si se usan exclusivamente en la actividad, art. 22.4 RIRPF).",
                    "Empty: VAT is 100 % deductible (50 % for vehicles) and the expense 100 % (0 % for vehicles: for IRPF they count only if used exclusively for the activity, RIRPF art. 22.4)."
                )) }
            }
            (draft.input(lang.pick("Descripción", "Description"), "description", "text"))
            button type="submit" { (lang.pick("Guardar", "Save")) }
        }
    }
}

fn new_draft(mode: &str) -> Draft {
    Draft {
        mode: mode.to_string(),
        values: HashMap::new(),
        extracted: None,
        upload_id: None,
        idempotency: crate::ids::random_token(16),
        problem: None,
    }
}

pub fn render_new(visit: &Visit, draft: &Draft, status: StatusCode) -> Response {
    let lang = visit.lang;
    let mode = draft
        .mode
        .parse()
        .unwrap_or(crate::domain::account::Mode::Test);
    page::respond(
        visit,
        status,
        lang.pick("Nuevo gasto", "New expense"),
        html! {
            (test_mode_note(lang, mode))
            @if draft.extracted.is_some() {
                p { (lang.pick(
                    "Revisa lo que se ha leído de la factura y corrige lo que haga falta antes de guardarlo. El archivo se guarda con el gasto.",
                    "Check what was read from the invoice and correct what is needed before saving. The file is kept with the expense."
                )) }
            }
            (form(visit, draft, None))
            p { a href={ "/expenses?mode=" (draft.mode) } { (lang.pick("Volver a los gastos", "Back to the expenses")) } }
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
    render_new(&visit, &new_draft(caller.mode.as_str()), StatusCode::OK)
}

fn draft_of(form: &Submitted, mode: &str) -> Draft {
    Draft {
        mode: mode.to_string(),
        values: form.fields().clone(),
        extracted: serde_json::from_str(form.raw("extracted")).ok(),
        upload_id: Some(form.text("upload_id").to_string()).filter(|u| !u.is_empty()),
        idempotency: form.idempotency_key(),
        problem: None,
    }
}

fn status_of(reply: &super::super::rest::Reply) -> StatusCode {
    if reply.status.is_client_error() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        reply.status
    }
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
    let mode = caller.mode.as_str();
    let mut draft = draft_of(&form, mode);
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/expenses",
            Some(&request(&draft)),
            Some(&draft.idempotency),
        )
        .await;
    if reply.ok() {
        return match caller.mode {
            crate::domain::account::Mode::Live => {
                let id = text(&reply.json()["id"]).to_string();
                see_other(
                    visit,
                    &format!("/expenses/{id}?mode={mode}&notice=saved"),
                    Vec::new(),
                )
            }
            crate::domain::account::Mode::Test => {
                see_other(visit, &format!("/expenses?mode={mode}"), Vec::new())
            }
        };
    }
    draft.problem = reply.problem();
    render_new(visit, &draft, status_of(&reply))
}

/// An expense of the book with its form, or its page after a refused correction.
fn render_existing(
    visit: &Visit,
    expense: &Value,
    draft: &Draft,
    history: &Value,
    notice: bool,
    status: StatusCode,
) -> Response {
    let lang = visit.lang;
    let id = text(&expense["id"]);
    let mode = &draft.mode;
    let title = format!(
        "{} {} · {}",
        lang.pick("Gasto", "Expense"),
        text(&expense["number"]),
        text(&expense["supplier"]["name"])
    );
    page::respond(
        visit,
        status,
        &title,
        html! {
            @if notice { p role="status" { (lang.pick("Guardado.", "Saved.")) } }
            @if expense["status"] == "draft" {
                form method="post" action={ "/expenses/" (id) } {
                    (csrf_field(visit))
                    input type="hidden" name="mode" value=(mode);
                    input type="hidden" name="confirm_draft" value="yes";
                    p { mark { (lang.pick("Borrador importado de la AEAT: no cuenta en los impuestos hasta que lo confirmes.", "Draft imported from the AEAT: it does not count in the taxes until you confirm it.")) } }
                    button type="submit" { (lang.pick("Confirmar", "Confirm")) }
                }
            }
            table {
                tbody {
                    tr { th scope="row" { "Total" } td { (page::euros(lang, &expense["total"])) } }
                    tr { th scope="row" { (lang.pick("IVA deducible (modelo 303)", "Deductible VAT (Modelo 303)")) } td { (page::euros(lang, &expense["deductible"]["vat"])) } }
                    tr { th scope="row" { (lang.pick("Gasto deducible (modelo 130)", "Deductible expense (Modelo 130)")) } td { (page::euros(lang, &expense["deductible"]["expense"])) } }
                    tr { th scope="row" { (lang.pick("IRPF retenido al proveedor", "IRPF withheld from the supplier")) } td { (page::euros(lang, &expense["irpf_amount"])) } }
                }
            }
            @for note in expense["notes"].as_array().into_iter().flatten() { p { small { (text(note)) } } }
            @if expense["document"].is_object() {
                p { a href={ "/expenses/" (id) "/document?mode=" (mode) } download { (lang.pick("Descargar el documento", "Download the document")) " (" (text(&expense["document"]["file_name"])) ")" } }
            }
            h2 { (lang.pick("Corregir", "Correct")) }
            (form(visit, draft, Some(id)))
            h2 { (lang.pick("Historial", "History")) }
            ul {
                @for version in history["data"].as_array().into_iter().flatten() {
                    li { (text(&version["at"])) " · " (text(&version["action"])) " · " (page::euros(lang, &version["expense"]["total"])) }
                }
            }
            form method="post" action={ "/expenses/" (id) "/delete" } {
                (csrf_field(visit))
                input type="hidden" name="mode" value=(mode);
                label { input type="checkbox" name="confirm" value="yes" required; (lang.pick(" Confirmo que quiero borrarlo (y su documento)", " I confirm I want to delete it (and its document)")) }
                button type="submit" class="secondary" { (lang.pick("Borrar", "Delete")) }
            }
            p { a href={ "/expenses?mode=" (mode) } { (lang.pick("Volver a los gastos", "Back to the expenses")) } }
        },
    )
}

async fn read(rest: &Rest, caller: &crate::app::keys::Caller, id: &str) -> Option<(Value, Value)> {
    let reply = rest.get(caller, &item_path("/api/v1/expenses", id)).await;
    if !reply.ok() {
        return None;
    }
    let history = rest
        .get(
            caller,
            &format!("{}/history", item_path("/api/v1/expenses", id)),
        )
        .await
        .json();
    Some((reply.json(), history))
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
    let Some((expense, history)) = read(&rest, &caller, &id).await else {
        return page::not_found(&visit);
    };
    let draft = Draft {
        values: values_of(&expense),
        ..new_draft(caller.mode.as_str())
    };
    render_existing(
        &visit,
        &expense,
        &draft,
        &history,
        query.contains_key("notice"),
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
    let mode = caller.mode.as_str();
    let mut draft = draft_of(&form, mode);
    let body = if form.text("confirm_draft") == "yes" {
        json!({"status": "confirmed"})
    } else {
        request(&draft)
    };
    let path = item_path("/api/v1/expenses", &id);
    let reply = rest
        .call(&caller, Method::PATCH, &path, Some(&body), None)
        .await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    if reply.ok() {
        return see_other(
            visit,
            &format!("/expenses/{id}?mode={mode}&notice=saved"),
            Vec::new(),
        );
    }
    let Some((expense, history)) = read(&rest, &caller, &id).await else {
        return page::not_found(visit);
    };
    draft.problem = reply.problem();
    render_existing(visit, &expense, &draft, &history, false, status_of(&reply))
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
        return see_other(visit, &format!("/expenses/{id}?mode={mode}"), Vec::new());
    }
    let reply = rest
        .call(
            &caller,
            Method::DELETE,
            &item_path("/api/v1/expenses", &id),
            None,
            None,
        )
        .await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    if !reply.ok() {
        return page::failure(
            visit.lang,
            &reply.problem().map(|p| p.0).unwrap_or_default(),
        );
    }
    see_other(visit, &format!("/expenses?mode={mode}"), Vec::new())
}
