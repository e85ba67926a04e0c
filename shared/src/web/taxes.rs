//! Taxes: the next filing deadlines (`GET /api/v1/tax/calendar`), the
//! quarter summary of the ledger for a chosen year and quarter, by default
//! the current one (`GET /api/v1/tax/quarter`), and the Modelo 130 estimate
//! (`POST /api/v1/tax/model-130`) from a form of the inputs it takes, with
//! its boxes and result; the API's errors come back beside their fields.
//! Rules only: no quota in either mode.

use std::collections::HashMap;

use axum::Extension;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::get;
use chrono::Datelike;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use crate::domain::account::Mode;
use crate::domain::lang::Lang;
use crate::domain::madrid;
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, csrf_field};
use super::rest::Rest;
use super::visit::{SignedIn, Visit};
use super::{acting, text};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/taxes", get(overview))
        .route("/taxes/model-130", get(model_130_form).post(model_130))
}

/// Today's year and quarter (Europe/Madrid).
fn current_quarter(state: &AppState) -> (i32, u32) {
    let today = madrid::date(state.ports.clock.now());
    (today.year(), today.month0() / 3 + 1)
}

/// A typed field, or `fallback` when empty.
fn typed_or(query: &HashMap<String, String>, name: &str, fallback: String) -> String {
    match query.get(name).map(|v| v.trim()) {
        Some(value) if !value.is_empty() => value.to_string(),
        _ => fallback,
    }
}

/// An input with its label, its help and its error beside it.
fn input(
    name: &str,
    label: &str,
    value: &str,
    help: Option<&str>,
    error: Option<&str>,
    decimal: bool,
) -> Markup {
    let described: Vec<String> = [
        help.map(|_| format!("{name}-help")),
        error.map(|_| format!("{name}-error")),
    ]
    .into_iter()
    .flatten()
    .collect();
    html! {
        label for=(name) {
            (label)
            input id=(name) name=(name) type="text" value=(value)
                inputmode=(if decimal { "decimal" } else { "numeric" }) autocomplete="off"
                aria-invalid=[error.map(|_| "true")]
                aria-describedby=[(!described.is_empty()).then(|| described.join(" "))];
            @if let Some(help) = help { small id={ (name) "-help" } { (help) } }
            @if let Some(error) = error { small id={ (name) "-error" } class="error" { (error) } }
        }
    }
}

fn quarter_select(lang: Lang, selected: &str, error: Option<&str>) -> Markup {
    html! {
        label for="quarter" {
            (lang.pick("Trimestre", "Quarter"))
            select id="quarter" name="quarter" aria-invalid=[error.map(|_| "true")]
                aria-describedby=[error.map(|_| "quarter-error")] {
                @for q in 1..=4 {
                    option value=(q) selected[selected == q.to_string()] { (q) "T" }
                }
            }
            @if let Some(error) = error { small id="quarter-error" class="error" { (error) } }
        }
    }
}

