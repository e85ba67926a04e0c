//! Invitations are offers, not accounts: the owner offers an address a place
//! in the account; nothing is created for the address, which stays free to
//! sign up on its own. The offer stands 7 days unless the owner revokes it,
//! and is taken only by a person signed in with that very address who has
//! seen the account (its name and owner) and confirmed. So inviting an
//! address reserves nothing and tells nothing about it.

use chrono::{DateTime, Utc};

use crate::app::accounts;
use crate::domain::account::AccountId;
use crate::domain::lang::Lang;
use crate::domain::person::{Email, Role};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TTL, TableError, Write};

use super::links::{self, Purpose};
use super::postbox::{self, Letter};
use super::throttle::{self, Verdict};
use super::{PeopleError, Person, store};

#[derive(Debug, thiserror::Error)]
pub enum InvitationError {
    #[error("only the account's owner manages its members")]
    NotOwner,
    #[error("that address is already a member of this account")]
    AlreadyMember,
    #[error("too many invitations from this account; try again in {0} seconds")]
    Throttled(i64),
    #[error("the invitation was revoked, has expired or was taken")]
    NotFound,
    #[error("the invitation was sent to another address")]
    WrongAddress,
    #[error("the owner of an account with members cannot leave it")]
    OwnerWithMembers,
    #[error(transparent)]
    Storage(#[from] PeopleError),
}

impl From<TableError> for InvitationError {
    fn from(e: TableError) -> Self {
        InvitationError::Storage(e.into())
    }
}

/// An offer that stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub id: String,
    pub account_id: AccountId,
    pub email: Email,
    /// The owner's address, shown to the invited person.
    pub invited_by: String,
    pub expires_at: DateTime<Utc>,
}

impl Invitation {
    /// What its link names: the account and the invitation.
    pub fn reference(&self) -> String {
        format!("{}/{}", self.account_id, self.id)
    }
}

fn key(account: &AccountId, id: &str) -> Key {
    Key::new(format!("ACCOUNT#{account}"), format!("INVITE#{id}"))
}

fn decode(account: &AccountId, item: &Item, now: i64) -> Option<Invitation> {
    if !item.is_live(now) {
        return None;
    }
    Some(Invitation {
        id: item.key.sk.strip_prefix("INVITE#")?.to_string(),
        account_id: account.clone(),
        email: item.s("email")?.parse().ok()?,
        invited_by: item.s("invited_by")?.to_string(),
        expires_at: DateTime::from_timestamp(item.n(TTL)?, 0)?,
    })
}

/// Offers `email` a place in the owner's account and posts the letter with
/// its link; the answer is the same whether or not the address has an
/// account anywhere.
pub async fn invite(
    ports: &Ports,
    owner: &Person,
    email: Email,
    lang: Lang,
    base: &str,
) -> Result<(), InvitationError> {
    if !owner.role.manages_account() {
        return Err(InvitationError::NotOwner);
    }
    let members = store::members(ports, &owner.account_id).await?;
    if members.iter().any(|m| m.email == email.as_str()) {
        return Err(InvitationError::AlreadyMember);
    }
    if let Verdict::Wait(seconds) =
        throttle::reserve(ports, &throttle::INVITE_ACCOUNT, owner.account_id.as_str()).await?
    {
        return Err(InvitationError::Throttled(seconds));
    }
    let now = ports.clock.now();
    let id = crate::ids::new_id("inv");
    let item = Item::new(key(&owner.account_id, &id))
        .with("email", email.as_str())
        .with("invited_by", owner.email.as_str())
        .with("created_at", now.to_rfc3339())
        .with(TTL, (now + Purpose::Invite.lifetime()).timestamp());
    let letter = Letter::Invitation {
        account: owner.account_id.clone(),
        invitation: id,
        email,
    };
    ports
        .table
        .transact(vec![
            Write::Put {
                item,
                condition: Some(Condition::Absent),
            },
            postbox::post(ports, &letter, base, lang),
        ])
        .await?;
    Ok(())
}

/// The account's invitations that stand, oldest first.
pub async fn pending(ports: &Ports, account: &AccountId) -> Result<Vec<Invitation>, PeopleError> {
    let query = Query::new(
        format!("ACCOUNT#{account}"),
        SortKey::Prefix("INVITE#".into()),
    );
    let now = ports.clock.now().timestamp();
    let page = ports.table.query(&query).await?;
    Ok(page
        .items
        .iter()
        .filter_map(|item| decode(account, item, now))
        .collect())
}

