//! The embedded engine of the `Table` port: one SQLite file in WAL mode, shared
//! safely by several threads and several processes. Writes run in `BEGIN
//! IMMEDIATE` transactions, so conditions are checked and writes applied under
//! the database's single write lock; `synchronous=FULL` makes a commit durable.
//! The bookkeeping view (`Table::bookkeeping`) commits with `synchronous=NORMAL`:
//! no sync per commit, so a power loss may drop its last commits but never
//! tears the file, and the next durable commit syncs them too.
//! A transaction that creates an event or job item also appends it to the feed
//! (`super::feed`), the embedded stand-in for DynamoDB Streams.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use tokio::sync::watch;

use super::feed::{self, Feed};
use crate::ports::clock::Clock;
use crate::ports::table::{
    Condition, Cursor, Item, Key, Page, Query, SortKey, Table, TableError, UpdateOp, Write,
    apply_update, prefix_upper_bound, validate_item, validate_query, validate_transaction,
    validate_update,
};

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    ttl INTEGER,
    attrs TEXT NOT NULL,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID";

pub struct SqliteTable {
    inner: Arc<Inner>,
    durable: bool,
}

pub(super) struct Inner {
    path: PathBuf,
    /// Idle connections: durable ones, and the bookkeeping view's.
    idle: Mutex<Vec<Connection>>,
    relaxed_idle: Mutex<Vec<Connection>>,
    /// This process's writers queue here instead of in SQLite's busy handler,
    /// whose sleeps give long tail latencies; other processes still meet them
    /// at SQLite's own lock.
    writer: Mutex<()>,
    clock: Arc<dyn Clock>,
    /// The sequence of the last feed record this process committed.
    commits: watch::Sender<i64>,
}

pub(super) fn unavailable(e: impl std::fmt::Display) -> TableError {
    TableError::Unavailable(e.to_string())
}

pub(super) fn open_connection(path: &Path) -> Result<Connection, TableError> {
    open_with_sync(path, "FULL")
}

fn open_with_sync(path: &Path, synchronous: &str) -> Result<Connection, TableError> {
    let conn = Connection::open(path).map_err(unavailable)?;
    conn.busy_timeout(Duration::from_secs(30))
        .map_err(unavailable)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(unavailable)?;
    conn.pragma_update(None, "synchronous", synchronous)
        .map_err(unavailable)?;
    Ok(conn)
}

impl SqliteTable {
    /// Opens (creating when needed) the database file at `path`.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> Result<Self, TableError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(unavailable)?;
        }
        let conn = open_connection(path)?;
        conn.execute(SCHEMA, []).map_err(unavailable)?;
        conn.execute_batch(feed::SCHEMA).map_err(unavailable)?;
        Ok(SqliteTable {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                idle: Mutex::new(vec![conn]),
                relaxed_idle: Mutex::default(),
                writer: Mutex::new(()),
                clock,
                commits: watch::Sender::new(0),
            }),
            durable: true,
        })
    }

    /// The feed of created event and job items, in commit order.
    pub fn feed(&self) -> Feed {
        Feed::new(self.inner.clone())
    }

    async fn run<T, F>(&self, writes: bool, f: F) -> Result<T, TableError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> Result<T, TableError> + Send + 'static,
    {
        self.inner.clone().run_on(self.durable, writes, f).await
    }

    /// Commits the writes and tells the feed's readers when they fed it;
    /// returns what the last write stored.
    async fn commit(&self, writes: Vec<Write>, indexed: bool) -> Result<Option<Item>, TableError> {
        let (stored, fed) = self
            .run(true, move |conn, now| {
                write_all(conn, &writes, indexed, now)
            })
            .await?;
        if let Some(seq) = fed {
            self.inner.commits.send_replace(seq);
        }
        Ok(stored)
    }
}

impl Inner {
    /// Runs `f` on a pooled connection on the blocking thread pool; `writes`
    /// takes this process's writer lock first.
    pub(super) async fn run<T, F>(self: Arc<Self>, writes: bool, f: F) -> Result<T, TableError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> Result<T, TableError> + Send + 'static,
    {
        self.run_on(true, writes, f).await
    }

    /// `run` for a write on a connection that does not sync its commits.
    pub(super) async fn run_relaxed<T, F>(self: Arc<Self>, f: F) -> Result<T, TableError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> Result<T, TableError> + Send + 'static,
    {
        self.run_on(false, true, f).await
    }

