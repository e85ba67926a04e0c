//! Sign-in throttling: failed attempts counted per email address and per
//! client address in fixed 15-minute windows. Past the limit every attempt
//! of that window is refused, right password or not, whether or not the
//! address has an account (so the refusal tells nothing about it).

use crate::domain::one_time_secret;
use crate::ports::Ports;
use crate::ports::table::{Key, TTL, TableError, UpdateOp};

const WINDOW_SECONDS: i64 = 15 * 60;
/// Failed attempts per email address in a window.
pub const PER_EMAIL: i64 = 5;
/// Failed attempts per client address in a window (an office shares one).
pub const PER_CLIENT: i64 = 30;

fn keys(ports: &Ports, email: &str, client: &str) -> [(Key, i64); 2] {
    let window = ports.clock.now().timestamp().div_euclid(WINDOW_SECONDS);
    let key = |kind: &str, value: &str| {
        Key::new(
            format!("THROTTLE#{kind}#{}", one_time_secret::digest(value)),
            window.to_string(),
        )
    };
    [
        (key("email", email), PER_EMAIL),
        (key("client", client), PER_CLIENT),
    ]
}

/// Whether the attempts of this window are used up for the email or the client.
pub async fn blocked(ports: &Ports, email: &str, client: &str) -> Result<bool, TableError> {
    for (key, limit) in keys(ports, email, client) {
        let failures = ports.table.get(&key).await?.and_then(|i| i.n("failures"));
        if failures.unwrap_or(0) >= limit {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Counts a failed attempt for the email and the client.
pub async fn failed(ports: &Ports, email: &str, client: &str) -> Result<(), TableError> {
    let expires = ports.clock.now().timestamp() + 2 * WINDOW_SECONDS;
    for (key, _) in keys(ports, email, client) {
        ports
            .bookkeeping
            .update(
                &key,
                vec![UpdateOp::add("failures", 1), UpdateOp::set(TTL, expires)],
                None,
            )
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;

    #[tokio::test]
    async fn failures_block_the_email_until_the_window_ends() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        for _ in 0..PER_EMAIL {
            assert!(
                !blocked(&ports, "ana@example.com", "10.0.0.1")
                    .await
                    .unwrap()
            );
            failed(&ports, "ana@example.com", "10.0.0.1").await.unwrap();
        }
        assert!(
            blocked(&ports, "ana@example.com", "10.0.0.2")
                .await
                .unwrap()
        );
        assert!(
            !blocked(&ports, "eva@example.com", "10.0.0.1")
                .await
                .unwrap()
        );
        clock.advance(chrono::Duration::seconds(WINDOW_SECONDS));
        assert!(
            !blocked(&ports, "ana@example.com", "10.0.0.1")
                .await
                .unwrap()
        );
    }
}
