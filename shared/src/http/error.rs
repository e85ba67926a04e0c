//! The one error shape of the API:
//! `{"error": {"type", "code", "message", "param"?, "request_id"}}`.
//! Handlers and layers return `ApiError`; the observe layer adds the request id.

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::app::accounts::AccountError;
use crate::app::keys::AuthError;
use crate::ports::table::TableError;

/// The one message of every 500.
pub const INTERNAL_MESSAGE: &str =
    "an internal error occurred; retry the request, and tell us its request_id if it keeps failing";

#[derive(Clone, Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub code: String,
    pub message: String,
    pub param: Option<String>,
    pub headers: Vec<(HeaderName, String)>,
}

/// The error body as documented in OpenAPI.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"error": {"type": "invalid_request_error", "code": "parameter_invalid",
    "message": "invalid type: string \"abc\", expected a number", "param": "amount",
    "request_id": "req_5f2a9c0e41b7d3a8e6c1f0b2"}}))]
pub struct ErrorBody {
    pub error: ErrorObject,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorObject {
    /// `invalid_request_error`, `authentication_error`, `rate_limit_error`, `idempotency_error` or `api_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A stable, machine-readable code such as `api_key_missing` or `quota_exceeded`.
    pub code: String,
    /// A human-readable explanation.
    pub message: String,
    /// The request field, query parameter or header at fault, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The `Request-Id` of the response.
    pub request_id: String,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, code: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            kind,
            code: code.to_string(),
            message: message.into(),
            param: None,
            headers: Vec::new(),
        }
    }

    pub fn invalid(code: &str, message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            code,
            message,
        )
    }

    pub fn authentication(code: &str, message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            code,
            message,
        )
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "resource_missing",
            message,
        )
    }

    pub fn conflict(code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, "invalid_request_error", code, message)
    }

    /// 409 `concurrent_update`: the request kept losing races with others.
    pub fn concurrent_update() -> Self {
        Self::conflict(
            "concurrent_update",
            "the request kept losing races with concurrent requests; retry it",
        )
    }

    pub fn idempotency(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self::new(status, "idempotency_error", code, message)
    }

    pub fn too_many(code: &str, message: impl Into<String>, retry_after: i64) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            code,
            message,
        )
        .header(
            axum::http::header::RETRY_AFTER,
            retry_after.max(1).to_string(),
        )
    }

    pub fn status(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self::new(status, "invalid_request_error", code, message)
    }

    /// 500 `internal_error`. What went wrong is logged, never answered: it
    /// may hold an SDK's text, which can name roles, accounts and resources.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(error = %detail, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "api_error",
            "internal_error",
            INTERNAL_MESSAGE,
        )
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "api_error",
            "service_unavailable",
            message,
        )
    }

    pub fn param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    pub fn header(mut self, name: HeaderName, value: String) -> Self {
        self.headers.push((name, value));
        self
    }

    pub fn body(&self, request_id: &str) -> String {
        let mut error = json!({
            "type": self.kind,
            "code": self.code,
            "message": self.message,
            "request_id": request_id,
        });
        if let Some(param) = &self.param {
            error["param"] = json!(param);
        }
        json!({ "error": error }).to_string()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            self.body(""),
        )
            .into_response();
        for (name, value) in &self.headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                response.headers_mut().insert(name.clone(), value);
            }
        }
        response.extensions_mut().insert(self);
        response
    }
}

impl From<TableError> for ApiError {
    /// A write that kept losing races (`Conflict`) is 409; storage that
    /// cannot be reached is 503; anything else is a fault of ours.
    fn from(e: TableError) -> Self {
        if matches!(e, TableError::Conflict) {
            return ApiError::concurrent_update();
        }
        match e {
            TableError::Unavailable(_) => {
                tracing::error!(error = %e, "table error");
                ApiError::unavailable("storage is temporarily unavailable; retry the request")
            }
            e => ApiError::internal(e),
        }
    }
}

/// The realm of the `WWW-Authenticate` challenge of every 401.
pub const REALM: &str = "svc";

impl From<AuthError> for ApiError {
    /// A 401 carries the RFC 6750 challenge: bare when no key was sent,
    /// `error="invalid_token"` otherwise. It names no OAuth resource metadata:
    /// keys come from the application, and a client that saw metadata would
    /// start a login flow instead of asking for the key.
    fn from(e: AuthError) -> Self {
        let message = e.to_string();
        let error = match e {
            AuthError::Missing => ApiError::authentication(
                "api_key_missing",
                "no API key was sent; send it as `Authorization: Bearer <key>`",
            ),
            AuthError::Malformed => ApiError::authentication(
                "api_key_malformed",
                "the Authorization header must be `Bearer svc_live_…` or `Bearer svc_test_…`",
            ),
            AuthError::Unknown => ApiError::authentication("api_key_unknown", message),
            AuthError::Revoked => ApiError::authentication("api_key_revoked", message),
            AuthError::PlanRequired => ApiError::authentication(
                "api_plan_required",
                "live keys work on the Pro and Max plans; upgrade the plan or use a test key",
            ),
            AuthError::Storage(AccountError::Table(t)) => return t.into(),
            AuthError::Storage(other) => return ApiError::internal(other),
        };
        let challenge = if error.code == "api_key_missing" {
            format!("Bearer realm=\"{REALM}\"")
        } else {
            format!(
                "Bearer realm=\"{REALM}\", error=\"invalid_token\", error_description=\"{}\"",
                error.code
            )
        };
        error.header(axum::http::header::WWW_AUTHENTICATE, challenge)
    }
}
