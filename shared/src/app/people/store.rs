//! The table items of people: the profile, the claim of an email address,
//! the account's list of members.

use crate::domain::account::AccountId;
use crate::domain::lang::Lang;
use crate::domain::person::{Email, PersonId, Role};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, UpdateOp, Write};

use super::{PeopleError, Person};

pub fn profile_key(id: &PersonId) -> Key {
    Key::new(format!("PERSON#{id}"), "PROFILE")
}

/// Who has an email address: one person per address, across accounts.
pub fn email_key(email: &Email) -> Key {
    Key::new(format!("EMAIL#{email}"), "PERSON")
}

pub fn member_key(account: &AccountId, id: &PersonId) -> Key {
    Key::new(format!("ACCOUNT#{account}"), format!("MEMBER#{id}"))
}

/// The writes that store a new person: each fails if the id or the email
/// address is taken.
pub fn create(person: &Person, now: &str) -> Vec<Write> {
    let profile = Item::new(profile_key(&person.id))
        .with("email", person.email.as_str())
        .with("account_id", person.account_id.as_str())
        .with("role", person.role.code())
        .with("password_hash", person.password_hash.as_str())
        .with("verified", person.verified)
        .with("lang", person.lang.code())
        .with("link_generation", person.link_generation)
        .with("created_at", now);
    let claim = Item::new(email_key(&person.email)).with("person_id", person.id.as_str());
    let member = Item::new(member_key(&person.account_id, &person.id))
        .with("email", person.email.as_str())
        .with("role", person.role.code())
        .with("created_at", now);
    [profile, claim, member]
        .into_iter()
        .map(|item| Write::Put {
            item,
            condition: Some(Condition::Absent),
        })
        .collect()
}

/// The writes that remove a person: profile, email claim and membership.
pub fn remove(person: &Person) -> Vec<Write> {
    [
        profile_key(&person.id),
        email_key(&person.email),
        member_key(&person.account_id, &person.id),
    ]
    .into_iter()
    .map(|key| Write::Delete {
        key,
        condition: None,
    })
    .collect()
}

/// The writes that move `person` into `account` as a member: the profile
/// only if it is still in the account it was read in.
pub fn move_to(person: &Person, account: &AccountId, now: &str) -> Vec<Write> {
    vec![
        Write::Delete {
            key: member_key(&person.account_id, &person.id),
            condition: None,
        },
        Write::Put {
            item: Item::new(member_key(account, &person.id))
                .with("email", person.email.as_str())
                .with("role", Role::Member.code())
                .with("created_at", now),
            condition: Some(Condition::Absent),
        },
        Write::Update {
            key: profile_key(&person.id),
            ops: vec![
                UpdateOp::set("account_id", account.as_str()),
                UpdateOp::set("role", Role::Member.code()),
            ],
            condition: Some(Condition::equals("account_id", person.account_id.as_str())),
        },
    ]
}

fn decode(id: PersonId, item: &Item) -> Result<Person, PeopleError> {
    let corrupt = |what: &str| PeopleError::Corrupt(format!("{id}: {what}"));
    Ok(Person {
        email: item
            .s("email")
            .and_then(|e| e.parse().ok())
            .ok_or_else(|| corrupt("email"))?,
        account_id: item
            .s("account_id")
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| corrupt("account_id"))?,
        role: item
            .s("role")
            .and_then(Role::parse)
            .ok_or_else(|| corrupt("role"))?,
        verified: matches!(
            item.attrs.get("verified"),
            Some(crate::ports::table::Value::Bool(true))
        ),
        lang: item.s("lang").and_then(Lang::parse).unwrap_or_default(),
        password_hash: item.s("password_hash").unwrap_or_default().to_string(),
        link_generation: item.n("link_generation").unwrap_or(0),
        id,
    })
}

pub async fn get(ports: &Ports, id: &PersonId) -> Result<Option<Person>, PeopleError> {
    match ports.table.get(&profile_key(id)).await? {
        Some(item) => decode(id.clone(), &item).map(Some),
        None => Ok(None),
    }
}

pub async fn by_email(ports: &Ports, email: &Email) -> Result<Option<Person>, PeopleError> {
    let Some(claim) = ports.table.get(&email_key(email)).await? else {
        return Ok(None);
    };
    let Some(id) = claim.s("person_id").and_then(|s| s.parse().ok()) else {
        return Err(PeopleError::Corrupt(format!("the claim of {email}")));
    };
    get(ports, &id).await
}

/// A member of an account as its list shows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub id: PersonId,
    pub email: String,
    pub role: Role,
    pub created_at: String,
}

pub async fn members(ports: &Ports, account: &AccountId) -> Result<Vec<Member>, PeopleError> {
    let query = Query::new(
        format!("ACCOUNT#{account}"),
        SortKey::Prefix("MEMBER#".into()),
    );
    let page = ports.table.query(&query).await?;
    Ok(page
        .items
        .iter()
        .filter_map(|item| {
            Some(Member {
                id: item.key.sk.strip_prefix("MEMBER#")?.parse().ok()?,
                email: item.s("email")?.to_string(),
                role: Role::parse(item.s("role")?)?,
                created_at: item.s("created_at").unwrap_or_default().to_string(),
            })
        })
        .collect())
}
