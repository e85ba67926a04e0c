//! The `Secrets` port on one machine: AES-256-GCM under the key in
//! `SVC_SECRETS_KEY` (32 random bytes, hex). A sealed value names the key
//! it was sealed with (a short id, not the key), so opening it with another
//! key says so instead of failing vaguely.

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::ports::secrets::{Secrets, SecretsError, aead};

const PREFIX: &str = "local1";

/// The key of `SVC_SECRETS_KEY`, parsed.
#[derive(Clone)]
pub struct SecretsKey(Zeroizing<[u8; 32]>);

impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretsKey({})", self.id())
    }
}

impl PartialEq for SecretsKey {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for SecretsKey {}

impl SecretsKey {
    /// 64 hexadecimal digits.
    pub fn parse(raw: &str) -> Result<SecretsKey, String> {
        let bytes = Zeroizing::new(hex::decode(raw.trim()).map_err(|_| {
            "SVC_SECRETS_KEY must be 64 hexadecimal digits (32 random bytes); `svc secrets-key` prints a new one".to_string()
        })?);
        let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
            format!(
                "SVC_SECRETS_KEY has {} bytes; it must have 32 (64 hexadecimal digits); `svc secrets-key` prints a new one",
                bytes.len()
            )
        })?;
        Ok(SecretsKey(Zeroizing::new(key)))
    }

    /// A new random key, as `parse` reads it.
    pub fn generate() -> String {
        let mut key = Zeroizing::new([0u8; 32]);
        getrandom::fill(key.as_mut_slice()).expect("the system's random source");
        hex::encode(key.as_slice())
    }

    /// A short public name of the key (not derivable into it).
    pub fn id(&self) -> String {
        let digest = Sha256::new()
            .chain_update(b"svc secrets key id\0")
            .chain_update(self.0.as_slice())
            .finalize();
        hex::encode(&digest[..4])
    }
}

pub struct LocalSecrets {
    key: SecretsKey,
}

impl LocalSecrets {
    pub fn new(key: SecretsKey) -> Self {
        LocalSecrets { key }
    }
}

#[async_trait]
impl Secrets for LocalSecrets {
    async fn seal(&self, plaintext: &[u8], context: &str) -> Result<String, SecretsError> {
        let sealed = aead::seal(&self.key.0, plaintext, context);
        Ok(format!(
            "{PREFIX}.{}.{}",
            self.key.id(),
            STANDARD.encode(sealed)
        ))
    }

    async fn open(&self, sealed: &str, context: &str) -> Result<Zeroizing<Vec<u8>>, SecretsError> {
        let mut parts = sealed.splitn(3, '.');
        let (Some(PREFIX), Some(id), Some(body)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(SecretsError::WrongKey(
                "not a value sealed with SVC_SECRETS_KEY".into(),
            ));
        };
        if id != self.key.id() {
            return Err(SecretsError::WrongKey(format!(
                "sealed with another SVC_SECRETS_KEY (key id {id}; this key's id is {})",
                self.key.id()
            )));
        }
        let bytes = STANDARD
            .decode(body)
            .map_err(|_| SecretsError::WrongKey("the sealed value is damaged".into()))?;
        aead::open(&self.key.0, &bytes, context).ok_or_else(|| {
            SecretsError::WrongKey("the sealed value is damaged or belongs to another owner".into())
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ports::secrets_contract;

    #[tokio::test]
    async fn local_secrets_pass_the_secrets_contract() {
        let key = |k: &str| Arc::new(LocalSecrets::new(SecretsKey::parse(k).unwrap()));
        secrets_contract::run(key(&SecretsKey::generate()), key(&SecretsKey::generate())).await;
    }

    #[test]
    fn keys_are_64_hex_digits() {
        let key = SecretsKey::generate();
        assert_eq!(key.len(), 64);
        assert!(SecretsKey::parse(&key).is_ok());
        assert!(
            SecretsKey::parse("abc")
                .unwrap_err()
                .contains("64 hexadecimal")
        );
        assert!(
            SecretsKey::parse(&"ab".repeat(16))
                .unwrap_err()
                .contains("16 bytes")
        );
        let parsed = SecretsKey::parse(&key).unwrap();
        assert!(
            !format!("{parsed:?}").contains(&key[..16]),
            "Debug shows the id only"
        );
    }
}
