//! Signing up, confirming the address, signing in and out, resetting the
//! password, accepting an invitation, and the language switch. The answers
//! never tell whether an address has an account.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;
use serde::Deserialize;

use crate::app::people::devices;
use crate::app::people::invitations::{self, InvitationError, Offer};
use crate::app::people::password::{self, ResetError};
use crate::app::people::sessions;
use crate::app::people::sign_in::{Attempt, SignInError, sign_in};
use crate::app::people::sign_up::{SignUp, SignUpError, confirm, sign_up};
use crate::domain::lang::Lang;
use crate::domain::person::{Email, Password};
use crate::http::AppState;

use super::form::Submitted;
use super::page::{self, Errors, Field, csrf_field, local_path, see_other};
use super::visit::Visit;

/// The longest business name the sign-up form takes.
const MAX_BUSINESS_CHARS: usize = 120;

#[derive(Deserialize)]
pub struct Next {
    next: Option<String>,
}

#[derive(Deserialize)]
pub struct Token {
    token: Option<String>,
}

fn sign_up_page(
    visit: &Visit,
    status: StatusCode,
    values: (&str, &str),
    errors: &Errors,
) -> Response {
    let lang = visit.lang;
    page::respond(
        visit,
        status,
        lang.pick("Crear cuenta", "Sign up"),
        html! {
            p { (lang.pick(
                "Crea tu cuenta (plan Mini): claves de prueba al momento; las claves reales necesitan el plan Pro o Max.",
                "Create your account (plan Mini): test keys at once; live keys need the Pro or Max plan."
            )) }
            form method="post" action="/sign-up" novalidate {
                (csrf_field(visit))
                (Field { label: lang.pick("Nombre del negocio", "Business name"), name: "business", kind: "text",
                    value: values.0, autocomplete: "organization", error: errors.get("business") }.render())
                (Field { label: lang.pick("Correo electrónico", "Email"), name: "email", kind: "email",
                    value: values.1, autocomplete: "email", error: errors.get("email") }.render())
                (Field { label: lang.pick("Contraseña (10 caracteres o más)", "Password (10 characters or more)"),
                    name: "password", kind: "password", value: "", autocomplete: "new-password",
                    error: errors.get("password") }.render())
                button type="submit" { (lang.pick("Crear cuenta", "Sign up")) }
            }
            p { a href="/sign-in" { (lang.pick("¿Ya tienes cuenta? Entra", "Already have an account? Sign in")) } }
        },
    )
}

pub async fn sign_up_form(visit: Visit) -> Response {
    if visit.signed_in().is_some() {
        return see_other(&visit, "/", Vec::new());
    }
    sign_up_page(&visit, StatusCode::OK, ("", ""), &Errors::default())
}

pub async fn sign_up_submit(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let mut errors = Errors::default();
    let business = form.text("business");
    if business.is_empty() {
        errors.add(
            "business",
            lang.pick(
                "Escribe el nombre de tu negocio.",
                "Type your business name.",
            ),
        );
    } else if business.chars().count() > MAX_BUSINESS_CHARS {
        errors.add(
            "business",
            lang.pick("Como mucho 120 caracteres.", "At most 120 characters."),
        );
    } else if business.chars().any(char::is_control) {
        errors.add(
            "business",
            lang.pick(
                "Escribe el nombre en una sola línea.",
                "Type the name on a single line.",
            ),
        );
    }
    let email = form.text("email").parse::<Email>();
    if email.is_err() {
        errors.add(
            "email",
            lang.pick(
                "Escribe una dirección de correo (ana@ejemplo.es).",
                "Type an email address (ana@example.com).",
            ),
        );
    }
    let password = Password::parse(form.raw("password"));
    if password.is_err() {
        errors.add(
            "password",
            lang.pick(
                "La contraseña necesita 10 caracteres o más (128 como mucho).",
                "The password needs 10 characters or more (128 at most).",
            ),
        );
    }
    let (Ok(email), Ok(password), true) = (email, password, errors.is_empty()) else {
        return sign_up_page(
            visit,
            StatusCode::UNPROCESSABLE_ENTITY,
            (business, form.text("email")),
            &errors,
        );
    };
    let request = SignUp {
        business: business.to_string(),
        email,
        password,
        lang,
    };
    match sign_up(&state.ports, request, &visit.base, &visit.client).await {
        Ok(()) => {}
        Err(SignUpError::Throttled(seconds)) => return too_many(visit, seconds),
        Err(SignUpError::Storage(e)) => return page::failure(lang, &e),
    }
    check_your_email(visit, lang.pick(
        "Te hemos enviado un correo con un enlace para confirmar la dirección. Ábrelo y después entra.",
        "We have emailed you a link to confirm the address. Open it, then sign in.",
    ))
}

