//! Remembered devices (OWASP's device cookies): a browser where an address
//! signed in gets a 256-bit secret in a long-lived cookie; the table keeps
//! its SHA-256 with the address. Sign-ins from that browser for that address
//! are throttled on their own counter, so an attacker who exhausts the
//! address's allowance from elsewhere does not lock its owner out.

use chrono::Duration;

use crate::domain::one_time_secret;
use crate::domain::person::Email;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Write};

/// How long a browser stays remembered after its last sign-in there.
pub const LIFETIME: Duration = Duration::days(180);

fn key(digest: &str) -> Key {
    Key::new(format!("DEVICE#{digest}"), "DEVICE")
}

/// A new device secret for the cookie, and the write that remembers it.
pub fn remember(ports: &Ports, email: &Email) -> (String, Write) {
    let secret = one_time_secret::generate();
    let expires = ports.clock.now() + LIFETIME;
    let item = Item::new(key(&one_time_secret::digest(&secret)))
        .with("email", email.as_str())
        .with(TTL, expires.timestamp());
    (
        secret,
        Write::Put {
            item,
            condition: Some(Condition::Absent),
        },
    )
}

/// The throttling subject of a device cookie that `email` signed in with
/// before (its digest), or None for any other cookie.
pub async fn known_for(
    ports: &Ports,
    secret: Option<&str>,
    email: &str,
) -> Result<Option<String>, TableError> {
    let Some(secret) = secret.filter(|s| one_time_secret::well_formed(s)) else {
        return Ok(None);
    };
    let digest = one_time_secret::digest(secret);
    let Some(item) = ports.table.get(&key(&digest)).await? else {
        return Ok(None);
    };
    let now = ports.clock.now().timestamp();
    Ok((item.is_live(now) && item.s("email") == Some(email)).then_some(digest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;

    #[tokio::test]
    async fn a_device_is_known_for_its_address_until_it_expires() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let ana: Email = "ana@example.com".parse().unwrap();
        let (secret, write) = remember(&ports, &ana);
        ports.table.transact(vec![write]).await.unwrap();
        let known = known_for(&ports, Some(&secret), "ana@example.com")
            .await
            .unwrap();
        assert_eq!(known, Some(one_time_secret::digest(&secret)));
        for (cookie, email) in [
            (Some(secret.as_str()), "eva@example.com"),
            (Some("forged"), "ana@example.com"),
            (None, "ana@example.com"),
        ] {
            assert_eq!(known_for(&ports, cookie, email).await.unwrap(), None);
        }
        clock.advance(LIFETIME + Duration::seconds(1));
        assert_eq!(
            known_for(&ports, Some(&secret), "ana@example.com")
                .await
                .unwrap(),
            None
        );
    }
}
