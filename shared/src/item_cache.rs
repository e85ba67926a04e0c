//! A per-process memo of table items read on every request and rarely changed
//! (an API key, its account): an item is read again once it is older than the
//! memo's time to live. Writers in this process forget what they change, so
//! the process sees its own changes at once; another process's changes (the
//! admin CLI, another Lambda instance) show within the time to live. An
//! absent item is memoised as briefly as a present one: a flood of requests
//! with a made-up key costs one table read per key and time to live, and a
//! new key, random and shown only once created, cannot have been asked for.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::ports::table::{Item, Key, Table, TableError};

/// How stale a memoised item may be: a key revoked, or an account's plan
/// changed, in another process takes effect here within this bound.
pub const ITEM_CACHE_TTL: Duration = Duration::from_secs(2);

/// More items than any real set of active keys; reaching it starts afresh, so
/// a flood of distinct keys cannot grow the memo without bound.
const CAPACITY: usize = 10_000;

pub struct ItemCache {
    ttl: Duration,
    items: Mutex<HashMap<Key, (Instant, Option<Item>)>>,
}

impl ItemCache {
    pub fn new(ttl: Duration) -> Self {
        ItemCache {
            ttl,
            items: Mutex::default(),
        }
    }

    /// The item at `key` (or its absence), from the memo while fresh, else
    /// from `table`.
    pub async fn get(&self, table: &dyn Table, key: &Key) -> Result<Option<Item>, TableError> {
        if let Some((read_at, item)) = self.lock().get(key)
            && read_at.elapsed() < self.ttl
        {
            return Ok(item.clone());
        }
        let item = table.get(key).await?;
        self.insert(key.clone(), item.clone());
        Ok(item)
    }

    /// Memoises `item` as just read (this process has just written it).
    pub fn remember(&self, item: Item) {
        self.insert(item.key.clone(), Some(item));
    }

    fn insert(&self, key: Key, item: Option<Item>) {
        let mut items = self.lock();
        if items.len() >= CAPACITY {
            items.clear();
        }
        items.insert(key, (Instant::now(), item));
    }

    /// Drops the memoised item at `key` (after this process changed it).
    pub fn forget(&self, key: &Key) {
        self.lock().remove(key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, (Instant, Option<Item>)>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;
    use crate::ports::table::UpdateOp;

    #[tokio::test]
    async fn an_item_is_read_again_once_older_than_the_time_to_live() {
        let (ports, _dir) = test_ports();
        let key = Key::new("ACCOUNT#a", "ACCOUNT");
        ports
            .table
            .put(Item::new(key.clone()).with("plan", "pro"), None)
            .await
            .unwrap();
        let cache = ItemCache::new(Duration::from_millis(300));
        let plan = |item: Option<Item>| item.unwrap().s("plan").unwrap().to_string();
        assert_eq!(plan(cache.get(&*ports.table, &key).await.unwrap()), "pro");

        let change = vec![UpdateOp::set("plan", "mini")];
        ports.table.update(&key, change, None).await.unwrap();
        assert_eq!(
            plan(cache.get(&*ports.table, &key).await.unwrap()),
            "pro",
            "fresh enough"
        );
        std::thread::sleep(Duration::from_millis(350));
        assert_eq!(plan(cache.get(&*ports.table, &key).await.unwrap()), "mini");

        let change = vec![UpdateOp::set("plan", "max")];
        ports.table.update(&key, change, None).await.unwrap();
        cache.forget(&key);
        assert_eq!(plan(cache.get(&*ports.table, &key).await.unwrap()), "max");
    }

    #[tokio::test]
    async fn an_absent_item_is_remembered_as_briefly_as_a_present_one() {
        let (ports, _dir) = test_ports();
        let key = Key::new("APIKEY#h", "KEY");
        let cache = ItemCache::new(Duration::from_millis(300));
        assert!(cache.get(&*ports.table, &key).await.unwrap().is_none());
        ports.table.put(Item::new(key.clone()), None).await.unwrap();
        assert!(
            cache.get(&*ports.table, &key).await.unwrap().is_none(),
            "the miss is fresh enough"
        );
        std::thread::sleep(Duration::from_millis(350));
        assert!(cache.get(&*ports.table, &key).await.unwrap().is_some());
        ports.table.delete(&key, None).await.unwrap();
        cache.forget(&key);
        assert!(cache.get(&*ports.table, &key).await.unwrap().is_none());
    }
}
