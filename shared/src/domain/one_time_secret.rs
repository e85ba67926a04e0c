//! Secrets handed to a browser once (a session id, the token of an emailed
//! link): 256 random bits, of which only the SHA-256 is stored, so a copy of
//! the table signs nobody in.

use sha2::{Digest, Sha256};

/// The secret as the browser holds it: 64 hex digits.
pub fn generate() -> String {
    crate::ids::random_token(32)
}

/// What the table stores and is keyed by: the SHA-256 of the secret, in hex.
pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` has the shape `generate` gives, checked before any lookup.
pub fn well_formed(secret: &str) -> bool {
    secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Compares two strings in time that depends only on their lengths.
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_random_and_stored_as_digests() {
        let (a, b) = (generate(), generate());
        assert_ne!(a, b);
        assert!(well_formed(&a));
        assert!(!well_formed("abc") && !well_formed(&"g".repeat(64)));
        assert_eq!(digest(&a).len(), 64);
        assert_ne!(digest(&a), a);
        assert!(same(&a, &a.clone()) && !same(&a, &b) && !same("a", "ab"));
    }
}
