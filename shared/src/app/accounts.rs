//! Accounts repository and use cases (the application's admin side).

use crate::app::nif_claims::{self, ClaimError};
use crate::domain::account::{self, Account, AccountId, Issuer, Plan};
use crate::invoice::payments::DEFAULT_TERMS_DAYS;
use crate::ports::Ports;
use crate::ports::table::{
    Condition, Cursor, Item, Key, Query, SortKey, TableError, UpdateOp, Value, Write,
};
use crate::tax::nif::Nif;

const INDEX_PK: &str = "ACCOUNTS";
/// The account's payment terms in days (absent: `DEFAULT_TERMS_DAYS`).
const PAYMENT_TERMS: &str = "payment_terms_days";
/// The account's simplified-invoice limit in euros (absent: 400).
const SIMPLIFIED_LIMIT: &str = "simplified_limit";
/// 1 when the account opted into the cash-accounting regime; absent: no.
const CASH_ACCOUNTING: &str = "cash_accounting";

#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("no account {0}")]
    NotFound(AccountId),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("stored account {0} is unreadable: {1}")]
    Corrupt(AccountId, String),
    /// Another account's issuer has this NIF (see `nif_claims`).
    #[error(transparent)]
    NifTaken(ClaimError),
}

impl From<ClaimError> for AccountError {
    fn from(e: ClaimError) -> Self {
        match e {
            ClaimError::Storage(t) => AccountError::Table(t),
            taken => AccountError::NifTaken(taken),
        }
    }
}

/// A failed condition of a write to an account: the account is gone, or,
/// when the write claims `nif`, another account took it meanwhile.
fn condition_failed(id: &AccountId, nif: Option<&Nif>) -> impl FnOnce(TableError) -> AccountError {
    let (id, nif) = (id.clone(), nif.map(|n| n.to_string()));
    move |e| match (e, nif) {
        (TableError::ConditionFailed { key, .. }, Some(nif)) if nif_claims::is_claim(&key) => {
            AccountError::NifTaken(ClaimError::Taken(nif))
        }
        (TableError::ConditionFailed { .. }, _) => AccountError::NotFound(id),
        (other, _) => AccountError::Table(other),
    }
}

pub fn key(id: &AccountId) -> Key {
    Key::new(format!("ACCOUNT#{id}"), "PROFILE")
}

fn issuer_value(issuer: &Issuer) -> Value {
    let json = serde_json::to_string(issuer).expect("issuer serialises");
    Value::S(json)
}

fn decode(id: AccountId, item: &Item) -> Result<Account, AccountError> {
    let corrupt = |what: &str| AccountError::Corrupt(id.clone(), what.to_string());
    let plan = item
        .s("plan")
        .ok_or_else(|| corrupt("plan missing"))?
        .parse()
        .map_err(|e: String| corrupt(&e))?;
    let issuer = match item.s("issuer") {
        Some(json) => serde_json::from_str(json).map_err(|e| corrupt(&e.to_string()))?,
        None => Issuer::default(),
    };
    let payment_terms_days = item
        .n(PAYMENT_TERMS)
        .and_then(|d| u32::try_from(d).ok())
        .unwrap_or(DEFAULT_TERMS_DAYS);
    let simplified_limit = item
        .n(SIMPLIFIED_LIMIT)
        .and_then(|euros| account::simplified_limit(euros).ok())
        .unwrap_or(account::SIMPLIFIED_LIMIT);
    Ok(Account {
        name: item.s("name").unwrap_or_default().to_string(),
        plan,
        issuer,
        id,
        payment_terms_days,
        simplified_limit,
        cash_accounting: item.n(CASH_ACCOUNTING) == Some(1),
    })
}

/// A new account and the writes that store it (not the claim of its NIF):
/// for the operator's `create` and the application's sign-up, which commits
/// them with the person who signed up.
pub fn opening(ports: &Ports, name: &str, plan: Plan, issuer: Issuer) -> (Account, Vec<Write>) {
    let id = AccountId::generate();
    let now = ports.clock.now().to_rfc3339();
    let profile = Item::new(key(&id))
        .with("name", name)
        .with("plan", plan.as_str())
        .with("issuer", issuer_value(&issuer))
        .with("created_at", now.clone());
    let index = Item::new(Key::new(INDEX_PK, id.as_str())).with("created_at", now);
    let writes = vec![
        Write::Put {
            item: profile,
            condition: Some(Condition::Absent),
        },
        Write::Put {
            item: index,
            condition: Some(Condition::Absent),
        },
    ];
    let account = Account {
        id,
        name: name.to_string(),
        plan,
        issuer,
        payment_terms_days: DEFAULT_TERMS_DAYS,
        simplified_limit: account::SIMPLIFIED_LIMIT,
        cash_accounting: false,
    };
    (account, writes)
}

