//! Members: the owner invites people by email (an offer they take once
//! signed in with that address), withdraws invitations and removes members.
//! A member can do everything else; this page is the owner's (a member gets
//! a 404). Inviting answers the same whether or not the address has an
//! account.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use crate::app::people::invitations::{self, InvitationError};
use crate::app::people::members::{self, MemberError};
use crate::app::people::{Person, store};
use crate::domain::person::{Email, Role};
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, Field, csrf_field, see_other};
use super::visit::{SignedIn, Visit};

async fn show(
    state: &AppState,
    visit: &Visit,
    status: StatusCode,
    notice: Option<&str>,
    error: Option<&str>,
) -> Response {
    let lang = visit.lang;
    let Some(session) = visit.signed_in() else {
        return page::not_found(visit);
    };
    let account = &session.person.account_id;
    let list = match store::members(&state.ports, account).await {
        Ok(list) => list,
        Err(e) => return page::failure(lang, &e),
    };
    let pending = match invitations::pending(&state.ports, account).await {
        Ok(pending) => pending,
        Err(e) => return page::failure(lang, &e),
    };
    page::respond(
        visit,
        status,
        lang.pick("Miembros", "Members"),
        html! {
            @if let Some(notice) = notice { p role="status" class="notice" { (notice) } }
            table {
                thead { tr {
                    th scope="col" { (lang.pick("Correo", "Email")) }
                    th scope="col" { (lang.pick("Papel", "Role")) }
                    th scope="col" { (lang.pick("Desde", "Since")) }
                    th scope="col" { span class="visually-hidden" { (lang.pick("Acciones", "Actions")) } }
                } }
                tbody {
                    @for member in &list {
                        tr {
                            td { (member.email) }
                            td { (match member.role { Role::Owner => lang.pick("propietario", "owner"), Role::Member => lang.pick("miembro", "member") }) }
                            td { (member.created_at.get(..10).unwrap_or(&member.created_at)) }
                            td {
                                @if member.role == Role::Member {
                                    form method="post" action={ "/members/" (member.id) "/remove" } {
                                        (csrf_field(visit))
                                        button type="submit" class="secondary" aria-label={ (lang.pick("Quitar a ", "Remove ")) (member.email) } { (lang.pick("Quitar", "Remove")) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            @if !pending.is_empty() {
                h2 { (lang.pick("Invitaciones pendientes", "Pending invitations")) }
                table {
                    thead { tr {
                        th scope="col" { (lang.pick("Correo", "Email")) }
                        th scope="col" { (lang.pick("Caduca", "Expires")) }
                        th scope="col" { span class="visually-hidden" { (lang.pick("Acciones", "Actions")) } }
                    } }
                    tbody {
                        @for invitation in &pending {
                            tr {
                                td { (invitation.email) }
                                td { (invitation.expires_at.format("%Y-%m-%d")) }
                                td {
                                    form method="post" action={ "/members/invitations/" (invitation.id) "/revoke" } {
                                        (csrf_field(visit))
                                        button type="submit" class="secondary" aria-label={ (lang.pick("Retirar la invitación a ", "Withdraw the invitation to ")) (invitation.email) } { (lang.pick("Retirar", "Withdraw")) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            form method="post" action="/members" {
                (csrf_field(visit))
                (Field { label: lang.pick("Invitar por correo", "Invite by email"), name: "email", kind: "email",
                    value: "", autocomplete: "off", error }.render())
                button type="submit" { (lang.pick("Invitar", "Invite")) }
            }
        },
    )
}

/// The signed-in owner, who alone manages members (anyone else gets a 404).
fn owner(visit: &Visit) -> Option<Person> {
    visit
        .signed_in()
        .map(|s| s.person.clone())
        .filter(|p| p.role.manages_account())
}

pub async fn list(State(state): State<AppState>, SignedIn(visit, session): SignedIn) -> Response {
    if !session.person.role.manages_account() {
        return page::not_found(&visit);
    }
    show(&state, &visit, StatusCode::OK, None, None).await
}

pub async fn invite(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let Some(owner) = owner(visit) else {
        return page::not_found(visit);
    };
    let Ok(email) = form.text("email").parse::<Email>() else {
        let error = lang.pick(
            "Escribe una dirección de correo (ana@ejemplo.es).",
            "Type an email address (ana@example.com).",
        );
        return show(
            &state,
            visit,
            StatusCode::UNPROCESSABLE_ENTITY,
            None,
            Some(error),
        )
        .await;
    };
    let sent = lang.pick(
        "Invitación enviada. La persona la acepta entrando con esa dirección.",
        "Invitation sent. The person accepts it by signing in with that address.",
    );
    let (status, notice, error) =
        match invitations::invite(&state.ports, &owner, email, lang, &visit.base).await {
            Ok(()) => (StatusCode::OK, Some(sent), None),
            Err(InvitationError::AlreadyMember) => (
                StatusCode::CONFLICT,
                None,
                Some(lang.pick(
                    "Esa dirección ya es miembro de esta cuenta.",
                    "That address is a member of this account already.",
                )),
            ),
            Err(InvitationError::Throttled(_)) => (
                StatusCode::TOO_MANY_REQUESTS,
                None,
                Some(lang.pick(
                    "Has enviado muchas invitaciones en la última hora. Inténtalo más tarde.",
                    "You have sent many invitations in the last hour. Try again later.",
                )),
            ),
            Err(e) => return page::failure(lang, &e),
        };
    show(&state, visit, status, notice, error).await
}

/// Withdraws a pending invitation: its link stops working.
pub async fn revoke_invitation(
    State(state): State<AppState>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let Some(owner) = owner(visit) else {
        return page::not_found(visit);
    };
    match invitations::revoke(&state.ports, &owner, &id).await {
        Ok(()) => see_other(visit, "/members", Vec::new()),
        Err(InvitationError::NotFound) => page::not_found(visit),
        Err(e) => page::failure(visit.lang, &e),
    }
}

pub async fn remove(
    State(state): State<AppState>,
    Path(id): Path<String>,
    form: Submitted,
) -> Response {
    let visit = &form.visit;
    let Some(owner) = owner(visit) else {
        return page::not_found(visit);
    };
    let Ok(id) = id.parse() else {
        return page::not_found(visit);
    };
    match members::remove(&state.ports, &owner, &id).await {
        Ok(()) => see_other(visit, "/members", Vec::new()),
        Err(MemberError::NotFound(_) | MemberError::Owner) => page::not_found(visit),
        Err(e) => page::failure(visit.lang, &e),
    }
}