    async fn run_on<T, F>(
        self: Arc<Self>,
        durable: bool,
        writes: bool,
        f: F,
    ) -> Result<T, TableError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> Result<T, TableError> + Send + 'static,
    {
        tokio::task::spawn_blocking(move || {
            let pool = if durable {
                &self.idle
            } else {
                &self.relaxed_idle
            };
            let pooled = pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let mut conn = match pooled {
                Some(c) => c,
                None => open_with_sync(&self.path, if durable { "FULL" } else { "NORMAL" })?,
            };
            let result = {
                let _writer = writes.then(|| self.writer.lock().unwrap_or_else(|e| e.into_inner()));
                let now = self.clock.now().timestamp();
                f(&mut conn, now)
            };
            pool.lock().unwrap_or_else(|e| e.into_inner()).push(conn);
            result
        })
        .await
        .map_err(unavailable)?
    }

    pub(super) fn commits(&self) -> watch::Receiver<i64> {
        self.commits.subscribe()
    }
}

fn read_live(conn: &Connection, key: &Key, now: i64) -> Result<Option<Item>, TableError> {
    let row: Option<String> = conn
        .prepare_cached(
            "SELECT attrs FROM items WHERE pk = ?1 AND sk = ?2 AND (ttl IS NULL OR ttl > ?3)",
        )
        .and_then(|mut read| read.query_row(params![key.pk, key.sk, now], |r| r.get(0)))
        .optional()
        .map_err(unavailable)?;
    row.map(|attrs| decode(key.clone(), &attrs)).transpose()
}

pub(super) fn decode(key: Key, attrs: &str) -> Result<Item, TableError> {
    let attrs = serde_json::from_str(attrs).map_err(unavailable)?;
    Ok(Item { key, attrs })
}

fn store(conn: &Connection, item: &Item) -> Result<(), TableError> {
    let attrs = serde_json::to_string(&item.attrs).map_err(unavailable)?;
    conn.prepare_cached(
        "INSERT OR REPLACE INTO items (pk, sk, ttl, attrs) VALUES (?1, ?2, ?3, ?4)",
    )
    .and_then(|mut write| write.execute(params![item.key.pk, item.key.sk, item.ttl(), attrs]))
    .map_err(unavailable)?;
    Ok(())
}

fn remove(conn: &Connection, key: &Key) -> Result<(), TableError> {
    conn.prepare_cached("DELETE FROM items WHERE pk = ?1 AND sk = ?2")
        .and_then(|mut delete| delete.execute(params![key.pk, key.sk]))
        .map_err(unavailable)?;
    Ok(())
}

enum Effect {
    /// `created`: no live item had the key before.
    Store {
        item: Item,
        created: bool,
    },
    Remove(Key),
    Nothing,
}

/// Checks one write against the live item and returns what it would do.
fn plan(
    conn: &Connection,
    write: &Write,
    index: Option<usize>,
    now: i64,
) -> Result<Effect, TableError> {
    let live = read_live(conn, write.key(), now)?;
    if let Some(condition) = write.condition()
        && !condition.holds(live.as_ref())
    {
        return Err(TableError::ConditionFailed {
            index,
            key: write.key().clone(),
        });
    }
    let created = live.is_none();
    Ok(match write {
        Write::Put { item, .. } => Effect::Store {
            item: item.clone(),
            created,
        },
        Write::Update { key, ops, .. } => Effect::Store {
            item: apply_update(live, key, ops)?,
            created,
        },
        Write::Delete { key, .. } => Effect::Remove(key.clone()),
        Write::Check { .. } => Effect::Nothing,
    })
}

/// Applies one effect; returns the feed sequence when it fed the feed.
fn apply(conn: &Connection, effect: &Effect) -> Result<Option<i64>, TableError> {
    match effect {
        Effect::Store { item, created } => {
            store(conn, item)?;
            if *created && feed::is_fed(item) {
                return feed::append(conn, item).map(Some);
            }
            Ok(None)
        }
        Effect::Remove(key) => remove(conn, key).map(|()| None),
        Effect::Nothing => Ok(None),
    }
}

/// Runs writes in one immediate transaction: all conditions first, then all
/// effects. Returns what the last write stored and the last feed sequence.
fn write_all(
    conn: &mut Connection,
    writes: &[Write],
    indexed: bool,
    now: i64,
) -> Result<(Option<Item>, Option<i64>), TableError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(unavailable)?;
    let mut effects = Vec::with_capacity(writes.len());
    for (i, write) in writes.iter().enumerate() {
        effects.push(plan(&tx, write, indexed.then_some(i), now)?);
    }
    let mut fed = None;
    for effect in &effects {
        fed = apply(&tx, effect)?.or(fed);
    }
    tx.commit().map_err(unavailable)?;
    let stored = match effects.pop() {
        Some(Effect::Store { item, .. }) => Some(item),
        _ => None,
    };
    Ok((stored, fed))
}

