//! The people of the application: signing up, confirming an email address,
//! signing in (throttled), sessions, password resets, an account's members
//! and the invitations its owner offers. The web application is their only caller; the API's callers are
//! keys (`app::keys`).

pub mod devices;
pub mod invitations;
pub mod links;
pub mod mail;
pub mod members;
pub mod password;
pub mod postbox;
pub mod sessions;
pub mod sign_in;
pub mod sign_up;
pub mod store;
pub mod throttle;

use crate::app::accounts::AccountError;
use crate::domain::account::AccountId;
use crate::domain::lang::Lang;
use crate::domain::person::{Email, PersonId, Role};
use crate::ports::table::TableError;

/// A person as stored: who they are and which account they act for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub id: PersonId,
    pub email: Email,
    pub account_id: AccountId,
    pub role: Role,
    /// Whether they followed the link of their confirmation or invitation email.
    pub verified: bool,
    /// The language of the emails they get: the one they signed up or were invited in.
    pub lang: Lang,
    /// The PHC string of their password; empty only for a person an
    /// invitation created before invitations became offers, who never set one.
    pub(crate) password_hash: String,
    /// Moves on with every new password: links made before stop working.
    pub(crate) link_generation: i64,
}

impl Person {
    /// Whether the person can sign in (a person an old invitation created
    /// and who never set a password cannot, and holds their address only
    /// until it signs up).
    pub fn has_password(&self) -> bool {
        !self.password_hash.is_empty()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PeopleError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Account(#[from] AccountError),
    #[error("stored person is unreadable: {0}")]
    Corrupt(String),
}

/// Runs a password hash or check off the async threads: Argon2id takes tens
/// of milliseconds of one core.
pub(crate) async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work)
        .await
        .expect("a password hash does not panic")
}
