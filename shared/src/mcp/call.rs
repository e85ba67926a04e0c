//! A tool call: its arguments made into the REST request of its operation,
//! run in-process on the REST routes as the authenticated caller, and the
//! answer made into the tool result (`structuredContent` + a summary, or an
//! `isError` sentence for the model).

use std::time::Instant;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Method, Request, StatusCode, header};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;
use tower::ServiceExt;

use super::catalogue::{IDEMPOTENCY_KEY, Output, RUN_AS_JOB, ToolSpec};
use super::{feedback, summary};
use crate::app::keys::Caller;
use crate::http::error::ApiError;

/// Arguments larger than this run as a job unless `run_as_job` says otherwise:
/// their work (OCR of several images, many rows) and result are large.
pub const AUTO_JOB_BYTES: usize = 1024 * 1024;

/// An argument that cannot be made into the request: (argument, problem).
pub type ArgumentError = (String, String);

pub async fn run(
    rest: &Router,
    spec: &ToolSpec,
    caller: Caller,
    args: JsonObject,
) -> CallToolResult {
    let started = Instant::now();
    let result = match request(spec, args) {
        Ok(mut req) => {
            req.extensions_mut().insert(caller);
            answer(
                spec,
                rest.clone()
                    .oneshot(req)
                    .await
                    .unwrap_or_else(|e| match e {}),
            )
            .await
        }
        Err((argument, problem)) => feedback::argument(spec, &argument, &problem),
    };
    tracing::info!(
        tool = spec.name,
        is_error = result.is_error.unwrap_or(false),
        latency_ms = started.elapsed().as_secs_f64() * 1000.0,
        "tool call"
    );
    result
}

fn request(spec: &ToolSpec, mut args: JsonObject) -> Result<Request<Body>, ArgumentError> {
    let path = fill_path(spec, &mut args)?;
    let idempotency_key = match args.remove(IDEMPOTENCY_KEY) {
        None | Some(Value::Null) => None,
        Some(Value::String(key)) => Some(key),
        Some(_) => return Err(must_be(IDEMPOTENCY_KEY, "a string")),
    };
    let as_job = if spec.output == Output::MaybeJob {
        let size = serde_json::to_vec(&args).map_or(0, |b| b.len());
        match args.remove(RUN_AS_JOB) {
            None | Some(Value::Null) => size > AUTO_JOB_BYTES,
            Some(Value::Bool(flag)) => flag,
            Some(_) => return Err(must_be(RUN_AS_JOB, "true or false")),
        }
    } else {
        false
    };
    let args: JsonObject = args
        .into_iter()
        .map(|(name, value)| {
            let rest_name = spec
                .renames
                .iter()
                .find(|(argument, _)| *argument == name)
                .map_or(name, |(_, rest)| rest.to_string());
            (rest_name, value)
        })
        .collect();
    let mut uri = path;
    let mut builder = Request::builder().method(spec.method.clone());
    let body = if spec.method == Method::GET {
        let query = query(spec, &args)?;
        if !query.is_empty() {
            uri = format!("{uri}?{query}");
        }
        Body::empty()
    } else {
        if as_job {
            uri.push_str("?async=true");
        }
        builder = builder.header(header::CONTENT_TYPE, "application/json");
        Body::from(serde_json::to_vec(&args).expect("a JSON object serialises"))
    };
    if let Some(key) = idempotency_key {
        builder = builder.header("idempotency-key", key);
    }
    builder
        .uri(uri)
        .body(body)
        .map_err(|e| (IDEMPOTENCY_KEY.to_string(), e.to_string()))
}

fn must_be(argument: &str, what: &str) -> ArgumentError {
    (argument.to_string(), format!("must be {what}"))
}

/// The path with its `{argument}` segment filled (and the argument used up).
fn fill_path(spec: &ToolSpec, args: &mut JsonObject) -> Result<String, ArgumentError> {
    let mut path = String::new();
    for segment in spec.path.split('/').skip(1) {
        path.push('/');
        match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            None => path.push_str(segment),
            Some(name) => {
                let value = match args.remove(name) {
                    Some(Value::String(s)) if !s.is_empty() => s,
                    Some(Value::Number(n)) => n.to_string(),
                    None | Some(Value::Null) => {
                        return Err((name.to_string(), "is required".to_string()));
                    }
                    Some(_) => return Err(must_be(name, "an id")),
                };
                path.extend(utf8_percent_encode(&value, NON_ALPHANUMERIC));
            }
        }
    }
    Ok(path)
}

