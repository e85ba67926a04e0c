//! Setting a password from an emailed link: a reset (asked for on the
//! sign-in page) or an invitation's acceptance. Either ends every session of
//! the person and confirms their address (the link reached it).

use crate::app::accounts;
use crate::domain::lang::Lang;
use crate::domain::person::{Email, Password, PersonId, hash_password};
use crate::ports::Ports;
use crate::ports::table::UpdateOp;

use super::links::{self, Purpose};
use super::sign_up::{email_link, mark_verified};
use super::{PeopleError, blocking, sessions, store};

/// Emails a reset link to the address, if a person has it. The caller
/// answers the same either way.
pub async fn request_reset(ports: &Ports, email: &str, base: &str) -> Result<(), PeopleError> {
    let Ok(email) = email.parse::<Email>() else {
        return Ok(());
    };
    let Some(person) = store::by_email(ports, &email).await? else {
        return Ok(());
    };
    let (secret, link) = links::create(ports, Purpose::Reset, &person.id);
    ports.table.transact(vec![link]).await?;
    let account = accounts::get(ports, &person.account_id).await?;
    email_link(ports, &person, Purpose::Reset, &secret, base, &account.name).await;
    Ok(())
}

/// Whether a reset or invitation link still works (to show its form).
pub async fn link_works(
    ports: &Ports,
    purpose: Purpose,
    secret: &str,
) -> Result<bool, PeopleError> {
    Ok(links::peek(ports, purpose, secret).await?.is_some())
}

/// Sets the password of the link's person; `None` when the link does not work.
pub async fn set_from_link(
    ports: &Ports,
    purpose: Purpose,
    secret: &str,
    password: Password,
    lang: Lang,
) -> Result<Option<PersonId>, PeopleError> {
    let Some(id) = links::consume(ports, purpose, secret).await? else {
        return Ok(None);
    };
    let hash = blocking(move || hash_password(&password)).await;
    let mut changes = vec![UpdateOp::set("password_hash", hash)];
    if purpose == Purpose::Invite {
        changes.push(UpdateOp::set("lang", lang.code()));
    }
    if !mark_verified(ports, &id, changes).await? {
        return Ok(None);
    }
    sessions::end_all(ports, &id).await?;
    tracing::info!(person = %id, purpose = purpose.code(), "password set");
    Ok(Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::sign_in::{SignInError, sign_in};
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;

    #[tokio::test]
    async fn a_reset_link_sets_a_new_password_once_and_ends_the_sessions() {
        let (ports, _dir) = test_ports();
        let ana = verified_person(&ports, "ana@example.com").await;
        let (old, _) = sessions::start(&ports, ana.clone()).await.unwrap();
        request_reset(&ports, "nadie@example.com", "http://x")
            .await
            .unwrap();
        let (secret, link) = links::create(&ports, Purpose::Reset, &ana.id);
        ports.table.transact(vec![link]).await.unwrap();
        assert!(link_works(&ports, Purpose::Reset, &secret).await.unwrap());
        let new = Password::parse("otra frase larga").unwrap();
        let id = set_from_link(&ports, Purpose::Reset, &secret, new, Lang::Es)
            .await
            .unwrap();
        assert_eq!(id, Some(ana.id.clone()));
        assert!(sessions::resolve(&ports, &old).await.unwrap().is_none());
        let again = Password::parse("tercera frase larga").unwrap();
        assert_eq!(
            set_from_link(&ports, Purpose::Reset, &secret, again, Lang::Es)
                .await
                .unwrap(),
            None
        );
        assert!(
            sign_in(
                &ports,
                "ana@example.com",
                "otra frase larga",
                "1",
                "http://x"
            )
            .await
            .is_ok()
        );
        assert!(matches!(
            sign_in(
                &ports,
                "ana@example.com",
                "contraseña larga",
                "1",
                "http://x"
            )
            .await,
            Err(SignInError::Invalid)
        ));
    }
}