pub async fn overview(
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
    let mode = caller.mode;
    let (this_year, this_quarter) = current_quarter(&state);
    let year = typed_or(&query, "year", this_year.to_string());
    let quarter = typed_or(&query, "quarter", this_quarter.to_string());
    let calendar = rest
        .get(
            &caller,
            &format!("/api/v1/tax/calendar?lang={}", lang.code()),
        )
        .await;
    let summary_path = {
        let mut params = url::form_urlencoded::Serializer::new(String::new());
        params.append_pair("year", &year);
        params.append_pair("quarter", &quarter);
        format!("/api/v1/tax/quarter?{}", params.finish())
    };
    let summary = rest.get(&caller, &summary_path).await;
    let problem = summary.problem();
    let error_for = |field: &str| page::error_for(&problem, field);
    let general = page::unplaced(&problem, |p| matches!(p, "year" | "quarter"));
    let status = if problem.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    page::respond(
        &visit,
        status,
        lang.pick("Impuestos", "Taxes"),
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), mode, "/taxes"))
            p { (lang.pick(
                "Estimaciones del régimen general calculadas con las normas vigentes; no son asesoramiento fiscal.",
                "Estimates for the general regime, computed from the rules in force; not tax advice."
            )) }
            (deadlines(lang, &calendar))
            section aria-labelledby="quarter-summary" {
                h2 id="quarter-summary" { (lang.pick("Resumen del trimestre", "Quarter summary")) }
                form method="get" action="/taxes" {
                    input type="hidden" name="mode" value=(mode.as_str());
                    fieldset {
                        legend { (lang.pick("Periodo", "Period")) }
                        (input("year", lang.pick("Año", "Year"), &year, None, error_for("year"), false))
                        (quarter_select(lang, &quarter, error_for("quarter")))
                    }
                    button type="submit" class="secondary" { (lang.pick("Ver el trimestre", "Show the quarter")) }
                }
                @if mode == Mode::Test {
                    p { (lang.pick(
                        "En modo de prueba el trimestre sale vacío: el resumen suma las facturas reales.",
                        "In test mode the quarter is empty: the summary adds up live invoices."
                    )) }
                }
                @if let Some(message) = general { p role="alert" class="error" { (message) } }
                @if summary.ok() { (quarter_summary(lang, &summary.json(), mode)) }
            }
            section aria-labelledby="model-130" {
                h2 id="model-130" { (lang.pick("Modelo 130", "Modelo 130")) }
                p { (lang.pick(
                    "El pago fraccionado trimestral del IRPF, casilla a casilla.",
                    "The quarterly IRPF instalment, box by box."
                )) }
                p { a href={ "/taxes/model-130?mode=" (mode.as_str()) "&year=" (this_year) "&quarter=" (this_quarter) } {
                    (lang.pick("Estimar el Modelo 130", "Estimate Modelo 130"))
                } }
            }
        },
    )
}

