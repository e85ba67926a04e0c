//! Signing secrets: `whsec_` and 32 random bytes in hex. The whole text is the
//! HMAC key. `Debug` never shows it, so a secret cannot reach a log by accident.

use std::fmt;

pub const PREFIX: &str = "whsec_";

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn generate() -> Self {
        Secret(format!("{PREFIX}{}", crate::ids::random_token(32)))
    }

    /// A secret as stored.
    pub fn from_stored(text: String) -> Self {
        Secret(text)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("whsec_[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_prefixed_random_and_never_debug_printed() {
        let a = Secret::generate();
        assert!(a.expose().starts_with(PREFIX));
        assert_eq!(a.expose().len(), PREFIX.len() + 64);
        assert_ne!(a, Secret::generate());
        assert!(!format!("{a:?}").contains(&a.expose()[PREFIX.len()..]));
    }
}
