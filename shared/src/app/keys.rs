//! API keys: creation, revocation and authentication of a request's key.
//! An account holds at most `key_count::MAX_ACTIVE_KEYS` unrevoked keys.

use chrono::Duration;

use crate::app::accounts::{self, AccountError};
use crate::app::key_count::{self, MAX_ACTIVE_KEYS};
use crate::domain::account::{AccountId, Mode, Plan};
use crate::domain::api_key::ApiKey;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, UpdateOp, Write};

/// How stale `last_used_at` may get before a request refreshes it (saves a
/// write per request); a bookkeeping write, as losing one costs nothing.
const LAST_USED_RESOLUTION: Duration = Duration::seconds(60);
/// Rounds a creation or revocation retries after losing the count to
/// another writer of the same account (one writer wins each round).
const COUNT_ROUNDS: u32 = 50;

/// Who is calling: established by the key, trusted by everything after auth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub account_id: AccountId,
    pub plan: Plan,
    pub mode: Mode,
    pub key_id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("no API key was sent")]
    Missing,
    #[error("the API key is malformed")]
    Malformed,
    #[error("the API key is not known")]
    Unknown,
    #[error("the API key was revoked")]
    Revoked,
    #[error("live keys need the Pro or Max plan")]
    PlanRequired,
    #[error(transparent)]
    Storage(#[from] AccountError),
}

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error(transparent)]
    Account(#[from] AccountError),
    #[error("no API key {0}")]
    NotFound(String),
    /// The account already holds the most unrevoked keys.
    #[error(
        "an account has at most {MAX_ACTIVE_KEYS} active API keys: revoke one to create another"
    )]
    LimitReached,
}

fn key_by_hash(hash: &str) -> Key {
    Key::new(format!("APIKEY#{hash}"), "KEY")
}

fn key_by_id(key_id: &str) -> Key {
    Key::new(format!("APIKEYID#{key_id}"), "KEY")
}

/// The account's list of its keys: what the application's Keys page shows.
fn listed(account: &AccountId, key_id: &str) -> Key {
    Key::new(format!("ACCOUNT#{account}"), format!("KEY#{key_id}"))
}

fn table_error(e: TableError) -> AccountError {
    AccountError::Table(e)
}

/// Creates a key for an existing account, within its limit of active keys.
/// The returned key is shown once.
pub async fn create(
    ports: &Ports,
    account: &AccountId,
    mode: Mode,
) -> Result<(String, ApiKey), KeyError> {
    let key = ApiKey::generate(mode);
    let key_id = crate::ids::new_id("key");
    let hash = key.hash();
    let now = ports.clock.now().to_rfc3339();
    let mut writes = vec![
        Write::Check {
            key: accounts::key(account),
            condition: Condition::Present,
        },
        Write::Put {
            item: Item::new(key_by_hash(&hash))
                .with("key_id", key_id.clone())
                .with("account_id", account.as_str())
                .with("mode", mode.as_str())
                .with("created_at", now.clone()),
            condition: Some(Condition::Absent),
        },
        Write::Put {
            item: Item::new(key_by_id(&key_id)).with("hash", hash.clone()),
            condition: Some(Condition::Absent),
        },
        Write::Put {
            item: Item::new(listed(account, &key_id))
                .with("prefix", key.prefix())
                .with("mode", mode.as_str())
                .with("created_at", now),
            condition: Some(Condition::Absent),
        },
    ];
    let counted = writes.len();
    for round in 0..COUNT_ROUNDS {
        let count = key_count::read(ports, account).await.map_err(table_error)?;
        if count.active >= MAX_ACTIVE_KEYS {
            return Err(KeyError::LimitReached);
        }
        writes.truncate(counted);
        writes.push(count.change(account, 1));
        match ports.table.transact(writes.clone()).await {
            Ok(()) => {
                ports.cache.forget(&key_by_hash(&hash));
                return Ok((key_id, key));
            }
            Err(TableError::ConditionFailed { index: Some(0), .. }) => {
                return Err(AccountError::NotFound(account.clone()).into());
            }
            Err(TableError::ConditionFailed { index: Some(i), .. }) if i == counted => {}
            Err(TableError::Conflict) => {}
            Err(e) => return Err(AccountError::Table(e).into()),
        }
        crate::app::race::pause(round).await;
    }
    Err(AccountError::Table(TableError::Conflict).into())
}

