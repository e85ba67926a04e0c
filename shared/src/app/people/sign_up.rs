//! Signing up: a new account on plan Mini with the person as its owner, and
//! an email with the link that confirms the address. An address that
//! already has an account gets a notice instead; the page says the same in
//! both cases, so sign-up never tells whether an address is known.

use crate::app::accounts;
use crate::domain::account::{Issuer, Plan};
use crate::domain::lang::Lang;
use crate::domain::person::{Email, Password, PersonId, Role, hash_password};
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, UpdateOp};

use super::links::{self, Purpose};
use super::mail::{self, Notice};
use super::{PeopleError, Person, blocking, store};

pub struct SignUp {
    /// The name of the business, the account's name.
    pub business: String,
    pub email: Email,
    pub password: Password,
    pub lang: Lang,
}

/// The address of a link of the application: `base` is where the
/// application is served (`https://app.example.com`).
pub fn link_url(base: &str, purpose: Purpose, secret: &str) -> String {
    format!(
        "{}{}?token={secret}",
        base.trim_end_matches('/'),
        purpose.path()
    )
}

pub async fn sign_up(ports: &Ports, request: SignUp, base: &str) -> Result<(), PeopleError> {
    if let Some(existing) = store::by_email(ports, &request.email).await? {
        return already_registered(ports, &existing.email, request.lang, base).await;
    }
    let SignUp {
        business,
        email,
        password,
        lang,
    } = request;
    let password_hash = blocking(move || hash_password(&password)).await;
    let (account, mut writes) = accounts::opening(ports, &business, Plan::Mini, Issuer::default());
    let person = Person {
        id: PersonId::generate(),
        email,
        account_id: account.id.clone(),
        role: Role::Owner,
        verified: false,
        lang,
        password_hash,
    };
    writes.extend(store::create(&person, &ports.clock.now().to_rfc3339()));
    let (secret, link) = links::create(ports, Purpose::Verify, &person.id);
    writes.push(link);
    match ports.table.transact(writes).await {
        Ok(()) => {}
        Err(TableError::ConditionFailed { key, .. }) if key == store::email_key(&person.email) => {
            return already_registered(ports, &person.email, lang, base).await;
        }
        Err(e) => return Err(e.into()),
    }
    tracing::info!(account = %account.id, person = %person.id, "signed up");
    email_link(
        ports,
        &person,
        Purpose::Verify,
        &secret,
        base,
        &account.name,
    )
    .await;
    Ok(())
}

async fn already_registered(
    ports: &Ports,
    email: &Email,
    lang: Lang,
    base: &str,
) -> Result<(), PeopleError> {
    let sign_in_url = format!("{}/sign-in", base.trim_end_matches('/'));
    if let Err(e) = mail::send(
        ports,
        email,
        lang,
        &Notice::AlreadyRegistered {
            sign_in_url: &sign_in_url,
        },
    )
    .await
    {
        tracing::warn!(error = %e, "the notice to an address that signed up again was not sent");
    }
    Ok(())
}

/// Emails `person` a link; a failed send is logged, not the caller's error:
/// the person can ask again (a sign-in sends a new confirmation link, the
/// reset page a new reset link).
pub(crate) async fn email_link(
    ports: &Ports,
    person: &Person,
    purpose: Purpose,
    secret: &str,
    base: &str,
    account: &str,
) {
    let url = link_url(base, purpose, secret);
    let notice = Notice::Link {
        purpose,
        url: &url,
        account,
    };
    if let Err(e) = mail::send(ports, &person.email, person.lang, &notice).await {
        tracing::warn!(error = %e, person = %person.id, purpose = purpose.code(), "the link was not emailed");
    }
}

/// Sends `person` a new link that confirms their address.
pub async fn send_confirmation(
    ports: &Ports,
    person: &Person,
    base: &str,
) -> Result<(), PeopleError> {
    let (secret, link) = links::create(ports, Purpose::Verify, &person.id);
    ports.table.transact(vec![link]).await?;
    let account = accounts::get(ports, &person.account_id).await?;
    email_link(ports, person, Purpose::Verify, &secret, base, &account.name).await;
    Ok(())
}

/// Confirms the address of the link's person; false when the link does not
/// work (used, expired, unknown).
pub async fn confirm(ports: &Ports, secret: &str) -> Result<bool, PeopleError> {
    let Some(id) = links::consume(ports, Purpose::Verify, secret).await? else {
        return Ok(false);
    };
    mark_verified(ports, &id, Vec::new()).await
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
        sign_up(ports, request, "http://127.0.0.1:8080")
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
        sign_up(&ports, again, "http://x").await.unwrap();
        assert_eq!(
            store::by_email(&ports, &person.email)
                .await
                .unwrap()
                .unwrap(),
            person,
            "a second sign-up changes nothing"
        );
    }
}
