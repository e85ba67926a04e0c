//! The `AiExtractor` contract suite against the OpenAI-compatible adapter,
//! through the fake server in `fake_openai`.

use crate::fake_openai;

use std::time::Duration;

use fake_openai::FakeOpenAi;
use shared::adapters::openai_ai::OpenAiCompatible;
use shared::ports::ai_contract;

#[tokio::test]
async fn the_openai_compatible_adapter_passes_the_ai_contract() {
    let fake = FakeOpenAi::start().await;
    let timeout = Duration::from_secs(1);
    let ai =
        OpenAiCompatible::new(&fake.url, "test-model", Some("sk-test".into()), timeout).unwrap();
    ai_contract::run(&ai, &fake, timeout).await;
    assert!(fake.calls() > 10);
}

#[tokio::test]
async fn a_server_that_is_not_there_is_a_failure() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let ai = OpenAiCompatible::new(&url, "m", None, Duration::from_secs(1)).unwrap();
    let answer =
        shared::ports::ai::AiExtractor::propose(&ai, "Factura 1", &Default::default()).await;
    assert!(
        matches!(answer, Err(shared::ports::ai::AiError::Failed(_))),
        "{answer:?}"
    );
}
