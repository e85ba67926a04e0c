//! Analyses: the account's stored analyses (`GET /api/v1/analyses`), one
//! report (`GET /api/v1/analyses/{id}`; another account's is not found),
//! and the business check-up, the cuestionario: its 30 questions by area,
//! answered yes, no or "does not apply", sent to `POST /api/v1/analyze` as
//! the signed-in account in the mode the page shows. A live analysis is kept
//! and its report opened; a test one is sample data, shown at once and kept
//! nowhere.

use std::collections::HashMap;

use axum::Extension;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::get;
use maud::{Markup, html};
use serde_json::{Map, Value, json};

use crate::analyses::cuestionario;
use crate::domain::account::Mode;
use crate::domain::lang::Lang;
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, csrf_field, see_other};
use super::rest::Rest;
use super::visit::{SignedIn, Visit};
use super::{acting, text};

/// Analyses per page of the list.
const PAGE: usize = 25;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/analyses", get(list))
        .route("/analyses/cuestionario", get(questionnaire).post(answer))
        .route("/analyses/{id}", get(show))
}

/// An id of the API's form (`an_` and letters or digits); anything else is
/// not found without asking.
fn analysis_id(raw: &str) -> Option<&str> {
    raw.strip_prefix("an_")
        .filter(|rest| !rest.is_empty() && rest.len() <= 64)
        .filter(|rest| rest.chars().all(|c| c.is_ascii_alphanumeric()))
        .map(|_| raw)
}

fn type_name(lang: Lang, kind: &str) -> String {
    match kind {
        "excel" => lang.pick("Hoja de cálculo", "Spreadsheet").into(),
        "compare" => lang.pick("Comparación", "Comparison").into(),
        "folder" => lang.pick("Varios documentos", "Several documents").into(),
        "cuestionario" => lang.pick("Cuestionario", "Questionnaire").into(),
        other => other.into(),
    }
}

/// `2026-11-21T10:00:00.000Z` as `2026-11-21 10:00` (UTC).
fn moment(value: &Value) -> String {
    let raw = text(value);
    raw.get(..16).unwrap_or(raw).replace('T', " ")
}

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
    let mode = caller.mode;
    let path = {
        let mut params = url::form_urlencoded::Serializer::new(String::new());
        params.append_pair("limit", &PAGE.to_string());
        if let Some(after) = query.get("starting_after").filter(|a| !a.is_empty()) {
            params.append_pair("starting_after", after);
        }
        format!("/api/v1/analyses?{}", params.finish())
    };
    let reply = rest.get(&caller, &path).await;
    let problem = reply.problem();
    let listed = reply.json();
    let analyses = listed["data"].as_array().cloned().unwrap_or_default();
    let next = (listed["has_more"] == Value::Bool(true))
        .then(|| analyses.last().map(|a| text(&a["id"]).to_string()))
        .flatten();
    page::render(
        &visit,
        lang.pick("Análisis", "Analyses"),
        html! {
            (page::mode_switch(lang, account.plan.allows_live_keys(), mode, "/analyses"))
            p { a href={ "/analyses/cuestionario?mode=" (mode.as_str()) } role="button" {
                (lang.pick("Hacer el cuestionario del negocio", "Take the business questionnaire"))
            } }
            p { (lang.pick(
                "Los análisis de hojas de cálculo (ventas, gastos, caja, stock…) se envían por la API; aquí aparecen todos.",
                "Spreadsheet analyses (sales, costs, cash, stock…) are sent through the API; they all appear here."
            )) }
            section aria-labelledby="stored" {
                h2 id="stored" { (lang.pick("Análisis guardados", "Stored analyses")) }
                @if let Some((message, _)) = problem {
                    p role="alert" class="error" { (message) }
                }
                @if mode == Mode::Test {
                    p { (lang.pick(
                        "En modo de prueba no se guarda ningún análisis: los resultados son de muestra y no gastan cuota.",
                        "Test mode keeps no analysis: results are sample data and use no quota."
                    )) }
                } @else if analyses.is_empty() {
                    p { (lang.pick("Todavía no hay análisis.", "No analyses yet.")) }
                }
                @if !analyses.is_empty() {
                    table {
                        thead { tr {
                            th scope="col" { (lang.pick("Título", "Title")) }
                            th scope="col" { (lang.pick("Tipo", "Type")) }
                            th scope="col" { (lang.pick("Fecha (UTC)", "Date (UTC)")) }
                            th scope="col" { (lang.pick("Conclusión", "Headline")) }
                        } }
                        tbody {
                            @for analysis in &analyses {
                                tr {
                                    td { a href={ "/analyses/" (text(&analysis["id"])) "?mode=" (mode.as_str()) } { (text(&analysis["title"])) } }
                                    td { (type_name(lang, text(&analysis["type"]))) }
                                    td { (moment(&analysis["created_at"])) }
                                    td { (text(&analysis["headline"])) }
                                }
                            }
                        }
                    }
                }
                @if let Some(after) = next {
                    p { a href={ "/analyses?mode=" (mode.as_str()) "&starting_after=" (after) } { (lang.pick("Siguientes", "Next")) } }
                }
            }
        },
    )
}

