//! The web application: server-rendered pages (maud) where people sign up,
//! sign in, get their keys and manage their account. Every page calls the
//! same use cases as REST and MCP, as the signed-in person's account. `svc
//! serve` serves it beside the API; on AWS the `web` function serves every
//! path outside `/api/`.
//!
//! Protections: the session cookie is `HttpOnly`, `SameSite=Lax`, `Secure`
//! with the `__Host-` prefix on every host but loopback; every form carries a
//! CSRF token (`form.rs`) and every unsafe request's `Origin`/`Sec-Fetch-Site`
//! is checked (tower-http's `CsrfLayer`); every response has a CSP without
//! inline scripts, `frame-ancestors 'none'`, `Referrer-Policy`,
//! `X-Content-Type-Options`, and HSTS over HTTPS; only loopback and the
//! public hosts are answered (`http::hosts`).

mod analyses;
mod assets;
mod auth;
mod business;
mod customers;
mod developers;
mod expenses;
mod extraction;
mod form;
mod invoices;
mod keys;
mod local_path;
mod members;
mod overview;
mod page;
mod rest;
mod series;
mod taxes;
mod visit;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{Next, from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::csrf::CsrfLayer;

use crate::app::keys::Caller;
use crate::app::people::sessions::Session;
use crate::domain::account::{Account, Mode};
use crate::http::hosts::{check_host, is_loopback};
use crate::http::{AppState, observe};

const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// The application's routes with their protections.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(overview::show))
        .route(
            "/sign-up",
            get(auth::sign_up_form).post(auth::sign_up_submit),
        )
        .route("/verify", get(auth::verify))
        .route(
            "/sign-in",
            get(auth::sign_in_form).post(auth::sign_in_submit),
        )
        .route("/sign-out", post(auth::sign_out))
        .route("/sign-out-everywhere", post(auth::sign_out_everywhere))
        .route("/forgot", get(auth::forgot_form).post(auth::forgot_submit))
        .route("/reset", get(auth::reset_form).post(auth::reset_submit))
        .route(
            "/invitation",
            get(auth::invitation_form).post(auth::invitation_submit),
        )
        .route("/lang/{code}", get(auth::switch_language))
        .route("/developers/keys", get(keys::list).post(keys::create))
        .route("/developers/keys/{id}/revoke", post(keys::revoke))
        .route("/members", get(members::list).post(members::invite))
        .route("/members/{id}/remove", post(members::remove))
        .route(
            "/members/invitations/{id}/revoke",
            post(members::revoke_invitation),
        )
        .route("/business", get(business::view).post(business::save))
        .route("/business/certificate", post(business::upload))
        .route("/business/certificate/remove", post(business::remove))
        .route("/static/{name}", get(assets::serve))
        .merge(developers::routes())
        .merge(invoices::routes())
        .merge(customers::routes())
        .merge(expenses::routes(state.config.max_body_bytes))
        .merge(series::routes())
        .merge(extraction::routes(state.config.max_body_bytes))
        .merge(analyses::routes())
        .merge(taxes::routes())
        .fallback(not_found)
        .layer(axum::Extension(rest::Rest::new(state.clone())))
        .layer(CsrfLayer::new().with_rejection_response(|_| {
            (StatusCode::FORBIDDEN, "cross-origin form refused").into_response()
        }))
        .layer(CompressionLayer::new())
        .layer(from_fn(security_headers))
        .layer(from_fn_with_state(state.clone(), check_host))
        .layer(CatchPanicLayer::custom(observe::panic_response))
        .layer(from_fn(observe::observe))
        .with_state(state)
}

async fn not_found(visit: visit::Visit) -> Response {
    page::not_found(&visit)
}

/// The headers every response of the application carries.
async fn security_headers(req: Request, next: Next) -> Response {
    let https = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|host| !is_loopback(host));
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    // A response that set its own rules keeps them (the PDF preview may be
    // framed by this origin; Redoc, on the API reference, needs inline styles).
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(CSP));
    headers
        .entry(header::X_FRAME_OPTIONS)
        .or_insert(HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    if https {
        headers.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=63072000; includeSubDomains"),
        );
    }
    response
}

/// The mode a query or a form asks for (`live`, `test`); anything else is the default.
fn requested_mode(text: Option<&str>) -> Option<Mode> {
    text.and_then(|t| t.parse().ok())
}

/// The signed-in person's account, and the caller the operations see in the
/// mode `mode` asks for: live only on a plan with live keys (Pro, Max); by
/// default live where allowed, else test. The account is read through the
/// memo the API's authentication uses (a plan change shows within 2 s, as
/// for keys), saving a table read on every page. No session is a 404 page (the
/// routes that call it are behind sign-in), a storage failure a 500 page.
async fn acting(
    state: &AppState,
    visit: &visit::Visit,
    mode: Option<&str>,
) -> Result<(Account, Caller), Response> {
    let Some(session) = visit.signed_in() else {
        return Err(page::not_found(visit));
    };
    let account = crate::app::accounts::get_recent(&state.ports, &session.person.account_id)
        .await
        .map_err(|e| page::failure(visit.lang, &e))?;
    let live = account.plan.allows_live_keys() && requested_mode(mode) != Some(Mode::Test);
    let caller = caller(
        &account,
        session,
        if live { Mode::Live } else { Mode::Test },
    );
    Ok((account, caller))
}

/// `acting`'s caller alone.
async fn caller_for(
    state: &AppState,
    visit: &visit::Visit,
    mode: Option<&str>,
) -> Result<Caller, Response> {
    acting(state, visit, mode).await.map(|(_, caller)| caller)
}

/// A string of the API's JSON, or empty.
fn text(value: &serde_json::Value) -> &str {
    value.as_str().unwrap_or("")
}

/// The caller the use cases see for a signed-in person: their account, in
/// `mode`, named after the person rather than a key.
fn caller(account: &Account, session: &Session, mode: Mode) -> Caller {
    Caller {
        account_id: account.id.clone(),
        plan: account.plan,
        mode,
        key_id: format!("web_{}", session.person.id),
    }
}

/// One host's whole HTTP surface: the API (`/api/…` and the OAuth discovery
/// paths under `/.well-known/`) and the application on every other path.
/// Dispatched by prefix rather than by a route with a wildcard, which would
/// add its capture to the path parameters the API's handlers extract.
pub fn beside(api: Router, state: AppState) -> Router {
    let web = router(state);
    Router::new().fallback_service(tower::service_fn(move |req: Request| {
        let path = req.uri().path();
        let to_api =
            path == "/api" || path.starts_with("/api/") || path.starts_with("/.well-known/");
        let target = if to_api { api.clone() } else { web.clone() };
        target.oneshot(req)
    }))
}