pub async fn create(
    ports: &Ports,
    name: &str,
    plan: Plan,
    nif: Option<Nif>,
) -> Result<Account, AccountError> {
    let issuer = Issuer {
        nif: nif.clone(),
        ..Issuer::default()
    };
    let (account, mut writes) = opening(ports, name, plan, issuer);
    let id = account.id.clone();
    if let Some(nif) = &nif {
        writes.push(nif_claims::claim(ports, &id, nif.as_str()).await?);
    }
    ports
        .table
        .transact(writes)
        .await
        .map_err(condition_failed(&id, nif.as_ref()))?;
    ports.cache.forget(&key(&id));
    Ok(account)
}

pub async fn get(ports: &Ports, id: &AccountId) -> Result<Account, AccountError> {
    found(id, ports.table.get(&key(id)).await?)
}

/// `get`, from the memo of recently read items (see `ItemCache`): for the
/// authentication of every request.
pub async fn get_recent(ports: &Ports, id: &AccountId) -> Result<Account, AccountError> {
    found(id, ports.cache.get(&*ports.table, &key(id)).await?)
}

fn found(id: &AccountId, item: Option<Item>) -> Result<Account, AccountError> {
    let item = item.ok_or_else(|| AccountError::NotFound(id.clone()))?;
    decode(id.clone(), &item)
}

pub async fn set_plan(ports: &Ports, id: &AccountId, plan: Plan) -> Result<(), AccountError> {
    set_setting(ports, id, UpdateOp::set("plan", plan.as_str())).await
}

/// One setting of an existing account changed, and its cached copy forgotten.
async fn set_setting(ports: &Ports, id: &AccountId, op: UpdateOp) -> Result<(), AccountError> {
    ports
        .table
        .update(&key(id), vec![op], Some(Condition::Present))
        .await
        .map_err(condition_failed(id, None))?;
    ports.cache.forget(&key(id));
    Ok(())
}

/// Sets the days from issue to the default due date of the account's
/// invoices (checked with `domain::account::payment_terms`).
pub async fn set_payment_terms(
    ports: &Ports,
    id: &AccountId,
    days: u32,
) -> Result<(), AccountError> {
    set_setting(ports, id, UpdateOp::set(PAYMENT_TERMS, i64::from(days))).await
}

/// Sets the most a simplified invoice of the account may amount to
/// (checked with `domain::account::simplified_limit`).
pub async fn set_simplified_limit(
    ports: &Ports,
    id: &AccountId,
    limit: rust_decimal::Decimal,
) -> Result<(), AccountError> {
    use rust_decimal::prelude::ToPrimitive;
    let euros = limit.to_i64().unwrap_or(i64::MAX);
    set_setting(ports, id, UpdateOp::set(SIMPLIFIED_LIMIT, euros)).await
}

/// Opts the account into the cash-accounting regime, or out of it (see
/// `Account::cash_accounting`): invoices issued afterwards follow it.
pub async fn set_cash_accounting(
    ports: &Ports,
    id: &AccountId,
    opted_in: bool,
) -> Result<(), AccountError> {
    set_setting(
        ports,
        id,
        UpdateOp::set(CASH_ACCOUNTING, i64::from(opted_in)),
    )
    .await
}

/// Sets the issuer details, claiming the issuer NIF for this account (and
/// freeing the one it replaces) in the same transaction (see `nif_claims`).
pub async fn set_issuer(
    ports: &Ports,
    id: &AccountId,
    issuer: &Issuer,
) -> Result<(), AccountError> {
    let before = get(ports, id).await?;
    let mut writes = vec![Write::Update {
        key: key(id),
        ops: vec![UpdateOp::Set("issuer".into(), issuer_value(issuer))],
        condition: Some(Condition::Present),
    }];
    if let Some(nif) = &issuer.nif {
        writes.push(nif_claims::claim(ports, id, nif.as_str()).await?);
    }
    if let Some(old) = before
        .issuer
        .nif
        .filter(|old| Some(old) != issuer.nif.as_ref())
    {
        writes.extend(nif_claims::release(ports, id, old.as_str()).await?);
    }
    ports
        .table
        .transact(writes)
        .await
        .map_err(condition_failed(id, issuer.nif.as_ref()))?;
    ports.cache.forget(&key(id));
    Ok(())
}

