//! The `Table` port: one logical table of items keyed by `(pk, sk)`, offering what
//! DynamoDB offers and nothing it lacks. The pure rules every engine must follow
//! (condition semantics, update application, limits) live here so both engines
//! share them.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// Name of the expiry attribute (epoch seconds). An item whose `ttl` is at or
/// before "now" reads as absent everywhere, also before the engine deletes it.
pub const TTL: &str = "ttl";
/// DynamoDB's limit on the number of items in one transaction.
pub const MAX_TRANSACTION_ITEMS: usize = 100;
/// DynamoDB's limit on the size of one item.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// An attribute value. Numbers are integers: money is stored as decimal strings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    S(String),
    N(i64),
    #[serde(rename = "BOOL")]
    Bool(bool),
    L(Vec<Value>),
    M(BTreeMap<String, Value>),
    #[serde(rename = "NULL")]
    Null,
}

impl Value {
    fn size(&self) -> usize {
        match self {
            Value::S(s) => s.len(),
            Value::N(_) => 21,
            Value::Bool(_) | Value::Null => 1,
            Value::L(items) => 3 + items.iter().map(|v| 1 + v.size()).sum::<usize>(),
            Value::M(map) => {
                3 + map
                    .iter()
                    .map(|(k, v)| 1 + k.len() + v.size())
                    .sum::<usize>()
            }
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::S(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::S(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::N(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub pk: String,
    pub sk: String,
}

impl Key {
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Key {
            pk: pk.into(),
            sk: sk.into(),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.pk, self.sk)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub key: Key,
    pub attrs: BTreeMap<String, Value>,
}

impl Item {
    pub fn new(key: Key) -> Self {
        Item {
            key,
            attrs: BTreeMap::new(),
        }
    }

    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.attrs.insert(name.to_string(), value.into());
        self
    }

    pub fn s(&self, name: &str) -> Option<&str> {
        match self.attrs.get(name) {
            Some(Value::S(s)) => Some(s),
            _ => None,
        }
    }

    pub fn n(&self, name: &str) -> Option<i64> {
        match self.attrs.get(name) {
            Some(Value::N(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn ttl(&self) -> Option<i64> {
        self.n(TTL)
    }

    /// Whether the item still exists at `now` (epoch seconds).
    pub fn is_live(&self, now: i64) -> bool {
        self.ttl().is_none_or(|t| t > now)
    }

    /// Approximate stored size, counted as DynamoDB does (names plus values).
    pub fn size(&self) -> usize {
        self.key.pk.len()
            + self.key.sk.len()
            + 4
            + self
                .attrs
                .iter()
                .map(|(k, v)| k.len() + v.size())
                .sum::<usize>()
    }
}

/// A condition on the live item at a key (an expired item counts as absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// No live item has this key.
    Absent,
    /// A live item has this key.
    Present,
    /// A live item has this key and its attribute equals the value.
    Equals(String, Value),
    And(Vec<Condition>),
}

impl Condition {
    pub fn equals(name: &str, value: impl Into<Value>) -> Self {
        Condition::Equals(name.to_string(), value.into())
    }

    /// Evaluates the condition against the live item (None when absent or expired).
    pub fn holds(&self, live: Option<&Item>) -> bool {
        match self {
            Condition::Absent => live.is_none(),
            Condition::Present => live.is_some(),
            Condition::Equals(name, value) => {
                live.is_some_and(|i| i.attrs.get(name) == Some(value))
            }
            Condition::And(all) => all.iter().all(|c| c.holds(live)),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpdateOp {
    Set(String, Value),
    /// Atomic increment of a number attribute (a missing attribute counts as 0).
    Add(String, i64),
    Remove(String),
}

impl UpdateOp {
    pub fn set(name: &str, value: impl Into<Value>) -> Self {
        UpdateOp::Set(name.to_string(), value.into())
    }

    pub fn add(name: &str, by: i64) -> Self {
        UpdateOp::Add(name.to_string(), by)
    }
}

/// One write of a transaction. `Check` writes nothing and only asserts its condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    Put {
        item: Item,
        condition: Option<Condition>,
    },
    Update {
        key: Key,
        ops: Vec<UpdateOp>,
        condition: Option<Condition>,
    },
    Delete {
        key: Key,
        condition: Option<Condition>,
    },
    Check {
        key: Key,
        condition: Condition,
    },
}

impl Write {
    pub fn key(&self) -> &Key {
        match self {
            Write::Put { item, .. } => &item.key,
            Write::Update { key, .. } | Write::Delete { key, .. } | Write::Check { key, .. } => key,
        }
    }

    pub fn condition(&self) -> Option<&Condition> {
        match self {
            Write::Put { condition, .. }
            | Write::Update { condition, .. }
            | Write::Delete { condition, .. } => condition.as_ref(),
            Write::Check { condition, .. } => Some(condition),
        }
    }
}

/// Which sort keys a query returns. Sort keys order by their UTF-8 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortKey {
    All,
    Prefix(String),
    /// Inclusive on both ends.
    Between(String, String),
}

/// Where a page ended; pass it back to get the next page. Opaque to callers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor(pub(crate) String);

impl Cursor {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_token(token: &str) -> Self {
        Cursor(token.to_string())
    }
}

#[derive(Clone, Debug)]
pub struct Query {
    pub pk: String,
    pub sk: SortKey,
    pub forward: bool,
    /// Items examined per page (1..=1000). A page may hold fewer live items than
    /// the limit, and may be empty while `next` is set: follow `next` until None.
    pub limit: usize,
    pub cursor: Option<Cursor>,
}

impl Query {
    pub fn new(pk: impl Into<String>, sk: SortKey) -> Self {
        Query {
            pk: pk.into(),
            sk,
            forward: true,
            limit: 100,
            cursor: None,
        }
    }

    pub fn backward(mut self) -> Self {
        self.forward = false;
        self
    }

    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    pub fn after(mut self, cursor: Option<Cursor>) -> Self {
        self.cursor = cursor;
        self
    }
}

#[derive(Clone, Debug, Default)]
pub struct Page {
    pub items: Vec<Item>,
    pub next: Option<Cursor>,
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum TableError {
    /// The condition of a write did not hold; `index` is the write's position in
    /// a transaction (None for a single write). Nothing was written. The
    /// message names the item by a hash: keys may hold an issuer's NIF.
    #[error("condition failed for item {}{}", crate::redact::short_hash(&key.to_string()), index.map(|i| format!(" (write #{i})")).unwrap_or_default())]
    ConditionFailed { index: Option<usize>, key: Key },
    /// Another transaction touched the same items at the same time; retry.
    #[error("transaction conflict; retry")]
    Conflict,
    /// The request breaks a rule of the table (limits, reserved names, types).
    #[error("invalid table request: {0}")]
    Invalid(String),
    #[error("storage unavailable: {0}")]
    Unavailable(String),
}

/// An ordered transaction (`Table::order`): resolves when it is durable.
pub struct Ordered(Pin<Box<dyn Future<Output = Result<(), TableError>> + Send>>);

impl Ordered {
    pub fn new(durable: impl Future<Output = Result<(), TableError>> + Send + 'static) -> Self {
        Ordered(Box::pin(durable))
    }

    /// Already durable.
    pub fn done() -> Self {
        Ordered::new(std::future::ready(Ok(())))
    }

    pub async fn durable(self) -> Result<(), TableError> {
        self.0.await
    }
}

#[async_trait]
pub trait Table: Send + Sync {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError>;
    async fn query(&self, query: &Query) -> Result<Page, TableError>;
    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError>;
    /// Applies the operations (creating the item when absent) and returns the new item.
    async fn update(
        &self,
        key: &Key,
        ops: Vec<UpdateOp>,
        condition: Option<Condition>,
    ) -> Result<Item, TableError>;
    async fn delete(&self, key: &Key, condition: Option<Condition>) -> Result<(), TableError>;
    /// All writes happen or none does.
    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError>;

    /// `transact` in two steps: returns once the transaction's place among
    /// this process's writes is fixed, with what resolves when it is durable.
    /// So a caller can let the next writer of the same items start while this
    /// one syncs. A failed condition is answered by the step that commits:
    /// the returned future, or this call itself on an engine whose commits
    /// are ordered only by committing (DynamoDB), which commits here and
    /// returns it resolved. The bookkeeping view may also refuse a condition
    /// at once (`bookkeeping`).
    async fn order(&self, writes: Vec<Write>) -> Result<Ordered, TableError> {
        self.transact(writes).await.map(|()| Ordered::done())
    }

    /// `get`, also seeing this process's ordered writes that are not durable
    /// yet (`get` waits for them). Only for reads whose result feeds
    /// conditional writes ordered after them: should those ordered writes
    /// fail or be lost, the conditions fail rather than build on them.
    async fn get_ordered(&self, key: &Key) -> Result<Option<Item>, TableError> {
        self.get(key).await
    }

    /// This table for per-request bookkeeping (rate-limit windows, idempotency
    /// leases): its commits may be lost on power loss, never torn, and a later
    /// durable commit makes them durable too. A write may be answered before
    /// its commit (an update with the item it leaves), its condition checked
    /// against what this process's pending writes leave; should the commit
    /// find the condition broken after all (another process wrote first), the
    /// write is lost as a power cut could lose it, so what builds on it must
    /// check it again in its own durable commit (a lease is checked by the
    /// completion that names it). The same table where every commit is
    /// durable anyway (DynamoDB).
    fn bookkeeping(self: Arc<Self>) -> Arc<dyn Table>;
}

fn check_key(key: &Key) -> Result<(), TableError> {
    if key.pk.is_empty() || key.sk.is_empty() {
        return Err(TableError::Invalid(format!("empty key part in {key}")));
    }
    Ok(())
}

fn check_attr_name(name: &str) -> Result<(), TableError> {
    if name.is_empty() || name == "pk" || name == "sk" {
        return Err(TableError::Invalid(format!(
            "attribute name {name:?} is reserved or empty"
        )));
    }
    Ok(())
}

pub fn validate_item(item: &Item) -> Result<(), TableError> {
    check_key(&item.key)?;
    for (name, value) in &item.attrs {
        check_attr_name(name)?;
        if name == TTL && !matches!(value, Value::N(_)) {
            return Err(TableError::Invalid("ttl must be a number".into()));
        }
    }
    if item.size() > MAX_ITEM_BYTES {
        return Err(TableError::Invalid(format!(
            "item {} is larger than {MAX_ITEM_BYTES} bytes",
            item.key
        )));
    }
    Ok(())
}

pub fn validate_update(key: &Key, ops: &[UpdateOp]) -> Result<(), TableError> {
    check_key(key)?;
    if ops.is_empty() {
        return Err(TableError::Invalid("update without operations".into()));
    }
    let mut seen = HashSet::new();
    for op in ops {
        let (name, ttl_ok) = match op {
            UpdateOp::Set(n, v) => (n, matches!(v, Value::N(_))),
            UpdateOp::Add(n, _) | UpdateOp::Remove(n) => (n, true),
        };
        check_attr_name(name)?;
        if name == TTL && !ttl_ok {
            return Err(TableError::Invalid("ttl must be a number".into()));
        }
        if !seen.insert(name.as_str()) {
            return Err(TableError::Invalid(format!(
                "attribute {name:?} appears twice in one update"
            )));
        }
    }
    Ok(())
}

pub fn validate_write(write: &Write) -> Result<(), TableError> {
    match write {
        Write::Put { item, .. } => validate_item(item),
        Write::Update { key, ops, .. } => validate_update(key, ops),
        Write::Delete { key, .. } | Write::Check { key, .. } => check_key(key),
    }
}

/// The rules DynamoDB applies to `TransactWriteItems`, applied by every engine.
pub fn validate_transaction(writes: &[Write]) -> Result<(), TableError> {
    if writes.is_empty() {
        return Err(TableError::Invalid("empty transaction".into()));
    }
    if writes.len() > MAX_TRANSACTION_ITEMS {
        return Err(TableError::Invalid(format!(
            "a transaction holds at most {MAX_TRANSACTION_ITEMS} items, got {}",
            writes.len()
        )));
    }
    let mut keys = HashSet::new();
    for write in writes {
        validate_write(write)?;
        if !keys.insert(write.key()) {
            return Err(TableError::Invalid(format!(
                "item {} appears twice in one transaction",
                write.key()
            )));
        }
    }
    Ok(())
}

pub fn validate_query(query: &Query) -> Result<(), TableError> {
    if query.pk.is_empty() {
        return Err(TableError::Invalid("empty partition key".into()));
    }
    if !(1..=1000).contains(&query.limit) {
        return Err(TableError::Invalid("query limit must be 1..=1000".into()));
    }
    Ok(())
}

/// Applies update operations to the live item (or to a new one when absent).
pub fn apply_update(live: Option<Item>, key: &Key, ops: &[UpdateOp]) -> Result<Item, TableError> {
    let mut item = live.unwrap_or_else(|| Item::new(key.clone()));
    for op in ops {
        match op {
            UpdateOp::Set(name, value) => {
                item.attrs.insert(name.clone(), value.clone());
            }
            UpdateOp::Add(name, by) => {
                let current = match item.attrs.get(name) {
                    None => 0,
                    Some(Value::N(n)) => *n,
                    Some(_) => {
                        return Err(TableError::Invalid(format!(
                            "cannot add to non-number attribute {name:?}"
                        )));
                    }
                };
                let next = current
                    .checked_add(*by)
                    .ok_or_else(|| TableError::Invalid(format!("overflow adding to {name:?}")))?;
                item.attrs.insert(name.clone(), Value::N(next));
            }
            UpdateOp::Remove(name) => {
                item.attrs.remove(name);
            }
        }
    }
    validate_item(&item)?;
    Ok(item)
}

/// The smallest string greater than every string that starts with `prefix`, or
/// None when there is none. Sort keys order by code point (= UTF-8 byte order).
pub fn prefix_upper_bound(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let mut next = last as u32 + 1;
        if (0xD800..=0xDFFF).contains(&next) {
            next = 0xE000;
        }
        if let Some(c) = char::from_u32(next) {
            chars.push(c);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item() -> Item {
        Item::new(Key::new("p", "s")).with("n", 1).with("s", "x")
    }

    #[test]
    fn conditions_read_expired_items_as_absent() {
        let live = item();
        assert!(Condition::Absent.holds(None));
        assert!(!Condition::Absent.holds(Some(&live)));
        assert!(Condition::Present.holds(Some(&live)));
        assert!(Condition::equals("n", 1).holds(Some(&live)));
        assert!(!Condition::equals("n", 2).holds(Some(&live)));
        assert!(!Condition::equals("n", 1).holds(None));
        let both = Condition::And(vec![Condition::equals("n", 1), Condition::equals("s", "x")]);
        assert!(both.holds(Some(&live)));
        assert!(live.clone().with(TTL, 10).is_live(9));
        assert!(!live.with(TTL, 10).is_live(10));
    }

    #[test]
    fn update_adds_sets_and_removes() {
        let key = Key::new("p", "s");
        let new = apply_update(
            None,
            &key,
            &[UpdateOp::add("n", 2), UpdateOp::set("a", "b")],
        )
        .unwrap();
        assert_eq!(new.n("n"), Some(2));
        let next = apply_update(
            Some(new),
            &key,
            &[UpdateOp::add("n", 3), UpdateOp::Remove("a".into())],
        )
        .unwrap();
        assert_eq!(next.n("n"), Some(5));
        assert_eq!(next.s("a"), None);
        let err = apply_update(Some(item()), &key, &[UpdateOp::add("s", 1)]).unwrap_err();
        assert!(matches!(err, TableError::Invalid(_)));
    }

    #[test]
    fn transactions_follow_dynamodb_limits() {
        let put = |i: usize| Write::Put {
            item: Item::new(Key::new("p", format!("{i}"))),
            condition: None,
        };
        assert!(validate_transaction(&(0..100).map(put).collect::<Vec<_>>()).is_ok());
        assert!(validate_transaction(&(0..101).map(put).collect::<Vec<_>>()).is_err());
        assert!(validate_transaction(&[put(1), put(1)]).is_err());
        assert!(validate_transaction(&[]).is_err());
        let reserved = Write::Put {
            item: Item::new(Key::new("p", "s")).with("pk", "x"),
            condition: None,
        };
        assert!(validate_transaction(&[reserved]).is_err());
        let big = Write::Put {
            item: Item::new(Key::new("p", "s")).with("b", "x".repeat(MAX_ITEM_BYTES)),
            condition: None,
        };
        assert!(validate_transaction(&[big]).is_err());
    }

    #[test]
    fn prefix_upper_bound_is_the_next_string() {
        assert_eq!(prefix_upper_bound("ab").as_deref(), Some("ac"));
        assert_eq!(prefix_upper_bound("a\u{10FFFF}").as_deref(), Some("b"));
        assert_eq!(prefix_upper_bound("\u{D7FF}").as_deref(), Some("\u{E000}"));
        assert_eq!(prefix_upper_bound("\u{10FFFF}"), None);
        assert_eq!(prefix_upper_bound(""), None);
    }
}
