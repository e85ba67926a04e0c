//! Signing up: a new account on plan Mini with the person as its owner, and
//! a letter with the link that confirms the address. An address that
//! already has an account gets a notice instead. Both answers are the same
//! and take as long (the password is hashed and one letter posted either
//! way), so sign-up never tells whether an address is known. A person an
//! old invitation created, who never set a password, does not hold the
//! address: signing up with it replaces them.

use crate::app::accounts;
use crate::domain::account::{Issuer, Plan};
use crate::domain::lang::Lang;
use crate::domain::person::{Email, Password, PersonId, Role, hash_password};
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, UpdateOp, Write};

use super::links::{self, Purpose};
use super::postbox::{self, Letter};
use super::throttle::{self, Verdict};
use super::{PeopleError, Person, blocking, store};

pub struct SignUp {
    /// The name of the business, the account's name.
    pub business: String,
    pub email: Email,
    pub password: Password,
    pub lang: Lang,
}

#[derive(Debug, thiserror::Error)]
pub enum SignUpError {
    #[error("too many sign-ups from this address; try again in {0} seconds")]
    Throttled(i64),
    #[error(transparent)]
    Storage(#[from] PeopleError),
}

impl From<TableError> for SignUpError {
    fn from(e: TableError) -> Self {
        SignUpError::Storage(e.into())
    }
}

/// Signs `request` up; `base` is the application's public origin, `client`
/// the address the request came from.
pub async fn sign_up(
    ports: &Ports,
    request: SignUp,
    base: &str,
    client: &str,
) -> Result<(), SignUpError> {
    if let Verdict::Wait(seconds) =
        throttle::reserve(ports, &throttle::SIGN_UP_CLIENT, client).await?
    {
        return Err(SignUpError::Throttled(seconds));
    }
    let existing = store::by_email(ports, &request.email).await?;
    let SignUp {
        business,
        email,
        password,
        lang,
    } = request;
    let password_hash = blocking(move || hash_password(&password)).await;
    let squatter = match existing {
        Some(person) if person.has_password() => {
            return already_registered(ports, email, base, lang).await;
        }
        other => other,
    };
    let (account, mut writes) = accounts::opening(ports, &business, Plan::Mini, Issuer::default());
    let person = Person {
        id: PersonId::generate(),
        email,
        account_id: account.id.clone(),
        role: Role::Owner,
        verified: false,
        lang,
        password_hash,
        link_generation: 0,
    };
    let mut created = store::create(&person, &ports.clock.now().to_rfc3339());
    if let Some(squatter) = &squatter {
        replace_claim(&mut created, squatter);
    }
    writes.extend(created);
    writes.push(postbox::post(
        ports,
        &Letter::Confirm {
            person: person.id.clone(),
        },
        base,
        lang,
    ));
    match ports.table.transact(writes).await {
        Ok(()) => {}
        Err(TableError::ConditionFailed { key, .. }) if key == store::email_key(&person.email) => {
            return already_registered(ports, person.email, base, lang).await;
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(account = %account.id, person = %person.id, "signed up");
    Ok(())
}

/// Makes the writes of a new person take the address from a person an old
/// invitation created (never signed in), removing that person.
fn replace_claim(writes: &mut Vec<Write>, squatter: &Person) {
    let claim = store::email_key(&squatter.email);
    for write in writes.iter_mut() {
        if let Write::Put { item, condition } = write
            && item.key == claim
        {
            *condition = Some(Condition::equals("person_id", squatter.id.as_str()));
        }
    }
    writes.extend(
        [
            store::profile_key(&squatter.id),
            store::member_key(&squatter.account_id, &squatter.id),
        ]
        .map(|key| Write::Delete {
            key,
            condition: None,
        }),
    );
}

async fn already_registered(
    ports: &Ports,
    email: Email,
    base: &str,
    lang: Lang,
) -> Result<(), SignUpError> {
    let letter = Letter::AlreadyRegistered { email };
    ports
        .table
        .transact(vec![postbox::post(ports, &letter, base, lang)])
        .await?;
    Ok(())
}

/// Posts `person` a new link that confirms their address.
pub async fn send_confirmation(
    ports: &Ports,
    person: &Person,
    base: &str,
) -> Result<(), PeopleError> {
    let letter = Letter::Confirm {
        person: person.id.clone(),
    };
    ports
        .table
        .transact(vec![postbox::post(ports, &letter, base, person.lang)])
        .await?;
    Ok(())
}

/// Confirms the address of the link's person; false when the link does not
/// work (used, expired, unknown, or made before the person's last new
/// password).
pub async fn confirm(ports: &Ports, secret: &str) -> Result<bool, PeopleError> {
    let Some(link) = links::consume(ports, Purpose::Verify, secret).await? else {
        return Ok(false);
    };
    let Ok(id) = link.subject.parse::<PersonId>() else {
        return Ok(false);
    };
    match store::get(ports, &id).await? {
        Some(person) if person.link_generation == link.generation => {
            mark_verified(ports, &id, Vec::new()).await
        }
        _ => Ok(false),
    }
}

/// Marks the person's address confirmed, with `more` changes to the profile.
pub(crate) async fn mark_verified(
    ports: &Ports,
    id: &PersonId,
    mut more: Vec<UpdateOp>,
) -> Result<bool, PeopleError> {
    more.push(UpdateOp::set("verified", true));
    match ports
        .table
        .update(&store::profile_key(id), more, Some(Condition::Present))
        .await
    {
        Ok(_) => Ok(true),
        Err(TableError::ConditionFailed { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::app::test_ports;

    /// A person who signed up and confirmed their address, with the password
    /// `contraseña larga`.
    pub(crate) async fn verified_person(ports: &Ports, email: &str) -> Person {
        let email: Email = email.parse().unwrap();
        let request = SignUp {
            business: "Taller".into(),
            email: email.clone(),
            password: Password::parse("contraseña larga").unwrap(),
            lang: Lang::Es,
        };
        sign_up(ports, request, "http://127.0.0.1:8080", email.as_str())
            .await
            .unwrap();
        let person = store::by_email(ports, &email).await.unwrap().unwrap();
        mark_verified(ports, &person.id, Vec::new()).await.unwrap();
        store::get(ports, &person.id).await.unwrap().unwrap()
    }

    #[tokio::test]
    async fn signing_up_opens_a_mini_account_owned_by_the_person() {
        let (ports, _dir) = test_ports();
        let person = verified_person(&ports, "Ana@Example.com").await;
        assert_eq!(person.email.as_str(), "ana@example.com");
        assert_eq!(person.role, Role::Owner);
        let account = accounts::get(&ports, &person.account_id).await.unwrap();
        assert_eq!(
            (account.name.as_str(), account.plan),
            ("Taller", Plan::Mini)
        );
        let members = store::members(&ports, &person.account_id).await.unwrap();
        assert_eq!(members.len(), 1);

        let again = SignUp {
            business: "Otro".into(),
            email: "ana@example.com".parse().unwrap(),
            password: Password::parse("otra contraseña").unwrap(),
            lang: Lang::Es,
        };
        sign_up(&ports, again, "http://x", "c").await.unwrap();
        assert_eq!(
            store::by_email(&ports, &person.email)
                .await
                .unwrap()
                .unwrap(),
            person,
            "a second sign-up changes nothing"
        );
    }

    #[tokio::test]
    async fn a_person_an_old_invitation_created_does_not_hold_the_address() {
        let (ports, _dir) = test_ports();
        let owner = verified_person(&ports, "ana@example.com").await;
        let squatter = Person {
            id: PersonId::generate(),
            email: "eva@example.com".parse().unwrap(),
            account_id: owner.account_id.clone(),
            role: Role::Member,
            verified: false,
            lang: Lang::Es,
            password_hash: String::new(),
            link_generation: 0,
        };
        ports
            .table
            .transact(store::create(&squatter, "2026-01-01T00:00:00Z"))
            .await
            .unwrap();
        let eva = verified_person(&ports, "eva@example.com").await;
        assert_ne!(eva.account_id, owner.account_id);
        assert_eq!(eva.role, Role::Owner);
        assert!(store::get(&ports, &squatter.id).await.unwrap().is_none());
        let members = store::members(&ports, &owner.account_id).await.unwrap();
        assert_eq!(members.len(), 1, "the squatter left the account");
    }

    #[tokio::test]
    async fn a_client_signs_up_a_limited_number_of_times_an_hour() {
        let (ports, _dir) = test_ports();
        for n in 0..=throttle::SIGN_UP_CLIENT.max {
            let request = SignUp {
                business: "Taller".into(),
                email: format!("p{n}@example.com").parse().unwrap(),
                password: Password::parse("contraseña larga").unwrap(),
                lang: Lang::Es,
            };
            let answer = sign_up(&ports, request, "http://x", "10.0.0.1").await;
            assert_eq!(
                matches!(answer, Err(SignUpError::Throttled(_))),
                n == throttle::SIGN_UP_CLIENT.max
            );
        }
    }
}
