//! The book's items. Only live expenses are kept (test keys store nothing).
//!
//! - `EXPENSES#<account>` / `<issue date>#<id>`: the expense (`doc`, JSON)
//!   and its `version`; the book in date order, for lists and the tax forms.
//! - `EXPENSE#<account>` / `<id>`: where it is in the book (`at`).
//! - `EXPDUP#<account>` / `<country>:<tax id>#<NUMBER>#<date>`: the id of
//!   the expense with that supplier, number and date (one per book).
//! - `EXPHIST#<account>#<id>` / `<version, 10 digits>`: each version as
//!   written (`action`, `doc`, `at`), kept after a deletion.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};

use crate::domain::account::AccountId;
use crate::expense::Expense;
use crate::ports::table::{Condition, Item, Key, SortKey, TableError, Write};

pub fn book(account: &AccountId) -> String {
    format!("EXPENSES#{account}")
}

pub fn place(e: &Expense) -> String {
    format!("{}#{}", e.entry.issue_date, e.id)
}

pub fn pointer_key(account: &AccountId, id: &str) -> Key {
    Key::new(format!("EXPENSE#{account}"), id)
}

pub fn duplicate_index(account: &AccountId, duplicate_key: &str) -> Key {
    Key::new(format!("EXPDUP#{account}"), duplicate_key)
}

pub fn history(account: &AccountId, id: &str) -> String {
    format!("EXPHIST#{account}#{id}")
}

/// The book's items dated from `from` to `to`, both inclusive.
pub fn dated(from: Option<NaiveDate>, to: Option<NaiveDate>) -> SortKey {
    match (from, to) {
        (None, None) => SortKey::All,
        (from, to) => SortKey::Between(
            from.map_or_else(|| "0".into(), |d| format!("{d}#")),
            to.map_or_else(|| "9".into(), |d| format!("{d}#\u{10FFFF}")),
        ),
    }
}

/// An expense as read, with the version its next write must find.
pub struct Stored {
    pub expense: Expense,
    pub version: i64,
}

pub fn decode(item: &Item) -> Result<Stored, TableError> {
    let expense = serde_json::from_str(item.s("doc").unwrap_or_default())
        .map_err(|e| TableError::Unavailable(format!("unreadable expense {}: {e}", item.key)))?;
    Ok(Stored {
        expense,
        version: item.n("version").unwrap_or(0),
    })
}

fn doc(e: &Expense) -> String {
    serde_json::to_string(e).expect("expenses serialise")
}

/// The writes that put `e` in the book as version `version`, replacing the
/// `previous` version (or nothing).
pub fn put(account: &AccountId, e: &Expense, previous: Option<&Stored>) -> Vec<Write> {
    let version = previous.map_or(1, |p| p.version + 1);
    let item = Item::new(Key::new(book(account), place(e)))
        .with("doc", doc(e))
        .with("version", version);
    let moved = previous.filter(|p| place(&p.expense) != place(e));
    let mut writes = vec![Write::Put {
        item,
        condition: Some(match (previous, &moved) {
            (Some(p), None) => Condition::equals("version", p.version),
            _ => Condition::Absent,
        }),
    }];
    if let Some(p) = moved {
        writes.push(Write::Delete {
            key: Key::new(book(account), place(&p.expense)),
            condition: Some(Condition::equals("version", p.version)),
        });
    }
    if previous.is_none() || moved.is_some() {
        writes.push(Write::Put {
            item: Item::new(pointer_key(account, &e.id)).with("at", place(e)),
            condition: None,
        });
    }
    let old_key = previous.map(|p| p.expense.duplicate_key());
    if old_key.as_deref() != Some(e.duplicate_key().as_str()) {
        if let Some(old) = old_key {
            writes.push(Write::Delete {
                key: duplicate_index(account, &old),
                condition: None,
            });
        }
        writes.push(Write::Put {
            item: Item::new(duplicate_index(account, &e.duplicate_key()))
                .with("expense_id", e.id.as_str()),
            condition: Some(Condition::Absent),
        });
    }
    writes
}

/// The writes that remove `s` from the book (its history stays).
pub fn remove(account: &AccountId, s: &Stored) -> Vec<Write> {
    vec![
        Write::Delete {
            key: Key::new(book(account), place(&s.expense)),
            condition: Some(Condition::equals("version", s.version)),
        },
        Write::Delete {
            key: pointer_key(account, &s.expense.id),
            condition: None,
        },
        Write::Delete {
            key: duplicate_index(account, &s.expense.duplicate_key()),
            condition: None,
        },
    ]
}

/// What happened to an expense, in its history.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = ExpenseAction)]
pub enum Action {
    Created,
    Updated,
    Deleted,
}

/// The history entry of version `version` of `e` (1 when created, then one
/// more per change and for the deletion).
pub fn record_history(
    account: &AccountId,
    e: &Expense,
    action: Action,
    version: i64,
    at: DateTime<Utc>,
) -> Write {
    let action = serde_json::to_value(action).expect("actions serialise");
    Write::Put {
        item: Item::new(Key::new(history(account, &e.id), format!("{version:010}")))
            .with("action", action.as_str().unwrap_or_default())
            .with("doc", doc(e))
            .with("at", at.to_rfc3339_opts(SecondsFormat::Millis, true)),
        condition: Some(Condition::Absent),
    }
}
