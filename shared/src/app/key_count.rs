//! How many API keys an account holds unrevoked, kept so that a limit on
//! them holds under concurrency. Each key has its own rate limit, so keys
//! without number would multiply it: an account has at most
//! `MAX_ACTIVE_KEYS`.
//!
//! The count is one item, `ACCOUNT#<id>` / `KEYCOUNT`, with `active` and a
//! `version`. Every creation and revocation changes it in the transaction
//! that writes the key, conditional on the version read (a compare-and-swap:
//! of two writers that read the same version, one fails and reads again), so
//! two parallel creations cannot both take the last place. The version,
//! not `active`, is compared: a creation and a revocation in between would
//! leave `active` as it was.
//!
//! Accounts older than the count have no item: the first creation or
//! revocation counts the unrevoked keys of the account's list once and puts
//! the item (on condition it is still absent). Keys made before the account's
//! list existed are in no list and not counted.

use crate::domain::account::AccountId;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, UpdateOp, Write};

/// The most unrevoked keys (live and test together) an account may hold.
pub const MAX_ACTIVE_KEYS: i64 = 20;

fn key(account: &AccountId) -> Key {
    Key::new(format!("ACCOUNT#{account}"), "KEYCOUNT")
}

/// The count as read: `version` is None while the item does not exist yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub active: i64,
    version: Option<i64>,
}

impl Count {
    /// The write that moves the count by `by` if nobody changed it since it
    /// was read.
    pub fn change(&self, account: &AccountId, by: i64) -> Write {
        match self.version {
            Some(version) => Write::Update {
                key: key(account),
                ops: vec![
                    UpdateOp::add("active", by),
                    UpdateOp::set("version", version + 1),
                ],
                condition: Some(Condition::equals("version", version)),
            },
            None => Write::Put {
                item: Item::new(key(account))
                    .with("active", self.active + by)
                    .with("version", 1),
                condition: Some(Condition::Absent),
            },
        }
    }
}

/// The account's count, from its item or, when there is none, from its list.
pub async fn read(ports: &Ports, account: &AccountId) -> Result<Count, TableError> {
    if let Some(item) = ports.table.get(&key(account)).await? {
        return Ok(Count {
            active: item.n("active").unwrap_or_default(),
            version: Some(item.n("version").unwrap_or_default()),
        });
    }
    Ok(Count {
        active: listed_active(ports, account).await?,
        version: None,
    })
}

/// The unrevoked keys of the account's list, every page.
async fn listed_active(ports: &Ports, account: &AccountId) -> Result<i64, TableError> {
    let mut query = Query::new(format!("ACCOUNT#{account}"), SortKey::Prefix("KEY#".into()));
    let mut active = 0;
    loop {
        let page = ports.table.query(&query).await?;
        active += page
            .items
            .iter()
            .filter(|i| i.s("revoked_at").is_none())
            .count() as i64;
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(active),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{accounts, test_ports};
    use crate::domain::account::Plan;

    #[tokio::test]
    async fn a_missing_count_starts_from_the_list_and_then_moves_by_version() {
        let (ports, _dir) = test_ports();
        let account = accounts::create(&ports, "A", Plan::Pro, None)
            .await
            .unwrap()
            .id;
        let listed = |n: u32, revoked: bool| {
            let item = Item::new(Key::new(
                format!("ACCOUNT#{account}"),
                format!("KEY#key_{n}"),
            ));
            match revoked {
                true => item.with("revoked_at", "2026-11-01T00:00:00Z"),
                false => item,
            }
        };
        for (n, revoked) in [(1, false), (2, true), (3, false)] {
            ports.table.put(listed(n, revoked), None).await.unwrap();
        }
        let first = read(&ports, &account).await.unwrap();
        assert_eq!(first.active, 2);
        ports
            .table
            .transact(vec![first.change(&account, 1)])
            .await
            .unwrap();
        let second = read(&ports, &account).await.unwrap();
        assert_eq!(second.active, 3);
        // A writer that read the first state loses to the one that wrote.
        let stale = ports.table.transact(vec![first.change(&account, 1)]).await;
        assert!(matches!(stale, Err(TableError::ConditionFailed { .. })));
        ports
            .table
            .transact(vec![second.change(&account, -1)])
            .await
            .unwrap();
        let stale = ports.table.transact(vec![second.change(&account, 1)]).await;
        assert!(matches!(stale, Err(TableError::ConditionFailed { .. })));
        assert_eq!(read(&ports, &account).await.unwrap().active, 2);
    }
}
