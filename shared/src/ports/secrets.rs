//! Secrets at rest (the issuers' certificates, the webhooks' signing
//! secrets) as a port: `seal` encrypts a value bound to a context (whose it
//! is), `open` gives it back only under the same context. Adapters:
//! `embedded::LocalSecrets` (AES-256-GCM with `SVC_SECRETS_KEY`) and
//! `infra_aws::KmsSecrets` (a KMS data key per value, envelope encryption,
//! with a key of its own for each `Kind`). Both put the value through `aead`
//! below.

use async_trait::async_trait;
use zeroize::Zeroizing;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretsError {
    /// The value was sealed with another key, for another context, or
    /// altered; or the adapter holds no key for values of its `Kind`.
    #[error("the sealed value does not open with this key and context: {0}")]
    WrongKey(String),
    #[error("the secrets service is unavailable: {0}")]
    Unavailable(String),
}

/// What a sealed value is, told by its context: an adapter may seal each
/// kind with a key of its own, which only the functions that need that kind
/// may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An issuer's certificate (`certificate/<account>`), and any context
    /// that names no other kind.
    Certificate,
    /// A webhook's signing secret (`webhook-secret/<space>/<webhook>`).
    WebhookSecret,
}

impl Kind {
    /// How the contexts of webhook signing secrets begin.
    pub const WEBHOOK_SECRET_PREFIX: &str = "webhook-secret/";

    /// The kind of the value sealed for `context`.
    pub fn of(context: &str) -> Kind {
        if context.starts_with(Kind::WEBHOOK_SECRET_PREFIX) {
            Kind::WebhookSecret
        } else {
            Kind::Certificate
        }
    }
}

#[async_trait]
pub trait Secrets: Send + Sync {
    /// `plaintext` encrypted for `context`, as text to store.
    async fn seal(&self, plaintext: &[u8], context: &str) -> Result<String, SecretsError>;
    /// What `seal` was given, if `sealed` was made for `context` with this key.
    async fn open(&self, sealed: &str, context: &str) -> Result<Zeroizing<Vec<u8>>, SecretsError>;
}

/// AES-256-GCM with a random nonce: `nonce ‖ ciphertext ‖ tag`, with the
/// context as associated data.
pub mod aead {
    use aes_gcm::aead::{Aead, Generate, KeyInit, Payload};
    use aes_gcm::{Aes256Gcm, Nonce};
    use zeroize::Zeroizing;

    const NONCE_BYTES: usize = 12;

    pub fn seal(key: &[u8; 32], plaintext: &[u8], context: &str) -> Vec<u8> {
        let cipher = Aes256Gcm::new(key.into());
        let nonce = Nonce::generate();
        let sealed = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: context.as_bytes(),
                },
            )
            .expect("AES-GCM encrypts any length a process holds");
        let mut out = nonce.to_vec();
        out.extend(sealed);
        out
    }

    /// None when the key, the context or the bytes are not the sealed ones.
    pub fn open(key: &[u8; 32], sealed: &[u8], context: &str) -> Option<Zeroizing<Vec<u8>>> {
        if sealed.len() < NONCE_BYTES {
            return None;
        }
        let (nonce, body) = sealed.split_at(NONCE_BYTES);
        let cipher = Aes256Gcm::new(key.into());
        cipher
            .decrypt(
                &Nonce::try_from(nonce).ok()?,
                Payload {
                    msg: body,
                    aad: context.as_bytes(),
                },
            )
            .ok()
            .map(Zeroizing::new)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_value_opens_with_its_key_and_context_only() {
            let key = [7u8; 32];
            let sealed = seal(&key, b"secret", "acct_1");
            assert_eq!(open(&key, &sealed, "acct_1").unwrap().as_slice(), b"secret");
            assert!(open(&key, &sealed, "acct_2").is_none());
            assert!(open(&[8u8; 32], &sealed, "acct_1").is_none());
            let mut altered = sealed.clone();
            *altered.last_mut().unwrap() ^= 1;
            assert!(open(&key, &altered, "acct_1").is_none());
            assert!(open(&key, &sealed[..5], "acct_1").is_none());
            assert_ne!(
                seal(&key, b"secret", "acct_1"),
                sealed,
                "a fresh nonce each time"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn the_context_tells_the_kind_of_secret() {
        assert_eq!(
            Kind::of("webhook-secret/acct_1#test/we_1"),
            Kind::WebhookSecret
        );
        assert_eq!(Kind::of("certificate/acct_1"), Kind::Certificate);
        assert_eq!(Kind::of("acct_a"), Kind::Certificate);
        assert_eq!(Kind::of("certificate/webhook-secret/"), Kind::Certificate);
    }
}
