//! The members of an account: the owner invites people by email, each sets
//! their password from the invitation's link; the owner may remove them.

use crate::app::accounts;
use crate::domain::lang::Lang;
use crate::domain::person::{Email, PersonId, Role};
use crate::ports::Ports;
use crate::ports::table::TableError;

use super::links::{self, Purpose};
use super::sign_up::email_link;
use super::{PeopleError, Person, sessions, store};

#[derive(Debug, thiserror::Error)]
pub enum MemberError {
    #[error("only the account's owner manages its members")]
    NotOwner,
    #[error("{0} already has an account here; a person belongs to one account")]
    Taken(Email),
    #[error("no member {0} in this account")]
    NotFound(PersonId),
    #[error("the owner cannot be removed")]
    Owner,
    #[error(transparent)]
    Storage(#[from] PeopleError),
}

impl From<TableError> for MemberError {
    fn from(e: TableError) -> Self {
        MemberError::Storage(e.into())
    }
}

/// Invites `email` into the owner's account and emails them the link.
pub async fn invite(
    ports: &Ports,
    owner: &Person,
    email: Email,
    lang: Lang,
    base: &str,
) -> Result<PersonId, MemberError> {
    if !owner.role.manages_account() {
        return Err(MemberError::NotOwner);
    }
    if store::by_email(ports, &email).await?.is_some() {
        return Err(MemberError::Taken(email));
    }
    let person = Person {
        id: PersonId::generate(),
        email,
        account_id: owner.account_id.clone(),
        role: Role::Member,
        verified: false,
        lang,
        password_hash: String::new(),
    };
    let mut writes = store::create(&person, &ports.clock.now().to_rfc3339());
    let (secret, link) = links::create(ports, Purpose::Invite, &person.id);
    writes.push(link);
    match ports.table.transact(writes).await {
        Ok(()) => {}
        Err(TableError::ConditionFailed { .. }) => return Err(MemberError::Taken(person.email)),
        Err(e) => return Err(e.into()),
    }
    let account = accounts::get(ports, &owner.account_id)
        .await
        .map_err(PeopleError::from)?;
    email_link(
        ports,
        &person,
        Purpose::Invite,
        &secret,
        base,
        &account.name,
    )
    .await;
    Ok(person.id)
}

/// Removes a member from the owner's account and signs them out everywhere.
pub async fn remove(ports: &Ports, owner: &Person, member: &PersonId) -> Result<(), MemberError> {
    if !owner.role.manages_account() {
        return Err(MemberError::NotOwner);
    }
    let person = store::get(ports, member)
        .await?
        .filter(|p| p.account_id == owner.account_id)
        .ok_or_else(|| MemberError::NotFound(member.clone()))?;
    if person.role == Role::Owner {
        return Err(MemberError::Owner);
    }
    ports.table.transact(store::remove(&person)).await?;
    sessions::end_all(ports, &person.id).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::password::set_from_link;
    use crate::app::people::sign_in::sign_in;
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;
    use crate::domain::person::Password;

    #[tokio::test]
    async fn an_invited_member_sets_a_password_and_joins_the_owners_account() {
        let (ports, _dir) = test_ports();
        let owner = verified_person(&ports, "ana@example.com").await;
        let id = invite(
            &ports,
            &owner,
            "eva@example.com".parse().unwrap(),
            Lang::En,
            "http://x",
        )
        .await
        .unwrap();
        let (secret, link) = links::create(&ports, Purpose::Invite, &id);
        ports.table.transact(vec![link]).await.unwrap();
        let password = Password::parse("frase de eva larga").unwrap();
        set_from_link(&ports, Purpose::Invite, &secret, password, Lang::En)
            .await
            .unwrap()
            .unwrap();
        let (_, session) = sign_in(
            &ports,
            "eva@example.com",
            "frase de eva larga",
            "1",
            "http://x",
        )
        .await
        .unwrap();
        assert_eq!(session.person.account_id, owner.account_id);
        assert_eq!(session.person.role, Role::Member);
        assert_eq!(session.person.lang, Lang::En);

        let err = invite(
            &ports,
            &session.person,
            "luz@example.com".parse().unwrap(),
            Lang::Es,
            "http://x",
        )
        .await;
        assert!(matches!(err, Err(MemberError::NotOwner)));
        let err = invite(
            &ports,
            &owner,
            "eva@example.com".parse().unwrap(),
            Lang::Es,
            "http://x",
        )
        .await;
        assert!(matches!(err, Err(MemberError::Taken(_))));
        assert!(matches!(
            remove(&ports, &owner, &owner.id).await,
            Err(MemberError::Owner)
        ));
        remove(&ports, &owner, &id).await.unwrap();
        assert_eq!(
            store::members(&ports, &owner.account_id)
                .await
                .unwrap()
                .len(),
            1
        );
        assert!(
            sign_in(
                &ports,
                "eva@example.com",
                "frase de eva larga",
                "1",
                "http://x"
            )
            .await
            .is_err()
        );
    }
}
