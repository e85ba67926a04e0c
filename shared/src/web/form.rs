//! A submitted form: its fields, after its CSRF token was checked against
//! the session's (or, before sign-in, against the double-submitted cookie).
//! A form without its token, or with another, is a 403 page. The browser's
//! `Origin` is checked before this, by the router's CSRF layer.

use std::collections::HashMap;

use axum::body::to_bytes;
use axum::extract::{FromRequest, FromRequestParts, Multipart, Request};
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

/// A file of a multipart form: the input's name, the file's name, its bytes.
pub struct PostedFile {
    pub field: String,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// A multipart form as sent: its text fields, its files (a file input left
/// empty sends none), and whether the body went over the limit (it then
/// ends early: what came after is missing, the CSRF token perhaps too).
#[derive(Default)]
pub struct Multiparted {
    fields: HashMap<String, String>,
    pub files: Vec<PostedFile>,
    pub over_limit: bool,
}

impl Multiparted {
    /// A text field's value, trimmed; empty when absent.
    pub fn text(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", |v| v.trim())
    }
}

pub async fn read_multipart(mut multipart: Multipart) -> Multiparted {
    let mut form = Multiparted::default();
    loop {
        let part = match multipart.next_field().await {
            Ok(Some(part)) => part,
            Ok(None) => break,
            Err(_) => {
                form.over_limit = true;
                break;
            }
        };
        let field = part.name().unwrap_or_default().to_string();
        let file_name = part.file_name().map(str::to_string);
        let Ok(bytes) = part.bytes().await else {
            form.over_limit = true;
            break;
        };
        match file_name {
            Some(name) if name.is_empty() && bytes.is_empty() => {}
            Some(name) => form.files.push(PostedFile {
                field,
                name,
                bytes: bytes.to_vec(),
            }),
            None => {
                form.fields
                    .insert(field, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    form
}