pub async fn show(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    SignedIn(visit, _): SignedIn,
    Path(id): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (_, caller) = match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
        Ok(acting) => acting,
        Err(response) => return response,
    };
    let Some(id) = analysis_id(&id) else {
        return page::not_found(&visit);
    };
    let reply = rest.get(&caller, &format!("/api/v1/analyses/{id}")).await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(&visit);
    }
    if !reply.ok() {
        return page::failure(
            visit.lang,
            &reply.problem().map(|p| p.0).unwrap_or_default(),
        );
    }
    let analysis = reply.json();
    report_page(
        &visit,
        &analysis,
        caller.mode,
        query.contains_key("done"),
        StatusCode::OK,
    )
}

/// An analysis's report, as its own page.
fn report_page(
    visit: &Visit,
    analysis: &Value,
    mode: Mode,
    just_done: bool,
    status: StatusCode,
) -> Response {
    let lang = visit.lang;
    let title = match text(&analysis["title"]) {
        "" => lang.pick("Análisis", "Analysis"),
        title => title,
    };
    page::respond(
        visit,
        status,
        title,
        html! {
            @if just_done { p role="status" class="notice" { (lang.pick("Análisis hecho y guardado.", "Analysis done and kept.")) } }
            @if analysis["livemode"] == Value::Bool(false) {
                p class="notice" { (lang.pick(
                    "Resultado de muestra (modo de prueba): no refleja tus respuestas, no se guarda y no gasta cuota.",
                    "Sample result (test mode): it does not reflect your answers, is not kept and uses no quota."
                )) }
            }
            p { (type_name(lang, text(&analysis["type"]))) " · " (moment(&analysis["created_at"])) " UTC" }
            (report(lang, &analysis["report"]))
            (follow_ups(lang, analysis, mode))
            p { a href={ "/analyses?mode=" (mode.as_str()) } { (lang.pick("Volver a los análisis", "Back to the analyses")) } }
        },
    )
}

/// A key figure's value with its unit.
fn figure(lang: Lang, value: &Value, unit: &str) -> String {
    let decimals = match unit {
        "EUR" => Some(2),
        "count" | "days" => Some(0),
        _ => Some(1),
    };
    let Some(number) = page::number(lang, value, decimals) else {
        return "—".into();
    };
    match unit {
        "EUR" => format!("{number} €"),
        "pct" => format!("{number} %"),
        "days" => format!("{number} {}", lang.pick("días", "days")),
        "months" => format!("{number} {}", lang.pick("meses", "months")),
        "hours" => format!("{number} {}", lang.pick("horas", "hours")),
        _ => number,
    }
}

fn severity_name(lang: Lang, severity: &str) -> String {
    match severity {
        "high" => lang.pick("alta", "high").into(),
        "medium" => lang.pick("media", "medium").into(),
        "low" => lang.pick("baja", "low").into(),
        other => other.into(),
    }
}

