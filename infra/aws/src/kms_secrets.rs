//! The KMS engine of the `Secrets` port: envelope encryption. Each value
//! gets a fresh data key from KMS (`GenerateDataKey`, AES-256) that seals it
//! with AES-GCM here; what is stored is the data key as KMS encrypted it and
//! the sealed value. Opening asks KMS to decrypt the data key, under the
//! same encryption context (`purpose` and the value's context), which the
//! key policy and the functions' IAM conditions can require. KMS alone
//! could not hold a certificate: it encrypts at most 4 KB directly.
//!
//! Stored form: `kms1.<base64 encrypted data key>.<base64 nonce‖ciphertext‖tag>`.

use async_trait::async_trait;
use aws_sdk_kms::Client;
use aws_sdk_kms::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::DataKeySpec;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use shared::ports::secrets::{Secrets, SecretsError, aead};
use zeroize::Zeroizing;

const PREFIX: &str = "kms1";
/// The encryption context's fixed member: IAM policies grant decryption for
/// this purpose only.
pub const PURPOSE: &str = "svc-certificate";

pub struct KmsSecrets {
    client: Client,
    key_id: String,
}

impl KmsSecrets {
    /// The key `key_id` (id, ARN or alias), reached through the SDK's
    /// standard configuration (`AWS_ENDPOINT_URL[_KMS]` for an emulator).
    pub async fn from_env(key_id: &str) -> KmsSecrets {
        let config = crate::sdk::config().await;
        KmsSecrets::new(Client::new(&config), key_id)
    }

    pub fn new(client: Client, key_id: impl Into<String>) -> KmsSecrets {
        KmsSecrets {
            client,
            key_id: key_id.into(),
        }
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
        let data_key = self
            .client
            .generate_data_key()
            .key_id(&self.key_id)
            .key_spec(DataKeySpec::Aes256)
            .encryption_context("purpose", PURPOSE)
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
        let encrypted_key = STANDARD.decode(encrypted_key).map_err(|_| damaged())?;
        let body = STANDARD.decode(body).map_err(|_| damaged())?;
        let data_key = self
            .client
            .decrypt()
            .key_id(&self.key_id)
            .ciphertext_blob(Blob::new(encrypted_key))
            .encryption_context("purpose", PURPOSE)
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
