//! The links a person is emailed (confirm the address, reset the password,
//! accept an invitation): a 256-bit secret in the URL, stored as its
//! SHA-256 with an expiry, and consumed once by a conditional delete.
//!
//! A link names its subject (a person, or an invitation) and the person's
//! link generation when it was made: a new password moves the generation
//! on, so every link sent before it stops working (`password`).

use chrono::Duration;

use crate::domain::one_time_secret;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Write};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Verify,
    Reset,
    Invite,
}

impl Purpose {
    pub fn code(self) -> &'static str {
        match self {
            Purpose::Verify => "verify",
            Purpose::Reset => "reset",
            Purpose::Invite => "invite",
        }
    }

    /// How long a link works after it is sent.
    pub fn lifetime(self) -> Duration {
        match self {
            Purpose::Verify => Duration::hours(24),
            Purpose::Reset => Duration::hours(1),
            Purpose::Invite => Duration::days(7),
        }
    }

    /// The application's path that the link opens.
    pub fn path(self) -> &'static str {
        match self {
            Purpose::Verify => "/verify",
            Purpose::Reset => "/reset",
            Purpose::Invite => "/invitation",
        }
    }
}

fn key(secret: &str) -> Key {
    Key::new(format!("LINK#{}", one_time_secret::digest(secret)), "LINK")
}

/// What a working link is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The person's id, or the invitation's reference.
    pub subject: String,
    /// The person's link generation when it was made (0 for invitations).
    pub generation: i64,
}

/// A new link for `subject`: its secret, and the write that stores it.
pub fn create(ports: &Ports, purpose: Purpose, subject: &str, generation: i64) -> (String, Write) {
    let secret = one_time_secret::generate();
    let expires = ports.clock.now() + purpose.lifetime();
    let item = Item::new(key(&secret))
        .with("purpose", purpose.code())
        .with("subject", subject)
        .with("generation", generation)
        .with(TTL, expires.timestamp());
    let write = Write::Put {
        item,
        condition: Some(Condition::Absent),
    };
    (secret, write)
}

/// What link `secret` is for, while it works, without using it up.
pub async fn peek(
    ports: &Ports,
    purpose: Purpose,
    secret: &str,
) -> Result<Option<Link>, TableError> {
    if !one_time_secret::well_formed(secret) {
        return Ok(None);
    }
    let Some(item) = ports.table.get(&key(secret)).await? else {
        return Ok(None);
    };
    let now = ports.clock.now().timestamp();
    Ok(item
        .s("subject")
        .filter(|_| item.s("purpose") == Some(purpose.code()) && item.is_live(now))
        .map(|subject| Link {
            subject: subject.to_string(),
            generation: item.n("generation").unwrap_or(0),
        }))
}

/// What link `secret` was for: the link works once; a second use, an
/// expired link or one for another purpose is `None`.
pub async fn consume(
    ports: &Ports,
    purpose: Purpose,
    secret: &str,
) -> Result<Option<Link>, TableError> {
    let Some(link) = peek(ports, purpose, secret).await? else {
        return Ok(None);
    };
    let used = ports
        .table
        .delete(
            &key(secret),
            Some(Condition::equals("purpose", purpose.code())),
        )
        .await;
    match used {
        Ok(()) => Ok(Some(link)),
        Err(TableError::ConditionFailed { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;

    #[tokio::test]
    async fn a_link_works_once_for_its_purpose_until_it_expires() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let person = Link {
            subject: "person_1".into(),
            generation: 3,
        };
        let (secret, write) = create(&ports, Purpose::Reset, "person_1", 3);
        ports.table.transact(vec![write]).await.unwrap();
        assert_eq!(peek(&ports, Purpose::Verify, &secret).await.unwrap(), None);
        assert_eq!(
            peek(&ports, Purpose::Reset, "nonsense").await.unwrap(),
            None
        );
        assert_eq!(
            peek(&ports, Purpose::Reset, &secret).await.unwrap(),
            Some(person.clone())
        );
        assert_eq!(
            consume(&ports, Purpose::Reset, &secret).await.unwrap(),
            Some(person.clone())
        );
        assert_eq!(
            consume(&ports, Purpose::Reset, &secret).await.unwrap(),
            None
        );

        let (expired, write) = create(&ports, Purpose::Reset, "person_1", 3);
        ports.table.transact(vec![write]).await.unwrap();
        clock.advance(Purpose::Reset.lifetime() + Duration::seconds(1));
        assert_eq!(
            consume(&ports, Purpose::Reset, &expired).await.unwrap(),
            None
        );
    }
}