fn report(lang: Lang, report: &Value) -> Markup {
    let list = |name: &str| report[name].as_array().cloned().unwrap_or_default();
    let (figures, strengths, priorities, plan, glossary) = (
        list("key_figures"),
        list("strengths"),
        list("priorities"),
        list("action_plan"),
        list("glossary"),
    );
    let quality = &report["data_quality"];
    let rows_received = quality["rows_received"].as_u64().unwrap_or(0);
    let notes = quality["notes"].as_array().cloned().unwrap_or_default();
    html! {
        section aria-labelledby="summary" {
            h2 id="summary" { (lang.pick("Resumen", "Summary")) }
            p { (text(&report["summary"])) }
        }
        @if !figures.is_empty() {
            section aria-labelledby="figures" {
                h2 id="figures" { (lang.pick("Cifras clave", "Key figures")) }
                table { tbody {
                    @for f in &figures {
                        tr {
                            th scope="row" { (text(&f["label"])) }
                            td { (figure(lang, &f["value"], text(&f["unit"]))) }
                        }
                    }
                } }
            }
        }
        section aria-labelledby="strengths" {
            h2 id="strengths" { (lang.pick("Puntos fuertes", "Strengths")) }
            @if strengths.is_empty() {
                p { (lang.pick("Ninguno destacado.", "None stands out.")) }
            } @else {
                ul { @for s in &strengths { li { (text(&s["text"])) } } }
            }
        }
        section aria-labelledby="priorities" {
            h2 id="priorities" { (lang.pick("Prioridades", "Priorities")) }
            @if priorities.is_empty() {
                p { (lang.pick("Ninguna.", "None.")) }
            } @else {
                ul {
                    @for p in &priorities {
                        li { strong { (lang.pick("Importancia ", "Severity ")) (severity_name(lang, text(&p["severity"]))) ": " } (text(&p["text"])) }
                    }
                }
            }
        }
        @if !plan.is_empty() {
            section aria-labelledby="plan" {
                h2 id="plan" { (lang.pick("Plan de acción", "Action plan")) }
                @for group in &plan {
                    h3 { (text(&group["label"])) }
                    ul { @for item in group["items"].as_array().into_iter().flatten() { li { (text(&item["text"])) } } }
                }
            }
        }
        @if !glossary.is_empty() {
            section aria-labelledby="glossary" {
                h2 id="glossary" { (lang.pick("Glosario", "Glossary")) }
                dl { @for entry in &glossary { dt { (text(&entry["term"])) } dd { (text(&entry["meaning"])) } } }
            }
        }
        @if rows_received > 0 || !notes.is_empty() {
            section aria-labelledby="quality" {
                h2 id="quality" { (lang.pick("Calidad de los datos", "Data quality")) }
                @if rows_received > 0 {
                    p { (match lang {
                        Lang::Es => format!("Filas recibidas: {rows_received}; analizadas: {}.", quality["rows_analysed"].as_u64().unwrap_or(0)),
                        Lang::En => format!("Rows received: {rows_received}; analysed: {}.", quality["rows_analysed"].as_u64().unwrap_or(0)),
                    }) }
                }
                @if !notes.is_empty() { ul { @for note in &notes { li { (text(note)) } } } }
            }
        }
    }
}

/// The follow-ups this application can open: the cuestionario and the tax pages.
fn follow_ups(lang: Lang, analysis: &Value, mode: Mode) -> Markup {
    let links: Vec<(String, String)> = analysis["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|action| {
            let path = match text(&action["kind"]) {
                "cuestionario" => "/analyses/cuestionario",
                "tax_calendar" | "tax_tool" => "/taxes",
                _ => return None,
            };
            let label = text(&action["label"]);
            (!label.is_empty())
                .then(|| (format!("{path}?mode={}", mode.as_str()), label.to_string()))
        })
        .collect();
    html! {
        @if !links.is_empty() {
            section aria-labelledby="next-steps" {
                h2 id="next-steps" { (lang.pick("Siguientes pasos", "Next steps")) }
                ul { @for (href, label) in &links { li { a href=(href) { (label) } } } }
            }
        }
    }
}

/// The answers a question may take, as the form's values.
const ANSWERS: [&str; 3] = ["yes", "no", "na"];

fn answer_name(lang: Lang, answer: &str) -> &'static str {
    match answer {
        "yes" => lang.pick("Sí", "Yes"),
        "no" => lang.pick("No", "No"),
        _ => lang.pick("No aplica", "Does not apply"),
    }
}

/// The area of a question id (`FIN1` → `FIN`).
fn area_of(id: &str) -> &str {
    id.trim_end_matches(|c: char| c.is_ascii_digit())
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

struct Questionnaire<'a> {
    mode: Mode,
    live_allowed: bool,
    values: &'a HashMap<String, String>,
    idempotency: String,
    problem: page::Problem,
}

