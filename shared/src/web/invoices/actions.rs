//! The actions on an issued invoice: mark it paid or unpaid, cancel it,
//! rectify it, resubmit a rejected VERI*FACTU record, email it. Each form
//! carries an idempotency key made when the page was drawn, so a double
//! submit runs once.

use axum::Extension;
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use maud::{Markup, html};
use serde_json::{Value, json};

use crate::http::AppState;

use super::super::caller_for;
use super::super::form::Submitted;
use super::super::page::{self, csrf_field, see_other};
use super::super::rest::Rest;
use super::show::{invoice_id, render};
use super::text;

/// The hidden fields every action form carries.
fn hidden(visit: &super::super::visit::Visit, mode: &str) -> Markup {
    html! {
        (csrf_field(visit))
        input type="hidden" name="mode" value=(mode);
        input type="hidden" name="_idem" value=(crate::ids::random_token(16));
    }
}

/// What the invoice amounts to after its rectifications (its total plus
/// `rectifications_total`), as a JSON number for `page::euros`.
pub(super) fn balance(invoice: &Value) -> Value {
    use rust_decimal::prelude::ToPrimitive;
    let of = |v: &Value| {
        v.to_string()
            .parse::<rust_decimal::Decimal>()
            .unwrap_or_default()
    };
    let sum = of(&invoice["total"]) + of(&invoice["rectifications_total"]);
    json!(sum.to_f64().unwrap_or_default())
}

pub(super) fn forms(visit: &super::super::visit::Visit, invoice: &Value, mode: &str) -> Markup {
    let lang = visit.lang;
    let id = &invoice["id"];
    let status = text(&invoice["status"]);
    let cancelled = status == "cancelled";
    let simplified = text(&invoice["kind"]) == "F2";
    let rectifying = text(&invoice["kind"]).starts_with('R');
    let remaining = balance(invoice);
    let credited = invoice["rectified_by"]
        .as_array()
        .is_some_and(|r| !r.is_empty())
        && remaining.as_f64().unwrap_or(0.0) == 0.0;
    html! {
        @if !cancelled {
            section aria-labelledby="actions" {
                h2 id="actions" { (lang.pick("Acciones", "Actions")) }
                form method="post" action={ "/invoices/" (id) "/status" } {
                    (hidden(visit, mode))
                    label for="new-status" { (lang.pick("Cobro", "Payment"))
                        select id="new-status" name="status" {
                            option value="paid" { (lang.pick("Cobrada", "Paid")) }
                            option value="unpaid" { (lang.pick("Pendiente de cobro", "Unpaid")) }
                        }
                    }
                    button type="submit" class="secondary" { (lang.pick("Cambiar el estado", "Set the status")) }
                }
                form method="post" action={ "/invoices/" (id) "/send" } {
                    (hidden(visit, mode))
                    label for="send-to" { (lang.pick("Enviar por correo a (vacío: el correo del cliente)", "Email to (empty: the customer's email)"))
                        input id="send-to" name="to" type="email" value=(invoice["customer"]["email"].as_str().unwrap_or("")) autocomplete="off";
                    }
                    label for="send-format" { (lang.pick("Factura electrónica adjunta", "E-invoice attached"))
                        select id="send-format" name="format" {
                            option value="" { (lang.pick("Solo el PDF", "The PDF only")) }
                            option value="facturae" { "Facturae" }
                            option value="ubl" { "UBL" }
                            option value="cii" { "CII" }
                        }
                    }
                    button type="submit" class="secondary" { (lang.pick("Enviar", "Send")) }
                }
                @if text(&invoice["verifactu"]["status"]) == "rejected" {
                    form method="post" action={ "/invoices/" (id) "/resubmit" } {
                        (hidden(visit, mode))
                        button type="submit" class="secondary" { (lang.pick("Reenviar el registro a la AEAT", "Resubmit the record to the AEAT")) }
                    }
                }
                @if credited {
                    p { (lang.pick("Rectificada por completo: no queda nada que abonar.", "Credited in full: nothing is left to credit.")) }
                }
                @if !rectifying && !credited {
                    form method="post" action={ "/invoices/" (id) "/rectify" } {
                        (hidden(visit, mode))
                        fieldset {
                            legend { (lang.pick("Rectificar", "Rectify")) }
                            label for="reason_code" { (lang.pick("Motivo", "Reason"))
                                select id="reason_code" name="reason_code" {
                                    @if simplified {
                                        option value="R5" { (lang.pick("R5 · factura simplificada", "R5 · simplified invoice")) }
                                    } @else {
                                        option value="R1" { (lang.pick("R1 · error fundado en derecho (art. 80.1, 80.2, 80.6 LIVA)", "R1 · error in law (art. 80.1, 80.2, 80.6 LIVA)")) }
                                        option value="R2" { "R2 · art. 80.3 LIVA" }
                                        option value="R3" { "R3 · art. 80.4 LIVA" }
                                        option value="R4" { (lang.pick("R4 · otros motivos", "R4 · other reasons")) }
                                    }
                                }
                            }
                            // The page has no lines to send: it credits, by
                            // differences, what the invoice still amounts to
                            // (rectifications of given amounts go through the API).
                            input type="hidden" name="method" value="differences";
                            p { (lang.pick("Abona, por diferencias, lo que la factura aún suma tras sus rectificaciones: ", "Credits, by differences, what the invoice still amounts to after its rectifications: "))
                                strong { (page::euros(lang, &remaining)) } }
                            label for="description" { (lang.pick("Descripción", "Description"))
                                input id="description" name="description" type="text" required;
                            }
                        }
                        button type="submit" class="secondary" { (lang.pick("Emitir la rectificativa", "Issue the rectifying invoice")) }
                    }
                }
                form method="post" action={ "/invoices/" (id) "/cancel" } {
                    (hidden(visit, mode))
                    label { input type="checkbox" name="confirm" value="yes" required; (lang.pick(" Confirmo que quiero anular esta factura", " I confirm I want to cancel this invoice")) }
                    button type="submit" class="secondary" { (lang.pick("Anular", "Cancel the invoice")) }
                }
            }
        }
    }
}

