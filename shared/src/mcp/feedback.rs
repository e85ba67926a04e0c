//! A failed tool call as an `isError` result: the REST error in one
//! sentence for a model, naming the tool argument at fault and saying what
//! to do next.

use axum::http::StatusCode;
use rmcp::model::{CallToolResult, ContentBlock};

use super::catalogue::{self, IDEMPOTENCY_KEY, ToolSpec};
use crate::http::error::ApiError;

fn result(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// An argument that could not be made into a request.
pub fn argument(spec: &ToolSpec, argument: &str, problem: &str) -> CallToolResult {
    result(format!(
        "The `{argument}` argument {problem}. Correct it and call {} again.",
        spec.name
    ))
}

/// The REST error of the tool's operation.
pub fn error(spec: &ToolSpec, error: &ApiError) -> CallToolResult {
    result(sentence(spec, error))
}

fn sentence(spec: &ToolSpec, error: &ApiError) -> String {
    let argument = match (&error.param, error.status) {
        (Some(param), _) => Some(spec.argument(param)),
        (None, StatusCode::NOT_FOUND) => spec.path_argument().map(str::to_string),
        (None, _) => None,
    };
    let message = capitalised(error.message.trim_end_matches('.'));
    let tool = spec.name;
    let next = match (error.status, error.code.as_str()) {
        (_, "quota_exceeded") => "Tell the user the daily quota is used up; do not retry before it resets (get_usage shows it).".to_string(),
        (_, "idempotency_key_reused") => format!(
            "This `{IDEMPOTENCY_KEY}` was already used for a different call: make up a new one for a new invoice, and reuse a key only to retry the very same call."
        ),
        (_, "idempotency_key_in_use") => format!(
            "The first call with this `{IDEMPOTENCY_KEY}` is still running: call {tool} again in a few seconds with the same key."
        ),
        (_, "issuer_incomplete") => "The account owner must complete the issuer details in the application; this cannot be fixed with tools.".to_string(),
        (_, "invalid_state") => "Call get_invoice to see the invoice's current status before doing anything else with it.".to_string(),
        (StatusCode::NOT_FOUND, _) => match argument.as_deref() {
            Some("job_id") => "Jobs are kept 24 hours after they finish: run the work again if it is gone.".to_string(),
            Some("analysis_id") => "Check `analysis_id`: list_analyses gives the ids of this account.".to_string(),
            Some("invoice_id") => "Check `invoice_id`: list_invoices gives the ids of this account (test and live keys see different invoices).".to_string(),
            _ => format!("Check the arguments of {tool}."),
        },
        (StatusCode::PAYLOAD_TOO_LARGE, _) => format!(
            "Split the work into smaller {tool} calls (fewer or smaller files, fewer rows)."
        ),
        (status, _) if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS => format!(
            "This is a temporary problem of the service: call {tool} again in a moment{}.",
            if catalogue::takes(tool, IDEMPOTENCY_KEY) { " with the same idempotency_key" } else { "" }
        ),
        _ => match &argument {
            Some(argument) => format!("Correct the `{argument}` argument and call {tool} again."),
            None => format!("Correct the arguments and call {tool} again."),
        },
    };
    let at = argument.map_or(String::new(), |a| format!(" [argument `{a}`]"));
    format!("{message} ({code}){at}. {next}", code = error.code)
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::catalogue::find;
    use super::*;

    fn text(result: &CallToolResult) -> String {
        assert_eq!(result.is_error, Some(true));
        result.content[0].as_text().unwrap().text.clone()
    }

    #[test]
    fn a_bad_argument_is_named_by_its_tool_name() {
        let spec = find("list_invoices").unwrap();
        let e = ApiError::invalid("parameter_invalid", "starting_after must be a number")
            .param("starting_after");
        assert_eq!(
            text(&error(spec, &e)),
            "Starting_after must be a number (parameter_invalid) [argument `cursor`]. Correct the `cursor` argument and call list_invoices again."
        );
    }

    #[test]
    fn errors_say_what_to_do_next() {
        let get = find("get_invoice").unwrap();
        let missing = text(&error(
            get,
            &ApiError::not_found("no invoice 9").param("id"),
        ));
        assert!(missing.starts_with("No invoice 9 (resource_missing) [argument `invoice_id`]"));
        assert!(missing.contains("list_invoices"));
        let issue = find("issue_invoice").unwrap();
        let reused = ApiError::idempotency(
            StatusCode::UNPROCESSABLE_ENTITY,
            "idempotency_key_reused",
            "used",
        )
        .param("Idempotency-Key");
        assert!(text(&error(issue, &reused)).contains("[argument `idempotency_key`]"));
        let quota = ApiError::too_many(
            "quota_exceeded",
            "the daily quota of 10 units is used up",
            60,
        );
        assert!(text(&error(find("analyze").unwrap(), &quota)).contains("do not retry"));
        let down = ApiError::unavailable("storage is temporarily unavailable");
        assert!(text(&error(issue, &down)).contains("with the same idempotency_key"));
        assert_eq!(
            text(&argument(issue, "run_as_job", "must be true or false")),
            "The `run_as_job` argument must be true or false. Correct it and call issue_invoice again."
        );
    }
}
