//! The `AiExtractor` port: an AI model reads an invoice's text and proposes
//! its fields, as printed. Two adapters, both off unless configured: any
//! OpenAI-compatible server (`crate::adapters::openai_ai`) and Amazon Bedrock
//! (`infra_aws::bedrock`). A proposal is only a candidate set: the use case
//! keeps a value only when it is printed in the document
//! (`crate::extraction::grounding`), and the service's checks decide.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Longest document text sent to a model, in characters: the totals of a
/// long invoice are on its last page, so the text keeps its head and tail.
pub const MAX_DOCUMENT_CHARS: usize = 24_000;
/// Largest answer accepted from a model, in bytes.
pub const MAX_ANSWER_BYTES: usize = 32 * 1024;
/// Longest value of one proposed field, in characters.
pub const MAX_VALUE_CHARS: usize = 300;
/// The most tokens a model may write: a proposal is a few hundred.
pub const MAX_OUTPUT_TOKENS: u32 = 1024;
/// The name of the schema (OpenAI) or tool (Bedrock) the answer fills.
pub const TOOL_NAME: &str = "record_invoice";

/// What the model is told: read, do not compute or guess.
pub const INSTRUCTIONS: &str = "You read the text of one invoice (or receipt) and record its fields \
with the record_invoice schema. Copy every value exactly as it is printed in the text: amounts with \
their printed separators, dates as printed, tax ids as printed. Use null for anything not printed. \
Never compute, convert or guess a value. The issuer is the party that issued the invoice; the \
recipient is its customer.";

/// What the model proposes, each value a string as the model read it
/// (null when it found none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Proposal {
    #[serde(deserialize_with = "text")]
    pub issuer_name: Option<String>,
    #[serde(deserialize_with = "text")]
    pub issuer_nif: Option<String>,
    #[serde(deserialize_with = "text")]
    pub recipient_name: Option<String>,
    #[serde(deserialize_with = "text")]
    pub recipient_nif: Option<String>,
    #[serde(deserialize_with = "text")]
    pub invoice_number: Option<String>,
    #[serde(deserialize_with = "text")]
    pub invoice_date: Option<String>,
    #[serde(deserialize_with = "text")]
    pub base: Option<String>,
    #[serde(deserialize_with = "text")]
    pub vat_rate: Option<String>,
    #[serde(deserialize_with = "text")]
    pub vat_amount: Option<String>,
    #[serde(deserialize_with = "text")]
    pub irpf_rate: Option<String>,
    #[serde(deserialize_with = "text")]
    pub irpf_amount: Option<String>,
    #[serde(deserialize_with = "text")]
    pub total: Option<String>,
    #[serde(deserialize_with = "text")]
    pub currency: Option<String>,
    #[serde(deserialize_with = "text")]
    pub due_date: Option<String>,
    #[serde(deserialize_with = "text")]
    pub iban: Option<String>,
}

/// The proposal's field names, in schema order.
pub const FIELDS: [&str; 15] = [
    "issuer_name",
    "issuer_nif",
    "recipient_name",
    "recipient_nif",
    "invoice_number",
    "invoice_date",
    "base",
    "vat_rate",
    "vat_amount",
    "irpf_rate",
    "irpf_amount",
    "total",
    "currency",
    "due_date",
    "iban",
];

/// A string, a number (models write amounts as numbers despite the
/// schema) or null; a blank string is null.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct Text;
    impl Visitor<'_> for Text {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string, a number or null")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v.chars().count() > MAX_VALUE_CHARS {
                return Err(E::custom(format!(
                    "a value longer than {MAX_VALUE_CHARS} characters"
                )));
            }
            let v = v.trim();
            Ok((!v.is_empty()).then(|| v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(v.is_finite().then(|| v.to_string()))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Text)
}

impl Proposal {
    /// The proposal in a model's answer (a JSON object), bounded in size.
    pub fn from_json(answer: &str) -> Result<Proposal, AiError> {
        if answer.len() > MAX_ANSWER_BYTES {
            return Err(AiError::Malformed(format!(
                "the answer is larger than {MAX_ANSWER_BYTES} bytes"
            )));
        }
        let value: Value = serde_json::from_str(answer)
            .map_err(|e| AiError::Malformed(format!("the answer is not JSON: {e}")))?;
        Proposal::from_value(value)
    }

    /// The proposal in an already parsed answer (Bedrock's tool input).
    pub fn from_value(value: Value) -> Result<Proposal, AiError> {
        if !value.is_object() {
            return Err(AiError::Malformed("the answer is not a JSON object".into()));
        }
        serde_json::from_value(value)
            .map_err(|e| AiError::Malformed(format!("the answer does not fit the schema: {e}")))
    }
}

