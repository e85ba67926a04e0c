//! Sessions of the application: a 256-bit id in the browser's cookie, its
//! SHA-256 in the table, ended after 30 minutes without a request or 8 hours
//! after sign-in, whichever comes first (OWASP's ranges for an office
//! application). Each session carries its own CSRF token.

use chrono::Duration;

use crate::domain::one_time_secret;
use crate::domain::person::PersonId;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TTL, Write};

use super::{PeopleError, Person, store};

/// A session ends after this long without a request.
pub const IDLE: Duration = Duration::minutes(30);
/// And this long after sign-in, whatever happens.
pub const ABSOLUTE: Duration = Duration::hours(8);
/// How stale the last request's time may get before a request refreshes it.
const SEEN_RESOLUTION: Duration = Duration::seconds(60);

/// A signed-in person's session.
#[derive(Clone, Debug)]
pub struct Session {
    pub person: Person,
    /// The token every form of this session carries.
    pub csrf: String,
    digest: String,
}

fn key(digest: &str) -> Key {
    Key::new(format!("SESSION#{digest}"), "SESSION")
}

/// The person's list of sessions, for "sign out everywhere".
fn listed(person: &PersonId, digest: &str) -> Key {
    Key::new(format!("PERSON#{person}"), format!("SESSION#{digest}"))
}

/// A new session for `person`: the id for the cookie, and the session.
pub async fn start(ports: &Ports, person: Person) -> Result<(String, Session), PeopleError> {
    let secret = one_time_secret::generate();
    let digest = one_time_secret::digest(&secret);
    let csrf = one_time_secret::generate();
    let now = ports.clock.now();
    let ends = (now + ABSOLUTE).timestamp();
    let item = Item::new(key(&digest))
        .with("person_id", person.id.as_str())
        .with("csrf", csrf.as_str())
        .with("seen_at", now.timestamp())
        .with(TTL, ends);
    ports
        .table
        .transact(vec![
            Write::Put {
                item,
                condition: Some(Condition::Absent),
            },
            Write::Put {
                item: Item::new(listed(&person.id, &digest)).with(TTL, ends),
                condition: None,
            },
        ])
        .await?;
    Ok((
        secret,
        Session {
            person,
            csrf,
            digest,
        },
    ))
}

/// The session of a cookie's id, while it lasts; it counts as a request.
pub async fn resolve(ports: &Ports, secret: &str) -> Result<Option<Session>, PeopleError> {
    if !one_time_secret::well_formed(secret) {
        return Ok(None);
    }
    let digest = one_time_secret::digest(secret);
    let Some(item) = ports.table.get(&key(&digest)).await? else {
        return Ok(None);
    };
    let now = ports.clock.now().timestamp();
    let seen = item.n("seen_at").unwrap_or(0);
    let Some(person_id) = item.s("person_id").and_then(|p| p.parse().ok()) else {
        return Ok(None);
    };
    if !item.is_live(now) || now - seen >= IDLE.num_seconds() {
        forget(ports, &person_id, &digest).await?;
        return Ok(None);
    }
    let Some(person) = store::get(ports, &person_id).await? else {
        return Ok(None);
    };
    if now - seen >= SEEN_RESOLUTION.num_seconds() {
        ports
            .bookkeeping
            .update(
                &key(&digest),
                vec![crate::ports::table::UpdateOp::set("seen_at", now)],
                Some(Condition::Present),
            )
            .await
            .or_else(|e| match e {
                crate::ports::table::TableError::ConditionFailed { .. } => Ok(item.clone()),
                other => Err(other),
            })?;
    }
    Ok(Some(Session {
        person,
        csrf: item.s("csrf").unwrap_or_default().to_string(),
        digest,
    }))
}

async fn forget(ports: &Ports, person: &PersonId, digest: &str) -> Result<(), PeopleError> {
    ports
        .table
        .transact(vec![
            Write::Delete {
                key: key(digest),
                condition: None,
            },
            Write::Delete {
                key: listed(person, digest),
                condition: None,
            },
        ])
        .await?;
    Ok(())
}

/// Signs this session out.
pub async fn end(ports: &Ports, session: &Session) -> Result<(), PeopleError> {
    forget(ports, &session.person.id, &session.digest).await
}

/// Signs every session of the person out ("sign out everywhere", a new
/// password, removal from the account).
pub async fn end_all(ports: &Ports, person: &PersonId) -> Result<(), PeopleError> {
    let query = Query::new(
        format!("PERSON#{person}"),
        SortKey::Prefix("SESSION#".into()),
    );
    loop {
        let page = ports.table.query(&query.clone().limit(50)).await?;
        if page.items.is_empty() {
            return Ok(());
        }
        for item in page.items {
            if let Some(digest) = item.key.sk.strip_prefix("SESSION#") {
                forget(ports, person, digest).await?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports_at;

    #[tokio::test]
    async fn a_session_ends_when_idle_too_long_or_after_its_absolute_limit() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let person = verified_person(&ports, "ana@example.com").await;
        let (secret, started) = start(&ports, person.clone()).await.unwrap();
        let resolved = resolve(&ports, &secret).await.unwrap().unwrap();
        assert_eq!(resolved.person, person);
        assert_eq!(resolved.csrf, started.csrf);
        assert!(
            resolve(&ports, &one_time_secret::generate())
                .await
                .unwrap()
                .is_none()
        );

        for _ in 0..5 {
            clock.advance(IDLE - Duration::minutes(1));
            assert!(resolve(&ports, &secret).await.unwrap().is_some());
        }
        clock.advance(IDLE);
        assert!(resolve(&ports, &secret).await.unwrap().is_none(), "idle");

        let (secret, _) = start(&ports, person.clone()).await.unwrap();
        for _ in 0..16 {
            clock.advance(Duration::minutes(29));
            resolve(&ports, &secret).await.unwrap();
        }
        clock.advance(Duration::minutes(29));
        assert!(
            resolve(&ports, &secret).await.unwrap().is_none(),
            "absolute"
        );
    }

    #[tokio::test]
    async fn signing_out_everywhere_ends_every_session_of_the_person() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let ana = verified_person(&ports, "ana@example.com").await;
        let eva = verified_person(&ports, "eva@example.com").await;
        let (one, session) = start(&ports, ana.clone()).await.unwrap();
        let (two, _) = start(&ports, ana.clone()).await.unwrap();
        let (other, _) = start(&ports, eva).await.unwrap();
        end(&ports, &session).await.unwrap();
        assert!(resolve(&ports, &one).await.unwrap().is_none());
        assert!(resolve(&ports, &two).await.unwrap().is_some());
        let (three, _) = start(&ports, ana.clone()).await.unwrap();
        end_all(&ports, &ana.id).await.unwrap();
        assert!(resolve(&ports, &two).await.unwrap().is_none());
        assert!(resolve(&ports, &three).await.unwrap().is_none());
        assert!(resolve(&ports, &other).await.unwrap().is_some());
    }
}
