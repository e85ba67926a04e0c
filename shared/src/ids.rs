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

/// A new identifier that sorts by creation time (milliseconds), then randomly.
pub fn new_ordered_id(prefix: &str, now: chrono::DateTime<chrono::Utc>) -> String {
    format!("{}{}", ordered_floor(prefix, now), random_token(8))
}

/// The bound between ordered ids: every one created before `at` sorts below
/// it, every one created at or after `at` above it.
pub fn ordered_floor(prefix: &str, at: chrono::DateTime<chrono::Utc>) -> String {
    let millis = at.timestamp_millis().max(0) as u64;
    format!("{prefix}_{millis:012x}")
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

    #[test]
    fn ordered_ids_sort_by_time() {
        let early = new_ordered_id("cus", "2026-01-01T00:00:00Z".parse().unwrap());
        let late = new_ordered_id("cus", "2026-01-01T00:00:00.001Z".parse().unwrap());
        assert!(early < late);
        assert_eq!(early.len(), 4 + 12 + 16);
        let floor = ordered_floor("cus", "2026-01-01T00:00:00.001Z".parse().unwrap());
        assert!(early < floor && floor < late);
    }
}
