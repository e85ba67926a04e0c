//! The `AiExtractor` port on Amazon Bedrock: the Converse API with one tool
//! whose input schema is the proposal's JSON schema, the tool forced
//! (`toolChoice`), so the model answers with the tool's input; the model id
//! (or inference profile) from `SVC_AI_BEDROCK_MODEL`, the region and
//! credentials from the AWS environment (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`
//! points it elsewhere, e.g. at a test's fake). No retries: the source is
//! optional, and a failed call only adds a warning to the extraction.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_bedrockruntime::Client;
use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::timeout::TimeoutConfig;
use aws_sdk_bedrockruntime::error::{DisplayErrorContext, SdkError};
use aws_sdk_bedrockruntime::operation::converse::{ConverseError, ConverseOutput};
use aws_sdk_bedrockruntime::types::{
    ContentBlock, ConversationRole, ConverseOutput as Reply, InferenceConfiguration, Message,
    SpecificToolChoice, StopReason, SystemContentBlock, Tool, ToolChoice, ToolConfiguration,
    ToolInputSchema, ToolSpecification,
};
use aws_smithy_types::{Document, Number};
use serde_json::Value;
use shared::ports::ai::{
    AiError, AiExtractor, AiHint, INSTRUCTIONS, MAX_ANSWER_BYTES, MAX_OUTPUT_TOKENS, Proposal,
    TOOL_NAME, prompt, schema,
};

pub struct BedrockAi {
    client: Client,
    model: String,
}

impl BedrockAi {
    /// The adapter for `model` from the standard AWS environment; one call
    /// takes at most `timeout`.
    pub async fn from_env(model: &str, timeout: Duration) -> Self {
        let shared = crate::sdk::config().await;
        let config = aws_sdk_bedrockruntime::config::Builder::from(&shared)
            .timeout_config(TimeoutConfig::builder().operation_timeout(timeout).build())
            .retry_config(RetryConfig::disabled())
            .build();
        BedrockAi {
            client: Client::from_conf(config),
            model: model.to_string(),
        }
    }
}

fn build_error(e: impl std::fmt::Display) -> AiError {
    AiError::Failed(format!("the Converse request cannot be built: {e}"))
}

fn tool_config() -> Result<ToolConfiguration, AiError> {
    let spec = ToolSpecification::builder()
        .name(TOOL_NAME)
        .description("Records the fields of the invoice, each as printed.")
        .input_schema(ToolInputSchema::Json(document(schema())))
        .build()
        .map_err(build_error)?;
    let choice = SpecificToolChoice::builder()
        .name(TOOL_NAME)
        .build()
        .map_err(build_error)?;
    ToolConfiguration::builder()
        .tools(Tool::ToolSpec(spec))
        .tool_choice(ToolChoice::Tool(choice))
        .build()
        .map_err(build_error)
}

/// JSON as the SDK's `Document`.
fn document(value: Value) -> Document {
    match value {
        Value::Null => Document::Null,
        Value::Bool(b) => Document::Bool(b),
        Value::Number(n) => Document::Number(match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Number::PosInt(u),
            (None, Some(i)) => Number::NegInt(i),
            _ => Number::Float(n.as_f64().unwrap_or(0.0)),
        }),
        Value::String(s) => Document::String(s),
        Value::Array(items) => Document::Array(items.into_iter().map(document).collect()),
        Value::Object(map) => Document::Object(
            map.into_iter()
                .map(|(k, v)| (k, document(v)))
                .collect::<HashMap<_, _>>(),
        ),
    }
}

/// The SDK's `Document` as JSON (a non-finite float becomes null).
fn json(doc: &Document) -> Value {
    match doc {
        Document::Null => Value::Null,
        Document::Bool(b) => Value::Bool(*b),
        Document::Number(Number::PosInt(u)) => Value::from(*u),
        Document::Number(Number::NegInt(i)) => Value::from(*i),
        Document::Number(Number::Float(f)) => {
            serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
        }
        Document::String(s) => Value::String(s.clone()),
        Document::Array(items) => Value::Array(items.iter().map(json).collect()),
        Document::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), json(v))).collect())
        }
    }
}

/// The proposal in the forced tool's input.
fn answer(output: &ConverseOutput) -> Result<Proposal, AiError> {
    if output.stop_reason() == &StopReason::MaxTokens {
        return Err(AiError::Malformed(
            "the answer was cut at the token limit".into(),
        ));
    }
    let Some(Reply::Message(message)) = output.output() else {
        return Err(AiError::Malformed("the response has no message".into()));
    };
    let input = message
        .content()
        .iter()
        .find_map(|block| match block {
            ContentBlock::ToolUse(tool) if tool.name() == TOOL_NAME => Some(tool.input()),
            _ => None,
        })
        .ok_or_else(|| AiError::Malformed(format!("the model did not use {TOOL_NAME}")))?;
    let value = json(input);
    if value.to_string().len() > MAX_ANSWER_BYTES {
        return Err(AiError::Malformed(format!(
            "the answer is larger than {MAX_ANSWER_BYTES} bytes"
        )));
    }
    Proposal::from_value(value)
}

fn error(e: SdkError<ConverseError>) -> AiError {
    match &e {
        SdkError::TimeoutError(_) => AiError::Timeout,
        SdkError::ServiceError(service)
            if matches!(service.err(), ConverseError::ModelTimeoutException(_)) =>
        {
            AiError::Timeout
        }
        _ => AiError::Failed(DisplayErrorContext(&e).to_string()),
    }
}

#[async_trait]
impl AiExtractor for BedrockAi {
    async fn propose(&self, document_text: &str, hint: &AiHint) -> Result<Proposal, AiError> {
        let message = Message::builder()
            .role(ConversationRole::User)
            .content(ContentBlock::Text(prompt(document_text, hint)))
            .build()
            .map_err(build_error)?;
        let output = self
            .client
            .converse()
            .model_id(&self.model)
            .system(SystemContentBlock::Text(INSTRUCTIONS.to_string()))
            .messages(message)
            .inference_config(
                InferenceConfiguration::builder()
                    .max_tokens(MAX_OUTPUT_TOKENS as i32)
                    .temperature(0.0)
                    .build(),
            )
            .tool_config(tool_config()?)
            .send()
            .await
            .map_err(error)?;
        answer(&output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_documents_convert_both_ways() {
        let value = serde_json::json!({"a": [1, -2, 2.5, "x", null, true], "b": {"c": "d"}});
        assert_eq!(json(&document(value.clone())), value);
        assert_eq!(json(&document(schema())), schema());
    }
}