/// The invitation `id` of `account`, while it stands.
pub async fn get(
    ports: &Ports,
    account: &AccountId,
    id: &str,
) -> Result<Option<Invitation>, PeopleError> {
    let now = ports.clock.now().timestamp();
    Ok(ports
        .table
        .get(&key(account, id))
        .await?
        .and_then(|item| decode(account, &item, now)))
}

/// Withdraws an offer: its link stops working.
pub async fn revoke(ports: &Ports, owner: &Person, id: &str) -> Result<(), InvitationError> {
    if !owner.role.manages_account() {
        return Err(InvitationError::NotOwner);
    }
    match ports
        .table
        .delete(&key(&owner.account_id, id), Some(Condition::Present))
        .await
    {
        Ok(()) => Ok(()),
        Err(TableError::ConditionFailed { .. }) => Err(InvitationError::NotFound),
        Err(e) => Err(e.into()),
    }
}

/// What an invitation's link offers, shown before it is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub invitation: Invitation,
    pub account_name: String,
}

/// The offer of the link `secret`, while the link works and the invitation
/// stands.
pub async fn offer(ports: &Ports, secret: &str) -> Result<Option<Offer>, PeopleError> {
    let Some(link) = links::peek(ports, Purpose::Invite, secret).await? else {
        return Ok(None);
    };
    let Some((account, id)) = link.subject.split_once('/') else {
        return Ok(None);
    };
    let Ok(account) = account.parse::<AccountId>() else {
        return Ok(None);
    };
    let Some(invitation) = get(ports, &account, id).await? else {
        return Ok(None);
    };
    let account_name = accounts::get(ports, &account).await?.name;
    Ok(Some(Offer {
        invitation,
        account_name,
    }))
}