/// Revokes a key (again: nothing changes). A key in its account's list
/// gives its place in the count back in the same transaction.
pub async fn revoke(ports: &Ports, key_id: &str) -> Result<(), KeyError> {
    let pointer = ports
        .table
        .get(&key_by_id(key_id))
        .await
        .map_err(table_error)?
        .ok_or_else(|| KeyError::NotFound(key_id.to_string()))?;
    let hash = pointer
        .s("hash")
        .ok_or_else(|| KeyError::NotFound(key_id.to_string()))?;
    for round in 0..COUNT_ROUNDS {
        let stored = ports
            .table
            .get(&key_by_hash(hash))
            .await
            .map_err(table_error)?
            .ok_or_else(|| KeyError::NotFound(key_id.to_string()))?;
        if stored.s("revoked_at").is_some() {
            return Ok(());
        }
        let writes = revocation(ports, key_id, hash, &stored).await?;
        let counted = writes.len() - 1;
        match ports.table.transact(writes).await {
            Ok(()) => {
                ports.cache.forget(&key_by_hash(hash));
                return Ok(());
            }
            Err(TableError::ConditionFailed { index: Some(0), .. }) => {
                return Err(KeyError::NotFound(key_id.to_string()));
            }
            Err(TableError::ConditionFailed { index: Some(i), .. }) if i >= counted => {}
            Err(TableError::Conflict) => {}
            Err(e) => return Err(table_error(e).into()),
        }
        crate::app::race::pause(round).await;
    }
    Err(table_error(TableError::Conflict).into())
}

/// The writes that revoke the key `stored`: the key, and when its account
/// lists it, the listed entry and the count.
async fn revocation(
    ports: &Ports,
    key_id: &str,
    hash: &str,
    stored: &Item,
) -> Result<Vec<Write>, KeyError> {
    let now = ports.clock.now().to_rfc3339();
    let mut writes = vec![Write::Update {
        key: key_by_hash(hash),
        ops: vec![UpdateOp::set("revoked_at", now.clone())],
        condition: Some(Condition::Present),
    }];
    let account: Option<AccountId> = stored.s("account_id").and_then(|a| a.parse().ok());
    let Some(account) = account else {
        return Ok(writes);
    };
    let entry = listed(&account, key_id);
    if ports
        .table
        .get(&entry)
        .await
        .map_err(table_error)?
        .is_none()
    {
        return Ok(writes);
    }
    let count = key_count::read(ports, &account)
        .await
        .map_err(table_error)?;
    writes.push(Write::Update {
        key: entry,
        ops: vec![UpdateOp::set("revoked_at", now)],
        condition: Some(Condition::Present),
    });
    writes.push(count.change(&account, -1));
    Ok(writes)
}

/// A key as the account's list shows it; the key itself is never shown again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySummary {
    pub key_id: String,
    /// The key's first characters (`svc_test_1a2b3c4d`), to tell keys apart.
    pub prefix: String,
    pub mode: Mode,
    pub created_at: String,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

/// The account's keys, newest first (keys made before the list existed are
/// not in it).
pub async fn list(ports: &Ports, account: &AccountId) -> Result<Vec<KeySummary>, KeyError> {
    let query = Query::new(format!("ACCOUNT#{account}"), SortKey::Prefix("KEY#".into()));
    let page = ports.table.query(&query).await.map_err(table_error)?;
    let mut keys = Vec::new();
    for item in page.items {
        let Some(key_id) = item.key.sk.strip_prefix("KEY#") else {
            continue;
        };
        let last_used_at = match ports
            .table
            .get(&key_by_id(key_id))
            .await
            .map_err(table_error)?
        {
            Some(pointer) => match pointer.s("hash") {
                Some(hash) => ports
                    .table
                    .get(&key_by_hash(hash))
                    .await
                    .map_err(table_error)?
                    .and_then(|k| k.s("last_used_at").map(str::to_string)),
                None => None,
            },
            None => None,
        };
        keys.push(KeySummary {
            key_id: key_id.to_string(),
            prefix: item.s("prefix").unwrap_or_default().to_string(),
            mode: item
                .s("mode")
                .and_then(|m| m.parse().ok())
                .unwrap_or(Mode::Test),
            created_at: item.s("created_at").unwrap_or_default().to_string(),
            last_used_at,
            revoked_at: item.s("revoked_at").map(str::to_string),
        });
    }
    keys.sort_by(|a, b| b.created_at.cmp(&a.created_at));
    Ok(keys)
}

/// Revokes one of the account's keys; another account's key is not found.
pub async fn revoke_own(ports: &Ports, account: &AccountId, key_id: &str) -> Result<(), KeyError> {
    let owned = ports
        .table
        .get(&listed(account, key_id))
        .await
        .map_err(table_error)?;
    if owned.is_none() {
        return Err(KeyError::NotFound(key_id.to_string()));
    }
    revoke(ports, key_id).await
}