/// GET arguments as query parameters: scalars as text, lists comma-separated.
fn query(spec: &ToolSpec, args: &JsonObject) -> Result<String, ArgumentError> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for (name, value) in args {
        let text = match value {
            Value::Null => continue,
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(must_be(&spec.argument(name), "a list of texts")),
                })
                .collect::<Result<Vec<_>, _>>()?
                .join(","),
            Value::Object(_) => {
                return Err(must_be(&spec.argument(name), "a text or a number"));
            }
        };
        query.append_pair(name, &text);
    }
    Ok(query.finish())
}

async fn answer(spec: &ToolSpec, response: axum::response::Response) -> CallToolResult {
    let status = response.status();
    if !status.is_success() {
        return match response.extensions().get::<ApiError>() {
            Some(error) => feedback::error(spec, error),
            None => feedback::error(
                spec,
                &ApiError::status(status, "error", format!("the operation answered {status}")),
            ),
        };
    }
    let body = match to_bytes(response.into_body(), usize::MAX).await {
        Ok(body) => body,
        Err(e) => return feedback::error(spec, &ApiError::internal(e.to_string())),
    };
    let mut value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(e) => return feedback::error(spec, &ApiError::internal(format!("answer: {e}"))),
    };
    if spec.output == Output::List {
        let next = next_cursor(&value);
        value[CURSOR_FIELD] = next.map_or(Value::Null, Value::String);
    }
    let text = if status == StatusCode::ACCEPTED {
        summary::job(&value)
    } else {
        (spec.summary)(&value)
    };
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text)];
    result
}

const CURSOR_FIELD: &str = "next_cursor";

/// The id of a page's last item when more follow: what `cursor` takes
/// (the REST `starting_after`).
fn next_cursor(page: &Value) -> Option<String> {
    if page["has_more"] != Value::Bool(true) {
        return None;
    }
    match &page["data"].as_array()?.last()?["id"] {
        Value::String(id) => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::catalogue::{CURSOR, find};
    use super::*;

    fn args(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn get_arguments_become_renamed_query_parameters() {
        let spec = find("fiscal_calendar").unwrap();
        let req = request(spec, args(json!({"forms": ["303", "130"], "lang": "en"}))).unwrap();
        assert_eq!(req.method(), Method::GET);
        assert_eq!(req.uri().path(), "/api/v1/tax/calendar");
        assert_eq!(req.uri().query(), Some("forms=303%2C130&lang=en"));
        let spec = find("list_invoices").unwrap();
        let req = request(spec, args(json!({CURSOR: "41", "limit": 2}))).unwrap();
        assert_eq!(req.uri().query(), Some("limit=2&starting_after=41"));
        let err = request(spec, args(json!({"status": {"a": 1}}))).unwrap_err();
        assert_eq!(err.0, "status");
    }

    #[test]
    fn path_arguments_fill_the_path_and_are_encoded() {
        let spec = find("get_invoice").unwrap();
        let req = request(spec, args(json!({"invoice_id": 7}))).unwrap();
        assert_eq!(req.uri().path(), "/api/v1/invoices/7");
        let spec = find("get_job").unwrap();
        let req = request(spec, args(json!({"job_id": "../usage"}))).unwrap();
        assert_eq!(req.uri().path(), "/api/v1/jobs/%2E%2E%2Fusage");
        assert_eq!(
            request(spec, args(json!({}))).unwrap_err(),
            ("job_id".to_string(), "is required".to_string())
        );
    }

    #[test]
    fn post_arguments_are_the_body_with_key_and_job_taken_out() {
        let spec = find("issue_invoice").unwrap();
        let req = request(spec, args(json!({IDEMPOTENCY_KEY: "k-1", "lines": []}))).unwrap();
        assert_eq!(req.headers()["idempotency-key"], "k-1");
        assert_eq!(req.uri().path(), "/api/v1/invoices");
        let spec = find("analyze").unwrap();
        let req = request(
            spec,
            args(json!({RUN_AS_JOB: true, "type": "cuestionario"})),
        )
        .unwrap();
        assert_eq!(req.uri().query(), Some("async=true"));
        let big = "x".repeat(AUTO_JOB_BYTES + 1);
        let req = request(spec, args(json!({"title": big}))).unwrap();
        assert_eq!(req.uri().query(), Some("async=true"));
        let req = request(spec, args(json!({"title": "t"}))).unwrap();
        assert_eq!(req.uri().query(), None);
        let err = request(spec, args(json!({RUN_AS_JOB: "yes"}))).unwrap_err();
        assert_eq!(err.0, RUN_AS_JOB);
    }

    #[test]
    fn the_cursor_is_the_last_id_of_a_page_with_more() {
        let page = json!({"object": "list", "data": [{"id": 9}, {"id": 8}], "has_more": true});
        assert_eq!(next_cursor(&page).as_deref(), Some("8"));
        let last = json!({"object": "list", "data": [{"id": "an_1"}], "has_more": false});
        assert_eq!(next_cursor(&last), None);
    }
}
