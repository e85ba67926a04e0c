//! `ApiJson<T>`: the JSON body extractor every handler uses. Unknown fields are
//! rejected (400 `parameter_unknown`), wrong types name the field
//! (`parameter_invalid` with `param`), bad JSON gives its line and column.
//! `JsonBody` is its first half, the checked raw bytes, for bodies that a
//! domain parser reads itself.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use super::error::ApiError;

pub struct ApiJson<T>(pub T);

fn is_json(content_type: &str) -> bool {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

/// `missing field `x`` / `unknown field `x`, expected …` → `x`.
fn quoted_name(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// The dotted path of a named field; serde's path already ends with the name
/// of an unknown field, but not with the name of a missing one.
fn join(path: &str, name: &str) -> String {
    if path.is_empty() || path == "." {
        name.to_string()
    } else if path == name || path.ends_with(&format!(".{name}")) {
        path.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// The error for a field that is unknown, missing or of the wrong type,
/// from serde's message and the path to the field.
pub fn field_error(path: &str, message: &str) -> ApiError {
    let text = message.split(" at line").next().unwrap_or(message);
    if text.starts_with("unknown field") {
        let name = quoted_name(text).unwrap_or_default();
        return ApiError::invalid("parameter_unknown", format!("unknown parameter `{name}`"))
            .param(join(path, name));
    }
    if text.starts_with("missing field") {
        let name = quoted_name(text).unwrap_or_default();
        return ApiError::invalid(
            "parameter_missing",
            format!("missing required parameter `{name}`"),
        )
        .param(join(path, name));
    }
    let error = ApiError::invalid("parameter_invalid", text.to_string());
    if path.is_empty() || path == "." {
        error
    } else {
        error.param(path)
    }
}

pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let result: Result<T, _> = serde_path_to_error::deserialize(de);
    result.map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let message = inner.to_string();
        match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                ApiError::invalid(
                    "json_invalid",
                    format!(
                        "the body is not valid JSON: {} at line {} column {}",
                        message.split(" at line").next().unwrap_or(&message),
                        inner.line(),
                        inner.column()
                    ),
                )
            }
            _ => field_error(&path, &message),
        }
    })
}

/// The raw bytes of a JSON body, for handlers that parse it themselves: 415
/// when the body is not declared as JSON, 413 over the body limit.
pub struct JsonBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !is_json(content_type) {
            return Err(ApiError::status(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as JSON with `Content-Type: application/json`",
            )
            .param("Content-Type"));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::status(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body_too_large",
                    "the request body is too large",
                )
            } else {
                ApiError::invalid("body_unreadable", rejection.body_text())
            }
        })?;
        Ok(JsonBody(bytes))
    }
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonBody(bytes) = JsonBody::from_request(req, state).await?;
        parse(&bytes).map(ApiJson)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        amount: u32,
        lines: Vec<Line>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Line {
        quantity: u32,
    }

    fn err(json: &str) -> ApiError {
        parse::<Body>(json.as_bytes()).unwrap_err()
    }

    #[test]
    fn errors_name_the_parameter() {
        let e = err(r#"{"amount": "x", "lines": []}"#);
        assert_eq!(
            (e.code.as_str(), e.param.as_deref()),
            ("parameter_invalid", Some("amount"))
        );
        let e = err(r#"{"amount": 1, "lines": [{"quantity": -1}]}"#);
        assert_eq!(e.param.as_deref(), Some("lines[0].quantity"));
        let e = err(r#"{"amount": 1}"#);
        assert_eq!(
            (e.code.as_str(), e.param.as_deref()),
            ("parameter_missing", Some("lines"))
        );
        let e = err(r#"{"amount": 1, "lines": [{"quantity": 1, "qty": 2}]}"#);
        assert_eq!(
            (e.code.as_str(), e.param.as_deref()),
            ("parameter_unknown", Some("lines[0].qty"))
        );
    }

    #[test]
    fn syntax_errors_give_the_position() {
        let e = err("{\n  \"amount\": 1,,\n}");
        assert_eq!(e.code, "json_invalid");
        assert!(e.message.contains("line 2 column 15"), "{}", e.message);
        assert_eq!(err("").code, "json_invalid");
    }

    #[test]
    fn json_media_types_are_recognised() {
        assert!(is_json("application/json"));
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/merge-patch+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json(""));
    }
}
