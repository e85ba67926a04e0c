//! The key of `SVC_SECRETS_KEY` (32 random bytes, hex), with which the
//! embedded host seals the issuers' certificates (`embedded::LocalSecrets`):
//! read by the configuration, used by the adapter, so it belongs to neither.

use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

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

    /// The key's bytes, for the cipher.
    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
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

#[cfg(test)]
mod tests {
    use super::*;

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
