//! The `Secrets` contract suite against KMS (moto in `bash .ci/run`), and
//! `template.yaml`'s key: only the submitter may decrypt, and only
//! certificates (the encryption context's purpose).

mod support;

use std::sync::Arc;

use infra_aws::KmsSecrets;
use infra_aws::kms_secrets::PURPOSE;
use serde_norway::Value;
use shared::ports::secrets_contract;

async fn new_key(kms: &aws_sdk_kms::Client) -> String {
    kms.create_key()
        .description("svc contract")
        .send()
        .await
        .expect("create a key")
        .key_metadata()
        .expect("its metadata")
        .key_id()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kms_engine_passes_the_secrets_contract() {
    if !support::emulator_of("KMS", "KMS contract suite") {
        return;
    }
    let config = infra_aws::sdk::config().await;
    let kms = aws_sdk_kms::Client::new(&config);
    let (one, other) = (new_key(&kms).await, new_key(&kms).await);
    secrets_contract::run(
        Arc::new(KmsSecrets::from_env(&one).await),
        Arc::new(KmsSecrets::from_env(&other).await),
    )
    .await;
}

fn template() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
        .unwrap();
    serde_norway::from_str(&text).unwrap()
}

#[test]
fn only_the_submitter_may_decrypt_and_only_certificates() {
    let template = template();
    let resources = template["Resources"].as_mapping().unwrap();
    assert_eq!(
        template["Resources"]["CertificatesKey"]["Type"].as_str(),
        Some("AWS::KMS::Key")
    );
    let mut decrypters = Vec::new();
    for (name, resource) in resources {
        let policies = serde_norway::to_string(&resource["Properties"]["Policies"]).unwrap();
        if policies.contains("kms:") {
            decrypters.push(name.as_str().unwrap().to_string());
        }
    }
    assert_eq!(decrypters, ["VerifactuFunction"]);
    let submitter = &template["Resources"]["VerifactuFunction"]["Properties"];
    let statement = submitter["Policies"][0]["Statement"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|s| s["Action"].as_str() == Some("kms:Decrypt"))
        .expect("a kms:Decrypt statement");
    assert_eq!(
        statement["Condition"]["StringEquals"]["kms:EncryptionContext:purpose"].as_str(),
        Some(PURPOSE)
    );
    let variables = &submitter["Environment"]["Variables"];
    assert!(!variables["SVC_KMS_KEY_ID"].is_null());
    assert!(!variables["SVC_AEAT_ENDPOINT"].is_null());
}
