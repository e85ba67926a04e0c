//! The application's letters leave through the outbox: a request writes what
//! to send (a `MAIL#` item, in the same transaction as its change) and the
//! table's feed hands it to `deliver` after the response. So a request does
//! the same work whether or not the address has an account (no timing tells
//! them apart), and what the letter depends on is decided when it is sent:
//! the link is made then (its secret is never stored), a reset goes only to
//! an address with an account, and no address gets more than
//! `throttle::MAILS_TO_ADDRESS` letters, whoever asks.

use chrono::Duration;

use crate::app::accounts;
use crate::domain::account::AccountId;
use crate::domain::lang::Lang;
use crate::domain::person::{Email, PersonId};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Write};

use super::links::{self, Purpose};
use super::mail::{self, Notice};
use super::throttle::{self, Verdict};
use super::{PeopleError, invitations, store};

/// The `entity` of a letter's item: what the feeds dispatch.
pub const ENTITY: &str = "mail";

/// A letter not sent after this long is dropped (the feed retries for a day).
const KEPT: Duration = Duration::days(1);

/// What to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Letter {
    /// The link that confirms a new person's address.
    Confirm { person: PersonId },
    /// A password-reset link, if the address has an account.
    Reset { email: Email },
    /// A notice that the address already has an account (it signed up again).
    AlreadyRegistered { email: Email },
    /// The link of an invitation, while it stands.
    Invitation {
        account: AccountId,
        invitation: String,
        email: Email,
    },
}

impl Letter {
    fn kind(&self) -> &'static str {
        match self {
            Letter::Confirm { .. } => "confirm",
            Letter::Reset { .. } => "reset",
            Letter::AlreadyRegistered { .. } => "already_registered",
            Letter::Invitation { .. } => "invitation",
        }
    }

    fn decode(item: &Item) -> Option<Letter> {
        let email = || item.s("to")?.parse().ok();
        Some(match item.s("letter")? {
            "confirm" => Letter::Confirm {
                person: item.s("person_id")?.parse().ok()?,
            },
            "reset" => Letter::Reset { email: email()? },
            "already_registered" => Letter::AlreadyRegistered { email: email()? },
            "invitation" => Letter::Invitation {
                account: item.s("account_id")?.parse().ok()?,
                invitation: item.s("invitation")?.to_string(),
                email: email()?,
            },
            _ => return None,
        })
    }
}

/// The write that posts `letter`; `base` is the application's public origin,
/// `lang` the language of a letter to an address without a person.
pub fn post(ports: &Ports, letter: &Letter, base: &str, lang: Lang) -> Write {
    let now = ports.clock.now();
    let id = crate::ids::new_ordered_id("mail", now);
    let mut item = Item::new(Key::new(format!("MAIL#{id}"), "MAIL"))
        .with("entity", ENTITY)
        .with("letter", letter.kind())
        .with("base", base.trim_end_matches('/'))
        .with("lang", lang.code())
        .with(TTL, (now + KEPT).timestamp());
    item = match letter {
        Letter::Confirm { person } => item.with("person_id", person.as_str()),
        Letter::Reset { email } | Letter::AlreadyRegistered { email } => {
            item.with("to", email.as_str())
        }
        Letter::Invitation {
            account,
            invitation,
            email,
        } => item
            .with("to", email.as_str())
            .with("account_id", account.as_str())
            .with("invitation", invitation.as_str()),
    };
    Write::Put {
        item,
        condition: Some(Condition::Absent),
    }
}

/// A letter ready to go: to whom, in which language, saying what, and the
/// link it carries (stored when it is sent).
struct Composed {
    to: Email,
    lang: Lang,
    notice: Notice,
    link: Option<Write>,
}

fn link_url(base: &str, purpose: Purpose, secret: &str) -> String {
    format!("{base}{}?token={secret}", purpose.path())
}

/// What `letter` becomes now, or None when it no longer applies (the person
/// is gone or confirmed, the address has no account, the invitation was
/// revoked).
async fn compose(
    ports: &Ports,
    letter: Letter,
    base: &str,
    lang: Lang,
) -> Result<Option<Composed>, PeopleError> {
    Ok(match letter {
        Letter::Confirm { person } => match store::get(ports, &person).await? {
            Some(person) if !person.verified => {
                let (secret, link) = links::create(
                    ports,
                    Purpose::Verify,
                    person.id.as_str(),
                    person.link_generation,
                );
                Some(Composed {
                    to: person.email,
                    lang: person.lang,
                    notice: Notice::Confirm {
                        url: link_url(base, Purpose::Verify, &secret),
                    },
                    link: Some(link),
                })
            }
            _ => None,
        },
        Letter::Reset { email } => match store::by_email(ports, &email).await? {
            Some(person) if person.has_password() => {
                let (secret, link) = links::create(
                    ports,
                    Purpose::Reset,
                    person.id.as_str(),
                    person.link_generation,
                );
                Some(Composed {
                    to: person.email,
                    lang: person.lang,
                    notice: Notice::Reset {
                        url: link_url(base, Purpose::Reset, &secret),
                    },
                    link: Some(link),
                })
            }
            _ => None,
        },
        Letter::AlreadyRegistered { email } => {
            store::by_email(ports, &email)
                .await?
                .map(|person| Composed {
                    to: person.email,
                    lang: person.lang,
                    notice: Notice::AlreadyRegistered {
                        sign_in_url: format!("{base}/sign-in"),
                    },
                    link: None,
                })
        }
        Letter::Invitation {
            account,
            invitation,
            email,
        } => match invitations::get(ports, &account, &invitation).await? {
            Some(standing) => {
                let name = accounts::get(ports, &account).await?.name;
                let (secret, link) =
                    links::create(ports, Purpose::Invite, &standing.reference(), 0);
                Some(Composed {
                    to: email,
                    lang,
                    notice: Notice::Invitation {
                        url: link_url(base, Purpose::Invite, &secret),
                        account: name,
                        inviter: standing.invited_by,
                    },
                    link: Some(link),
                })
            }
            None => None,
        },
    })
}

/// Sends the letter of a `MAIL#` item the feed handed over, at most once
/// (the item is taken before sending; the feed may hand it over twice).
/// A letter that can no longer be sent is dropped; one the address's limit
/// refuses is dropped and logged. A failed send is logged: the person can
/// ask again.
pub async fn deliver(ports: &Ports, item: &Item) -> Result<(), PeopleError> {
    let Some(letter) = Letter::decode(item) else {
        tracing::warn!(item = %item.key, "an unreadable letter was dropped");
        return Ok(());
    };
    let base = item.s("base").unwrap_or_default();
    let lang = item.s("lang").and_then(Lang::parse).unwrap_or_default();
    let kind = letter.kind();
    let composed = compose(ports, letter, base, lang).await?;
    match ports
        .table
        .delete(&item.key, Some(Condition::Present))
        .await
    {
        Ok(()) => {}
        Err(TableError::ConditionFailed { .. }) => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    let Some(composed) = composed else {
        return Ok(());
    };
    if let Verdict::Wait(_) =
        throttle::reserve(ports, &throttle::MAILS_TO_ADDRESS, composed.to.as_str()).await?
    {
        tracing::warn!(
            to = %crate::redact::short_hash(composed.to.as_str()),
            letter = kind,
            "too many letters to this address this hour; not sent"
        );
        return Ok(());
    }
    if let Some(link) = composed.link {
        ports.table.transact(vec![link]).await?;
    }
    if let Err(e) = mail::send(ports, &composed.to, composed.lang, &composed.notice).await {
        tracing::warn!(error = %e, letter = kind, "a letter was not sent");
    }
    Ok(())
}
