//! The one contract test suite of the `AiExtractor` port. Every adapter runs
//! it against a fake model server of its own wire shape (the OpenAI-compatible
//! one in this crate's tests, Bedrock's Converse in `infra-aws`): the fake is
//! told what to answer next (`Reply`) and shows what it was asked.

use std::time::Duration;

use serde_json::{Value, json};

use super::ai::{AiError, AiExtractor, AiHint, Proposal, schema};

/// What a fake model server answers to the next requests.
#[derive(Clone, Debug)]
pub enum Reply {
    /// This JSON as the model's structured answer (the message content, or
    /// the tool's input).
    Answer(Value),
    /// This prose instead of a structured answer.
    Prose(String),
    /// This HTTP status with an error body.
    Status(u16),
    /// No answer for this long.
    Delay(Duration),
}

/// A fake model server the suite steers.
pub trait FakeModel: Send + Sync {
    fn reply(&self, reply: Reply);
    /// The user prompt and the JSON schema of the last request received.
    fn last_request(&self) -> Option<(String, Value)>;
}

const DOCUMENT: &str =
    "Reformas Ibéricas Martínez, S.L.\nCIF: B12345674\nFactura 2026/0147\nTotal 1.639,29 €";

/// Runs every contract check; `ai` gives up after `timeout`.
pub async fn run(ai: &dyn AiExtractor, fake: &dyn FakeModel, timeout: Duration) {
    proposes_what_the_model_read(ai, fake).await;
    malformed_answers_are_malformed(ai, fake).await;
    failures_are_failed_and_pass(ai, fake).await;
    late_answers_time_out(ai, fake, timeout).await;
}

async fn propose(ai: &dyn AiExtractor) -> Result<Proposal, AiError> {
    let hint = AiHint {
        own_nif: Some("12345678Z".into()),
    };
    ai.propose(DOCUMENT, &hint).await
}

async fn proposes_what_the_model_read(ai: &dyn AiExtractor, fake: &dyn FakeModel) {
    fake.reply(Reply::Answer(json!({
        "issuer_name": "Reformas Ibéricas Martínez, S.L.", "issuer_nif": "B12345674",
        "recipient_name": null, "recipient_nif": "12345678Z", "invoice_number": "2026/0147",
        "invoice_date": "05/08/2026", "base": "1.546,50", "vat_rate": 21, "vat_amount": "324,77",
        "irpf_rate": "15", "irpf_amount": "231,98", "total": 1639.29, "currency": "EUR",
        "due_date": null, "iban": null,
    })));
    let proposal = propose(ai).await.expect("a proposal");
    assert_eq!(
        proposal,
        Proposal {
            issuer_name: Some("Reformas Ibéricas Martínez, S.L.".into()),
            issuer_nif: Some("B12345674".into()),
            recipient_nif: Some("12345678Z".into()),
            invoice_number: Some("2026/0147".into()),
            invoice_date: Some("05/08/2026".into()),
            base: Some("1.546,50".into()),
            vat_rate: Some("21".into()),
            vat_amount: Some("324,77".into()),
            irpf_rate: Some("15".into()),
            irpf_amount: Some("231,98".into()),
            total: Some("1639.29".into()),
            currency: Some("EUR".into()),
            ..Proposal::default()
        }
    );
    let (prompt, sent_schema) = fake.last_request().expect("the fake saw the request");
    assert!(
        prompt.contains(DOCUMENT) && prompt.contains("12345678Z"),
        "{prompt}"
    );
    assert_eq!(sent_schema, schema());
    fake.reply(Reply::Answer(json!({"total": "12,00"})));
    let partial = propose(ai).await.expect("a partial proposal");
    assert_eq!(
        partial,
        Proposal {
            total: Some("12,00".into()),
            ..Proposal::default()
        }
    );
}

async fn malformed_answers_are_malformed(ai: &dyn AiExtractor, fake: &dyn FakeModel) {
    let replies = [
        Reply::Prose("The total is 1.639,29 €.".into()),
        Reply::Answer(json!(["B12345674"])),
        Reply::Answer(json!({"total": {"amount": 1639.29}})),
        Reply::Answer(json!({"issuer_name": "x".repeat(100_000)})),
    ];
    for reply in replies {
        fake.reply(reply.clone());
        match propose(ai).await {
            Err(AiError::Malformed(_)) => {}
            other => panic!("{reply:.80?}: expected Malformed, got {other:?}"),
        }
    }
}

async fn failures_are_failed_and_pass(ai: &dyn AiExtractor, fake: &dyn FakeModel) {
    for status in [400, 401, 429, 500, 503] {
        fake.reply(Reply::Status(status));
        match propose(ai).await {
            Err(AiError::Failed(_)) => {}
            other => panic!("HTTP {status}: expected Failed, got {other:?}"),
        }
    }
    fake.reply(Reply::Answer(json!({"invoice_number": "7"})));
    assert_eq!(
        propose(ai).await.expect("answers again").invoice_number,
        Some("7".into())
    );
}

async fn late_answers_time_out(ai: &dyn AiExtractor, fake: &dyn FakeModel, timeout: Duration) {
    fake.reply(Reply::Delay(timeout * 3));
    let started = std::time::Instant::now();
    assert_eq!(propose(ai).await, Err(AiError::Timeout));
    assert!(
        started.elapsed() < timeout * 2 + Duration::from_secs(1),
        "gave up after {:?}",
        started.elapsed()
    );
}
