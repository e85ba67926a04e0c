//! A submitted form: its fields, after its CSRF token was checked against
//! the session's (or, before sign-in, against the double-submitted cookie).
//! A form without its token, or with another, is a 403 page. The browser's
//! `Origin` is checked before this, by the router's CSRF layer.

use std::collections::HashMap;

use axum::body::to_bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::response::Response;

use crate::http::AppState;

use super::page;
use super::visit::Visit;

/// The most bytes a form of the application may send (file uploads apart).
const MAX_FORM_BYTES: usize = 64 * 1024;

pub struct Submitted {
    pub visit: Visit,
    fields: HashMap<String, String>,
}

impl Submitted {
    /// A field's value, trimmed; empty when absent.
    pub fn text(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", |v| v.trim())
    }

    /// Every field as sent.
    pub fn fields(&self) -> &HashMap<String, String> {
        &self.fields
    }

    /// A field's value as typed (passwords keep their spaces).
    pub fn raw(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", String::as_str)
    }

    /// The idempotency key the form was drawn with (`_idem`); a form sent
    /// without one (not from the page) gets a fresh key and so no
    /// double-submit guard.
    pub fn idempotency_key(&self) -> String {
        match self.text("_idem") {
            "" => crate::ids::random_token(16),
            key => key.to_string(),
        }
    }
}

impl FromRequest<AppState> for Submitted {
    type Rejection = Response;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let (mut parts, body) = req.into_parts();
        let visit = Visit::from_request_parts(&mut parts, state).await?;
        let bytes = match to_bytes(body, MAX_FORM_BYTES).await {
            Ok(bytes) => bytes,
            Err(_) => {
                let mut response = page::forbidden(&visit);
                *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
                return Err(response);
            }
        };
        let fields: HashMap<String, String> =
            url::form_urlencoded::parse(&bytes).into_owned().collect();
        let token = fields.get("_csrf").map_or("", String::as_str);
        if !visit.csrf_matches(token) {
            tracing::warn!(path = %visit.path, "form refused: CSRF token missing or wrong");
            return Err(page::forbidden(&visit));
        }
        Ok(Submitted { visit, fields })
    }
}
