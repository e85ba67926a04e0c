//! The page every screen is drawn in (head, navigation, language switch),
//! the form fields with their errors beside them, and the pages for what
//! went wrong.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::domain::account::Mode;
use crate::domain::lang::Lang;

use super::assets;
pub use super::local_path::{LocalPath, local_path};
use super::visit::Visit;

/// A page: `title` in the tab and as its heading, `body` under it.
pub fn render(visit: &Visit, title: &str, body: Markup) -> Response {
    respond(visit, StatusCode::OK, title, body)
}

/// A page with another status (a form sent back with its errors is 422).
pub fn respond(visit: &Visit, status: StatusCode, title: &str, body: Markup) -> Response {
    let lang = visit.lang;
    let markup = html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · svc" }
                link rel="stylesheet" href=(assets::PICO);
                link rel="stylesheet" href=(assets::APP_CSS);
                // htmx 2 under a CSP without inline styles or eval: its
                // indicator styles off, no eval (filters, hx-on) anywhere.
                meta name="htmx-config" content=r#"{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}"#;
                script src=(assets::HTMX) defer {}
                script src=(assets::APP_JS) defer {}
            }
            body {
                header { (navigation(visit)) }
                main {
                    h1 { (title) }
                    (body)
                }
                footer { (language_switch(visit)) }
            }
        }
    };
    let mut response = (status, markup).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    for cookie in visit.cookies_to_set() {
        headers.append(header::SET_COOKIE, cookie);
    }
    response
}

fn navigation(visit: &Visit) -> Markup {
    let lang = visit.lang;
    html! {
        nav aria-label=(lang.pick("Principal", "Main")) {
            ul { li { strong { a href="/" { "svc" } } } }
            @if let Some(session) = visit.signed_in() {
                ul {
                    li { a href="/" { (lang.pick("Resumen", "Overview")) } }
                    li { a href="/invoices" { (lang.pick("Facturas", "Invoices")) } }
                    li { a href="/customers" { (lang.pick("Clientes", "Customers")) } }
                    li { a href="/expenses" { (lang.pick("Gastos", "Expenses")) } }
                    li { a href="/extraction" { (lang.pick("Extracción", "Extraction")) } }
                    li { a href="/analyses" { (lang.pick("Análisis", "Analyses")) } }
                    li { a href="/taxes" { (lang.pick("Impuestos", "Taxes")) } }
                    li { a href="/business" { (lang.pick("Negocio", "Business")) } }
                    li { a href="/developers" { (lang.pick("Desarrolladores", "Developers")) } }
                    @if session.person.role.manages_account() {
                        li { a href="/members" { (lang.pick("Miembros", "Members")) } }
                    }
                    li {
                        form method="post" action="/sign-out" {
                            (csrf_field(visit))
                            button type="submit" { (lang.pick("Salir", "Sign out")) }
                        }
                    }
                }
            } @else {
                ul {
                    li { a href="/sign-in" { (lang.pick("Entrar", "Sign in")) } }
                    li { a href="/sign-up" { (lang.pick("Crear cuenta", "Sign up")) } }
                }
            }
        }
    }
}

fn language_switch(visit: &Visit) -> Markup {
    let back = url::form_urlencoded::byte_serialize(visit.path.as_bytes()).collect::<String>();
    html! {
        p {
            @match visit.lang {
                Lang::Es => a href={ "/lang/en?back=" (back) } lang="en" hreflang="en" { "English" },
                Lang::En => a href={ "/lang/es?back=" (back) } lang="es" hreflang="es" { "Español" },
            }
        }
    }
}

/// The live/test switch of a page whose operations run in either mode: both
/// modes as links to `path?mode=…`, the shown one marked; on a plan without
/// live keys, a line saying that every operation is in test mode.
pub fn mode_switch(lang: Lang, live_allowed: bool, mode: Mode, path: &str) -> Markup {
    let label = |each: Mode| match each {
        Mode::Live => lang.pick("Modo real", "Live mode"),
        Mode::Test => lang.pick("Modo de prueba", "Test mode"),
    };
    html! {
        @if live_allowed {
            nav aria-label=(lang.pick("Modo", "Mode")) {
                ul {
                    @for each in [Mode::Live, Mode::Test] {
                        li {
                            a href={ (path) "?mode=" (each.as_str()) } aria-current=[(each == mode).then_some("page")] {
                                @if each == mode { strong { (label(each)) } } @else { (label(each)) }
                            }
                        }
                    }
                }
            }
        } @else {
            p { (lang.pick(
                "Modo de prueba: el plan Mini no tiene modo real. Lo que ves aquí es lo que ven las claves de prueba.",
                "Test mode: the Mini plan has no live mode. What you see here is what test keys see."
            )) }
        }
    }
}

/// A number of the API's JSON as the page's language writes it (decimal
/// comma in Spanish): with `decimals` fixed, or as exact as sent without
/// trailing zeros; None when it is not a number.
pub fn number(lang: Lang, value: &Value, decimals: Option<u32>) -> Option<String> {
    let Value::Number(n) = value else {
        return None;
    };
    let text = n.to_string();
    let exact = text
        .parse::<Decimal>()
        .or_else(|_| Decimal::from_scientific(&text))
        .ok()?;
    let written = match decimals {
        Some(places) => format!("{:.*}", places as usize, exact.round_dp(places)),
        None => exact.normalize().to_string(),
    };
    Some(match lang {
        Lang::Es => written.replace('.', ","),
        Lang::En => written,
    })
}

/// The API's refusal of a form: its message and the field it names, if any
/// (`rest::Reply::problem`).
pub type Problem = Option<(String, Option<String>)>;

