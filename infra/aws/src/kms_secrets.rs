//! The KMS engine of the `Secrets` port: envelope encryption. Each value
//! gets a fresh data key from KMS (`GenerateDataKey`, AES-256) that seals it
//! with AES-GCM here; what is stored is the data key as KMS encrypted it and
//! the sealed value. Opening asks KMS to decrypt the data key, under the
//! same encryption context (`purpose` and the value's context), which the
//! key policy and the functions' IAM conditions can require. KMS alone
//! could not hold a certificate: it encrypts at most 4 KB directly.
//!
//! Each kind of value (`Kind`, told by its context) has a key and a purpose
//! of its own: certificates `SVC_KMS_KEY_ID` with `svc-certificate` (only
//! the roles that talk to the AEAT may decrypt), webhook signing secrets
//! `SVC_KMS_WEBHOOK_KEY_ID` with `svc-webhook-secret` (only the functions
//! that create, rotate, test or deliver webhooks may use it). An engine
//! without the key of a kind refuses its values.
//!
//! Stored form: `kms1.<base64 encrypted data key>.<base64 nonce‖ciphertext‖tag>`.

use async_trait::async_trait;
use aws_sdk_kms::Client;
use aws_sdk_kms::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::DataKeySpec;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use shared::ports::secrets::{Kind, Secrets, SecretsError, aead};
use zeroize::Zeroizing;

const PREFIX: &str = "kms1";
/// The encryption context's fixed member for certificates: the key policy
/// grants decryption for this purpose only.
pub const PURPOSE: &str = "svc-certificate";
/// The encryption context's fixed member for webhook signing secrets.
pub const WEBHOOK_SECRET_PURPOSE: &str = "svc-webhook-secret";

/// The purpose in the encryption context of values of `kind`.
pub fn purpose(kind: Kind) -> &'static str {
    match kind {
        Kind::Certificate => PURPOSE,
        Kind::WebhookSecret => WEBHOOK_SECRET_PURPOSE,
    }
}

/// The KMS keys (id, ARN or alias) an engine holds, one per kind; a kind
/// without one is refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KmsKeys {
    /// `SVC_KMS_KEY_ID`.
    pub certificates: Option<String>,
    /// `SVC_KMS_WEBHOOK_KEY_ID`.
    pub webhook_secrets: Option<String>,
}

impl KmsKeys {
    /// The key of `kind`, or the refusal that names its variable.
    fn of(&self, kind: Kind) -> Result<&str, SecretsError> {
        let (key, what, variable) = match kind {
            Kind::Certificate => (&self.certificates, "certificates", "SVC_KMS_KEY_ID"),
            Kind::WebhookSecret => (
                &self.webhook_secrets,
                "webhook signing secrets",
                "SVC_KMS_WEBHOOK_KEY_ID",
            ),
        };
        key.as_deref().ok_or_else(|| {
            SecretsError::WrongKey(format!(
                "this host holds no KMS key for {what} ({variable} is not set)"
            ))
        })
    }
}

pub struct KmsSecrets {
    client: Client,
    keys: KmsKeys,
}

impl KmsSecrets {
    /// The engine with `keys`, reached through the SDK's standard
    /// configuration (`AWS_ENDPOINT_URL[_KMS]` for an emulator).
    pub async fn from_env(keys: KmsKeys) -> KmsSecrets {
        let config = crate::sdk::config().await;
        KmsSecrets::new(Client::new(&config), keys)
    }

    pub fn new(client: Client, keys: KmsKeys) -> KmsSecrets {
        KmsSecrets { client, keys }
    }
}

/// An answer from KMS that says the data key is not this key's or not for
/// this context, or a failure of the service.
fn kms_error<E: ProvideErrorMetadata + std::error::Error + 'static>(
    err: SdkError<E>,
) -> SecretsError {
    let refused = matches!(
        err.code(),
        Some("InvalidCiphertextException" | "IncorrectKeyException" | "AccessDeniedException")
    );
    let text = DisplayErrorContext(&err).to_string();
    if refused {
        SecretsError::WrongKey(text)
    } else {
        SecretsError::Unavailable(text)
    }
}

/// A plaintext data key from KMS as an AES-256 key.
fn aes_key(plaintext: Option<&Blob>) -> Option<Zeroizing<[u8; 32]>> {
    let bytes: [u8; 32] = plaintext?.as_ref().try_into().ok()?;
    Some(Zeroizing::new(bytes))
}

fn damaged() -> SecretsError {
    SecretsError::WrongKey("not a value sealed with KMS by this service".into())
}

#[async_trait]
impl Secrets for KmsSecrets {
    async fn seal(&self, plaintext: &[u8], context: &str) -> Result<String, SecretsError> {
        let kind = Kind::of(context);
        let data_key = self
            .client
            .generate_data_key()
            .key_id(self.keys.of(kind)?)
            .key_spec(DataKeySpec::Aes256)
            .encryption_context("purpose", purpose(kind))
            .encryption_context("context", context)
            .send()
            .await
            .map_err(kms_error)?;
        let key = aes_key(data_key.plaintext())
            .ok_or_else(|| SecretsError::Unavailable("KMS gave no 256-bit data key".into()))?;
        let encrypted_key = data_key
            .ciphertext_blob()
            .ok_or_else(|| SecretsError::Unavailable("KMS gave no encrypted data key".into()))?;
        let sealed = aead::seal(&key, plaintext, context);
        Ok(format!(
            "{PREFIX}.{}.{}",
            STANDARD.encode(encrypted_key.as_ref()),
            STANDARD.encode(sealed)
        ))
    }

    async fn open(&self, sealed: &str, context: &str) -> Result<Zeroizing<Vec<u8>>, SecretsError> {
        let mut parts = sealed.splitn(3, '.');
        let (Some(PREFIX), Some(encrypted_key), Some(body)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(damaged());
        };
        let kind = Kind::of(context);
        let key_id = self.keys.of(kind)?;
        let encrypted_key = STANDARD.decode(encrypted_key).map_err(|_| damaged())?;
        let body = STANDARD.decode(body).map_err(|_| damaged())?;
        let data_key = self
            .client
            .decrypt()
            .key_id(key_id)
            .ciphertext_blob(Blob::new(encrypted_key))
            .encryption_context("purpose", purpose(kind))
            .encryption_context("context", context)
            .send()
            .await
            .map_err(kms_error)?;
        let key = aes_key(data_key.plaintext()).ok_or_else(damaged)?;
        aead::open(&key, &body, context).ok_or_else(|| {
            SecretsError::WrongKey("the sealed value is damaged or belongs to another owner".into())
        })
    }
}
