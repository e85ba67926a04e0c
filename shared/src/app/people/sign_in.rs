//! Signing in with email and password: one generic error for an unknown
//! address and a wrong password, checked against a decoy hash when the
//! address is unknown so both take as long.
//!
//! Throttled (`throttle`) before the password is checked: an attempt from a
//! browser where the address signed in before (its device cookie,
//! `devices`) counts against that device only; any other counts against the
//! address and the client. So guesses from anywhere are limited per address
//! and per client, while failures an attacker causes never stop the
//! address's owner on their own browser. A success gives its attempts back
//! and remembers the browser.

use crate::domain::person::{Email, Password, decoy_hash, verify_password};
use crate::ports::Ports;

use super::devices;
use super::sessions::{self, Session};
use super::sign_up::send_confirmation;
use super::throttle::{self, Reservation, Verdict};
use super::{PeopleError, blocking, store};

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("the email or the password is not right")]
    Invalid,
    #[error("too many failed attempts; try again in {0} seconds")]
    Throttled(i64),
    /// The password was right but the address is not confirmed yet: a new
    /// confirmation link was sent.
    #[error("the email address is not confirmed yet")]
    Unconfirmed,
    #[error(transparent)]
    Storage(#[from] PeopleError),
}

impl From<crate::ports::table::TableError> for SignInError {
    fn from(e: crate::ports::table::TableError) -> Self {
        SignInError::Storage(e.into())
    }
}

/// What a sign-in form sent, and from where.
pub struct Attempt<'a> {
    pub email: &'a str,
    pub password: &'a str,
    /// The address the request came from.
    pub client: &'a str,
    /// The browser's device cookie, if it has one.
    pub device: Option<&'a str>,
    /// The application's public origin (for a new confirmation link).
    pub base: &'a str,
}

/// A successful sign-in: the session cookie's id and the session, and a
/// new device cookie when the browser was not remembered for the address.
pub struct SignedIn {
    pub secret: String,
    pub session: Session,
    pub device: Option<String>,
}

/// The attempts this sign-in is counted against, or how long it must wait;
/// `device` is the remembered browser's digest, if it is one for `email`.
async fn reserve(
    ports: &Ports,
    email: &str,
    client: &str,
    device: Option<String>,
) -> Result<Result<Vec<Reservation>, i64>, SignInError> {
    let subjects = match device {
        Some(device) => vec![(throttle::SIGN_IN_DEVICE, device)],
        None => vec![
            (throttle::SIGN_IN_CLIENT, client.to_string()),
            (throttle::SIGN_IN_ADDRESS, email.to_string()),
        ],
    };
    let mut taken = Vec::new();
    for (limit, subject) in subjects {
        match throttle::reserve(ports, &limit, &subject).await? {
            Verdict::Allowed(reservation) => taken.push(reservation),
            Verdict::Wait(seconds) => return Ok(Err(seconds)),
        }
    }
    Ok(Ok(taken))
}

/// A new session for the person whose email and password these are.
pub async fn sign_in(ports: &Ports, attempt: Attempt<'_>) -> Result<SignedIn, SignInError> {
    let typed = attempt.email.trim().to_lowercase();
    let remembered = devices::known_for(ports, attempt.device, &typed).await?;
    let reservations = reserve(ports, &typed, attempt.client, remembered.clone())
        .await?
        .map_err(SignInError::Throttled)?;
    let person = match typed.parse::<Email>() {
        Ok(email) => store::by_email(ports, &email).await?,
        Err(_) => None,
    };
    let password = Password::typed(attempt.password);
    let stored: Option<String> = person
        .as_ref()
        .filter(|p| p.has_password())
        .map(|p| p.password_hash.clone());
    let matches = blocking(move || {
        let hash = stored.as_deref().unwrap_or_else(|| decoy_hash());
        verify_password(&password, hash) && stored.is_some()
    })
    .await;
    let Some(person) = person.filter(|_| matches) else {
        return Err(SignInError::Invalid);
    };
    for reservation in reservations {
        throttle::refund(ports, reservation).await?;
    }
    if !person.verified {
        send_confirmation(ports, &person, attempt.base).await?;
        return Err(SignInError::Unconfirmed);
    }
    let device = match remembered {
        Some(_) => None,
        None => {
            let (secret, write) = devices::remember(ports, &person.email);
            ports.table.transact(vec![write]).await?;
            Some(secret)
        }
    };
    tracing::info!(person = %person.id, "signed in");
    let (secret, session) = sessions::start(ports, person).await?;
    Ok(SignedIn {
        secret,
        session,
        device,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;

    fn attempt<'a>(email: &'a str, password: &'a str, client: &'a str) -> Attempt<'a> {
        Attempt {
            email,
            password,
            client,
            device: None,
            base: "http://x",
        }
    }

    #[tokio::test]
    async fn the_right_password_signs_in_and_anything_else_is_one_error() {
        let (ports, _dir) = test_ports();
        let ana = verified_person(&ports, "ana@example.com").await;
        let signed = sign_in(
            &ports,
            attempt(" ANA@example.com", "contraseña larga", "10.0.0.1"),
        )
        .await
        .unwrap();
        assert_eq!(signed.session.person, ana);
        assert!(signed.device.is_some(), "the browser is remembered");
        for (email, password) in [
            ("ana@example.com", "contraseña corta"),
            ("nadie@example.com", "contraseña larga"),
            ("not an email", "contraseña larga"),
        ] {
            let err = sign_in(&ports, attempt(email, password, "10.0.0.1"))
                .await
                .err()
                .unwrap();
            assert!(matches!(err, SignInError::Invalid), "{email}: {err}");
        }
    }

    #[tokio::test]
    async fn failures_elsewhere_do_not_lock_the_owner_out_of_their_own_browser() {
        let (ports, _dir) = test_ports();
        verified_person(&ports, "ana@example.com").await;
        let own = sign_in(
            &ports,
            attempt("ana@example.com", "contraseña larga", "10.0.0.1"),
        )
        .await
        .unwrap()
        .device
        .unwrap();
        for _ in 0..throttle::SIGN_IN_ADDRESS.max {
            let err = sign_in(&ports, attempt("ana@example.com", "mala", "10.6.6.6"))
                .await
                .err()
                .unwrap();
            assert!(matches!(err, SignInError::Invalid));
        }
        let err = sign_in(
            &ports,
            attempt("ana@example.com", "contraseña larga", "10.0.0.9"),
        )
        .await
        .err()
        .unwrap();
        assert!(matches!(err, SignInError::Throttled(_)), "{err}");
        let mut from_own = attempt("ana@example.com", "contraseña larga", "10.0.0.9");
        from_own.device = Some(&own);
        let signed = sign_in(&ports, from_own).await.unwrap();
        assert!(signed.device.is_none(), "already remembered");
    }

    #[tokio::test]
    async fn parallel_guesses_have_no_more_passwords_checked_than_the_limit() {
        let (ports, _dir) = test_ports();
        verified_person(&ports, "ana@example.com").await;
        let guesses = (0..40).map(|n| {
            let ports = ports.clone();
            tokio::spawn(async move {
                let client = format!("10.0.0.{n}");
                sign_in(&ports, attempt("ana@example.com", "mala", &client))
                    .await
                    .err()
                    .unwrap()
            })
        });
        let mut checked = 0;
        for guess in guesses {
            if matches!(guess.await.unwrap(), SignInError::Invalid) {
                checked += 1;
            }
        }
        assert_eq!(checked, throttle::SIGN_IN_ADDRESS.max);
    }
}