/// The refusal's message when it names `field`, to show beside it.
pub fn error_for<'a>(problem: &'a Problem, field: &str) -> Option<&'a str> {
    match problem {
        Some((message, Some(param))) if param == field => Some(message),
        _ => None,
    }
}

/// The refusal's message when it names no field the form `shows`, to show above it.
pub fn unplaced(problem: &Problem, shows: impl Fn(&str) -> bool) -> Option<&str> {
    let (message, param) = problem.as_ref()?;
    let placed = param.as_deref().is_some_and(shows);
    (!placed).then_some(message.as_str())
}

/// A number typed in a form as the API reads it: a decimal string with a
/// point (`50,00` → `"50.00"`).
pub fn typed_number(typed: &str) -> Value {
    Value::String(typed.trim().replace(',', "."))
}

/// An amount in euros with its cents (`1.234,5` → `1234,50 €`), or `—`.
pub fn euros(lang: Lang, value: &Value) -> String {
    number(lang, value, Some(2)).map_or_else(|| "—".into(), |n| format!("{n} €"))
}

/// A percentage as exact as sent (`21 %`), or `—`.
pub fn percent(lang: Lang, value: &Value) -> String {
    number(lang, value, None).map_or_else(|| "—".into(), |n| format!("{n} %"))
}

/// The hidden field every form carries.
pub fn csrf_field(visit: &Visit) -> Markup {
    html! { input type="hidden" name="_csrf" value=(visit.csrf()); }
}

/// One input with its label, and its error beside it when the form came back.
pub struct Field<'a> {
    pub label: &'a str,
    pub name: &'a str,
    pub kind: &'a str,
    pub value: &'a str,
    pub autocomplete: &'a str,
    pub error: Option<&'a str>,
}

impl Field<'_> {
    pub fn render(&self) -> Markup {
        let error_id = format!("{}-error", self.name);
        html! {
            label for=(self.name) {
                (self.label)
                input id=(self.name) name=(self.name) type=(self.kind) value=(self.value)
                    autocomplete=(self.autocomplete) required
                    aria-invalid=[self.error.map(|_| "true")]
                    aria-describedby=[self.error.map(|_| error_id.as_str())];
                @if let Some(error) = self.error {
                    small id=(error_id) class="error" { (error) }
                }
            }
        }
    }
}

/// An optional input with its label and, when the form came back, its error
/// beside it. Its id is its name with `[`, `]` and `.` made `-`
/// (`lines[0].vat_rate` → `lines-0--vat_rate`); numbers take any decimal.
pub fn input(label: &str, name: &str, kind: &str, value: &str, error: Option<&str>) -> Markup {
    let id = name.replace(['[', ']', '.'], "-");
    let error_id = format!("{id}-error");
    html! {
        label for=(id) {
            (label)
            input id=(id) name=(name) type=(kind) value=(value) step=[(kind == "number").then_some("any")]
                aria-invalid=[error.map(|_| "true")] aria-describedby=[error.map(|_| error_id.as_str())];
            @if let Some(error) = error { small id=(error_id) class="error" { (error) } }
        }
    }
}

/// The errors of a form sent back, by field name.
#[derive(Default)]
pub struct Errors(Vec<(&'static str, String)>);

impl Errors {
    pub fn add(&mut self, field: &'static str, message: impl Into<String>) {
        self.0.push((field, message.into()));
    }

    pub fn get(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, m)| m.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A 303 to `to`, setting `cookies` (and the visit's own). It takes only
/// what becomes a `LocalPath` (a `LocalPath`, or a text the caller built,
/// parsed on the way in), so its `Location` is always a valid path of this
/// origin and never a panic.
pub fn see_other<T>(visit: &Visit, to: &T, cookies: Vec<HeaderValue>) -> Response
where
    T: ?Sized,
    for<'a> &'a T: Into<LocalPath>,
{
    let mut response = (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, to.into().header_value())],
    )
        .into_response();
    for cookie in visit.cookies_to_set().into_iter().chain(cookies) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

pub fn not_found(visit: &Visit) -> Response {
    let lang = visit.lang;
    respond(
        visit,
        StatusCode::NOT_FOUND,
        lang.pick("No está aquí", "Not found"),
        html! {
            p { (lang.pick("Esta página no existe o no es de tu cuenta.", "This page does not exist or is not your account's.")) }
            p { a href="/" { (lang.pick("Volver al resumen", "Back to the overview")) } }
        },
    )
}

/// A form whose CSRF token is missing or stale.
pub fn forbidden(visit: &Visit) -> Response {
    let lang = visit.lang;
    respond(
        visit,
        StatusCode::FORBIDDEN,
        lang.pick("Formulario caducado", "Form expired"),
        html! {
            p { (lang.pick(
                "El formulario no llevaba su código de seguridad o ha caducado. Vuelve a la página, recárgala y envíalo otra vez.",
                "The form did not carry its security code, or it expired. Go back, reload the page and send it again."
            )) }
        },
    )
}

/// A 500 page for a failure of the service (storage unavailable, …), logged.
pub fn failure(lang: Lang, error: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %error, "web page failed");
    let markup = html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head { meta charset="utf-8"; title { "svc" } link rel="stylesheet" href=(assets::PICO); }
            body { main {
                h1 { (lang.pick("Algo ha fallado", "Something went wrong")) }
                p { (lang.pick("No hemos podido completar la petición. Inténtalo de nuevo en un momento.",
                    "We could not complete the request. Try again in a moment.")) }
            } }
        }
    };
    (StatusCode::INTERNAL_SERVER_ERROR, markup).into_response()
}