/// Minutes to wait, rounded up, for a message.
fn minutes(seconds: i64) -> i64 {
    (seconds + 59) / 60
}

/// A 429 page: this connection asked too often.
fn too_many(visit: &Visit, seconds: i64) -> Response {
    let lang = visit.lang;
    let wait = minutes(seconds);
    page::respond(
        visit,
        StatusCode::TOO_MANY_REQUESTS,
        lang.pick("Demasiadas peticiones", "Too many requests"),
        html! {
            p role="alert" class="error" { (match lang {
                Lang::Es => format!("Se han hecho demasiadas peticiones desde tu conexión. Inténtalo de nuevo dentro de {wait} min."),
                Lang::En => format!("Too many requests came from your connection. Try again in {wait} min."),
            }) }
        },
    )
}

fn check_your_email(visit: &Visit, message: &str) -> Response {
    let lang = visit.lang;
    page::render(
        visit,
        lang.pick("Revisa tu correo", "Check your email"),
        html! {
            p role="status" { (message) }
            p { a href="/sign-in" { (lang.pick("Ir a entrar", "Go to sign in")) } }
        },
    )
}

pub async fn verify(
    State(state): State<AppState>,
    visit: Visit,
    Query(query): Query<Token>,
) -> Response {
    let lang = visit.lang;
    let confirmed = match confirm(&state.ports, query.token.as_deref().unwrap_or_default()).await {
        Ok(confirmed) => confirmed,
        Err(e) => return page::failure(lang, &e),
    };
    let (title, message) = if confirmed {
        (
            lang.pick("Correo confirmado", "Email confirmed"),
            lang.pick(
                "Tu dirección está confirmada. Ya puedes entrar.",
                "Your address is confirmed. You can sign in now.",
            ),
        )
    } else {
        (lang.pick("Enlace no válido", "Link not valid"),
         lang.pick("El enlace ya se usó o ha caducado. Entra con tu correo y contraseña y te enviaremos otro.",
                   "The link was used already or has expired. Sign in with your email and password and we will send you another."))
    };
    page::render(
        &visit,
        title,
        html! {
            p role="status" { (message) }
            p { a href="/sign-in" { (lang.pick("Entrar", "Sign in")) } }
        },
    )
}

fn sign_in_page(
    visit: &Visit,
    status: StatusCode,
    email: &str,
    next: &str,
    error: Option<&str>,
) -> Response {
    let lang = visit.lang;
    page::respond(
        visit,
        status,
        lang.pick("Entrar", "Sign in"),
        html! {
            @if let Some(error) = error {
                p role="alert" class="error" { (error) }
            }
            form method="post" action="/sign-in" {
                (csrf_field(visit))
                input type="hidden" name="next" value=(next);
                (Field { label: lang.pick("Correo electrónico", "Email"), name: "email", kind: "email",
                    value: email, autocomplete: "username", error: None }.render())
                (Field { label: lang.pick("Contraseña", "Password"), name: "password", kind: "password",
                    value: "", autocomplete: "current-password", error: None }.render())
                button type="submit" { (lang.pick("Entrar", "Sign in")) }
            }
            p { a href="/forgot" { (lang.pick("He olvidado mi contraseña", "I forgot my password")) } }
            p { a href="/sign-up" { (lang.pick("Crear una cuenta", "Create an account")) } }
        },
    )
}

pub async fn sign_in_form(visit: Visit, Query(query): Query<Next>) -> Response {
    let next = local_path(query.next.as_deref());
    if visit.signed_in().is_some() {
        return see_other(&visit, &next, Vec::new());
    }
    sign_in_page(&visit, StatusCode::OK, "", &next, None)
}

