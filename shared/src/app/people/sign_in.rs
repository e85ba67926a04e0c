//! Signing in with email and password: throttled (see `throttle`), one
//! generic error for an unknown address and a wrong password, checked
//! against a decoy hash when the address is unknown so both take as long.

use crate::domain::person::{Email, Password, decoy_hash, verify_password};
use crate::ports::Ports;

use super::sessions::{self, Session};
use super::sign_up::send_confirmation;
use super::{PeopleError, Person, blocking, store, throttle};

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    #[error("the email or the password is not right")]
    Invalid,
    #[error("too many failed attempts; try again in 15 minutes")]
    Throttled,
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

/// A new session for the person whose email and password these are;
/// `client` is the address the request came from; `base` where the
/// application is served (for a new confirmation link).
pub async fn sign_in(
    ports: &Ports,
    email: &str,
    password: &str,
    client: &str,
    base: &str,
) -> Result<(String, Session), SignInError> {
    let typed = email.trim().to_lowercase();
    if throttle::blocked(ports, &typed, client).await? {
        return Err(SignInError::Throttled);
    }
    let person = match typed.parse::<Email>() {
        Ok(email) => store::by_email(ports, &email).await?,
        Err(_) => None,
    };
    let password = Password::typed(password);
    let stored: Option<String> = person
        .as_ref()
        .map(|p| p.password_hash.clone())
        .filter(|h| !h.is_empty());
    let matches = blocking(move || {
        let hash = stored.as_deref().unwrap_or_else(|| decoy_hash());
        verify_password(&password, hash) && stored.is_some()
    })
    .await;
    let Some(person) = person.filter(|_| matches) else {
        throttle::failed(ports, &typed, client).await?;
        return Err(SignInError::Invalid);
    };
    if !person.verified {
        send_confirmation(ports, &person, base).await?;
        return Err(SignInError::Unconfirmed);
    }
    tracing::info!(person = %person.id, "signed in");
    Ok(sessions::start(ports, person).await?)
}

/// Checks the password of a signed-in person (before they change it).
pub async fn password_matches(person: &Person, password: &str) -> bool {
    let password = Password::typed(password);
    let hash = person.password_hash.clone();
    blocking(move || verify_password(&password, &hash)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::people::sign_up::tests::verified_person;
    use crate::app::test_ports;

    #[tokio::test]
    async fn the_right_password_signs_in_and_anything_else_is_one_error() {
        let (ports, _dir) = test_ports();
        let ana = verified_person(&ports, "ana@example.com").await;
        let (_, session) = sign_in(
            &ports,
            " ANA@example.com",
            "contraseña larga",
            "10.0.0.1",
            "http://x",
        )
        .await
        .unwrap();
        assert_eq!(session.person, ana);
        for (email, password) in [
            ("ana@example.com", "contraseña corta"),
            ("nadie@example.com", "contraseña larga"),
            ("not an email", "contraseña larga"),
        ] {
            let err = sign_in(&ports, email, password, "10.0.0.1", "http://x")
                .await
                .unwrap_err();
            assert!(matches!(err, SignInError::Invalid), "{email}: {err}");
        }
    }

    #[tokio::test]
    async fn repeated_failures_are_throttled_even_with_the_right_password() {
        let (ports, _dir) = test_ports();
        verified_person(&ports, "ana@example.com").await;
        for _ in 0..throttle::PER_EMAIL {
            let err = sign_in(&ports, "ana@example.com", "mala", "10.0.0.1", "http://x")
                .await
                .unwrap_err();
            assert!(matches!(err, SignInError::Invalid));
        }
        let err = sign_in(
            &ports,
            "ana@example.com",
            "contraseña larga",
            "10.0.0.9",
            "http://x",
        )
        .await
        .unwrap_err();
        assert!(matches!(err, SignInError::Throttled));
    }
}
