//! Signing up, confirming the address, signing in and out, resetting the
//! password, accepting an invitation, and the language switch. The answers
//! never tell whether an address has an account.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;
use serde::Deserialize;

use crate::app::people::links::Purpose;
use crate::app::people::sign_in::{SignInError, sign_in};
use crate::app::people::sign_up::{SignUp, confirm, sign_up};
use crate::app::people::{password, sessions};
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
    if let Err(e) = sign_up(&state.ports, request, &visit.base).await {
        return page::failure(lang, &e);
    }
    check_your_email(visit, lang.pick(
        "Te hemos enviado un correo con un enlace para confirmar la dirección. Ábrelo y después entra.",
        "We have emailed you a link to confirm the address. Open it, then sign in.",
    ))
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
    match sign_in(&state.ports, email, form.raw("password"), &visit.client, &visit.base).await {
        Ok((secret, _)) => {
            let cookie = visit.cookie(visit.session_cookie_name(), &secret, Some(cookie::time::Duration::seconds(sessions::ABSOLUTE.num_seconds())));
            see_other(visit, &next, vec![cookie])
        }
        Err(SignInError::Invalid) => sign_in_page(visit, StatusCode::UNPROCESSABLE_ENTITY, email, &next, Some(lang.pick(
            "El correo o la contraseña no son correctos.",
            "The email or the password is not right.",
        ))),
        Err(SignInError::Throttled) => sign_in_page(visit, StatusCode::TOO_MANY_REQUESTS, email, &next, Some(lang.pick(
            "Demasiados intentos fallidos. Espera 15 minutos o cambia la contraseña desde «He olvidado mi contraseña».",
            "Too many failed attempts. Wait 15 minutes, or reset the password from “I forgot my password”.",
        ))),
        Err(SignInError::Unconfirmed) => sign_in_page(visit, StatusCode::FORBIDDEN, email, &next, Some(lang.pick(
            "Antes de entrar, confirma tu correo: te hemos enviado un enlace nuevo.",
            "Confirm your email before signing in: we have sent you a new link.",
        ))),
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
    if let Err(e) = password::request_reset(&state.ports, form.text("email"), &visit.base).await {
        return page::failure(visit.lang, &e);
    }
    check_your_email(visit, visit.lang.pick(
        "Si la dirección tiene una cuenta, le hemos enviado un enlace para cambiar la contraseña. Sirve durante una hora.",
        "If the address has an account, we have sent it a link to reset the password. It works for one hour.",
    ))
}

/// The form that sets a password from a reset or invitation link.
fn password_form(
    visit: &Visit,
    purpose: Purpose,
    token: &str,
    status: StatusCode,
    error: Option<&str>,
) -> Response {
    let lang = visit.lang;
    let (title, button) = match purpose {
        Purpose::Invite => (
            lang.pick("Acepta la invitación", "Accept the invitation"),
            lang.pick("Elegir contraseña y unirme", "Choose password and join"),
        ),
        _ => (
            lang.pick("Contraseña nueva", "New password"),
            lang.pick("Cambiar la contraseña", "Change the password"),
        ),
    };
    page::respond(
        visit,
        status,
        title,
        html! {
            form method="post" action=(purpose.path()) {
                (csrf_field(visit))
                input type="hidden" name="token" value=(token);
                (Field { label: lang.pick("Contraseña nueva (10 caracteres o más)", "New password (10 characters or more)"),
                    name: "password", kind: "password", value: "", autocomplete: "new-password", error }.render())
                button type="submit" { (button) }
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
            p { (lang.pick("El enlace ya se usó o ha caducado.", "The link was used already or has expired.")) }
            p { a href="/forgot" { (lang.pick("Pedir otro enlace", "Ask for another link")) } }
        },
    )
}

async fn link_form(
    state: &AppState,
    visit: Visit,
    purpose: Purpose,
    token: Option<String>,
) -> Response {
    let token = token.unwrap_or_default();
    match password::link_works(&state.ports, purpose, &token).await {
        Ok(true) => password_form(&visit, purpose, &token, StatusCode::OK, None),
        Ok(false) => link_not_valid(&visit),
        Err(e) => page::failure(visit.lang, &e),
    }
}

async fn link_submit(state: &AppState, form: Submitted, purpose: Purpose) -> Response {
    let visit = &form.visit;
    let lang = visit.lang;
    let token = form.text("token");
    let password = match Password::parse(form.raw("password")) {
        Ok(password) => password,
        Err(_) => {
            let error = lang.pick(
                "La contraseña necesita 10 caracteres o más (128 como mucho).",
                "The password needs 10 characters or more (128 at most).",
            );
            return password_form(
                visit,
                purpose,
                token,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(error),
            );
        }
    };
    match password::set_from_link(&state.ports, purpose, token, password, lang).await {
        Ok(Some(_)) => page::render(
            visit,
            lang.pick("Contraseña guardada", "Password saved"),
            html! {
                p role="status" { (lang.pick("Tu contraseña está guardada. Ya puedes entrar.", "Your password is saved. You can sign in now.")) }
                p { a href="/sign-in" { (lang.pick("Entrar", "Sign in")) } }
            },
        ),
        Ok(None) => link_not_valid(visit),
        Err(e) => page::failure(lang, &e),
    }
}

pub async fn reset_form(
    State(state): State<AppState>,
    visit: Visit,
    Query(query): Query<Token>,
) -> Response {
    link_form(&state, visit, Purpose::Reset, query.token).await
}

pub async fn reset_submit(State(state): State<AppState>, form: Submitted) -> Response {
    link_submit(&state, form, Purpose::Reset).await
}

pub async fn invitation_form(
    State(state): State<AppState>,
    visit: Visit,
    Query(query): Query<Token>,
) -> Response {
    link_form(&state, visit, Purpose::Invite, query.token).await
}

pub async fn invitation_submit(State(state): State<AppState>, form: Submitted) -> Response {
    link_submit(&state, form, Purpose::Invite).await
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
