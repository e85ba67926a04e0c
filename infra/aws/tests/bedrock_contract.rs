//! The `AiExtractor` contract suite against the Bedrock adapter, through the
//! fake Converse endpoint in `fake_bedrock`.

mod fake_bedrock;
mod support;

use std::time::Duration;

use fake_bedrock::FakeBedrock;
use infra_aws::bedrock::BedrockAi;
use shared::ports::ai_contract;

const MODEL: &str = "eu.amazon.nova-lite-v1:0";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_passes_the_ai_contract() {
    let fake = FakeBedrock::start().await;
    support::use_fake("BEDROCK_RUNTIME", &fake.url);
    let timeout = Duration::from_secs(2);
    let ai = BedrockAi::from_env(MODEL, timeout).await;
    ai_contract::run(&ai, &fake, timeout).await;
    let models = fake.models();
    assert!(
        models.len() > 10 && models.iter().all(|m| m == MODEL),
        "{models:?}"
    );
}
