//! Requests per minute per key, counted in the table so the limit holds across
//! processes and Lambda instances: one counter item per key and clock minute.

use crate::ports::Ports;
use crate::ports::table::{Key, TableError, UpdateOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateDecision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Epoch seconds at which the current window ends.
    pub reset_at: i64,
    /// Seconds until the window ends (at least 1).
    pub retry_after: i64,
}

/// Counts one request of `key_id` and decides whether it may proceed.
pub async fn hit(ports: &Ports, key_id: &str, limit: u32) -> Result<RateDecision, TableError> {
    let now = ports.clock.now().timestamp();
    let window = now.div_euclid(60);
    let reset_at = (window + 1) * 60;
    let counter = ports
        .table
        .update(
            &Key::new(format!("RATE#{key_id}"), window.to_string()),
            vec![UpdateOp::add("n", 1), UpdateOp::set("ttl", reset_at + 60)],
            None,
        )
        .await?;
    let used = counter.n("n").unwrap_or(1).max(0) as u64;
    Ok(RateDecision {
        allowed: used <= u64::from(limit),
        limit,
        remaining: u64::from(limit).saturating_sub(used) as u32,
        reset_at,
        retry_after: (reset_at - now).max(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;
    use chrono::Duration;

    #[tokio::test]
    async fn the_window_fills_and_resets_on_the_next_minute() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:30Z");
        for i in 1..=3 {
            let d = hit(&ports, "key_a", 3).await.unwrap();
            assert!(d.allowed);
            assert_eq!(d.remaining, 3 - i);
            assert_eq!(d.retry_after, 30);
        }
        let over = hit(&ports, "key_a", 3).await.unwrap();
        assert!(!over.allowed);
        assert_eq!(over.remaining, 0);
        assert!(
            hit(&ports, "key_b", 3).await.unwrap().allowed,
            "limits are per key"
        );
        clock.advance(Duration::seconds(30));
        let next = hit(&ports, "key_a", 3).await.unwrap();
        assert!(next.allowed);
        assert_eq!(next.remaining, 2);
        assert_eq!(next.retry_after, 60);
    }
}