/// Runs the action's REST operation; on success goes to `then(answer)`,
/// else shows the invoice with the refusal.
async fn act(
    state: &AppState,
    rest: &Rest,
    form: &Submitted,
    id: &str,
    operation: &str,
    body: Value,
    notice: &str,
) -> Response {
    let visit = &form.visit;
    let caller = match caller_for(state, visit, Some(form.text("mode"))).await {
        Ok(caller) => caller,
        Err(response) => return response,
    };
    let Some(id) = invoice_id(id) else {
        return page::not_found(visit);
    };
    let mode = caller.mode.as_str();
    let idempotency = form.idempotency_key();
    let reply = rest
        .call(
            &caller,
            Method::POST,
            &format!("/api/v1/invoices/{id}/{operation}"),
            Some(&body),
            Some(&idempotency),
        )
        .await;
    if reply.status == StatusCode::NOT_FOUND {
        return page::not_found(visit);
    }
    if reply.ok() && operation == "send" {
        let current = rest.get(&caller, &format!("/api/v1/invoices/{id}")).await;
        let notice = sent(visit.lang, &reply.json());
        return render(visit, &current.json(), mode, Some(&notice), None);
    }
    if reply.ok() {
        let target = match operation {
            "rectify" => reply.json()["id"].to_string(),
            _ => id.to_string(),
        };
        return see_other(
            visit,
            &format!("/invoices/{target}?mode={mode}&notice={notice}"),
            Vec::new(),
        );
    }
    let problem = reply
        .problem()
        .map(|(message, _)| message)
        .unwrap_or_default();
    let current = rest.get(&caller, &format!("/api/v1/invoices/{id}")).await;
    if !current.ok() {
        return page::failure(visit.lang, &problem);
    }
    render(visit, &current.json(), mode, None, Some(&problem))
}

pub async fn set_status(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let body = json!({"status": form.text("status")});
    act(&state, &rest, &form, &id, "status", body, "done").await
}

pub async fn cancel(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    if form.text("confirm") != "yes" {
        let path = format!("/invoices/{id}?mode={}", form.text("mode"));
        return see_other(&form.visit, &path, Vec::new());
    }
    act(&state, &rest, &form, &id, "cancel", json!({}), "done").await
}

pub async fn rectify(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let body = json!({
        "reason_code": form.text("reason_code"),
        "method": form.text("method"),
        "description": form.text("description"),
    });
    act(&state, &rest, &form, &id, "rectify", body, "issued").await
}

pub async fn resubmit(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    act(
        &state,
        &rest,
        &form,
        &id,
        "verifactu/resubmit",
        json!({}),
        "done",
    )
    .await
}

pub async fn send(
    State(state): State<AppState>,
    Extension(rest): Extension<Rest>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let mut attach = vec!["pdf"];
    if !form.text("format").is_empty() {
        attach.push(form.text("format"));
    }
    let mut body = json!({"attach": attach});
    if !form.text("to").is_empty() {
        body["to"] = json!([form.text("to")]);
    }
    act(&state, &rest, &form, &id, "send", body, "sent").await
}

/// What a send did: to whom, with what; for a test invoice, what it would do.
fn sent(lang: crate::domain::lang::Lang, answer: &Value) -> String {
    let to = answer["to"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let files = answer["attachments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["filename"].as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if answer["simulated"] == Value::Bool(true) {
        format!(
            "{} {to} {} {files}.",
            lang.pick(
                "Prueba: no se ha enviado nada. Se enviaría a",
                "Test: nothing was sent. It would go to"
            ),
            lang.pick("con", "with")
        )
    } else {
        format!(
            "{} {to} {} {files} ({}).",
            lang.pick("Enviada a", "Sent to"),
            lang.pick("con", "with"),
            text(&answer["state"])
        )
    }
}