/// The JSON schema of a proposal: every field a string or null, all
/// required (OpenAI's strict mode asks for that), nothing else.
pub fn schema() -> Value {
    let described = |name: &str| match name {
        "issuer_nif" | "recipient_nif" => "tax id (NIF, CIF, NIE or EU VAT number) as printed",
        "invoice_date" | "due_date" => "date as printed",
        "base" => "taxable base amount as printed",
        "vat_rate" | "irpf_rate" => "percent as printed",
        "vat_amount" => "VAT amount as printed",
        "irpf_amount" => "IRPF withholding amount as printed",
        "total" => "invoice total as printed",
        "currency" => "ISO 4217 code of the printed currency",
        "iban" => "IBAN as printed",
        _ => "as printed",
    };
    let properties: serde_json::Map<String, Value> = FIELDS
        .iter()
        .map(|&name| {
            (
                name.to_string(),
                json!({"type": ["string", "null"], "description": described(name)}),
            )
        })
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": FIELDS,
        "additionalProperties": false,
    })
}

/// What the service knows that helps the model tell the parties apart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AiHint {
    /// The account's own tax id: the recipient of a purchase invoice, or
    /// the issuer of one of the account's own.
    pub own_nif: Option<String>,
}

/// The user message: the hint, then the document text, bounded
/// (`MAX_DOCUMENT_CHARS`, head and tail).
pub fn prompt(document_text: &str, hint: &AiHint) -> String {
    let mut out = String::new();
    if let Some(nif) = &hint.own_nif {
        out.push_str(&format!(
            "The tax id {nif} belongs to the account that sends this document.\n"
        ));
    }
    out.push_str("Invoice text:\n");
    let chars = document_text.chars().count();
    if chars <= MAX_DOCUMENT_CHARS {
        out.push_str(document_text);
    } else {
        let half = MAX_DOCUMENT_CHARS / 2;
        out.extend(document_text.chars().take(half));
        out.push_str("\n[…]\n");
        out.extend(document_text.chars().skip(chars - half));
    }
    out
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AiError {
    /// No answer in time.
    #[error("the AI model did not answer in time")]
    Timeout,
    /// The model's service refused or failed (connection, status, throttling).
    #[error("the AI model failed: {0}")]
    Failed(String),
    /// An answer that is not a proposal (not JSON, off the schema, too large).
    #[error("the AI model's answer is unusable: {0}")]
    Malformed(String),
}

#[async_trait]
pub trait AiExtractor: Send + Sync {
    async fn propose(&self, document_text: &str, hint: &AiHint) -> Result<Proposal, AiError>;
}

/// A configured model and how long the use case waits for it.
#[derive(Clone)]
pub struct AiSource {
    pub extractor: Arc<dyn AiExtractor>,
    /// The use case's bound on one proposal, whatever the adapter does.
    pub timeout: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_with_numbers_as_text_and_blanks_as_null() {
        let p = Proposal::from_json(
            r#"{"issuer_name": " Acme SL ", "total": 1639.29, "vat_rate": 21, "iban": "", "extra": 1}"#,
        )
        .unwrap();
        assert_eq!(p.issuer_name.as_deref(), Some("Acme SL"));
        assert_eq!(p.total.as_deref(), Some("1639.29"));
        assert_eq!(p.vat_rate.as_deref(), Some("21"));
        assert_eq!((p.iban, p.base), (None, None));
    }

    #[test]
    fn anything_else_is_malformed() {
        let long = format!(
            r#"{{"issuer_name": "{}"}}"#,
            "x".repeat(MAX_VALUE_CHARS + 1)
        );
        let huge = format!(r#"{{"issuer_name": "{}"}}"#, " ".repeat(MAX_ANSWER_BYTES));
        for answer in [
            "not json",
            "[1, 2]",
            r#"{"total": {"amount": 1}}"#,
            r#"{"total": [1]}"#,
            &long,
            &huge,
        ] {
            assert!(
                matches!(Proposal::from_json(answer), Err(AiError::Malformed(_))),
                "{answer:.40}"
            );
        }
    }

    #[test]
    fn the_schema_names_every_field_and_the_prompt_is_bounded() {
        let schema = schema();
        assert_eq!(schema["required"].as_array().unwrap().len(), FIELDS.len());
        assert_eq!(
            schema["properties"]["total"]["type"],
            json!(["string", "null"])
        );
        let hint = AiHint {
            own_nif: Some("12345678Z".into()),
        };
        let short = prompt("Factura 1", &hint);
        assert!(short.contains("12345678Z") && short.ends_with("Factura 1"));
        let long = format!("HEAD{}TAIL", "x".repeat(3 * MAX_DOCUMENT_CHARS));
        let bounded = prompt(&long, &AiHint::default());
        assert!(bounded.chars().count() < MAX_DOCUMENT_CHARS + 100);
        assert!(bounded.contains("HEAD") && bounded.ends_with("TAIL"));
    }
}