pub async fn sign_in_submit(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let next = local_path(Some(form.text("next")));
    let email = form.text("email");
    let attempt = Attempt {
        email,
        password: form.raw("password"),
        client: &visit.client,
        device: visit.device.as_deref(),
        base: &visit.base,
    };
    match sign_in(&state.ports, attempt).await {
        Ok(signed) => {
            // A new session id at every sign-in; the one this browser had ends.
            if let Some(previous) = visit.signed_in()
                && let Err(e) = sessions::end(&state.ports, previous).await
            {
                return page::failure(lang, &e);
            }
            let mut cookies = vec![visit.cookie(
                visit.session_cookie_name(),
                &signed.secret,
                Some(cookie::time::Duration::seconds(
                    sessions::ABSOLUTE.num_seconds(),
                )),
            )];
            if let Some(device) = signed.device {
                cookies.push(visit.cookie(
                    visit.device_cookie_name(),
                    &device,
                    Some(cookie::time::Duration::seconds(
                        devices::LIFETIME.num_seconds(),
                    )),
                ));
            }
            see_other(visit, &next, cookies)
        }
        Err(SignInError::Invalid) => sign_in_page(
            visit,
            StatusCode::UNPROCESSABLE_ENTITY,
            email,
            &next,
            Some(lang.pick(
                "El correo o la contraseña no son correctos.",
                "The email or the password is not right.",
            )),
        ),
        Err(SignInError::Throttled(seconds)) => {
            let wait = minutes(seconds);
            let message = match lang {
                Lang::Es => format!(
                    "Demasiados intentos fallidos. Espera {wait} min o cambia la contraseña desde «He olvidado mi contraseña». En el navegador donde ya entraste antes puedes seguir entrando."
                ),
                Lang::En => format!(
                    "Too many failed attempts. Wait {wait} min, or reset the password from “I forgot my password”. The browser where you signed in before can still sign in."
                ),
            };
            sign_in_page(
                visit,
                StatusCode::TOO_MANY_REQUESTS,
                email,
                &next,
                Some(&message),
            )
        }
        Err(SignInError::Unconfirmed) => sign_in_page(
            visit,
            StatusCode::FORBIDDEN,
            email,
            &next,
            Some(lang.pick(
                "Antes de entrar, confirma tu correo: te hemos enviado un enlace nuevo.",
                "Confirm your email before signing in: we have sent you a new link.",
            )),
        ),
        Err(SignInError::Storage(e)) => page::failure(lang, &e),
    }
}

fn removed_session_cookie(visit: &Visit) -> axum::http::HeaderValue {
    visit.cookie(
        visit.session_cookie_name(),
        "",
        Some(cookie::time::Duration::ZERO),
    )
}

pub async fn sign_out(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    if let Some(session) = visit.signed_in()
        && let Err(e) = sessions::end(&state.ports, session).await
    {
        return page::failure(visit.lang, &e);
    }
    see_other(visit, "/sign-in", vec![removed_session_cookie(visit)])
}

pub async fn sign_out_everywhere(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    if let Some(session) = visit.signed_in()
        && let Err(e) = sessions::end_all(&state.ports, &session.person.id).await
    {
        return page::failure(visit.lang, &e);
    }
    see_other(visit, "/sign-in", vec![removed_session_cookie(visit)])
}

pub async fn forgot_form(visit: Visit) -> Response {
    let lang = visit.lang;
    page::render(
        &visit,
        lang.pick("Cambiar la contraseña", "Reset your password"),
        html! {
            p { (lang.pick("Escribe tu correo y te enviaremos un enlace para elegir una contraseña nueva.",
                "Type your email and we will send you a link to choose a new password.")) }
            form method="post" action="/forgot" {
                (csrf_field(&visit))
                (Field { label: lang.pick("Correo electrónico", "Email"), name: "email", kind: "email",
                    value: "", autocomplete: "email", error: None }.render())
                button type="submit" { (lang.pick("Enviar el enlace", "Send the link")) }
            }
        },
    )
}