fn sort_key_clause(sk: &SortKey, args: &mut Vec<rusqlite::types::Value>) -> String {
    use rusqlite::types::Value as V;
    match sk {
        SortKey::All => String::new(),
        SortKey::Prefix(p) => {
            args.push(V::Text(p.clone()));
            match prefix_upper_bound(p) {
                Some(upper) => {
                    args.push(V::Text(upper));
                    format!(" AND sk >= ?{} AND sk < ?{}", args.len() - 1, args.len())
                }
                None => format!(" AND sk >= ?{}", args.len()),
            }
        }
        SortKey::Between(lo, hi) => {
            args.push(V::Text(lo.clone()));
            args.push(V::Text(hi.clone()));
            format!(" AND sk >= ?{} AND sk <= ?{}", args.len() - 1, args.len())
        }
    }
}

fn run_query(conn: &Connection, q: &Query, now: i64) -> Result<Page, TableError> {
    use rusqlite::types::Value as V;
    let mut args: Vec<V> = vec![V::Text(q.pk.clone()), V::Integer(now)];
    let mut sql =
        String::from("SELECT sk, attrs FROM items WHERE pk = ?1 AND (ttl IS NULL OR ttl > ?2)");
    sql.push_str(&sort_key_clause(&q.sk, &mut args));
    if let Some(cursor) = &q.cursor {
        args.push(V::Text(cursor.0.clone()));
        let op = if q.forward { ">" } else { "<" };
        sql.push_str(&format!(" AND sk {op} ?{}", args.len()));
    }
    let order = if q.forward { "ASC" } else { "DESC" };
    sql.push_str(&format!(" ORDER BY sk {order} LIMIT {}", q.limit + 1));
    let mut stmt = conn.prepare_cached(&sql).map_err(unavailable)?;
    let rows = stmt
        .query_map(rusqlite::params_from_iter(args), |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .map_err(unavailable)?;
    let mut items = Vec::new();
    for row in rows {
        let (sk, attrs) = row.map_err(unavailable)?;
        items.push(decode(Key::new(q.pk.clone(), sk), &attrs)?);
    }
    let next = if items.len() > q.limit {
        items.truncate(q.limit);
        items.last().map(|i| Cursor(i.key.sk.clone()))
    } else {
        None
    };
    Ok(Page { items, next })
}

#[async_trait]
impl Table for SqliteTable {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        let key = key.clone();
        self.run(false, move |conn, now| read_live(conn, &key, now))
            .await
    }

    async fn query(&self, query: &Query) -> Result<Page, TableError> {
        validate_query(query)?;
        let query = query.clone();
        self.run(false, move |conn, now| run_query(conn, &query, now))
            .await
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        validate_item(&item)?;
        self.commit(vec![Write::Put { item, condition }], false)
            .await
            .map(|_| ())
    }

    async fn update(
        &self,
        key: &Key,
        ops: Vec<UpdateOp>,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        validate_update(key, &ops)?;
        let writes = vec![Write::Update {
            key: key.clone(),
            ops,
            condition,
        }];
        self.commit(writes, false)
            .await?
            .ok_or_else(|| TableError::Unavailable("update stored no item".into()))
    }

    async fn delete(&self, key: &Key, condition: Option<Condition>) -> Result<(), TableError> {
        let writes = vec![Write::Delete {
            key: key.clone(),
            condition,
        }];
        self.commit(writes, false).await.map(|_| ())
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        validate_transaction(&writes)?;
        self.commit(writes, true).await.map(|_| ())
    }

    fn bookkeeping(self: Arc<Self>) -> Arc<dyn Table> {
        Arc::new(SqliteTable {
            inner: self.inner.clone(),
            durable: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::clock::{ManualClock, SystemClock};
    use crate::ports::table_contract;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn sqlite_engine_passes_the_table_contract() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let table = SqliteTable::open(&path, clock.clone()).unwrap();
        table_contract::run(Arc::new(table), clock).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_bookkeeping_view_passes_the_table_contract_without_syncing_its_commits() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let table = Arc::new(SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap());
        table_contract::run(table.clone().bookkeeping(), clock).await;
        let synchronous = |pool: &Mutex<Vec<Connection>>| {
            let conns = pool.lock().unwrap();
            conns[0]
                .pragma_query_value(None, "synchronous", |r| r.get::<_, i64>(0))
                .unwrap()
        };
        assert_eq!(synchronous(&table.inner.relaxed_idle), 1, "NORMAL");
        assert_eq!(synchronous(&table.inner.idle), 2, "FULL");
    }

    #[tokio::test]
    async fn a_second_handle_on_the_same_file_sees_committed_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let a = SqliteTable::open(&path, Arc::new(SystemClock)).unwrap();
        let b = SqliteTable::open(&path, Arc::new(SystemClock)).unwrap();
        a.put(Item::new(Key::new("p", "s")).with("v", 1), None)
            .await
            .unwrap();
        let read = b.get(&Key::new("p", "s")).await.unwrap().unwrap();
        assert_eq!(read.n("v"), Some(1));
    }
}