/// Whether any account exists (an empty data directory has none).
pub async fn any(ports: &Ports) -> Result<bool, AccountError> {
    let page = ports
        .table
        .query(&Query::new(INDEX_PK, SortKey::All).limit(1))
        .await?;
    Ok(!page.items.is_empty())
}

/// Account ids in id order, a page at a time: pass the returned cursor back
/// for the next page (None: no more).
pub async fn ids(
    ports: &Ports,
    cursor: Option<Cursor>,
) -> Result<(Vec<AccountId>, Option<Cursor>), AccountError> {
    let page = ports
        .table
        .query(&Query::new(INDEX_PK, SortKey::All).after(cursor))
        .await?;
    let ids = page
        .items
        .iter()
        .filter_map(|item| item.key.sk.parse().ok())
        .collect();
    Ok((ids, page.next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;

    #[tokio::test]
    async fn accounts_are_created_read_and_updated() {
        let (ports, _dir) = test_ports();
        assert!(!any(&ports).await.unwrap());
        let nif = Nif::parse("B64717838").unwrap();
        let account = create(&ports, "Taller Ana", Plan::Pro, Some(nif.clone()))
            .await
            .unwrap();
        assert!(any(&ports).await.unwrap());
        assert_eq!(
            ids(&ports, None).await.unwrap(),
            (vec![account.id.clone()], None)
        );
        let read = get(&ports, &account.id).await.unwrap();
        assert_eq!(read, account);
        assert_eq!(read.issuer.nif, Some(nif));

        set_plan(&ports, &account.id, Plan::Mini).await.unwrap();
        let issuer = Issuer {
            name: Some("Taller Ana SL".into()),
            city: Some("Cáceres".into()),
            ..Issuer::default()
        };
        set_issuer(&ports, &account.id, &issuer).await.unwrap();
        let read = get(&ports, &account.id).await.unwrap();
        assert_eq!(read.plan, Plan::Mini);
        assert_eq!(read.issuer, issuer);
    }

    #[tokio::test]
    async fn an_issuer_nif_belongs_to_one_account() {
        let (ports, _dir) = test_ports();
        let nif = Nif::parse("B64717838").unwrap();
        let first = create(&ports, "A", Plan::Pro, Some(nif.clone()))
            .await
            .unwrap();
        let taken = create(&ports, "B", Plan::Pro, Some(nif.clone())).await;
        assert!(
            matches!(&taken, Err(AccountError::NifTaken(ClaimError::Taken(n))) if n == "B64717838"),
            "{taken:?}"
        );
        let second = create(&ports, "B", Plan::Pro, None).await.unwrap();
        let with_nif = Issuer {
            nif: Some(nif.clone()),
            ..Issuer::default()
        };
        assert!(matches!(
            set_issuer(&ports, &second.id, &with_nif).await,
            Err(AccountError::NifTaken(_))
        ));
        assert_eq!(get(&ports, &second.id).await.unwrap().issuer.nif, None);

        // Setting the same NIF again keeps it; another NIF frees it.
        set_issuer(&ports, &first.id, &with_nif).await.unwrap();
        let other = Issuer {
            nif: Some(Nif::parse("A13585625").unwrap()),
            ..Issuer::default()
        };
        set_issuer(&ports, &first.id, &other).await.unwrap();
        set_issuer(&ports, &second.id, &with_nif).await.unwrap();
        assert!(matches!(
            set_issuer(&ports, &first.id, &with_nif).await,
            Err(AccountError::NifTaken(_))
        ));
    }

    #[tokio::test]
    async fn unknown_accounts_are_reported() {
        let (ports, _dir) = test_ports();
        let id = AccountId::generate();
        assert!(matches!(
            get(&ports, &id).await,
            Err(AccountError::NotFound(_))
        ));
        assert!(matches!(
            set_plan(&ports, &id, Plan::Max).await,
            Err(AccountError::NotFound(_))
        ));
        assert!(matches!(
            set_issuer(&ports, &id, &Issuer::default()).await,
            Err(AccountError::NotFound(_))
        ));
    }
}