pub async fn forgot_submit(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let asked = password::request_reset(
        &state.ports,
        form.text("email"),
        &visit.base,
        visit.lang,
        &visit.client,
    )
    .await;
    match asked {
        Ok(()) => {}
        Err(ResetError::Throttled(seconds)) => return too_many(visit, seconds),
        Err(ResetError::Storage(e)) => return page::failure(visit.lang, &e),
    }
    check_your_email(visit, visit.lang.pick(
        "Si la dirección tiene una cuenta, le hemos enviado un enlace para cambiar la contraseña. Sirve durante una hora.",
        "If the address has an account, we have sent it a link to reset the password. It works for one hour.",
    ))
}

/// The form that sets a password from a reset link.
fn password_form(visit: &Visit, token: &str, status: StatusCode, error: Option<&str>) -> Response {
    let lang = visit.lang;
    page::respond(
        visit,
        status,
        lang.pick("Contraseña nueva", "New password"),
        html! {
            form method="post" action="/reset" {
                (csrf_field(visit))
                input type="hidden" name="token" value=(token);
                (Field { label: lang.pick("Contraseña nueva (10 caracteres o más)", "New password (10 characters or more)"),
                    name: "password", kind: "password", value: "", autocomplete: "new-password", error }.render())
                button type="submit" { (lang.pick("Cambiar la contraseña", "Change the password")) }
            }
        },
    )
}

fn link_not_valid(visit: &Visit) -> Response {
    let lang = visit.lang;
    page::respond(
        visit,
        StatusCode::NOT_FOUND,
        lang.pick("Enlace no válido", "Link not valid"),
        html! {
            p { (lang.pick("El enlace ya se usó, ha caducado o se retiró.", "The link was used already, has expired or was withdrawn.")) }
            p { a href="/forgot" { (lang.pick("Pedir otro enlace", "Ask for another link")) } }
        },
    )
}

pub async fn reset_form(
    State(state): State<AppState>,
    visit: Visit,
    Query(query): Query<Token>,
) -> Response {
    let token = query.token.unwrap_or_default();
    match password::link_works(&state.ports, &token).await {
        Ok(true) => password_form(&visit, &token, StatusCode::OK, None),
        Ok(false) => link_not_valid(&visit),
        Err(e) => page::failure(visit.lang, &e),
    }
}

pub async fn reset_submit(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let token = form.text("token");
    let Ok(password) = Password::parse(form.raw("password")) else {
        let error = lang.pick(
            "La contraseña necesita 10 caracteres o más (128 como mucho).",
            "The password needs 10 characters or more (128 at most).",
        );
        return password_form(visit, token, StatusCode::UNPROCESSABLE_ENTITY, Some(error));
    };
    match password::set_from_link(&state.ports, token, password).await {
        Ok(Some(_)) => page::render(
            visit,
            lang.pick("Contraseña guardada", "Password saved"),
            html! {
                p role="status" { (lang.pick(
                    "Tu contraseña está guardada y se han cerrado todas tus sesiones. Ya puedes entrar.",
                    "Your password is saved and every session of yours was signed out. You can sign in now."
                )) }
                p { a href="/sign-in" { (lang.pick("Entrar", "Sign in")) } }
            },
        ),
        Ok(None) => link_not_valid(visit),
        Err(e) => page::failure(lang, &e),
    }
}

