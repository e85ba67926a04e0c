//! The `AiExtractor` adapter for any OpenAI-compatible server (`SVC_AI_URL`:
//! a local model server, a hosted API): `POST {base}/v1/chat/completions`
//! with the proposal's JSON schema as a strict `response_format`, at
//! temperature 0, within a timeout, the answer read up to a bound.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::ports::ai::{
    AiError, AiExtractor, AiHint, INSTRUCTIONS, MAX_ANSWER_BYTES, MAX_OUTPUT_TOKENS, Proposal,
    TOOL_NAME, prompt, schema,
};

/// The largest HTTP response read: the answer plus the envelope.
const MAX_RESPONSE_BYTES: usize = 2 * MAX_ANSWER_BYTES;

pub struct OpenAiCompatible {
    client: reqwest::Client,
    endpoint: String,
    model: String,
    key: Option<String>,
}

impl OpenAiCompatible {
    /// The adapter for the server at `base_url` (with or without a trailing
    /// `/v1`), the model `model` and, when the server asks for one, the
    /// bearer key `key`; one call takes at most `timeout`.
    pub fn new(
        base_url: &str,
        model: &str,
        key: Option<String>,
        timeout: Duration,
    ) -> Result<Self, String> {
        super::tls::install();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("the AI model's HTTP client cannot start: {e}"))?;
        let base = base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        Ok(OpenAiCompatible {
            client,
            endpoint: format!("{base}/v1/chat/completions"),
            model: model.to_string(),
            key,
        })
    }

    fn request(&self, document_text: &str, hint: &AiHint) -> Value {
        json!({
            "model": self.model,
            "temperature": 0,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "messages": [
                {"role": "system", "content": INSTRUCTIONS},
                {"role": "user", "content": prompt(document_text, hint)},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": TOOL_NAME, "strict": true, "schema": schema()},
            },
        })
    }
}

fn failure(e: reqwest::Error) -> AiError {
    if e.is_timeout() {
        AiError::Timeout
    } else {
        AiError::Failed(crate::ports::with_causes(&e.without_url()))
    }
}

/// The body, or `Malformed` past `MAX_RESPONSE_BYTES`.
async fn bounded_body(mut response: reqwest::Response) -> Result<Vec<u8>, AiError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failure)? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_RESPONSE_BYTES {
            return Err(AiError::Malformed(format!(
                "the response is larger than {MAX_RESPONSE_BYTES} bytes"
            )));
        }
    }
    Ok(body)
}

/// The proposal in a chat-completions response body.
fn answer(body: &[u8]) -> Result<Proposal, AiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| AiError::Malformed(format!("the response is not JSON: {e}")))?;
    let choice = &value["choices"][0];
    let message = &choice["message"];
    if let Some(refusal) = message["refusal"].as_str() {
        return Err(AiError::Failed(format!("the model refused: {refusal}")));
    }
    if choice["finish_reason"] == "length" {
        return Err(AiError::Malformed(
            "the answer was cut at the token limit".into(),
        ));
    }
    let content = message["content"].as_str().ok_or_else(|| {
        AiError::Malformed("the response has no message content in choices[0]".into())
    })?;
    Proposal::from_json(content)
}

#[async_trait]
impl AiExtractor for OpenAiCompatible {
    async fn propose(&self, document_text: &str, hint: &AiHint) -> Result<Proposal, AiError> {
        let mut request = self
            .client
            .post(&self.endpoint)
            .json(&self.request(document_text, hint));
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(failure)?;
        let status = response.status();
        let body = bounded_body(response).await?;
        if !status.is_success() {
            let detail = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
            return Err(AiError::Failed(format!("HTTP {status}: {detail}")));
        }
        answer(&body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_takes_a_base_with_or_without_v1() {
        for base in ["http://localhost:8080", "http://localhost:8080/v1/"] {
            let ai = OpenAiCompatible::new(base, "m", None, Duration::from_secs(1)).unwrap();
            assert_eq!(ai.endpoint, "http://localhost:8080/v1/chat/completions");
        }
    }

    #[test]
    fn responses_without_a_usable_message_are_typed_errors() {
        let malformed = [
            "not json",
            r#"{"choices": []}"#,
            r#"{"choices": [{"finish_reason": "length", "message": {"content": "{"}}]}"#,
        ];
        for body in malformed {
            let got = answer(body.as_bytes());
            assert!(matches!(got, Err(AiError::Malformed(_))), "{body}: {got:?}");
        }
        let refused = answer(br#"{"choices": [{"message": {"refusal": "no"}}]}"#);
        assert!(matches!(refused, Err(AiError::Failed(_))), "{refused:?}");
        let content = br#"{"choices": [{"message": {"content": "{\"total\": \"1,00\"}"}}]}"#;
        assert_eq!(answer(content).unwrap().total.as_deref(), Some("1,00"));
    }
}
