//! The overview: the account's plan, today's quota, the recent events and
//! the VERI*FACTU certificate (with a warning 30 days before it expires).

use axum::extract::State;
use axum::response::Response;
use chrono::Duration;
use maud::html;

use crate::app::invoices::lifecycle::{self, Filters};
use crate::app::verifactu::certificates;
use crate::app::{accounts, events, usage};
use crate::domain::account::{Mode, Plan};
use crate::domain::lang::Lang;
use crate::http::AppState;
use crate::verifactu::status::RecordStatus;

use super::caller;
use super::page::{self, csrf_field};
use super::visit::SignedIn;

/// How many of the latest live invoices the VERI*FACTU summary counts.
const SUMMARY_INVOICES: usize = 100;
/// How many recent events the overview lists.
const RECENT_EVENTS: usize = 10;
/// How long before its expiry the certificate is flagged.
const CERTIFICATE_WARNING: Duration = Duration::days(30);

pub async fn show(State(state): State<AppState>, SignedIn(visit, session): SignedIn) -> Response {
    let lang = visit.lang;
    let ports = &state.ports;
    let account_id = &session.person.account_id;
    let loaded = async {
        let account = accounts::get(ports, account_id)
            .await
            .map_err(|e| e.to_string())?;
        let caller = caller(&account, &session, Mode::Live);
        let usage = usage::today(ports, &caller, &state.config.quotas)
            .await
            .map_err(|e| e.to_string())?;
        let (recent, _) = events::list(
            ports,
            account_id,
            Mode::Live,
            RECENT_EVENTS,
            None,
            &events::Filter::default(),
        )
        .await
        .map_err(|e| e.to_string())?;
        let certificate = certificates::info(ports, account_id)
            .await
            .map_err(|e| e.to_string())?;
        let records = if account.plan.allows_live_keys() {
            let (latest, _) =
                lifecycle::list(ports, &caller, &Filters::default(), SUMMARY_INVOICES, None)
                    .await
                    .map_err(|e| format!("{e:?}"))?;
            Some(RecordStatus::ALL.map(|status| {
                (
                    status,
                    latest
                        .iter()
                        .filter(|i| i.verifactu.status == status)
                        .count(),
                )
            }))
        } else {
            None
        };
        Ok::<_, String>((account, usage, recent, certificate, records))
    };
    let (account, usage, recent, certificate, records) = match loaded.await {
        Ok(loaded) => loaded,
        Err(e) => return page::failure(lang, &e),
    };
    let now = ports.clock.now();
    page::render(
        &visit,
        &account.name,
        html! {
            section aria-labelledby="plan" {
                h2 id="plan" { (lang.pick("Plan", "Plan")) }
                p { (lang.pick("Plan actual: ", "Current plan: ")) strong { (account.plan.as_str()) } }
                @if account.plan == Plan::Mini {
                    p { (lang.pick(
                        "Con el plan Mini funcionan las claves de prueba. Para claves reales (facturas con validez y envío a la AEAT) pide el plan Pro o Max a tu operador.",
                        "On the Mini plan test keys work. For live keys (real invoices sent to the AEAT) ask your operator for the Pro or Max plan."
                    )) }
                }
            }
            section aria-labelledby="quota" {
                h2 id="quota" { (lang.pick("Cuota de hoy", "Today's quota")) }
                table {
                    tbody {
                        tr { th scope="row" { (lang.pick("Usada", "Used")) } td { (usage.used) " / " (usage.daily_limit) } }
                        tr { th scope="row" { (lang.pick("Disponible", "Remaining")) } td { (usage.remaining) } }
                        tr { th scope="row" { (lang.pick("Se renueva", "Resets")) } td { time datetime=(usage.resets_at.to_rfc3339()) { (usage.resets_at.format("%Y-%m-%d %H:%M UTC")) } } }
                    }
                }
            }
            @if let Some(records) = &records {
            section aria-labelledby="records" {
                h2 id="records" { (lang.pick("Registros VERI*FACTU", "VERI*FACTU records")) }
                p { (lang.pick("De las últimas 100 facturas reales:", "Of the latest 100 live invoices:")) }
                table { tbody {
                    @for (status, count) in records {
                        tr { th scope="row" { (record_status(lang, *status)) } td { (count) } }
                    }
                } }
            }
        }
        section aria-labelledby="certificate" {
                h2 id="certificate" { (lang.pick("Certificado VERI*FACTU", "VERI*FACTU certificate")) }
                @match &certificate {
                    None => p { (lang.pick(
                        "Sin certificado: las facturas reales quedan pendientes de envío a la AEAT hasta que subas uno.",
                        "No certificate: live invoices stay pending for the AEAT until you upload one."
                    )) },
                    Some(info) => {
                        p { (info.holder) " · " (info.nif.as_deref().unwrap_or("")) " · " (lang.pick("caduca el ", "expires on ")) (info.not_after.format("%Y-%m-%d")) }
                        @if info.not_after < now {
                            p role="alert" class="error" { (lang.pick("El certificado ha caducado.", "The certificate has expired.")) }
                        } @else if info.not_after - now <= CERTIFICATE_WARNING {
                            p role="alert" class="error" { (lang.pick("El certificado caduca en menos de 30 días: renuévalo.", "The certificate expires within 30 days: renew it.")) }
                        }
                    }
                }
            }
            section aria-labelledby="events" {
                h2 id="events" { (lang.pick("Eventos recientes", "Recent events")) }
                @if recent.is_empty() {
                    p { (lang.pick("Todavía no hay eventos.", "No events yet.")) }
                } @else {
                    table {
                        thead { tr { th scope="col" { (lang.pick("Tipo", "Type")) } th scope="col" { (lang.pick("Fecha", "Date")) } th scope="col" { "Id" } } }
                        tbody {
                            @for event in &recent {
                                tr { td { (event.kind.code()) } td { (event.created_at) } td { code { (event.id) } } }
                            }
                        }
                    }
                }
            }
            section aria-labelledby="sessions" {
                h2 id="sessions" { (lang.pick("Sesiones", "Sessions")) }
                form method="post" action="/sign-out-everywhere" {
                    (csrf_field(&visit))
                    button type="submit" class="secondary" { (lang.pick("Cerrar sesión en todos los dispositivos", "Sign out everywhere")) }
                }
            }
        },
    )
}

fn record_status(lang: Lang, status: RecordStatus) -> &'static str {
    match status {
        RecordStatus::Pending => lang.pick("Pendientes de envío", "Pending"),
        RecordStatus::Accepted => lang.pick("Aceptados", "Accepted"),
        RecordStatus::AcceptedWithErrors => {
            lang.pick("Aceptados con errores", "Accepted with errors")
        }
        RecordStatus::Rejected => lang.pick("Rechazados", "Rejected"),
    }
}
