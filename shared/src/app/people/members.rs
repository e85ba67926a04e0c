//! The members of an account: people join by taking an invitation
//! (`invitations`); the owner may remove them, which deletes the person
//! (their address is free to sign up again).

use crate::domain::person::{PersonId, Role};
use crate::ports::Ports;
use crate::ports::table::TableError;

use super::{PeopleError, Person, sessions, store};

#[derive(Debug, thiserror::Error)]
pub enum MemberError {
    #[error("only the account's owner manages its members")]
    NotOwner,
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
    use crate::app::people::invitations::{self, accept, invite};
    use crate::app::people::links::{self, Purpose};
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;
    use crate::domain::lang::Lang;

    #[tokio::test]
    async fn the_owner_removes_a_member_but_not_themselves_and_only_in_their_account() {
        let (ports, _dir) = test_ports();
        let owner = verified_person(&ports, "ana@example.com").await;
        let eva = verified_person(&ports, "eva@example.com").await;
        invite(&ports, &owner, eva.email.clone(), Lang::Es, "http://x")
            .await
            .unwrap();
        let invitation = invitations::pending(&ports, &owner.account_id)
            .await
            .unwrap()
            .remove(0);
        let (secret, link) = links::create(&ports, Purpose::Invite, &invitation.reference(), 0);
        ports.table.transact(vec![link]).await.unwrap();
        accept(&ports, &eva, &secret).await.unwrap();
        let (session, _) = sessions::start(&ports, eva.clone()).await.unwrap();

        let stranger = verified_person(&ports, "luz@example.com").await;
        assert!(matches!(
            remove(&ports, &stranger, &eva.id).await,
            Err(MemberError::NotFound(_))
        ));
        assert!(matches!(
            remove(&ports, &owner, &owner.id).await,
            Err(MemberError::Owner)
        ));
        remove(&ports, &owner, &eva.id).await.unwrap();
        assert_eq!(
            store::members(&ports, &owner.account_id)
                .await
                .unwrap()
                .len(),
            1
        );
        assert!(sessions::resolve(&ports, &session).await.unwrap().is_none());
        assert!(store::by_email(&ports, &eva.email).await.unwrap().is_none());
    }
}
