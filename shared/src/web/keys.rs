//! Developers → Keys: the account's API keys (prefix, mode, created, last
//! used), a new key shown once with a copy button, revocation with a
//! confirmation. The owner's page: a member gets a 404. At most 20 active
//! keys: beyond, 409 and the list with the reason above the form.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use crate::app::{accounts, keys};
use crate::domain::account::Mode;
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, csrf_field, see_other};
use super::visit::{SignedIn, Visit};

fn list_page(
    visit: &Visit,
    state_keys: &[keys::KeySummary],
    live_allowed: bool,
    status: StatusCode,
    error: Option<&str>,
) -> Response {
    let lang = visit.lang;
    page::respond(
        visit,
        status,
        lang.pick("Claves de la API", "API keys"),
        html! {
            @if let Some(error) = error {
                p role="alert" class="error" { (error) }
            }
            p { (lang.pick(
                "Envía la clave en cada petición: Authorization: Bearer <clave>. Las de prueba no gastan cuota ni guardan nada.",
                "Send the key with every request: Authorization: Bearer <key>. Test keys use no quota and store nothing."
            )) }
            form method="post" action="/developers/keys" {
                (csrf_field(visit))
                fieldset {
                    legend { (lang.pick("Nueva clave", "New key")) }
                    label { input type="radio" name="mode" value="test" checked; (lang.pick(" De prueba", " Test")) }
                    label {
                        input type="radio" name="mode" value="live" disabled[!live_allowed];
                        (lang.pick(" Real", " Live"))
                        @if !live_allowed { small { (lang.pick(" (necesita el plan Pro o Max)", " (needs the Pro or Max plan)")) } }
                    }
                }
                button type="submit" { (lang.pick("Crear clave", "Create key")) }
            }
            @if state_keys.is_empty() {
                p { (lang.pick("Aún no hay claves.", "No keys yet.")) }
            } @else {
                table {
                    thead { tr {
                        th scope="col" { (lang.pick("Clave", "Key")) }
                        th scope="col" { (lang.pick("Modo", "Mode")) }
                        th scope="col" { (lang.pick("Creada", "Created")) }
                        th scope="col" { (lang.pick("Último uso", "Last used")) }
                        th scope="col" { (lang.pick("Estado", "Status")) }
                    } }
                    tbody {
                        @for key in state_keys {
                            tr {
                                td { code { (key.prefix) "…" } }
                                td { (match key.mode { Mode::Live => lang.pick("real", "live"), Mode::Test => lang.pick("prueba", "test") }) }
                                td { (key.created_at.get(..16).unwrap_or(&key.created_at)) }
                                td { (key.last_used_at.as_deref().and_then(|t| t.get(..16)).unwrap_or("—")) }
                                td {
                                    @if key.revoked_at.is_some() {
                                        (lang.pick("revocada", "revoked"))
                                    } @else {
                                        form method="post" action={ "/developers/keys/" (key.key_id) "/revoke" } {
                                            (csrf_field(visit))
                                            label {
                                                input type="checkbox" name="confirm" value="yes" required;
                                                (lang.pick(" Confirmo", " I confirm"))
                                            }
                                            button type="submit" class="secondary" aria-label={ (lang.pick("Revocar ", "Revoke ")) (key.prefix) } {
                                                (lang.pick("Revocar", "Revoke"))
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        },
    )
}

async fn show_list(
    state: &AppState,
    visit: &Visit,
    account: &crate::domain::account::AccountId,
    status: StatusCode,
    error: Option<&str>,
) -> Response {
    let loaded = async {
        let account = accounts::get(&state.ports, account)
            .await
            .map_err(|e| e.to_string())?;
        let list = keys::list(&state.ports, &account.id)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((account, list))
    };
    match loaded.await {
        Ok((account, list)) => {
            list_page(visit, &list, account.plan.allows_live_keys(), status, error)
        }
        Err(e) => page::failure(visit.lang, &e),
    }
}

pub async fn list(State(state): State<AppState>, SignedIn(visit, session): SignedIn) -> Response {
    if !session.person.role.manages_account() {
        return page::not_found(&visit);
    }
    show_list(
        &state,
        &visit,
        &session.person.account_id,
        StatusCode::OK,
        None,
    )
    .await
}

pub async fn create(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let Some(session) = visit
        .signed_in()
        .filter(|s| s.person.role.manages_account())
    else {
        return page::not_found(visit);
    };
    let account_id = session.person.account_id.clone();
    let mode = match form.text("mode") {
        "live" => Mode::Live,
        _ => Mode::Test,
    };
    let account = match accounts::get(&state.ports, &account_id).await {
        Ok(account) => account,
        Err(e) => return page::failure(lang, &e),
    };
    if mode.is_live() && !account.plan.allows_live_keys() {
        let error = lang.pick(
            "Las claves reales necesitan el plan Pro o Max.",
            "Live keys need the Pro or Max plan.",
        );
        return show_list(
            &state,
            visit,
            &account_id,
            StatusCode::FORBIDDEN,
            Some(error),
        )
        .await;
    }
    let (_, key) = match keys::create(&state.ports, &account_id, mode).await {
        Ok(created) => created,
        Err(keys::KeyError::LimitReached) => {
            let error = lang.pick(
                "Una cuenta tiene como mucho 20 claves activas: revoca una para crear otra.",
                "An account has at most 20 active keys: revoke one to create another.",
            );
            return show_list(
                &state,
                visit,
                &account_id,
                StatusCode::CONFLICT,
                Some(error),
            )
            .await;
        }
        Err(e) => return page::failure(lang, &e),
    };
    tracing::info!(account = %account_id, person = %session.person.id, mode = mode.as_str(), "key created on the web");
    page::render(
        visit,
        lang.pick("Tu clave nueva", "Your new key"),
        html! {
            p role="status" { (lang.pick(
                "Cópiala ahora: no volverás a verla. Si la pierdes, revócala y crea otra.",
                "Copy it now: you will not see it again. If you lose it, revoke it and create another."
            )) }
            p { code id="new-key" class="secret" { (key.reveal()) } }
            button type="button" data-copy="new-key" data-copied=(lang.pick("Copiada", "Copied")) { (lang.pick("Copiar", "Copy")) }
            p { a href="/developers/keys" { (lang.pick("Volver a las claves", "Back to the keys")) } }
        },
    )
}

pub async fn revoke(
    State(state): State<AppState>,
    Path(key_id): Path<String>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let Some(session) = visit
        .signed_in()
        .filter(|s| s.person.role.manages_account())
    else {
        return page::not_found(visit);
    };
    let account_id = session.person.account_id.clone();
    if form.text("confirm") != "yes" {
        let error = lang.pick(
            "Marca «Confirmo» para revocar la clave.",
            "Tick “I confirm” to revoke the key.",
        );
        return show_list(
            &state,
            visit,
            &account_id,
            StatusCode::UNPROCESSABLE_ENTITY,
            Some(error),
        )
        .await;
    }
    match keys::revoke_own(&state.ports, &account_id, &key_id).await {
        Ok(()) => see_other(visit, "/developers/keys", Vec::new()),
        Err(keys::KeyError::NotFound(_)) => page::not_found(visit),
        Err(e) => page::failure(lang, &e),
    }
}