/// Resolves the `Authorization` header value to the caller it identifies.
pub async fn authenticate(ports: &Ports, authorization: Option<&str>) -> Result<Caller, AuthError> {
    let header = authorization.ok_or(AuthError::Missing)?;
    let raw = header
        .strip_prefix("Bearer ")
        .or_else(|| header.strip_prefix("bearer "))
        .ok_or(AuthError::Malformed)?;
    let key: ApiKey = raw.trim().parse().map_err(|()| AuthError::Malformed)?;
    let stored = ports
        .cache
        .get(&*ports.table, &key_by_hash(&key.hash()))
        .await
        .map_err(table_error)?
        .ok_or(AuthError::Unknown)?;
    if stored.s("revoked_at").is_some() {
        return Err(AuthError::Revoked);
    }
    let account_id: AccountId = stored
        .s("account_id")
        .and_then(|s| s.parse().ok())
        .ok_or(AuthError::Unknown)?;
    let account = accounts::get_recent(ports, &account_id)
        .await
        .map_err(|e| match e {
            AccountError::NotFound(_) => AuthError::Unknown,
            other => AuthError::Storage(other),
        })?;
    if key.mode().is_live() && !account.plan.allows_live_keys() {
        return Err(AuthError::PlanRequired);
    }
    touch(ports, &key, &stored).await?;
    Ok(Caller {
        account_id,
        plan: account.plan,
        mode: key.mode(),
        key_id: stored.s("key_id").unwrap_or_default().to_string(),
    })
}