fn deadlines(lang: Lang, calendar: &super::rest::Reply) -> Markup {
    let listed = calendar.json();
    let items = listed["data"].as_array().cloned().unwrap_or_default();
    html! {
        section aria-labelledby="deadlines" {
            h2 id="deadlines" { (lang.pick("Próximos plazos", "Next deadlines")) }
            @if let Some((message, _)) = calendar.problem() {
                p role="alert" class="error" { (message) }
            } @else if items.is_empty() {
                p { (lang.pick("Ningún plazo en los próximos 90 días.", "No deadline in the next 90 days.")) }
            } @else {
                p { (match lang {
                    Lang::Es => format!("Del {} al {}.", text(&listed["from"]), text(&listed["to"])),
                    Lang::En => format!("From {} to {}.", text(&listed["from"]), text(&listed["to"])),
                }) }
                table {
                    thead { tr {
                        th scope="col" { (lang.pick("Modelo", "Form")) }
                        th scope="col" { (lang.pick("Periodo", "Period")) }
                        th scope="col" { (lang.pick("Desde", "From")) }
                        th scope="col" { (lang.pick("Último día", "Last day")) }
                        th scope="col" { (lang.pick("Domiciliación hasta", "Direct debit until")) }
                        th scope="col" { (lang.pick("Qué es", "What it is")) }
                    } }
                    tbody {
                        @for item in &items {
                            tr {
                                th scope="row" { (text(&item["form"])) }
                                td { (text(&item["period"])) }
                                td { (text(&item["start"])) }
                                td { strong { (text(&item["end"])) } }
                                td { (item["domiciliation_end"].as_str().unwrap_or("—")) }
                                td { (text(&item["description"])) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The API's notice that a figure is an estimate, in the page's language.
fn estimate(lang: Lang, notice: &Value) -> String {
    match lang {
        Lang::Es => "Estimación del régimen general calculada con las normas vigentes; no es asesoramiento fiscal.".into(),
        Lang::En => text(notice).to_string(),
    }
}

fn rate_table(lang: Lang, caption: &str, lines: &Value) -> Markup {
    html! {
        @if let Some(lines) = lines.as_array().filter(|l| !l.is_empty()) {
            table {
                caption { (caption) }
                thead { tr {
                    th scope="col" { (lang.pick("Tipo", "Rate")) }
                    th scope="col" { (lang.pick("Base", "Base")) }
                    th scope="col" { (lang.pick("Cuota", "Amount")) }
                } }
                tbody {
                    @for line in lines {
                        tr {
                            th scope="row" { (page::percent(lang, &line["rate"])) }
                            td { (page::euros(lang, &line["base"])) }
                            td { (page::euros(lang, &line["amount"])) }
                        }
                    }
                }
            }
        }
    }
}

/// A Modelo 303 box's label (the API writes them in English) in the page's language.
fn box_303_label(lang: Lang, label: &str) -> String {
    match lang {
        Lang::En => label.to_string(),
        Lang::Es => label
            .replace(
                "Input VAT on intra-EU acquisitions of current goods and services",
                "IVA deducible en adquisiciones intracomunitarias de bienes y servicios corrientes",
            )
            .replace(
                "Intra-EU supplies of goods and services",
                "Entregas intracomunitarias de bienes y servicios",
            )
            .replace(
                "Exports and assimilated operations",
                "Exportaciones y operaciones asimiladas",
            )
            .replace(
                "Operations not subject by the place-of-supply rules",
                "Operaciones no sujetas por reglas de localización",
            )
            .replace(
                "Operations subject with reverse charge (the customer accounts for the VAT)",
                "Operaciones sujetas con inversión del sujeto pasivo",
            )
            .replace(
                "Input VAT on domestic purchases of current goods and services",
                "IVA deducible en operaciones interiores corrientes",
            )
            .replace(
                "Input VAT on domestic purchases of capital goods",
                "IVA deducible en operaciones interiores de bienes de inversión",
            )
            .replace(
                "Input VAT on imports of current goods",
                "IVA deducible en importaciones de bienes corrientes",
            )
            .replace(
                "Input VAT on imports of capital goods",
                "IVA deducible en importaciones de bienes de inversión",
            )
            .replace(
                "Input VAT on intra-EU acquisitions of current goods",
                "IVA deducible en adquisiciones intracomunitarias de bienes corrientes",
            )
            .replace(
                "Input VAT on intra-EU acquisitions of capital goods",
                "IVA deducible en adquisiciones intracomunitarias de bienes de inversión",
            )
            .replace(
                "Rectification of deductions",
                "Rectificación de deducciones",
            )
            .replace("Total input VAT deducted", "Total a deducir")
            .replace(
                "Intra-EU acquisitions of goods and services",
                "Adquisiciones intracomunitarias de bienes y servicios",
            )
            .replace(
                "Other reverse-charge purchases",
                "Otras operaciones con inversión del sujeto pasivo",
            )
            .replace(
                "General regime result (27 − 45)",
                "Resultado régimen general (27 − 45)",
            )
            .replace("Sum of results", "Suma de resultados")
            .replace(
                "Share attributable to the State, %",
                "Atribuible a la Administración del Estado, %",
            )
            .replace(
                "Attributable to the State",
                "Atribuible a la Administración del Estado",
            )
            .replace(
                "Amounts to offset pending from earlier periods",
                "Cuotas a compensar pendientes de periodos anteriores",
            )
            .replace(
                "Amounts to offset from earlier periods applied",
                "Cuotas a compensar de periodos anteriores aplicadas",
            )
            .replace(
                "Amounts to offset left for later periods",
                "Cuotas a compensar pendientes para periodos posteriores",
            )
            .replace("Result of the return", "Resultado de la liquidación")
            .replace("Result (66 − 78)", "Resultado (66 − 78)")
            .replace(
                "Economic activities: recipients",
                "Actividades económicas: perceptores",
            )
            .replace(
                "Economic activities: amounts paid",
                "Actividades económicas: importe de las percepciones",
            )
            .replace(
                "Economic activities: withholdings",
                "Actividades económicas: importe de las retenciones",
            )
            .replace("Total withholdings", "Total de retenciones")
            .replace("Base of the withholdings", "Base de las retenciones")
            .replace("Recipients", "Perceptores")
            .replace("Withholdings", "Retenciones")
            .replace("Result", "Resultado")
            .replace(
                "Total output VAT and surcharge",
                "Total de cuota devengada (IVA y recargo)",
            )
            .replace(
                "Surcharge modifications",
                "Modificación del recargo de equivalencia",
            )
            .replace("Modifications", "Modificación de bases y cuotas")
            .replace("Output VAT", "IVA devengado")
            .replace("Equivalence surcharge", "Recargo de equivalencia")
            .replace(": base", ": base imponible")
            .replace(": rate", ": tipo")
            .replace(": quota", ": cuota"),
    }
}

/// Boxes of a return: number, concept, value (a percent for rate boxes, a
/// count for recipients, else euros).
fn box_table(lang: Lang, caption: &str, boxes: &[Value]) -> Markup {
    html! {
        @if !boxes.is_empty() {
            table {
                caption { (caption) }
                thead { tr {
                    th scope="col" { (lang.pick("Casilla", "Box")) }
                    th scope="col" { (lang.pick("Concepto", "Concept")) }
                    th scope="col" { (lang.pick("Valor", "Value")) }
                } }
                tbody {
                    @for b in boxes {
                        @let label = text(&b["label"]);
                        tr {
                            th scope="row" { (text(&b["box"])) }
                            td { (box_303_label(lang, label)) }
                            td { @if label.ends_with(": rate") || label.ends_with(", %") { (page::percent(lang, &b["value"])) }
                                 @else if label.ends_with("recipients") || label == "Recipients" { (b["value"].as_f64().unwrap_or(0.0)) }
                                 @else { (page::euros(lang, &b["value"])) } }
                        }
                    }
                }
            }
        }
    }
}

fn quarter_summary(lang: Lang, summary: &Value, mode: Mode) -> Markup {
    let totals = &summary["totals"];
    let boxes = summary["model_303"].as_array().cloned().unwrap_or_default();
    let notes = summary["notes"].as_array().cloned().unwrap_or_default();
    let (year, quarter) = (&summary["year"], &summary["quarter"]);
    html! {
        h3 { (quarter) "T " (year) }
        p { (match lang {
            Lang::Es => format!(
                "Del {} al {}: {} facturas y {} rectificativas.",
                text(&summary["from"]), text(&summary["to"]),
                summary["invoice_count"], summary["rectification_count"]
            ),
            Lang::En => format!(
                "From {} to {}: {} invoices and {} rectifying invoices.",
                text(&summary["from"]), text(&summary["to"]),
                summary["invoice_count"], summary["rectification_count"]
            ),
        }) }
        table {
            caption { (lang.pick("Totales", "Totals")) }
            tbody {
                tr { th scope="row" { (lang.pick("Base imponible", "Taxable base")) } td { (page::euros(lang, &totals["base"])) } }
                tr { th scope="row" { (lang.pick("IVA repercutido", "Output VAT")) } td { (page::euros(lang, &totals["vat"])) } }
                tr { th scope="row" { (lang.pick("Recargo de equivalencia", "Equivalence surcharge")) } td { (page::euros(lang, &totals["surcharge"])) } }
                tr { th scope="row" { (lang.pick("IRPF retenido por tus clientes", "IRPF withheld by your clients")) } td { (page::euros(lang, &totals["irpf_withheld"])) } }
                tr { th scope="row" { "Total" } td { strong { (page::euros(lang, &totals["total"])) } } }
            }
        }
        (rate_table(lang, lang.pick("IVA por tipo", "VAT by rate"), &summary["vat"]))
        (rate_table(lang, lang.pick("Recargo de equivalencia por tipo", "Equivalence surcharge by rate"), &summary["surcharge"]))
        (rate_table(lang, lang.pick("IGIC por tipo (Modelo 420, Canarias)", "IGIC by rate (Modelo 420, Canary Islands)"), &summary["igic"]))
        (rate_table(lang, lang.pick("IPSI por tipo (Ceuta y Melilla)", "IPSI by rate (Ceuta and Melilla)"), &summary["ipsi"]))
        p { (match lang {
            Lang::Es => format!("Gastos confirmados recibidos en el trimestre: {}.", summary["expense_count"]),
            Lang::En => format!("Confirmed expenses received in the quarter: {}.", summary["expense_count"]),
        }) " " a href={ "/expenses?mode=" (mode.as_str()) "&year=" (year) "&quarter=" (quarter) } { (lang.pick("Ver los gastos", "See the expenses")) } }
        (box_table(lang, lang.pick("Modelo 303 (facturas emitidas y gastos)", "Modelo 303 (issued invoices and expenses)"), &boxes))
        table {
            caption { (lang.pick("Para el Modelo 130 (del 1 de enero al fin del trimestre)", "For Modelo 130 (1 January to the quarter's end)")) }
            tbody {
                tr { th scope="row" { (lang.pick("Ingresos (casilla 01)", "Income (box 01)")) } td { (page::euros(lang, &summary["model_130"]["income_year_to_date"])) } }
                tr { th scope="row" { (lang.pick("Gastos deducibles (casilla 02)", "Deductible expenses (box 02)")) } td { (page::euros(lang, &summary["model_130"]["expenses_year_to_date"])) } }
                tr { th scope="row" { (lang.pick("Retenciones (casilla 06)", "Withholdings (box 06)")) } td { (page::euros(lang, &summary["model_130"]["withholdings_year_to_date"])) } }
            }
        }
        (box_table(lang, lang.pick("Modelo 111: retenciones que practicaste a profesionales", "Modelo 111: IRPF you withheld from professionals"), summary["model_111"].as_array().map_or(&[][..], Vec::as_slice)))
        (box_table(lang, lang.pick("Modelo 115: retenciones de alquileres", "Modelo 115: IRPF withheld on rent"), summary["model_115"].as_array().map_or(&[][..], Vec::as_slice)))
        p { a href={ "/taxes/model-130?mode=" (mode.as_str()) "&year=" (year) "&quarter=" (quarter) } {
            (lang.pick("Estimar el Modelo 130 de este trimestre", "Estimate this quarter's Modelo 130"))
        } }
        @if !notes.is_empty() { ul { @for note in &notes { li { (text(note)) } } } }
        p { small { (estimate(lang, &summary["estimate"])) } }
    }
}

/// The amounts of the Modelo 130 form, as the API names them.
const AMOUNTS: [&str; 7] = [
    "income",
    "expenses",
    "withholdings",
    "previous_payments",
    "negative_results_pending",
    "previous_year_net_income",
    "paid_in_earlier_return",
];

struct Model130<'a> {
    mode: Mode,
    live_allowed: bool,
    values: &'a HashMap<String, String>,
    problem: page::Problem,
    result: Option<Value>,
}

impl Model130<'_> {
    fn value(&self, name: &str) -> &str {
        self.values.get(name).map_or("", |v| v.trim())
    }
}

fn amount_label(lang: Lang, name: &str) -> (&'static str, &'static str) {
    match name {
        "income" => (
            lang.pick("Ingresos computables del año (casilla 01)", "Computable income, year to date (box 01)"),
            lang.pick("Del 1 de enero al fin del trimestre. Vacío: la base de tus facturas.", "From 1 January to the quarter's end. Empty: your invoices' bases."),
        ),
        "expenses" => (
            lang.pick("Gastos deducibles del año (casilla 02)", "Deductible expenses, year to date (box 02)"),
            lang.pick("Sin el 5 % de gastos de difícil justificación, que se suma en estimación directa simplificada. Vacío: el gasto deducible de los gastos confirmados de tu libro, con los bienes de inversión por su amortización.", "Without the 5 % allowance for hard-to-justify expenses, added in simplified direct estimation. Empty: the deductible cost of the confirmed expenses in your book, capital goods by their amortisation."),
        ),
        "withholdings" => (
            lang.pick("Retenciones soportadas del año (casilla 06)", "Withholdings borne, year to date (box 06)"),
            lang.pick("Vacío: el IRPF retenido en tus facturas.", "Empty: the IRPF withheld on your invoices."),
        ),
        "previous_payments" => (
            lang.pick("Pagos fraccionados de trimestres anteriores (casilla 05)", "Instalments of earlier quarters (box 05)"),
            lang.pick("Lo que ingresaste. Vacío (con la casilla 15 vacía): tus Modelos 130 de los trimestres anteriores, calculados con tus libros.", "What you paid. Empty (with box 15 empty): your Modelos 130 of the earlier quarters, computed from your books."),
        ),
        "negative_results_pending" => (
            lang.pick("Resultados negativos pendientes de trimestres anteriores (casilla 15)", "Negative results of earlier quarters not yet used (box 15)"),
            lang.pick("En positivo. Vacío: como la casilla 05.", "As a positive amount. Empty: as box 05."),
        ),
        "previous_year_net_income" => (
            lang.pick("Rendimiento neto del año anterior (casilla 13)", "Previous year's net income (box 13)"),
            lang.pick("Para la reducción por rendimientos bajos; puede ser negativo. Vacío: sin reducción.", "For the low-income reduction; may be negative. Empty: no reduction."),
        ),
        _ => (
            lang.pick("Ingresado en una declaración anterior del mismo trimestre (casilla 18)", "Paid in an earlier return for the same quarter (box 18)"),
            lang.pick("Solo en declaraciones complementarias. Vacío: 0.", "Complementary returns only. Empty: 0."),
        ),
    }
}

fn outcome_name(lang: Lang, outcome: &str) -> &'static str {
    match outcome {
        "pay" => lang.pick("A ingresar", "To pay"),
        "to_deduct" => lang.pick(
            "A deducir en los siguientes trimestres",
            "To deduct in later quarters",
        ),
        "negative" => lang.pick("Negativo", "Negative"),
        _ => lang.pick("Cero", "Zero"),
    }
}

fn model_130_page(visit: &Visit, form: &Model130, status: StatusCode) -> Response {
    let lang = visit.lang;
    let fields: Vec<&str> = AMOUNTS
        .iter()
        .copied()
        .chain(["year", "quarter", "housing_loan"])
        .collect();
    let error_for = |field: &str| page::error_for(&form.problem, field);
    let general = page::unplaced(&form.problem, |p| fields.contains(&p));
    page::respond(
        visit,
        status,
        lang.pick("Modelo 130: estimación", "Modelo 130: estimate"),
        html! {
            (page::mode_switch(lang, form.live_allowed, form.mode, "/taxes/model-130"))
            p { (lang.pick(
                "El pago fraccionado del IRPF de autónomos en estimación directa, con las cifras del año hasta el fin del trimestre. Lo que dejes vacío sale de tus facturas (en modo real) o es 0.",
                "The IRPF instalment of the self-employed under direct assessment, with the year-to-date figures at the quarter's end. What you leave empty comes from your invoices (live mode) or is 0."
            )) }
            @if let Some(message) = general { p role="alert" class="error" { (message) } }
            @if let Some(result) = &form.result { (model_130_result(lang, result)) }
            section aria-labelledby="inputs" {
                h2 id="inputs" { (lang.pick("Datos", "Inputs")) }
                form method="post" action="/taxes/model-130" novalidate {
                    (csrf_field(visit))
                    input type="hidden" name="mode" value=(form.mode.as_str());
                    fieldset {
                        legend { (lang.pick("Periodo", "Period")) }
                        (input("year", lang.pick("Año", "Year"), form.value("year"), None, error_for("year"), false))
                        (quarter_select(lang, form.value("quarter"), error_for("quarter")))
                    }
                    fieldset {
                        legend { (lang.pick("Importes en euros", "Amounts in euros")) }
                        @for name in AMOUNTS {
                            @let (label, help) = amount_label(lang, name);
                            (input(name, label, form.value(name), Some(help), error_for(name), true))
                        }
                    }
                    label for="housing_loan" {
                        input id="housing_loan" name="housing_loan" type="checkbox" value="yes"
                            checked[form.value("housing_loan") == "yes"];
                        (lang.pick(
                            " Mantengo la deducción transitoria por préstamo de vivienda habitual (casilla 16)",
                            " I keep the transitional main-home loan deduction (box 16)"
                        ))
                    }
                    label for="normal_estimation" {
                        input id="normal_estimation" name="normal_estimation" type="checkbox" value="yes"
                            checked[form.value("normal_estimation") == "yes"];
                        (lang.pick(
                            " Estoy en estimación directa normal (sin el 5 % de gastos de difícil justificación, art. 30, regla 2.ª, RIRPF)",
                            " I am in normal direct estimation (no 5 % allowance for hard-to-justify expenses, RIRPF art. 30, rule 2.ª)"
                        ))
                    }
                    button type="submit" { (lang.pick("Calcular", "Calculate")) }
                }
            }
            p { a href={ "/taxes?mode=" (form.mode.as_str()) } { (lang.pick("Volver a impuestos", "Back to taxes")) } }
        },
    )
}

fn model_130_result(lang: Lang, result: &Value) -> Markup {
    let boxes = result["boxes"].as_array().cloned().unwrap_or_default();
    let notes = result["notes"].as_array().cloned().unwrap_or_default();
    let source = |s: &Value| match text(s) {
        "ledger" => lang.pick("tus facturas", "your invoices"),
        _ => lang.pick("lo escrito", "what you typed"),
    };
    html! {
        section aria-labelledby="result" {
            h2 id="result" { (lang.pick("Resultado", "Result")) " · " (result["quarter"]) "T " (result["year"]) }
            p role="status" {
                (lang.pick("Casilla 19: ", "Box 19: ")) strong { (page::euros(lang, &result["result"])) }
                " · " (outcome_name(lang, text(&result["outcome"])))
            }
            p { (lang.pick("Ingresos de ", "Income from ")) (source(&result["income_source"]))
                "; " (lang.pick("retenciones de ", "withholdings from ")) (source(&result["withholdings_source"])) "." }
            @if result["direct_estimation"] == "simplified" {
                p { (lang.pick("Estimación directa simplificada: la casilla 02 incluye ", "Simplified direct estimation: box 02 includes "))
                    (page::euros(lang, &result["hard_to_justify_allowance"]))
                    (lang.pick(" de gastos de difícil justificación (5 %, máximo 2.000 € al año).", " of hard-to-justify expenses (5 %, at most 2,000 € a year).")) }
            }
            @let assets = result["amortisation"].as_array().cloned().unwrap_or_default();
            @if !assets.is_empty() {
                table {
                    caption { (lang.pick("Amortización de bienes de inversión en la casilla 02", "Amortisation of capital goods in box 02")) }
                    thead { tr {
                        th scope="col" { (lang.pick("Factura", "Invoice")) }
                        th scope="col" { (lang.pick("Coeficiente", "Rate")) }
                        th scope="col" { (lang.pick("Valor", "Value")) }
                        th scope="col" { (lang.pick("Amortización del año", "Year to date")) }
                    } }
                    tbody {
                        @for a in &assets {
                            tr {
                                th scope="row" { (text(&a["supplier"])) " " (text(&a["number"])) }
                                td { (page::percent(lang, &a["annual_rate"])) }
                                td { (page::euros(lang, &a["base"])) }
                                td { (page::euros(lang, &a["year_to_date"])) }
                            }
                        }
                    }
                }
            }
            table {
                thead { tr {
                    th scope="col" { (lang.pick("Casilla", "Box")) }
                    th scope="col" { (lang.pick("Concepto", "Concept")) }
                    th scope="col" { (lang.pick("Importe", "Amount")) }
                } }
                tbody {
                    @for b in &boxes {
                        tr {
                            th scope="row" { (text(&b["box"])) }
                            td { (text(&b[lang.pick("label", "label_en")])) }
                            td { (page::euros(lang, &b["value"])) }
                        }
                    }
                }
            }
            @if !notes.is_empty() { ul { @for note in &notes { li { (text(note)) } } } }
            p { small { (estimate(lang, &result["estimate"])) } }
        }
    }
}

pub async fn model_130_form(
    State(state): State<AppState>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (account, caller) =
        match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
            Ok(acting) => acting,
            Err(response) => return response,
        };
    let (year, quarter) = current_quarter(&state);
    let mut values = HashMap::new();
    values.insert("year".into(), typed_or(&query, "year", year.to_string()));
    values.insert(
        "quarter".into(),
        typed_or(&query, "quarter", quarter.to_string()),
    );
    let form = Model130 {
        mode: caller.mode,
        live_allowed: account.plan.allows_live_keys(),
        values: &values,
        problem: None,
        result: None,
    };
    model_130_page(&visit, &form, StatusCode::OK)
}

/// A typed amount as the API reads it: `1.234,56 €` → `1234.56`.
fn amount(typed: &str) -> Value {
    let cleaned: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '€')
        .collect();
    let cleaned = if cleaned.contains(',') {
        cleaned.replace('.', "").replace(',', ".")
    } else {
        cleaned
    };
    Value::String(cleaned)
}

/// A typed whole number: a JSON number when it is one, else the text for
/// the API to refuse with the field's name.
fn whole(typed: &str) -> Value {
    typed
        .parse::<i64>()
        .map_or_else(|_| Value::String(typed.to_string()), |n| json!(n))
}

/// The JSON request of the typed form: empty amounts left out.
fn model_130_request(form: &Model130) -> Value {
    let mut body = Map::new();
    body.insert("year".into(), whole(form.value("year")));
    body.insert("quarter".into(), whole(form.value("quarter")));
    for name in AMOUNTS {
        if !form.value(name).is_empty() {
            body.insert(name.into(), amount(form.value(name)));
        }
    }
    if form.value("housing_loan") == "yes" {
        body.insert("housing_loan".into(), json!(true));
    }
    if form.value("normal_estimation") == "yes" {
        body.insert("direct_estimation".into(), json!("normal"));
    }
    Value::Object(body)
}

/// The message beside an amount the API refused, in the page's language.
fn amount_problem(lang: Lang, field: Option<&str>, message: String) -> String {
    match field {
        Some(f) if AMOUNTS.contains(&f) => format!(
            "{} ({message})",
            lang.pick(
                "Escribe un importe en euros, p. ej. 1234,56.",
                "Type an amount in euros, e.g. 1234.56."
            )
        ),
        Some("year") => format!(
            "{} ({message})",
            lang.pick(
                "Escribe un año entre 2000 y 2100.",
                "Type a year between 2000 and 2100."
            )
        ),
        _ => message,
    }
}

pub async fn model_130(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let (account, caller) = match acting(&state, visit, Some(form.text("mode"))).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let values = form.fields().clone();
    let mut page = Model130 {
        mode: caller.mode,
        live_allowed: account.plan.allows_live_keys(),
        values: &values,
        problem: None,
        result: None,
    };
    let body = model_130_request(&page);
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/tax/model-130",
            Some(&body),
            None,
        )
        .await;
    if reply.ok() {
        page.result = Some(reply.json());
        return model_130_page(visit, &page, StatusCode::OK);
    }
    page.problem = reply.problem().map(|(message, param)| {
        let message = amount_problem(lang, param.as_deref(), message);
        (message, param)
    });
    let status = if reply.status.is_client_error() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        reply.status
    };
    model_130_page(visit, &page, status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_additional_303_boxes_read_in_spanish_as_the_form_names_them() {
        assert_eq!(
            box_303_label(Lang::Es, "Intra-EU supplies of goods and services: base"),
            "Entregas intracomunitarias de bienes y servicios: base imponible"
        );
        assert_eq!(
            box_303_label(
                Lang::Es,
                "Input VAT on intra-EU acquisitions of current goods and services: quota"
            ),
            "IVA deducible en adquisiciones intracomunitarias de bienes y servicios corrientes: cuota"
        );
        assert_eq!(
            box_303_label(
                Lang::Es,
                "Operations subject with reverse charge (the customer accounts for the VAT): base"
            ),
            "Operaciones sujetas con inversión del sujeto pasivo: base imponible"
        );
    }
}
