//! Setting a new password from an emailed reset link. A new password ends
//! every session of the person and every link sent before it (the person's
//! link generation moves on), and confirms their address (the link reached
//! it).

use crate::domain::lang::Lang;
use crate::domain::person::{Email, Password, PersonId, hash_password};
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, UpdateOp};

use super::links::{self, Link, Purpose};
use super::postbox::{self, Letter};
use super::throttle::{self, Verdict};
use super::{PeopleError, Person, blocking, sessions, store};

#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    #[error("too many requests from this address; try again in {0} seconds")]
    Throttled(i64),
    #[error(transparent)]
    Storage(#[from] PeopleError),
}

impl From<TableError> for ResetError {
    fn from(e: TableError) -> Self {
        ResetError::Storage(e.into())
    }
}

/// Posts a reset letter for the typed address; whether it is sent (only to
/// an address with an account) is decided when it leaves, so the request
/// does the same work, and the caller answers the same, either way.
pub async fn request_reset(
    ports: &Ports,
    email: &str,
    base: &str,
    lang: Lang,
    client: &str,
) -> Result<(), ResetError> {
    if let Verdict::Wait(seconds) =
        throttle::reserve(ports, &throttle::FORGOT_CLIENT, client).await?
    {
        return Err(ResetError::Throttled(seconds));
    }
    let Ok(email) = email.parse::<Email>() else {
        return Ok(());
    };
    let letter = Letter::Reset { email };
    ports
        .table
        .transact(vec![postbox::post(ports, &letter, base, lang)])
        .await?;
    Ok(())
}

/// The person a reset link is for, if it was made since their last new
/// password.
async fn holder(ports: &Ports, link: Option<Link>) -> Result<Option<Person>, PeopleError> {
    let Some(link) = link else {
        return Ok(None);
    };
    let Ok(id) = link.subject.parse::<PersonId>() else {
        return Ok(None);
    };
    Ok(store::get(ports, &id)
        .await?
        .filter(|person| person.link_generation == link.generation))
}

/// Whether a reset link still works (to show its form).
pub async fn link_works(ports: &Ports, secret: &str) -> Result<bool, PeopleError> {
    let link = links::peek(ports, Purpose::Reset, secret).await?;
    Ok(holder(ports, link).await?.is_some())
}

/// Sets the password of the reset link's person; `None` when the link does
/// not work.
pub async fn set_from_link(
    ports: &Ports,
    secret: &str,
    password: Password,
) -> Result<Option<PersonId>, PeopleError> {
    let link = links::consume(ports, Purpose::Reset, secret).await?;
    let Some(person) = holder(ports, link).await? else {
        return Ok(None);
    };
    let hash = blocking(move || hash_password(&password)).await;
    // Consuming the link was the atomic step; the generation check above
    // stops every link made before the person's last new password.
    let changed = ports
        .table
        .update(
            &store::profile_key(&person.id),
            vec![
                UpdateOp::set("password_hash", hash),
                UpdateOp::add("link_generation", 1),
                UpdateOp::set("verified", true),
            ],
            Some(Condition::Present),
        )
        .await;
    match changed {
        Ok(_) => {}
        Err(TableError::ConditionFailed { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    sessions::end_all(ports, &person.id).await?;
    tracing::info!(person = %person.id, "password set from a reset link");
    Ok(Some(person.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::sign_in::{Attempt, SignInError, sign_in};
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;

    fn reset_link(ports: &Ports, person: &Person) -> (String, crate::ports::table::Write) {
        links::create(
            ports,
            Purpose::Reset,
            person.id.as_str(),
            person.link_generation,
        )
    }

    async fn attempt(ports: &Ports, password: &str) -> Result<(), SignInError> {
        let attempt = Attempt {
            email: "ana@example.com",
            password,
            client: "10.0.0.1",
            device: None,
            base: "http://x",
        };
        sign_in(ports, attempt).await.map(|_| ())
    }

    #[tokio::test]
    async fn a_reset_link_sets_a_new_password_once_and_ends_the_sessions_and_the_other_links() {
        let (ports, _dir) = test_ports();
        let ana = verified_person(&ports, "ana@example.com").await;
        let (old, _) = sessions::start(&ports, ana.clone()).await.unwrap();
        request_reset(&ports, "nadie@example.com", "http://x", Lang::Es, "c")
            .await
            .unwrap();
        let (secret, link) = reset_link(&ports, &ana);
        let (other, other_link) = reset_link(&ports, &ana);
        ports.table.transact(vec![link, other_link]).await.unwrap();
        assert!(link_works(&ports, &secret).await.unwrap());
        let new = Password::parse("otra frase larga").unwrap();
        let id = set_from_link(&ports, &secret, new).await.unwrap();
        assert_eq!(id, Some(ana.id.clone()));
        assert!(sessions::resolve(&ports, &old).await.unwrap().is_none());
        for used_or_outdated in [&secret, &other] {
            assert!(!link_works(&ports, used_or_outdated).await.unwrap());
            let again = Password::parse("tercera frase larga").unwrap();
            assert_eq!(
                set_from_link(&ports, used_or_outdated, again)
                    .await
                    .unwrap(),
                None
            );
        }
        assert!(attempt(&ports, "otra frase larga").await.is_ok());
        assert!(matches!(
            attempt(&ports, "contraseña larga").await,
            Err(SignInError::Invalid)
        ));
    }

    #[tokio::test]
    async fn a_client_asks_for_a_limited_number_of_resets_an_hour() {
        let (ports, _dir) = test_ports();
        for n in 0..=throttle::FORGOT_CLIENT.max {
            let asked = request_reset(&ports, "ana@example.com", "http://x", Lang::Es, "c").await;
            assert_eq!(
                matches!(asked, Err(ResetError::Throttled(_))),
                n == throttle::FORGOT_CLIENT.max
            );
        }
    }
}
