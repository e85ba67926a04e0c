//! The application's way to run an operation: the REST route itself, called
//! in-process as the signed-in person's account (as the agent-tool endpoint
//! does), so validation, quota, idempotency, test mode and events are the
//! API's by construction. Its errors come back with the field they name, for
//! the form to show beside that field.

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use tower::ServiceExt;

use crate::app::keys::Caller;
use crate::http::AppState;
use crate::http::error::ApiError;

/// The REST routes inside authentication, built once per router.
#[derive(Clone)]
pub struct Rest(Router);

impl Rest {
    pub fn new(state: AppState) -> Self {
        Rest(crate::http::in_process(state))
    }

    /// Runs `method path` with a JSON `body` as `caller`; `idempotency` is
    /// the key a form carries so that a double submit runs once.
    pub async fn call(
        &self,
        caller: &Caller,
        method: Method,
        path: &str,
        body: Option<&Value>,
        idempotency: Option<&str>,
    ) -> Reply {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(key) = idempotency {
            builder = builder.header("idempotency-key", key);
        }
        let body = match body {
            Some(json) => {
                builder = builder.header(header::CONTENT_TYPE, "application/json");
                Body::from(serde_json::to_vec(json).expect("JSON serialises"))
            }
            None => Body::empty(),
        };
        let mut request = builder.body(body).expect("a request from a valid path");
        request.extensions_mut().insert(caller.clone());
        let response = self
            .0
            .clone()
            .oneshot(request)
            .await
            .unwrap_or_else(|e| match e {});
        let status = response.status();
        let headers = response.headers().clone();
        let error = response.extensions().get::<ApiError>().cloned();
        let bytes = to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        Reply {
            status,
            headers,
            error,
            bytes,
        }
    }

    pub async fn get(&self, caller: &Caller, path: &str) -> Reply {
        self.call(caller, Method::GET, path, None, None).await
    }
}

/// `collection/<id>` with the id percent-encoded, whatever a URL brought.
pub fn item_path(collection: &str, id: &str) -> String {
    format!("{collection}/{}", utf8_percent_encode(id, NON_ALPHANUMERIC))
}

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// The API's error, when the operation failed.
    pub error: Option<ApiError>,
    pub bytes: Bytes,
}

impl Reply {
    pub fn ok(&self) -> bool {
        self.status.is_success()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or(Value::Null)
    }

    /// A file the operation answered (a PDF, an XML, a kept document), passed
    /// on to the browser with its type and name, never cached.
    pub fn download(&self) -> Response {
        let mut response = (StatusCode::OK, self.bytes.clone()).into_response();
        let headers = response.headers_mut();
        for name in [header::CONTENT_TYPE, header::CONTENT_DISPOSITION] {
            if let Some(value) = self.headers.get(&name) {
                headers.insert(name, value.clone());
            }
        }
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
        response
    }

    /// The error's message and the field it names (`lines[0].vat_rate`), if any.
    pub fn problem(&self) -> super::page::Problem {
        if self.ok() {
            return None;
        }
        Some(match &self.error {
            Some(error) => (error.message.clone(), error.param.clone()),
            None => (format!("the operation answered {}", self.status), None),
        })
    }
}
