//! API keys: `svc_live_…` / `svc_test_…` followed by 192 random bits in hex.
//! Only the SHA-256 of a key is ever stored.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest, Sha256};

use super::account::Mode;

const SECRET_HEX_LEN: usize = 48;

/// A key as the client sends it. Deliberately not `Display`/`Debug`-printable
/// in full, so it cannot end up in a log by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    mode: Mode,
    secret: String,
}

impl ApiKey {
    pub fn generate(mode: Mode) -> Self {
        ApiKey {
            mode,
            secret: crate::ids::random_token(SECRET_HEX_LEN / 2),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The full key; to be shown once to its owner and never stored.
    /// The key's first characters, enough to tell it apart, not to use it.
    pub fn prefix(&self) -> String {
        format!("svc_{}_{}", self.mode.as_str(), &self.secret[..8])
    }

    pub fn reveal(&self) -> String {
        format!("svc_{}_{}", self.mode.as_str(), self.secret)
    }

    /// SHA-256 of the full key, in hex: what the table stores.
    pub fn hash(&self) -> String {
        hex::encode(Sha256::digest(self.reveal().as_bytes()))
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "svc_{}_***", self.mode.as_str())
    }
}

impl FromStr for ApiKey {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (mode, secret) = if let Some(rest) = s.strip_prefix("svc_live_") {
            (Mode::Live, rest)
        } else if let Some(rest) = s.strip_prefix("svc_test_") {
            (Mode::Test, rest)
        } else {
            return Err(());
        };
        let well_formed = secret.len() == SECRET_HEX_LEN
            && secret
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed {
            return Err(());
        }
        Ok(ApiKey {
            mode,
            secret: secret.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_round_trip_and_hash_stably() {
        let key = ApiKey::generate(Mode::Test);
        let shown = key.reveal();
        assert!(shown.starts_with("svc_test_"));
        assert_eq!(shown.len(), "svc_test_".len() + 48);
        let parsed: ApiKey = shown.parse().unwrap();
        assert_eq!(parsed.hash(), key.hash());
        assert_eq!(parsed.mode(), Mode::Test);
        assert_ne!(ApiKey::generate(Mode::Test).hash(), key.hash());
        assert!(!format!("{key:?}").contains(&shown[9..]));
    }

    #[test]
    fn malformed_keys_are_rejected() {
        let ok = format!("svc_live_{}", "a".repeat(48));
        assert!(ok.parse::<ApiKey>().is_ok());
        for bad in [
            "",
            "svc_live_",
            "sk_live_abc",
            &format!("svc_prod_{}", "a".repeat(48)),
            &format!("svc_live_{}", "A".repeat(48)),
            &format!("svc_live_{}", "a".repeat(47)),
            &format!("svc_live_{}", "g".repeat(48)),
        ] {
            assert!(bad.parse::<ApiKey>().is_err(), "{bad}");
        }
    }
}
