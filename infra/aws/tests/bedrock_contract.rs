//! The `AiExtractor` contract suite against the Bedrock adapter, through the
//! fake Converse endpoint in `fake_bedrock`.

mod fake_bedrock;

use std::time::Duration;

use fake_bedrock::FakeBedrock;
use infra_aws::bedrock::BedrockAi;
use shared::ports::ai_contract;

const MODEL: &str = "eu.amazon.nova-lite-v1:0";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_passes_the_ai_contract() {
    let fake = FakeBedrock::start().await;
    // SAFETY: this binary holds a single test, which sets these before the SDK reads them.
    unsafe {
        std::env::set_var("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", &fake.url);
        for (var, value) in [
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "eu-west-1"),
        ] {
            if std::env::var_os(var).is_none() {
                std::env::set_var(var, value);
            }
        }
    }
    let timeout = Duration::from_secs(2);
    let ai = BedrockAi::from_env(MODEL, timeout).await;
    ai_contract::run(&ai, &fake, timeout).await;
    let models = fake.models();
    assert!(
        models.len() > 10 && models.iter().all(|m| m == MODEL),
        "{models:?}"
    );
}
