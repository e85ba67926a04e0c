//! The `Secrets` contract suite against KMS (moto in `bash .ci/run`), each
//! kind of secret under its own key and purpose (a webhook signing secret
//! never opens through the certificates' key or purpose), and
//! `template.yaml`'s certificates key: only the roles that talk to the AEAT
//! (the submitter's, and the API's questions') may decrypt, and only
//! certificates (the encryption context's purpose).

mod support;

use std::sync::Arc;

use aws_sdk_kms::error::ProvideErrorMetadata;
use aws_sdk_kms::primitives::Blob;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use infra_aws::kms_secrets::{PURPOSE, WEBHOOK_SECRET_PURPOSE};
use infra_aws::{KmsKeys, KmsSecrets};
use serde_norway::Value;
use shared::ports::Secrets;
use shared::ports::secrets::SecretsError;
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

fn keys(certificates: Option<&str>, webhook_secrets: Option<&str>) -> KmsKeys {
    KmsKeys {
        certificates: certificates.map(String::from),
        webhook_secrets: webhook_secrets.map(String::from),
    }
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
        Arc::new(KmsSecrets::from_env(keys(Some(&one), None)).await),
        Arc::new(KmsSecrets::from_env(keys(Some(&other), None)).await),
    )
    .await;
}

/// The encrypted data key of a value sealed by `KmsSecrets`.
fn data_key(sealed: &str) -> Vec<u8> {
    let encrypted = sealed.split('.').nth(1).expect("kms1.<data key>.<body>");
    STANDARD.decode(encrypted).unwrap()
}

fn refused<T: std::fmt::Debug>(result: Result<T, SecretsError>, naming: &str) {
    match result {
        Err(SecretsError::WrongKey(reason)) => assert!(reason.contains(naming), "{reason}"),
        other => panic!("not refused for want of {naming}: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_secrets_take_their_own_key_and_purpose() {
    if !support::emulator_of("KMS", "KMS webhook secrets") {
        return;
    }
    let config = infra_aws::sdk::config().await;
    let kms = aws_sdk_kms::Client::new(&config);
    let (certificates, webhooks) = (new_key(&kms).await, new_key(&kms).await);
    let engine = |c: Option<&str>, w: Option<&str>| KmsSecrets::new(kms.clone(), keys(c, w));
    let both = engine(Some(&certificates), Some(&webhooks));
    let context = "webhook-secret/acct_1#test/we_1";
    let secret = b"whsec_0123456789abcdef0123456789abcdef";

    let sealed = both.seal(secret, context).await.unwrap();
    assert_eq!(
        both.open(&sealed, context).await.unwrap().as_slice(),
        secret
    );
    // The functions that hold only the webhook secrets' key (webhooks,
    // deliveries) open it; another webhook's context does not.
    let webhooks_only = engine(None, Some(&webhooks));
    assert_eq!(
        webhooks_only
            .open(&sealed, context)
            .await
            .unwrap()
            .as_slice(),
        secret
    );
    assert!(matches!(
        webhooks_only
            .open(&sealed, "webhook-secret/acct_1#test/we_2")
            .await,
        Err(SecretsError::WrongKey(_))
    ));

    // The data key is the webhook key's, under the webhook purpose.
    let encrypted = data_key(&sealed);
    let decrypt = |key: &str, purpose: &str| {
        kms.decrypt()
            .key_id(key)
            .ciphertext_blob(Blob::new(encrypted.clone()))
            .encryption_context("purpose", purpose)
            .encryption_context("context", context)
            .send()
    };
    let opened = decrypt(&webhooks, WEBHOOK_SECRET_PURPOSE).await.unwrap();
    assert!(opened.key_id().unwrap().ends_with(&webhooks), "{opened:?}");
    // Not through the certificates' purpose (the one their key policy
    // grants decryption for), nor through the certificates' key.
    let through_purpose = decrypt(&webhooks, PURPOSE).await.unwrap_err();
    assert_eq!(
        through_purpose.code(),
        Some("InvalidCiphertextException"),
        "{through_purpose:?}"
    );
    let through_key = decrypt(&certificates, WEBHOOK_SECRET_PURPOSE)
        .await
        .unwrap_err();
    // KMS says IncorrectKeyException, moto AccessDeniedException.
    assert!(
        matches!(
            through_key.code(),
            Some("IncorrectKeyException" | "InvalidCiphertextException" | "AccessDeniedException")
        ),
        "{through_key:?}"
    );
    // An engine that would open webhook secrets with the certificates' key
    // cannot.
    let misconfigured = engine(None, Some(&certificates));
    assert!(matches!(
        misconfigured.open(&sealed, context).await,
        Err(SecretsError::WrongKey(_))
    ));

    // Certificates keep their key and purpose.
    let certificate = both
        .seal(b"-----BEGIN", "certificate/acct_1")
        .await
        .unwrap();
    let opened = kms
        .decrypt()
        .key_id(&certificates)
        .ciphertext_blob(Blob::new(data_key(&certificate)))
        .encryption_context("purpose", PURPOSE)
        .encryption_context("context", "certificate/acct_1")
        .send()
        .await
        .unwrap();
    assert!(opened.key_id().unwrap().ends_with(&certificates));

    // A function with one of the keys refuses the other kind, saying which
    // key it lacks.
    let certificates_only = engine(Some(&certificates), None);
    refused(
        certificates_only.seal(secret, context).await,
        "SVC_KMS_WEBHOOK_KEY_ID",
    );
    refused(
        certificates_only.open(&sealed, context).await,
        "SVC_KMS_WEBHOOK_KEY_ID",
    );
    refused(
        webhooks_only
            .seal(b"-----BEGIN", "certificate/acct_1")
            .await,
        "SVC_KMS_KEY_ID",
    );
    refused(
        webhooks_only.open(&certificate, "certificate/acct_1").await,
        "SVC_KMS_KEY_ID",
    );
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