fn questionnaire_page(visit: &Visit, form: &Questionnaire, status: StatusCode) -> Response {
    let lang = visit.lang;
    let error_for = |id: &str| page::error_for(&form.problem, &format!("data.answers.{id}"));
    let general = page::unplaced(&form.problem, |p| p.starts_with("data.answers."));
    page::respond(
        visit,
        status,
        lang.pick("Cuestionario del negocio", "Business questionnaire"),
        html! {
            (page::mode_switch(lang, form.live_allowed, form.mode, "/analyses/cuestionario"))
            p { (lang.pick(
                "30 preguntas en seis áreas: finanzas, fiscalidad, ventas, operaciones, digitalización y personas. Las que dejes sin responder o no apliquen no cuentan en la puntuación.",
                "30 questions in six areas: finance, tax, sales, operations, digital and people. Questions left unanswered or that do not apply do not count in the score."
            )) }
            @if form.mode == Mode::Test {
                p { (lang.pick(
                    "Modo de prueba: las respuestas se comprueban y el resultado es de muestra; no se guarda y no gasta cuota.",
                    "Test mode: the answers are checked and the result is sample data; nothing is kept and no quota is used."
                )) }
            } @else {
                p { (lang.pick(
                    "El análisis gasta 1 unidad de cuota y se guarda en tus análisis.",
                    "The analysis uses 1 quota unit and is kept in your analyses."
                )) }
            }
            @if let Some(message) = general { p role="alert" class="error" { (message) } }
            form method="post" action="/analyses/cuestionario" {
                (csrf_field(visit))
                input type="hidden" name="mode" value=(form.mode.as_str());
                input type="hidden" name="_idem" value=(form.idempotency);
                @for (prefix, es, en) in cuestionario::areas() {
                    section aria-labelledby={ "area-" (prefix) } {
                        h2 id={ "area-" (prefix) } { (capitalised(lang.pick(es, en))) }
                        @for (id, question_es, question_en) in cuestionario::questions().filter(|(id, _, _)| area_of(id) == prefix) {
                            @let error = error_for(id);
                            fieldset aria-describedby=[error.map(|_| format!("{id}-error"))] {
                                legend { (lang.pick(question_es, question_en)) }
                                @for answer in ANSWERS {
                                    label {
                                        input type="radio" name=(id) value=(answer)
                                            checked[form.values.get(id).map(String::as_str) == Some(answer)];
                                        " " (answer_name(lang, answer))
                                    }
                                }
                                @if let Some(error) = error { small id={ (id) "-error" } class="error" { (error) } }
                            }
                        }
                    }
                }
                button type="submit" { (lang.pick("Ver el resultado", "See the result")) }
            }
        },
    )
}

pub async fn questionnaire(
    State(state): State<AppState>,
    SignedIn(visit, _): SignedIn,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let (account, caller) =
        match acting(&state, &visit, query.get("mode").map(String::as_str)).await {
            Ok(acting) => acting,
            Err(response) => return response,
        };
    let values = HashMap::new();
    let form = Questionnaire {
        mode: caller.mode,
        live_allowed: account.plan.allows_live_keys(),
        values: &values,
        idempotency: crate::ids::random_token(16),
        problem: None,
    };
    questionnaire_page(&visit, &form, StatusCode::OK)
}

/// The answers of the form as the API takes them: yes, no, or null (does not
/// apply); questions left unanswered are left out.
fn answers(values: &HashMap<String, String>) -> Map<String, Value> {
    cuestionario::questions()
        .filter_map(|(id, _, _)| {
            let answer = match values.get(id).map(|v| v.trim()) {
                Some("yes") => json!(true),
                Some("no") => json!(false),
                Some("na") => Value::Null,
                _ => return None,
            };
            Some((id.to_string(), answer))
        })
        .collect()
}

pub async fn answer(
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
    let key = match form.text("_idem") {
        "" => crate::ids::random_token(16),
        key => key.to_string(),
    };
    let values = form.fields().clone();
    let body = json!({
        "type": "cuestionario",
        "lang": lang.code(),
        "data": { "answers": Value::Object(answers(&values)) },
    });
    let reply = rest
        .call(
            &caller,
            Method::POST,
            "/api/v1/analyze",
            Some(&body),
            Some(&key),
        )
        .await;
    if reply.ok() {
        let analysis = reply.json();
        if caller.mode == Mode::Live
            && let Some(id) = analysis["id"].as_str().and_then(analysis_id)
        {
            return see_other(
                visit,
                &format!("/analyses/{id}?mode=live&done=1"),
                Vec::new(),
            );
        }
        return report_page(visit, &analysis, caller.mode, false, StatusCode::OK);
    }
    let status = if reply.status.is_client_error() && reply.status != StatusCode::TOO_MANY_REQUESTS
    {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        reply.status
    };
    let page = Questionnaire {
        mode: caller.mode,
        live_allowed: account.plan.allows_live_keys(),
        values: &values,
        idempotency: key,
        problem: reply.problem(),
    };
    questionnaire_page(visit, &page, status)
}
