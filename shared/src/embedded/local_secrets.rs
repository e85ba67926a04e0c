//! The `Secrets` port on one machine: AES-256-GCM under the key in
//! `SVC_SECRETS_KEY` (32 random bytes, hex). A sealed value names the key
//! it was sealed with (a short id, not the key), so opening it with another
//! key says so instead of failing vaguely.

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use zeroize::Zeroizing;

use crate::ports::secrets::{Secrets, SecretsError, aead};
use crate::secrets_key::SecretsKey;

const PREFIX: &str = "local1";

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
        let sealed = aead::seal(self.key.bytes(), plaintext, context);
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
        aead::open(self.key.bytes(), &bytes, context).ok_or_else(|| {
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
}