/// What an invitation offers, to the person it was sent to: the account and
/// its owner, and how to take it.
fn offer_page(visit: &Visit, token: &str, offer: &Offer, leaving: Option<&str>) -> Response {
    let lang = visit.lang;
    let invitation = &offer.invitation;
    let next =
        url::form_urlencoded::byte_serialize(format!("/invitation?token={token}").as_bytes())
            .collect::<String>();
    let body = html! {
        p { (lang.pick("Te invitan a unirte a la cuenta", "You are invited to join the account")) " "
            strong { (offer.account_name) } " ("
            (lang.pick("propietario: ", "owner: ")) (invitation.invited_by) "). "
            (lang.pick("La invitación es para ", "The invitation is for ")) strong { (invitation.email) } "." }
        @match visit.signed_in() {
            None => {
                p { (lang.pick(
                    "Para aceptarla, entra con esa dirección (o crea una cuenta con ella y confírmala) y vuelve a abrir este enlace.",
                    "To accept it, sign in with that address (or create an account with it and confirm it), then open this link again."
                )) }
                p { a href={ "/sign-in?next=" (next) } { (lang.pick("Entrar", "Sign in")) } }
                p { a href="/sign-up" { (lang.pick("Crear una cuenta", "Create an account")) } }
            }
            Some(session) if session.person.email != invitation.email => {
                p role="alert" class="error" { (lang.pick(
                    "Has entrado con otra dirección. Sal y entra con la dirección a la que se envió la invitación.",
                    "You are signed in with another address. Sign out and sign in with the address the invitation was sent to."
                )) }
            }
            Some(_) => {
                @if let Some(leaving) = leaving {
                    p { (lang.pick("Dejarás la cuenta ", "You will leave the account ")) strong { (leaving) }
                        (lang.pick(
                            ": sus datos y claves se quedan como están, pero ya no entrarás en ella.",
                            ": its data and keys stay as they are, but you will no longer sign in to it."
                        )) }
                }
                form method="post" action="/invitation" {
                    (csrf_field(visit))
                    input type="hidden" name="token" value=(token);
                    button type="submit" { (lang.pick("Unirme a ", "Join ")) (offer.account_name) }
                }
            }
        }
    };
    page::render(visit, lang.pick("Invitación", "Invitation"), body)
}

pub async fn invitation_form(
    State(state): State<AppState>,
    visit: Visit,
    Query(query): Query<Token>,
) -> Response {
    let token = query.token.unwrap_or_default();
    let offer = match invitations::offer(&state.ports, &token).await {
        Ok(Some(offer)) => offer,
        Ok(None) => return link_not_valid(&visit),
        Err(e) => return page::failure(visit.lang, &e),
    };
    let leaving = match visit.signed_in() {
        Some(session) if session.person.account_id != offer.invitation.account_id => {
            match crate::app::accounts::get(&state.ports, &session.person.account_id).await {
                Ok(account) => Some(account.name),
                Err(e) => return page::failure(visit.lang, &e),
            }
        }
        _ => None,
    };
    offer_page(&visit, &token, &offer, leaving.as_deref())
}

pub async fn invitation_submit(State(state): State<AppState>, form: Submitted) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let Some(session) = visit.signed_in() else {
        return see_other(visit, "/sign-in", Vec::new());
    };
    let refusal = match invitations::accept(&state.ports, &session.person, form.text("token")).await
    {
        Ok(_) => return see_other(visit, "/", Vec::new()),
        Err(InvitationError::NotFound) => return link_not_valid(visit),
        Err(InvitationError::WrongAddress) => lang.pick(
            "La invitación es para otra dirección: entra con la dirección a la que se envió.",
            "The invitation is for another address: sign in with the address it was sent to.",
        ),
        Err(InvitationError::AlreadyMember) => lang.pick(
            "Ya eres miembro de esa cuenta.",
            "You are a member of that account already.",
        ),
        Err(InvitationError::OwnerWithMembers) => lang.pick(
            "Eres propietario de una cuenta con miembros: quítalos antes de dejarla.",
            "You own an account with members: remove them before you leave it.",
        ),
        Err(
            e @ (InvitationError::NotOwner
            | InvitationError::Throttled(_)
            | InvitationError::Storage(_)),
        ) => {
            return page::failure(lang, &e);
        }
    };
    page::respond(
        visit,
        StatusCode::CONFLICT,
        lang.pick("Invitación", "Invitation"),
        html! { p role="alert" class="error" { (refusal) } },
    )
}

#[derive(Deserialize)]
pub struct Back {
    back: Option<String>,
}

/// `/lang/{code}?back=/path`: remembers the language and goes back.
pub async fn switch_language(
    visit: Visit,
    Path(code): Path<String>,
    Query(query): Query<Back>,
) -> Response {
    let lang = Lang::parse(&code).unwrap_or_default();
    let cookie = visit.lang_cookie(lang);
    see_other(&visit, &local_path(query.back.as_deref()), vec![cookie])
}
