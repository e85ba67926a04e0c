//! What logs show in place of a value they must not carry (an issuer's NIF,
//! or a key holding one, such as a VERI*FACTU chain's): a short hash, the
//! same for the same value, so lines about one chain can still be matched.

use sha2::{Digest, Sha256};

/// The first 12 hex digits of the value's SHA-256.
pub fn short_hash(value: &str) -> String {
    let digest = Sha256::digest(value.as_bytes());
    hex::encode(&digest[..6])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_short_stable_and_hides_the_value() {
        let chain = "CHAIN#live#12345678Z";
        let hashed = short_hash(chain);
        assert_eq!(hashed.len(), 12);
        assert!(hashed.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(hashed, short_hash(chain));
        assert_ne!(hashed, short_hash("CHAIN#live#87654321X"));
        assert!(!hashed.contains("12345678"));
        // SHA-256("abc") starts ba7816bf8f01.
        assert_eq!(short_hash("abc"), "ba7816bf8f01");
    }
}