async fn touch(ports: &Ports, key: &ApiKey, stored: &Item) -> Result<(), AuthError> {
    let now = ports.clock.now();
    let fresh = stored
        .s("last_used_at")
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .is_some_and(|t| now.signed_duration_since(t) < LAST_USED_RESOLUTION);
    if !fresh {
        let touched = ports
            .bookkeeping
            .update(
                &key_by_hash(&key.hash()),
                vec![UpdateOp::set("last_used_at", now.to_rfc3339())],
                Some(Condition::Present),
            )
            .await
            .map_err(table_error)?;
        ports.cache.remember(touched);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;

    async fn setup(plan: Plan) -> (Ports, tempfile::TempDir, AccountId) {
        let (ports, dir) = test_ports();
        let account = accounts::create(&ports, "A", plan, None).await.unwrap();
        (ports, dir, account.id)
    }

    /// When the key was last used, as stored.
    async fn last_used_at(ports: &Ports, key_id: &str) -> Result<Option<String>, KeyError> {
        let pointer = ports
            .table
            .get(&key_by_id(key_id))
            .await
            .map_err(table_error)?
            .ok_or_else(|| KeyError::NotFound(key_id.to_string()))?;
        let hash = pointer.s("hash").unwrap_or_default();
        let stored = ports
            .table
            .get(&key_by_hash(hash))
            .await
            .map_err(table_error)?;
        Ok(stored.and_then(|i| i.s("last_used_at").map(str::to_string)))
    }

    fn bearer(key: &ApiKey) -> String {
        format!("Bearer {}", key.reveal())
    }

    #[tokio::test]
    async fn a_created_key_authenticates_and_records_its_use() {
        let (ports, _dir, account) = setup(Plan::Pro).await;
        let (key_id, key) = create(&ports, &account, Mode::Live).await.unwrap();
        assert_eq!(last_used_at(&ports, &key_id).await.unwrap(), None);
        let caller = authenticate(&ports, Some(&bearer(&key))).await.unwrap();
        assert_eq!(caller.account_id, account);
        assert_eq!(caller.mode, Mode::Live);
        assert_eq!(caller.key_id, key_id);
        assert!(last_used_at(&ports, &key_id).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn each_failure_has_its_own_error() {
        let (ports, _dir, account) = setup(Plan::Mini).await;
        let (key_id, live) = create(&ports, &account, Mode::Live).await.unwrap();
        let (_, test) = create(&ports, &account, Mode::Test).await.unwrap();
        let auth = |h: Option<String>| {
            let ports = ports.clone();
            async move { authenticate(&ports, h.as_deref()).await }
        };
        assert!(matches!(auth(None).await, Err(AuthError::Missing)));
        assert!(matches!(
            auth(Some("Basic abc".into())).await,
            Err(AuthError::Malformed)
        ));
        assert!(matches!(
            auth(Some("Bearer svc_live_123".into())).await,
            Err(AuthError::Malformed)
        ));
        let stranger = ApiKey::generate(Mode::Live);
        assert!(matches!(
            auth(Some(bearer(&stranger))).await,
            Err(AuthError::Unknown)
        ));
        assert!(matches!(
            auth(Some(bearer(&live))).await,
            Err(AuthError::PlanRequired)
        ));
        assert!(auth(Some(bearer(&test))).await.is_ok());

        accounts::set_plan(&ports, &account, Plan::Pro)
            .await
            .unwrap();
        assert!(auth(Some(bearer(&live))).await.is_ok());
        revoke(&ports, &key_id).await.unwrap();
        assert!(matches!(
            auth(Some(bearer(&live))).await,
            Err(AuthError::Revoked)
        ));
        assert!(matches!(
            revoke(&ports, "key_nope").await,
            Err(KeyError::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn keys_need_an_existing_account() {
        let (ports, _dir) = test_ports();
        let err = create(&ports, &AccountId::generate(), Mode::Test)
            .await
            .unwrap_err();
        assert!(matches!(err, KeyError::Account(AccountError::NotFound(_))));
    }

    #[tokio::test]
    async fn an_accounts_keys_are_listed_and_only_it_revokes_them() {
        let (ports, _dir, account) = setup(Plan::Pro).await;
        let (_, _, other) = setup(Plan::Pro).await;
        let (test_id, test) = create(&ports, &account, Mode::Test).await.unwrap();
        let (live_id, _) = create(&ports, &account, Mode::Live).await.unwrap();
        authenticate(&ports, Some(&bearer(&test))).await.unwrap();
        let keys = list(&ports, &account).await.unwrap();
        assert_eq!(keys.len(), 2);
        let listed = keys.iter().find(|k| k.key_id == test_id).unwrap();
        assert_eq!(listed.prefix, test.prefix());
        assert!(test.reveal().starts_with(&listed.prefix));
        assert_eq!(listed.mode, Mode::Test);
        assert!(listed.last_used_at.is_some() && listed.revoked_at.is_none());
        assert!(matches!(
            revoke_own(&ports, &other, &live_id).await,
            Err(KeyError::NotFound(_))
        ));
        revoke_own(&ports, &account, &live_id).await.unwrap();
        let keys = list(&ports, &account).await.unwrap();
        let revoked = keys.iter().find(|k| k.key_id == live_id).unwrap();
        assert!(revoked.revoked_at.is_some());
        assert!(list(&ports, &other).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn the_21st_active_key_is_refused_until_one_is_revoked() {
        let (ports, _dir, account) = setup(Plan::Pro).await;
        let mut ids = Vec::new();
        for n in 0..MAX_ACTIVE_KEYS {
            let mode = if n % 2 == 0 { Mode::Test } else { Mode::Live };
            ids.push(create(&ports, &account, mode).await.unwrap().0);
        }
        let refused = create(&ports, &account, Mode::Test).await.unwrap_err();
        assert!(matches!(refused, KeyError::LimitReached));
        assert!(refused.to_string().contains("at most 20"), "{refused}");
        revoke_own(&ports, &account, &ids[3]).await.unwrap();
        // Revoking again gives no second place back.
        revoke(&ports, &ids[3]).await.unwrap();
        create(&ports, &account, Mode::Test).await.unwrap();
        assert!(matches!(
            create(&ports, &account, Mode::Live).await,
            Err(KeyError::LimitReached)
        ));
        let active = list(&ports, &account)
            .await
            .unwrap()
            .iter()
            .filter(|k| k.revoked_at.is_none())
            .count();
        assert_eq!(active as i64, MAX_ACTIVE_KEYS);
    }

    #[tokio::test]
    async fn parallel_creations_cannot_pass_the_limit_together() {
        let (ports, _dir, account) = setup(Plan::Pro).await;
        let creations = (0..25).map(|_| {
            let ports = ports.clone();
            let account = account.clone();
            tokio::spawn(async move { create(&ports, &account, Mode::Test).await })
        });
        let mut made = 0;
        let mut refused = 0;
        for creation in creations.collect::<Vec<_>>() {
            match creation.await.unwrap() {
                Ok(_) => made += 1,
                Err(KeyError::LimitReached) => refused += 1,
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!((made, refused), (20, 5));
        assert_eq!(list(&ports, &account).await.unwrap().len(), 20);
    }

    #[tokio::test]
    async fn parallel_revocations_of_one_key_give_back_one_place() {
        let (ports, _dir, account) = setup(Plan::Pro).await;
        let mut ids = Vec::new();
        for _ in 0..MAX_ACTIVE_KEYS {
            ids.push(create(&ports, &account, Mode::Test).await.unwrap().0);
        }
        let revocations = (0..5).map(|_| {
            let ports = ports.clone();
            let id = ids[0].clone();
            tokio::spawn(async move { revoke(&ports, &id).await })
        });
        for revocation in revocations.collect::<Vec<_>>() {
            revocation.await.unwrap().unwrap();
        }
        create(&ports, &account, Mode::Test).await.unwrap();
        assert!(matches!(
            create(&ports, &account, Mode::Test).await,
            Err(KeyError::LimitReached)
        ));
    }
}
