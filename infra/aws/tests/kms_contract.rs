//! The `Secrets` contract suite against KMS (moto in `bash .ci/run`), and
//! `template.yaml`'s key: only the roles that talk to the AEAT (the
//! submitter's, and the API's questions') may decrypt, and only
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
fn only_the_aeat_roles_may_decrypt_and_only_certificates() {
    let template = template();
    let resources = template["Resources"].as_mapping().unwrap();
    let key = &template["Resources"]["CertificatesKey"];
    assert_eq!(key["Type"].as_str(), Some("AWS::KMS::Key"));
    // The key's own policy says who decrypts (and denies everyone else, see
    // template_safety). One identity policy names KMS: the web function's,
    // which seals the certificates people upload (GenerateDataKey only).
    for (name, resource) in resources {
        let policies = serde_norway::to_string(&resource["Properties"]["Policies"]).unwrap();
        if name.as_str() == Some("WebFunction") {
            let actions: Vec<&str> = policies
                .match_indices("kms:")
                .map(|(at, _)| {
                    let rest = &policies[at..];
                    &rest[..rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '*'))
                        .unwrap_or(rest.len())]
                })
                .collect();
            assert!(
                actions
                    .iter()
                    .all(|a| *a == "kms:GenerateDataKey" || a.starts_with("kms:EncryptionContext")),
                "{actions:?}"
            );
        } else {
            assert!(!policies.contains("kms:"), "{name:?}");
        }
    }
    let decrypt: Vec<&Value> = key["Properties"]["KeyPolicy"]["Statement"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|s| s["Effect"].as_str() == Some("Allow"))
        .filter(|s| s["Action"].as_str() == Some("kms:Decrypt"))
        .collect();
    assert_eq!(decrypt.len(), 1, "{decrypt:?}");
    let principals: Vec<&str> = decrypt[0]["Principal"]["AWS"]
        .as_sequence()
        .expect("the decrypting principals")
        .iter()
        .map(|p| match p {
            Value::Tagged(tagged) => tagged.value.as_str().unwrap_or_default(),
            other => panic!("a decrypting principal is not a !GetAtt: {other:?}"),
        })
        .collect();
    assert_eq!(principals, ["VerifactuRole.Arn", "AeatRole.Arn"]);
    assert_eq!(
        decrypt[0]["Condition"]["StringEquals"]["kms:EncryptionContext:purpose"].as_str(),
        Some(PURPOSE)
    );
    // The submitter, and the function of the API's questions to the AEAT.
    for (function, role) in [
        ("VerifactuFunction", "VerifactuRole.Arn"),
        ("AeatFunction", "AeatRole.Arn"),
    ] {
        let properties = &template["Resources"][function]["Properties"];
        let Value::Tagged(tagged) = &properties["Role"] else {
            panic!("{function}'s role is not a !GetAtt");
        };
        assert_eq!(tagged.value.as_str(), Some(role));
        let variables = &properties["Environment"]["Variables"];
        assert!(!variables["SVC_KMS_KEY_ID"].is_null());
        assert!(!variables["SVC_AEAT_ENDPOINT"].is_null());
    }
}
