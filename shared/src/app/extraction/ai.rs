//! The AI model as one more source for a document the parser has read (a
//! text PDF, an OCR reading, a text; never an e-invoice): its proposal is
//! grounded in the document's text and merged under the service's checks.
//! A model that fails or is late only adds the warning `ai_unavailable`.

use chrono::NaiveDate;

use crate::extraction::Fields;
use crate::extraction::TextDocument;
use crate::extraction::ai_merge::merge;
use crate::extraction::grounding::ground;
use crate::ports::ai::{AiError, AiHint, AiSource};
use crate::tax::nif::Nif;

/// The parser's `fields` for `document`, completed or corrected by the model.
pub async fn consult(
    ai: &AiSource,
    document: &TextDocument,
    mut fields: Fields,
    own_nif: Option<&Nif>,
    today: NaiveDate,
) -> Fields {
    let text = document.plain_text();
    let hint = AiHint {
        own_nif: own_nif.map(|n| n.as_str().to_string()),
    };
    let answer = tokio::time::timeout(ai.timeout, ai.extractor.propose(&text, &hint))
        .await
        .unwrap_or(Err(AiError::Timeout));
    match answer {
        Ok(proposal) => merge(fields, ground(&proposal, &text), today),
        Err(e) => {
            // The cause stays in the log: it may name the host's network.
            tracing::warn!(error = %e, "AI source unavailable");
            let why = match e {
                AiError::Timeout => "no respondió a tiempo",
                AiError::Failed(_) => "falló",
                AiError::Malformed(_) => "dio una respuesta inutilizable",
            };
            fields.notes.push((
                "ai_unavailable".to_string(),
                format!("El modelo de IA {why}; los campos son los del lector (ai_unavailable)"),
            ));
            fields
        }
    }
}
