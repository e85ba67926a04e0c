//! `POST /api/v1/invoices/extract` with an AI model configured (a fake
//! OpenAI-compatible server): a proposed value printed in the document is
//! kept, one that is not is dropped with `ai_value_unsupported`; a failing
//! model only adds `ai_unavailable`; e-invoices and test keys never reach
//! the model.

use crate::fake_openai;
use crate::support;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use fake_openai::FakeOpenAi;
use serde_json::{Value, json};

use shared::adapters::openai_ai::OpenAiCompatible;
use shared::domain::account::Plan;
use shared::http::AppState;
use shared::ports::ai::AiSource;
use shared::ports::ai_contract::{FakeModel, Reply};
use support::{Harness, post_json, send};

const EXTRACT: &str = "/api/v1/invoices/extract";

/// An invoice whose number is only in a sentence, with no label a parser reads.
const TEXT: &str = "\
Talleres Ana, S.L.
CIF: B64717838
Le remitimos el documento DOC-7781 por los trabajos de octubre.
Fecha: 03/11/2026
Base imponible 200,00 €
IVA 21% 42,00 €
Total 242,00 €
";

async fn extract(h: &Harness, key: &str) -> Value {
    let body = json!({"texts": [{"name": "t", "text": TEXT}]});
    let r = send(&h.app, post_json(EXTRACT, key, None, &body.to_string())).await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json
}

/// The harness, and the same harness with the fake model as its AI source.
async fn harnesses() -> (Harness, Harness, FakeOpenAi) {
    let plain = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let mut with_ai = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let fake = FakeOpenAi::start().await;
    let timeout = Duration::from_secs(2);
    let extractor = Arc::new(OpenAiCompatible::new(&fake.url, "m", None, timeout).unwrap());
    let ports = with_ai
        .ports
        .clone()
        .with_ai(AiSource { extractor, timeout });
    with_ai.app = shared::http::service_router(AppState::new(ports, support::relaxed()));
    (plain, with_ai, fake)
}

fn warnings<'a>(invoice: &'a Value, code: &str) -> Vec<&'a str> {
    invoice["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == code)
        .map(|w| w["message"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_grounded_value_is_kept_and_an_ungrounded_one_dropped_with_a_warning() {
    let (plain, h, fake) = harnesses().await;
    let parser_only = extract(&plain, &plain.live).await["invoices"][0].clone();
    fake.reply(Reply::Answer(json!({
        "invoice_number": "DOC-7781",
        "recipient_nif": "B87654321",
    })));
    let invoice = extract(&h, &h.live).await["invoices"][0].clone();
    assert_eq!(invoice["invoice_number"], "DOC-7781", "{invoice}");
    assert_eq!(invoice["recipient_nif"], parser_only["recipient_nif"]);
    let unsupported = warnings(&invoice, "ai_value_unsupported");
    assert_eq!(unsupported.len(), 1, "{invoice}");
    assert!(
        unsupported[0].contains("recipient_nif") && unsupported[0].contains("B87654321"),
        "{}",
        unsupported[0]
    );
    if parser_only["invoice_number"].is_null() {
        let filled = warnings(&invoice, "ai_filled");
        assert!(
            filled.len() == 1 && filled[0].contains("invoice_number"),
            "{invoice}"
        );
        assert_eq!(invoice["confidence"]["invoice_number"], 0.7);
    }
    assert_eq!(invoice["source"], "text");
    assert_eq!(invoice["total"], parser_only["total"]);
    let (prompt, _) = fake.last_request().unwrap();
    assert!(prompt.contains("DOC-7781"), "the model read the text");
}

#[tokio::test]
async fn a_failing_model_leaves_the_parsers_reading_with_a_warning() {
    let (plain, h, fake) = harnesses().await;
    let parser_only = extract(&plain, &plain.live).await["invoices"][0].clone();
    for (reply, why) in [
        (Reply::Status(503), "falló"),
        (
            Reply::Delay(Duration::from_secs(5)),
            "no respondió a tiempo",
        ),
    ] {
        fake.reply(reply);
        let mut invoice = extract(&h, &h.live).await["invoices"][0].clone();
        let unavailable = warnings(&invoice, "ai_unavailable");
        assert!(
            unavailable.len() == 1 && unavailable[0].contains(why),
            "{invoice}"
        );
        let mut expected = parser_only.clone();
        for v in [&mut invoice, &mut expected] {
            v["warnings"] = json!(
                v["warnings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|w| w["code"] != "ai_unavailable")
                    .collect::<Vec<_>>()
            );
        }
        assert_eq!(invoice, expected);
    }
}

#[tokio::test]
async fn test_keys_never_reach_the_model() {
    let (_, h, fake) = harnesses().await;
    let found = extract(&h, &h.test).await;
    assert_eq!(found["livemode"], false);
    assert_eq!(fake.calls(), 0);
}

#[tokio::test]
async fn e_invoices_never_reach_the_model() {
    let (_, h, fake) = harnesses().await;
    let xml = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/facturae/one_rate.xml"
    ))
    .unwrap();
    let body = json!({"files": [{"name": "f.xml", "mime": "application/xml", "data": B64.encode(xml)}],
        "texts": [{"name": "t", "text": TEXT}]});
    let r = send(&h.app, post_json(EXTRACT, &h.live, None, &body.to_string())).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(
        r.json["invoices"][0]["source"], "einvoice:facturae",
        "{}",
        r.json
    );
    assert_eq!(fake.calls(), 1, "the text only");
}
