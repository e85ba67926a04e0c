//! The `Idempotency-Key` header value: 1 to 255 printable ASCII characters.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for IdempotencyKey {
    type Err = &'static str;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.is_empty() || s.len() > 255 {
            return Err("Idempotency-Key must be 1 to 255 characters long");
        }
        if !s.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
            return Err("Idempotency-Key may only contain printable ASCII characters");
        }
        Ok(IdempotencyKey(s.to_string()))
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_bounded_printable_ascii() {
        assert!("a".parse::<IdempotencyKey>().is_ok());
        assert!("x".repeat(255).parse::<IdempotencyKey>().is_ok());
        assert!("x".repeat(256).parse::<IdempotencyKey>().is_err());
        assert!("".parse::<IdempotencyKey>().is_err());
        assert!("tab\there".parse::<IdempotencyKey>().is_err());
        assert!("ñ".parse::<IdempotencyKey>().is_err());
    }
}
