//! Random identifiers and secrets, from the operating system's RNG.

/// `bytes` random bytes from the OS RNG, as lower-case hex.
pub fn random_token(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system RNG is unavailable");
    hex::encode(buf)
}

/// A new identifier of the given kind, e.g. `new_id("acct")` → `acct_1f0c…`.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_token(12))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_prefixed_and_distinct() {
        let a = new_id("acct");
        assert!(a.starts_with("acct_"));
        assert_eq!(a.len(), 5 + 24);
        assert_ne!(a, new_id("acct"));
    }
}