/// Takes the offer of link `secret` for the signed-in `person`, who must
/// hold the invited address: they leave their account for the inviting one.
/// An owner whose account has other members cannot leave it.
pub async fn accept(
    ports: &Ports,
    person: &Person,
    secret: &str,
) -> Result<AccountId, InvitationError> {
    let offer = offer(ports, secret)
        .await?
        .ok_or(InvitationError::NotFound)?;
    let invitation = offer.invitation;
    if invitation.email != person.email {
        return Err(InvitationError::WrongAddress);
    }
    if invitation.account_id == person.account_id {
        return Err(InvitationError::AlreadyMember);
    }
    if person.role == Role::Owner
        && store::members(ports, &person.account_id)
            .await?
            .iter()
            .any(|m| m.id != person.id)
    {
        return Err(InvitationError::OwnerWithMembers);
    }
    if links::consume(ports, Purpose::Invite, secret)
        .await?
        .is_none()
    {
        return Err(InvitationError::NotFound);
    }
    let now = ports.clock.now().to_rfc3339();
    let mut writes = store::move_to(person, &invitation.account_id, &now);
    writes.push(Write::Delete {
        key: key(&invitation.account_id, &invitation.id),
        condition: Some(Condition::Present),
    });
    match ports.table.transact(writes).await {
        Ok(()) => {}
        Err(TableError::ConditionFailed { .. }) => return Err(InvitationError::NotFound),
        Err(e) => return Err(e.into()),
    }
    tracing::info!(person = %person.id, account = %invitation.account_id, "joined an account by invitation");
    Ok(invitation.account_id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;

    /// The link the letter of the last invitation would carry.
    async fn link_of(ports: &Ports, owner: &Person, email: &str) -> String {
        let standing = pending(ports, &owner.account_id).await.unwrap();
        let invitation = standing
            .iter()
            .rev()
            .find(|i| i.email.as_str() == email)
            .unwrap();
        let (secret, link) = links::create(ports, Purpose::Invite, &invitation.reference(), 0);
        ports.table.transact(vec![link]).await.unwrap();
        secret
    }

    #[tokio::test]
    async fn an_invitation_reserves_nothing_and_is_taken_only_by_its_address_after_sign_in() {
        let (ports, _dir) = test_ports();
        let owner = verified_person(&ports, "ana@example.com").await;
        invite(
            &ports,
            &owner,
            "eva@example.com".parse().unwrap(),
            Lang::En,
            "http://x",
        )
        .await
        .unwrap();
        let eva: Email = "eva@example.com".parse().unwrap();
        assert!(store::by_email(&ports, &eva).await.unwrap().is_none());

        let eva = verified_person(&ports, "eva@example.com").await;
        assert_ne!(eva.account_id, owner.account_id, "signed up on her own");
        let secret = link_of(&ports, &owner, "eva@example.com").await;
        let shown = offer(&ports, &secret).await.unwrap().unwrap();
        assert_eq!(shown.account_name, "Taller");
        assert_eq!(shown.invitation.invited_by, "ana@example.com");

        let luz = verified_person(&ports, "luz@example.com").await;
        assert!(matches!(
            accept(&ports, &luz, &secret).await,
            Err(InvitationError::WrongAddress)
        ));
        assert_eq!(
            accept(&ports, &eva, &secret).await.unwrap(),
            owner.account_id
        );
        let moved = store::get(&ports, &eva.id).await.unwrap().unwrap();
        assert_eq!(
            (moved.account_id.clone(), moved.role),
            (owner.account_id.clone(), Role::Member)
        );
        let members = store::members(&ports, &owner.account_id).await.unwrap();
        assert_eq!(members.len(), 2);
        assert!(
            store::members(&ports, &eva.account_id)
                .await
                .unwrap()
                .is_empty()
        );
        assert!(matches!(
            accept(&ports, &moved, &secret).await,
            Err(InvitationError::NotFound)
        ));
        assert!(matches!(
            invite(
                &ports,
                &owner,
                "eva@example.com".parse().unwrap(),
                Lang::Es,
                "http://x"
            )
            .await,
            Err(InvitationError::AlreadyMember)
        ));
        assert!(matches!(
            invite(
                &ports,
                &moved,
                "luz@example.com".parse().unwrap(),
                Lang::Es,
                "http://x"
            )
            .await,
            Err(InvitationError::NotOwner)
        ));
    }

    #[tokio::test]
    async fn a_revoked_invitation_cannot_be_taken_nor_can_an_owner_with_members_leave() {
        let (ports, _dir) = test_ports();
        let owner = verified_person(&ports, "ana@example.com").await;
        let other = verified_person(&ports, "eva@example.com").await;
        invite(&ports, &owner, other.email.clone(), Lang::Es, "http://x")
            .await
            .unwrap();
        let secret = link_of(&ports, &owner, "eva@example.com").await;
        let id = pending(&ports, &owner.account_id).await.unwrap()[0]
            .id
            .clone();
        revoke(&ports, &owner, &id).await.unwrap();
        assert!(matches!(
            revoke(&ports, &owner, &id).await,
            Err(InvitationError::NotFound)
        ));
        assert!(offer(&ports, &secret).await.unwrap().is_none());
        assert!(matches!(
            accept(&ports, &other, &secret).await,
            Err(InvitationError::NotFound)
        ));

        let member = verified_person(&ports, "luz@example.com").await;
        invite(&ports, &other, member.email.clone(), Lang::Es, "http://x")
            .await
            .unwrap();
        let to_other = link_of(&ports, &other, "luz@example.com").await;
        accept(&ports, &member, &to_other).await.unwrap();
        invite(&ports, &owner, other.email.clone(), Lang::Es, "http://x")
            .await
            .unwrap();
        let secret = link_of(&ports, &owner, "eva@example.com").await;
        assert!(matches!(
            accept(&ports, &other, &secret).await,
            Err(InvitationError::OwnerWithMembers)
        ));
    }

    #[tokio::test]
    async fn an_account_sends_a_limited_number_of_invitations_an_hour() {
        let (ports, _dir) = test_ports();
        let owner = verified_person(&ports, "ana@example.com").await;
        for n in 0..throttle::INVITE_ACCOUNT.max {
            let email = format!("p{n}@example.com").parse().unwrap();
            invite(&ports, &owner, email, Lang::Es, "http://x")
                .await
                .unwrap();
        }
        assert!(matches!(
            invite(
                &ports,
                &owner,
                "late@example.com".parse().unwrap(),
                Lang::Es,
                "http://x"
            )
            .await,
            Err(InvitationError::Throttled(_))
        ));
    }
}
