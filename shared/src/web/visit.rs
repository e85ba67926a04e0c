//! What every page knows about the request it answers: the language, whether
//! the connection is HTTPS (every host but loopback), where the application
//! is served, the client's address, and the signed-in session if any.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use cookie::{Cookie, SameSite};

use crate::app::people::sessions::{self, Session};
use crate::domain::lang::Lang;
use crate::domain::one_time_secret;
use crate::http::AppState;
use crate::http::client_address::client_address;
use crate::http::edge::public_origin;
use crate::http::hosts::is_loopback;

use super::page;

const LANG_COOKIE: &str = "svc_lang";

pub struct Visit {
    pub lang: Lang,
    /// Served over HTTPS: cookies are `Secure` with the `__Host-` prefix.
    pub secure: bool,
    /// Where the application is served (`https://app.example.com`), for
    /// emailed links: the configured public origin, or on AWS the gateway's
    /// domain (`http::edge::public_origin`), never the request's `Host`.
    /// Empty where neither is known (a test router): links are then paths.
    pub base: String,
    /// The client's address, for sign-in throttling: the gateway's
    /// `sourceIp`, the trusted proxy's header, or the socket's peer
    /// (`http::client_address`); never a header the operator did not trust.
    pub client: String,
    /// The path and query of this request.
    pub path: String,
    pub session: Option<Session>,
    /// The remembered-device cookie (`app::people::devices`), if sent.
    pub device: Option<String>,
    /// The CSRF token of forms shown before sign-in (double-submitted with
    /// its cookie), and whether this response must set that cookie.
    pre_csrf: String,
    pre_csrf_is_new: bool,
}

impl Visit {
    /// The token this visit's forms carry.
    pub fn csrf(&self) -> &str {
        match &self.session {
            Some(session) => &session.csrf,
            None => &self.pre_csrf,
        }
    }

    /// Whether `token` is the one this visit's forms were given.
    pub fn csrf_matches(&self, token: &str) -> bool {
        let expected = match &self.session {
            Some(session) => session.csrf.as_str(),
            None if self.pre_csrf_is_new => return false,
            None => self.pre_csrf.as_str(),
        };
        one_time_secret::same(expected, token)
    }

    pub fn session_cookie_name(&self) -> &'static str {
        if self.secure {
            "__Host-svc_session"
        } else {
            "svc_session"
        }
    }

    pub fn device_cookie_name(&self) -> &'static str {
        if self.secure {
            "__Host-svc_device"
        } else {
            "svc_device"
        }
    }

    fn pre_csrf_cookie_name(secure: bool) -> &'static str {
        if secure {
            "__Host-svc_csrf"
        } else {
            "svc_csrf"
        }
    }

    /// A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS;
    /// `max_age` None is a session cookie, zero removes the cookie.
    pub fn cookie(
        &self,
        name: &'static str,
        value: &str,
        max_age: Option<cookie::time::Duration>,
    ) -> HeaderValue {
        let mut built = Cookie::build((name, value.to_string()))
            .http_only(true)
            .same_site(SameSite::Lax)
            .path("/")
            .secure(self.secure);
        if let Some(age) = max_age {
            built = built.max_age(age);
        }
        HeaderValue::from_str(&built.build().to_string()).expect("cookie values are ASCII")
    }

    /// The cookies this response must set whatever it is (the pre-session token).
    pub fn cookies_to_set(&self) -> Vec<HeaderValue> {
        if self.session.is_none() && self.pre_csrf_is_new {
            vec![self.cookie(
                Self::pre_csrf_cookie_name(self.secure),
                &self.pre_csrf,
                None,
            )]
        } else {
            Vec::new()
        }
    }

    pub fn signed_in(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The language cookie for `lang` (a year).
    pub fn lang_cookie(&self, lang: Lang) -> HeaderValue {
        self.cookie(
            LANG_COOKIE,
            lang.code(),
            Some(cookie::time::Duration::days(365)),
        )
    }
}

fn cookies(headers: &HeaderMap) -> impl Iterator<Item = Cookie<'static>> + '_ {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| Cookie::split_parse(v.to_string()).filter_map(Result::ok))
}

fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    cookies(headers)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_string())
}

/// The `Host` of a request (API Gateway and `svc serve` both send it).
pub fn host(parts: &Parts) -> String {
    parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase)
        .or_else(|| {
            parts
                .uri
                .authority()
                .map(|a| a.as_str().to_ascii_lowercase())
        })
        .unwrap_or_default()
}

fn language(headers: &HeaderMap) -> Lang {
    if let Some(lang) = cookie_value(headers, LANG_COOKIE).and_then(|c| Lang::parse(&c)) {
        return lang;
    }
    let accepted = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if accepted.starts_with("en") {
        Lang::En
    } else {
        Lang::Es
    }
}

impl FromRequestParts<AppState> for Visit {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let host = host(parts);
        let secure = !is_loopback(&host);
        let lang = language(&parts.headers);
        let base = public_origin(&state.config, &parts.extensions).unwrap_or_default();
        let session_name = if secure {
            "__Host-svc_session"
        } else {
            "svc_session"
        };
        let session = match cookie_value(&parts.headers, session_name) {
            Some(id) => sessions::resolve(&state.ports, &id)
                .await
                .map_err(|e| page::failure(lang, &e))?,
            None => None,
        };
        let existing = cookie_value(&parts.headers, Visit::pre_csrf_cookie_name(secure))
            .filter(|t| one_time_secret::well_formed(t));
        let pre_csrf_is_new = existing.is_none();
        let device = cookie_value(
            &parts.headers,
            if secure {
                "__Host-svc_device"
            } else {
                "svc_device"
            },
        );
        Ok(Visit {
            lang,
            secure,
            base,
            client: client_address(parts, state.config.trusted_proxy_header.as_ref()),
            path: parts
                .uri
                .path_and_query()
                .map_or("/".into(), |p| p.as_str().to_string()),
            session,
            device,
            pre_csrf: existing.unwrap_or_else(one_time_secret::generate),
            pre_csrf_is_new,
        })
    }
}

/// A visit with a signed-in person; anyone else is sent to sign in.
pub struct SignedIn(pub Visit, pub Session);

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let visit = Visit::from_request_parts(parts, state).await?;
        match visit.session.clone() {
            Some(session) => Ok(SignedIn(visit, session)),
            None => {
                let next =
                    url::form_urlencoded::byte_serialize(visit.path.as_bytes()).collect::<String>();
                Err(page::see_other(
                    &visit,
                    &format!("/sign-in?next={next}"),
                    Vec::new(),
                ))
            }
        }
    }
}
