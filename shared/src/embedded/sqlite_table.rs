//! The embedded engine of the `Table` port: one SQLite file in WAL mode, shared
//! safely by several threads and several processes.
//!
//! Reads run on the caller's thread, on pooled connections or, for a point
//! read while the writer is between batches, on the writer's: a point read or
//! a page of a query takes microseconds, less than handing it to another
//! thread.
//! Writes go to one writer thread (`writer`), which commits every transaction
//! queued while it was busy as one SQLite transaction under the database's
//! write lock (`BEGIN IMMEDIATE`), so one sync covers them all. A request
//! served alone (`crate::http::serving`) commits its durable transaction on
//! its own thread instead, with what is queued before it, when the writer
//! idles. Before a transaction is queued it is ordered (`pending`): what it
//! will write, should it commit, becomes visible to `get_ordered`. The
//! writer checks its conditions against the table, which also holds what
//! other processes committed; a transaction built on a pending write that
//! then failed fails its own conditions there.
//! `synchronous=FULL` makes a commit durable; a batch of bookkeeping writes
//! (`Table::bookkeeping`) only commits with `synchronous=NORMAL`: a power loss
//! may drop its last commits but never tears the file, and the next durable
//! commit syncs them too. A bookkeeping write is answered once ordered, its
//! condition checked against what pending writes will leave, so a request
//! never waits for the writer to count it or lease its idempotency key.
//! A transaction that creates an event or job item also appends it to the feed
//! (`super::feed`), the embedded stand-in for DynamoDB Streams.
//! Connections open their files through `log_writes`, which writes the log
//! frames of a commit with one system call instead of two per page.

mod checkpointer;
mod log_writes;
mod pending;
mod schema;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use tokio::sync::{oneshot, watch};

use super::feed::{self, Feed};
use crate::http::serving;
use crate::ports::clock::Clock;
use crate::ports::table::{
    Condition, Cursor, Item, Key, Ordered, Page, Query, SortKey, Table, TableError, UpdateOp,
    Write, apply_update, prefix_upper_bound, validate_item, validate_query, validate_transaction,
    validate_update,
};
use pending::{Ordering, Slot};
pub(super) use writer::{Applied, Work};
use writer::{Job, Queue, Shared, WriterConnection};

/// What a read touches, which decides the connection it runs on: a point
/// read (three or four pages) may borrow the writer's connection between
/// its batches; a range read (a query page) runs on a reading connection,
/// so that it never holds up a commit.
///
/// No connection maps the file: SQLite unmaps the whole file at the first
/// read after another connection's commit, and mapping it again (with its
/// page faults, and the other core's TLB flushed for the unmapping) cost
/// more than copying the pages a read touches. Without it, sequential
/// issuing was 7.7 % ± 2.8 % faster (the dispatcher's query of webhooks
/// after every issue), and lists of invoices and events no slower.
#[derive(Clone, Copy)]
pub(super) enum Access {
    Point,
    Range,
}

pub struct SqliteTable {
    inner: Arc<Inner>,
    durable: bool,
}

pub(super) struct Inner {
    path: PathBuf,
    /// Idle reading connections for point reads.
    point_readers: Mutex<Vec<Connection>>,
    /// Idle reading connections for range reads.
    range_readers: Mutex<Vec<Connection>>,
    shared: Arc<Shared>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shared.queue.finish();
    }
}

/// How long a connection waits for another's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) fn unavailable(e: impl std::fmt::Display) -> TableError {
    TableError::Unavailable(e.to_string())
}

pub(super) fn open_connection(path: &Path) -> Result<Connection, TableError> {
    let conn = match log_writes::registered() {
        true => Connection::open_with_flags_and_vfs(path, OpenFlags::default(), log_writes::NAME),
        false => Connection::open(path),
    }
    .map_err(unavailable)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(unavailable)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(unavailable)?;
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(unavailable)?;
    // A statement's journal (an `INSERT OR REPLACE` keeps one) would
    // otherwise spill to a temporary file past 64 KiB.
    conn.pragma_update(None, "temp_store", "MEMORY")
        .map_err(unavailable)?;
    // Without it, SQLite compiles a statement again whenever a new value is
    // bound to a parameter the planner looked at (a query page's range).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map_err(unavailable)?;
    Ok(conn)
}

impl SqliteTable {
    /// Opens (creating when needed) the database file at `path`.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> Result<Self, TableError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(unavailable)?;
        }
        let mut conn = open_connection(path)?;
        schema::create_or_migrate(&mut conn)?;
        checkpointer::start(path, &mut conn)?;
        let shared = Arc::new(Shared {
            connection: Mutex::new(WriterConnection::new(conn)),
            queue: Queue::default(),
            pending: Arc::default(),
            clock,
            commits: watch::Sender::new(0),
            #[cfg(test)]
            batches: Mutex::default(),
            #[cfg(test)]
            taken: Default::default(),
        });
        writer::start(shared.clone())?;
        Ok(SqliteTable {
            inner: Arc::new(Inner {
                path: path.to_path_buf(),
                point_readers: Mutex::default(),
                range_readers: Mutex::default(),
                shared,
            }),
            durable: true,
        })
    }

    /// The feed of created event and job items, in commit order.
    pub fn feed(&self) -> Feed {
        Feed::new(self.inner.clone())
    }

    fn now(&self) -> i64 {
        self.inner.shared.clock.now().timestamp()
    }

    /// Orders the writes (see the module's note) and returns what answers
    /// once they are committed, and for bookkeeping the item the last write
    /// will leave.
    /// A durable transaction's conditions are left to the writer: what a
    /// pending write will leave is known only once it commits, so a condition
    /// checked against it could fail a transaction that would have committed.
    /// A bookkeeping transaction is answered once ordered, so its conditions
    /// are checked here, against what pending writes will leave; the writer
    /// checks them again, and a bookkeeping write that fails there is lost,
    /// as a power cut may lose it.
    fn order_writes(
        &self,
        writes: Vec<Write>,
        indexed: bool,
    ) -> Result<(Committed, Option<Item>), TableError> {
        let now = self.now();
        let staged = writes
            .iter()
            .cloned()
            .map(Staged::new)
            .collect::<Result<Vec<_>, _>>()?;
        let check = !self.durable;
        let ordering = self.inner.shared.pending.ordering();
        let mut slots = Vec::with_capacity(writes.len());
        for (i, write) in writes.into_iter().enumerate() {
            let condition = write.condition().filter(|_| check);
            let live = match (&write, condition) {
                (Write::Update { .. }, _) | (_, Some(_)) => match ordering.slot(write.key()) {
                    Some(slot) => slot.clone().filter(|item| item.is_live(now)),
                    None => self
                        .inner
                        .read(Access::Point, |conn, now| read_live(conn, write.key(), now))?,
                },
                _ => None,
            };
            if let Some(condition) = condition
                && !condition.holds(live.as_ref())
            {
                return Err(TableError::ConditionFailed {
                    index: indexed.then_some(i),
                    key: write.key().clone(),
                });
            }
            let (key, slot) = match write {
                Write::Put { item, .. } => (item.key.clone(), Some(item)),
                Write::Update { key, ops, .. } => {
                    let item = apply_update(live, &key, &ops)?;
                    (key, Some(item))
                }
                Write::Delete { key, .. } => (key, None),
                Write::Check { .. } => continue,
            };
            slots.push((key, slot));
        }
        let left = match check {
            true => slots.last().and_then(|(_, slot)| slot.clone()),
            false => None,
        };
        let work: Work = Box::new(move |conn, now| write_all(conn, staged, indexed, now));
        let committed = self.inner.submit(ordering, slots, self.durable, work)?;
        Ok((committed, left))
    }

    /// Orders one write and answers with the item it leaves: once committed,
    /// or once ordered for bookkeeping (only the disk can fail it then, and
    /// bookkeeping may be lost).
    async fn write_one(&self, write: Write) -> Result<Option<Item>, TableError> {
        let (committed, left) = self.order_writes(vec![write], false)?;
        if self.durable {
            Ok(settle(committed).await?.stored)
        } else {
            Ok(left)
        }
    }
}

/// Answers once the writer has committed a transaction (or failed to).
type Committed = oneshot::Receiver<Result<Applied, TableError>>;

async fn settle(committed: Committed) -> Result<Applied, TableError> {
    committed
        .await
        .map_err(|_| TableError::Unavailable("the SQLite writer stopped".into()))?
}

impl Inner {
    /// Runs `f` on this thread: a point read on the writer's connection
    /// when the writer is between batches (its page cache outlives its own
    /// commits, so the pages are there), otherwise on an idle reading
    /// connection for this `access`.
    pub(super) fn read<T>(
        &self,
        access: Access,
        f: impl FnOnce(&Connection, i64) -> Result<T, TableError>,
    ) -> Result<T, TableError> {
        let now = self.shared.clock.now().timestamp();
        let readers = match access {
            Access::Point => {
                let writer = match self.shared.connection.try_lock() {
                    Ok(conn) => Some(conn),
                    Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
                    Err(TryLockError::WouldBlock) => None,
                };
                // A batch whose rollback failed would leave its transaction
                // open, and its writes visible on this connection.
                if let Some(writer) = writer.filter(|writer| writer.conn.is_autocommit()) {
                    return f(&writer.conn, now);
                }
                &self.point_readers
            }
            Access::Range => &self.range_readers,
        };
        let idle = readers.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => open_connection(&self.path)?,
        };
        let result = f(&conn, now);
        readers.lock().unwrap_or_else(|e| e.into_inner()).push(conn);
        result
    }

    /// Orders `work`, which leaves `slots`, as the next transaction under
    /// the `ordering` lock, and queues it for the writer; or, for a durable
    /// transaction of a request served alone, begins its batch on this thread
    /// (`Shared::claim`) and commits it once the lock is released, since
    /// settling a batch takes that lock.
    fn submit(
        &self,
        mut ordering: MutexGuard<'_, Ordering>,
        slots: Vec<(Key, Slot)>,
        durable: bool,
        work: Work,
    ) -> Result<Committed, TableError> {
        let seq = ordering.record(slots);
        let (reply, committed) = oneshot::channel();
        let job = Job {
            seq,
            ordered: Instant::now(),
            durable,
            work,
            reply,
        };
        let job = match durable && serving::alone() {
            true => match self.shared.claim(job) {
                Ok(claimed) => {
                    drop(ordering);
                    claimed.commit();
                    return Ok(committed);
                }
                Err(job) => job,
            },
            false => job,
        };
        if self.shared.queue.push(job).is_err() {
            ordering.forget(seq);
            return Err(TableError::Unavailable("the SQLite writer stopped".into()));
        }
        Ok(committed)
    }

    /// Commits `work` (statements outside the items) as a transaction of its
    /// own (`submit`); `durable` has the commit synced.
    pub(super) async fn write(&self, durable: bool, work: Work) -> Result<Applied, TableError> {
        let committed = self.submit(self.shared.pending.ordering(), Vec::new(), durable, work)?;
        settle(committed).await
    }

    pub(super) fn commits(&self) -> watch::Receiver<i64> {
        self.shared.commits.subscribe()
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

fn encode(item: &Item) -> Result<String, TableError> {
    serde_json::to_string(&item.attrs).map_err(unavailable)
}

/// Stores the item with its attributes `attrs` (`encode`d).
fn store(conn: &Connection, item: &Item, attrs: &str) -> Result<(), TableError> {
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

/// A write as the writer receives it: a put comes with its attributes
/// encoded by the thread that ordered it, which the writer only stores.
struct Staged {
    write: Write,
    attrs: Option<String>,
}

impl Staged {
    fn new(write: Write) -> Result<Self, TableError> {
        let attrs = match &write {
            Write::Put { item, .. } => Some(encode(item)?),
            _ => None,
        };
        Ok(Staged { write, attrs })
    }

    /// Whether the writer must read the live item: for the condition, to
    /// update it, or to learn whether a fed item is created.
    fn reads(&self) -> bool {
        match &self.write {
            Write::Put { item, condition } => condition.is_some() || feed::is_fed(item),
            Write::Update { .. } => true,
            Write::Delete { condition, .. } => condition.is_some(),
            Write::Check { .. } => true,
        }
    }
}

enum Effect {
    /// `created`: no live item had the key before.
    Store {
        item: Item,
        attrs: String,
        created: bool,
    },
    Remove(Key),
    Nothing,
}

/// Checks one write against the live item and returns what it would do.
fn plan(staged: Staged, live: Option<Item>, index: Option<usize>) -> Result<Effect, TableError> {
    let write = staged.write;
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
            attrs: staged.attrs.map_or_else(|| encode(&item), Ok)?,
            item,
            created,
        },
        Write::Update { key, ops, .. } => {
            let item = apply_update(live, &key, &ops)?;
            Effect::Store {
                attrs: encode(&item)?,
                item,
                created,
            }
        }
        Write::Delete { key, .. } => Effect::Remove(key),
        Write::Check { .. } => Effect::Nothing,
    })
}

/// Applies one effect; returns the feed sequence when it fed the feed.
fn apply(conn: &Connection, effect: &Effect) -> Result<Option<i64>, TableError> {
    match effect {
        Effect::Store {
            item,
            attrs,
            created,
        } => {
            store(conn, item, attrs)?;
            if *created && feed::is_fed(item) {
                return feed::append(conn, item, attrs).map(Some);
            }
            Ok(None)
        }
        Effect::Remove(key) => remove(conn, key).map(|()| None),
        Effect::Nothing => Ok(None),
    }
}

/// Runs writes inside the writer's transaction: all conditions first, then
/// all effects.
fn write_all(
    conn: &Connection,
    writes: Vec<Staged>,
    indexed: bool,
    now: i64,
) -> Result<Applied, TableError> {
    let mut effects = Vec::with_capacity(writes.len());
    for (i, staged) in writes.into_iter().enumerate() {
        let live = match staged.reads() {
            true => read_live(conn, staged.write.key(), now)?,
            false => None,
        };
        effects.push(plan(staged, live, indexed.then_some(i))?);
    }
    let mut fed = None;
    for effect in &effects {
        fed = apply(conn, effect)?.or(fed);
    }
    let stored = match effects.pop() {
        Some(Effect::Store { item, .. }) => Some(item),
        _ => None,
    };
    Ok(Applied {
        stored,
        fed,
        ..Applied::default()
    })
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

/// The statement of a query page and its arguments.
fn query_statement(q: &Query, now: i64) -> (String, Vec<rusqlite::types::Value>) {
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
    (sql, args)
}

fn run_query(conn: &Connection, q: &Query, now: i64) -> Result<Page, TableError> {
    let (sql, args) = query_statement(q, now);
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
        let pending = &self.inner.shared.pending;
        if let Some(seq) = pending.last_writer(key) {
            pending.settled(seq).await;
        }
        self.inner
            .read(Access::Point, |conn, now| read_live(conn, key, now))
    }

    async fn get_ordered(&self, key: &Key) -> Result<Option<Item>, TableError> {
        match self.inner.shared.pending.slot(key) {
            Some((_, slot)) => Ok(slot.filter(|item| item.is_live(self.now()))),
            None => self
                .inner
                .read(Access::Point, |conn, now| read_live(conn, key, now)),
        }
    }

    async fn query(&self, query: &Query) -> Result<Page, TableError> {
        validate_query(query)?;
        let pending = &self.inner.shared.pending;
        if let Some(seq) = pending.last_writer_in(&query.pk) {
            pending.settled(seq).await;
        }
        self.inner
            .read(Access::Range, |conn, now| run_query(conn, query, now))
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        validate_item(&item)?;
        self.write_one(Write::Put { item, condition })
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
        let write = Write::Update {
            key: key.clone(),
            ops,
            condition,
        };
        self.write_one(write)
            .await?
            .ok_or_else(|| TableError::Unavailable("update stored no item".into()))
    }

    async fn delete(&self, key: &Key, condition: Option<Condition>) -> Result<(), TableError> {
        let write = Write::Delete {
            key: key.clone(),
            condition,
        };
        self.write_one(write).await.map(|_| ())
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        self.order(writes).await?.durable().await
    }

    async fn order(&self, writes: Vec<Write>) -> Result<Ordered, TableError> {
        validate_transaction(&writes)?;
        let (committed, _) = self.order_writes(writes, true)?;
        Ok(Ordered::new(
            async move { settle(committed).await.map(|_| ()) },
        ))
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
    use crate::http::serving::{Another, InFlight};
    use crate::ports::clock::{ManualClock, SystemClock};
    use crate::ports::table_contract;

    fn open(dir: &tempfile::TempDir) -> Arc<SqliteTable> {
        Arc::new(SqliteTable::open(&dir.path().join("svc.db"), Arc::new(SystemClock)).unwrap())
    }

    fn put(pk: &str, condition: Option<Condition>) -> Write {
        Write::Put {
            item: Item::new(Key::new(pk, "s")).with("v", 1),
            condition,
        }
    }

    /// Holds the database's write lock from another connection, as another
    /// process would, until `release`.
    struct OtherProcess(Connection);

    impl OtherProcess {
        fn lock(dir: &tempfile::TempDir) -> Self {
            let conn = open_connection(&dir.path().join("svc.db")).unwrap();
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            OtherProcess(conn)
        }

        fn release(self) {
            self.0.execute_batch("COMMIT").unwrap();
        }
    }

    /// A table whose writer has taken a first transaction and waits for
    /// the write lock, which another process holds until `release`: what
    /// is ordered meanwhile commits in the next batch.
    async fn held(dir: &tempfile::TempDir) -> (Arc<SqliteTable>, OtherProcess, Ordered) {
        let table = open(dir);
        let other = OtherProcess::lock(dir);
        let first = table.order(vec![put("x", None)]).await.unwrap();
        taken(&table, 1).await;
        (table, other, first)
    }

    async fn ordered_up_to(table: &SqliteTable, seq: u64) {
        while table.inner.shared.pending.ordering().last() < seq {
            tokio::task::yield_now().await;
        }
    }

    /// Waits until the writer has taken the transaction `seq` (and, with the
    /// lock held elsewhere, waits for it).
    async fn taken(table: &SqliteTable, seq: u64) {
        use std::sync::atomic::Ordering::SeqCst;
        while table.inner.shared.taken.load(SeqCst) < seq {
            tokio::task::yield_now().await;
        }
    }

    fn batches(table: &SqliteTable) -> Vec<(usize, bool)> {
        let batches = table.inner.shared.batches.lock().unwrap();
        batches
            .iter()
            .map(|b| (b.transactions, b.durable))
            .collect()
    }

    fn last_batch(table: &SqliteTable) -> writer::Batch {
        *table.inner.shared.batches.lock().unwrap().last().unwrap()
    }

    #[test]
    fn connections_open_their_files_through_the_log_writes_vfs() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_connection(&dir.path().join("svc.db")).unwrap();
        assert!(log_writes::opened_through(&conn));
        let plain = Connection::open(dir.path().join("svc.db")).unwrap();
        assert!(!log_writes::opened_through(&plain));
    }

    #[tokio::test]
    async fn a_range_read_runs_on_a_connection_that_does_not_map_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        table
            .put(Item::new(Key::new("p", "a")), None)
            .await
            .unwrap();
        table.query(&Query::new("p", SortKey::All)).await.unwrap();
        let readers = table.inner.range_readers.lock().unwrap();
        let mapped: i64 = readers[0]
            .pragma_query_value(None, "mmap_size", |r| r.get(0))
            .unwrap();
        assert_eq!(mapped, 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn sqlite_engine_passes_the_table_contract() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let table = SqliteTable::open(&path, clock.clone()).unwrap();
        table_contract::run(Arc::new(table), clock).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_bookkeeping_view_passes_the_table_contract() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let table = Arc::new(SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap());
        table_contract::run(table.bookkeeping(), clock).await;
    }

    #[tokio::test]
    async fn bookkeeping_commits_are_not_synced_and_a_batch_with_a_durable_write_is() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let bookkeeping = table.clone().bookkeeping();
        bookkeeping
            .put(Item::new(Key::new("a", "s")), None)
            .await
            .unwrap();
        table.get(&Key::new("a", "s")).await.unwrap();
        table
            .put(Item::new(Key::new("b", "s")), None)
            .await
            .unwrap();
        assert_eq!(batches(&table), [(1, false), (1, true)]);

        let other = OtherProcess::lock(&dir);
        let first = tokio::spawn({
            let table = table.clone();
            async move { table.transact(vec![put("c", None)]).await }
        });
        taken(&table, 3).await;
        let relaxed =
            tokio::spawn(async move { bookkeeping.put(Item::new(Key::new("d", "s")), None).await });
        ordered_up_to(&table, 4).await;
        let durable = tokio::spawn({
            let table = table.clone();
            async move { table.transact(vec![put("e", None)]).await }
        });
        ordered_up_to(&table, 5).await;
        other.release();
        for done in [first, relaxed, durable] {
            done.await.unwrap().unwrap();
        }
        assert_eq!(batches(&table)[2..], [(1, true), (2, true)]);
    }

    #[tokio::test]
    async fn a_durable_transaction_ordered_soon_after_bookkeeping_commits_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let bookkeeping = table.clone().bookkeeping();
        // A busy machine may hold this task longer than the wait; the
        // bookkeeping batch then commits alone, so several tries are allowed.
        for n in 0..10 {
            let before = batches(&table).len();
            let lease = Item::new(Key::new("lease", n.to_string()));
            bookkeeping.put(lease, None).await.unwrap();
            // Long enough for the writer to take the lease, not to commit it.
            std::thread::sleep(Duration::from_micros(500));
            let invoice = Item::new(Key::new("invoice", n.to_string()));
            table.put(invoice, None).await.unwrap();
            if batches(&table)[before..] == [(2, true)] {
                return;
            }
        }
        panic!("never committed together: {:?}", batches(&table));
    }

    /// What `write` answers while the writer waits for the lock.
    async fn answered<T>(write: impl Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(5), write)
            .await
            .expect("answered while the writer waits")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn bookkeeping_writes_are_answered_before_their_commit() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let bookkeeping = table.clone().bookkeeping();
        let key = Key::new("RATE#k", "1");
        let other = OtherProcess::lock(&dir);
        for n in 1..=3 {
            let hit = bookkeeping.update(&key, vec![UpdateOp::add("n", 1)], None);
            assert_eq!(answered(hit).await.unwrap().n("n"), Some(n));
        }
        let add = || vec![UpdateOp::add("n", 1)];
        let stale = bookkeeping.update(&key, add(), Some(Condition::equals("n", 2)));
        assert!(
            matches!(
                answered(stale).await,
                Err(TableError::ConditionFailed { .. })
            ),
            "checked against what the pending writes leave"
        );
        let hit = bookkeeping.update(&key, add(), Some(Condition::equals("n", 3)));
        assert_eq!(answered(hit).await.unwrap().n("n"), Some(4));

        let lease = Key::new("IDEM#a", "k");
        let claim = |token: &str| {
            let item = Item::new(lease.clone()).with("lease", token);
            bookkeeping.put(item, Some(Condition::Absent))
        };
        answered(claim("t1")).await.unwrap();
        assert!(matches!(
            answered(claim("t2")).await,
            Err(TableError::ConditionFailed { .. })
        ));
        let release = bookkeeping.delete(&lease, Some(Condition::equals("lease", "t1")));
        answered(release).await.unwrap();
        answered(claim("t3")).await.unwrap();

        let read = tokio::spawn({
            let (table, key) = (table.clone(), key.clone());
            async move { table.get(&key).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!read.is_finished(), "a read waits for the commit");
        other.release();
        assert_eq!(read.await.unwrap().unwrap().unwrap().n("n"), Some(4));
        let leased = table.get(&lease).await.unwrap().unwrap();
        assert_eq!(leased.s("lease"), Some("t3"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_bookkeeping_write_whose_condition_another_process_breaks_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let bookkeeping = table.clone().bookkeeping();
        let lease = Key::new("IDEM#a", "k");
        let other = OtherProcess::lock(&dir);
        let ours = Item::new(lease.clone()).with("lease", "ours");
        answered(bookkeeping.put(ours, Some(Condition::Absent)))
            .await
            .unwrap();
        let theirs = Item::new(lease.clone()).with("lease", "theirs");
        other
            .0
            .execute(
                "INSERT INTO items (pk, sk, ttl, attrs) VALUES (?1, ?2, NULL, ?3)",
                params![lease.pk, lease.sk, encode(&theirs).unwrap()],
            )
            .unwrap();
        other.release();
        let held = table.get(&lease).await.unwrap().unwrap();
        assert_eq!(held.s("lease"), Some("theirs"));
        let completion = Write::Put {
            item: Item::new(lease.clone()).with("state", "done"),
            condition: Some(Condition::equals("lease", "ours")),
        };
        assert!(
            matches!(
                table.transact(vec![completion]).await,
                Err(TableError::ConditionFailed { .. })
            ),
            "what builds on the lost write fails its own condition"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_lone_requests_durable_transaction_commits_on_its_thread_with_what_is_queued() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let in_flight = InFlight::default();
        let bookkeeping = table.clone().bookkeeping();
        in_flight
            .serve(async {
                let lease = Item::new(Key::new("IDEM#a", "k")).with("lease", "ours");
                bookkeeping.put(lease, None).await.unwrap();
                table.transact(vec![put("k", None)]).await.unwrap();
            })
            .await;
        assert_eq!(
            last_batch(&table),
            writer::Batch {
                transactions: 2,
                durable: true,
                here: true
            }
        );
        assert!(table.get(&Key::new("IDEM#a", "k")).await.unwrap().is_some());
        assert!(table.get(&Key::new("k", "s")).await.unwrap().is_some());

        let other = Another::start(&in_flight).await;
        in_flight
            .serve(table.transact(vec![put("k2", None)]))
            .await
            .unwrap();
        assert!(!last_batch(&table).here, "another request in flight");
        other.end().await;
        table.transact(vec![put("k3", None)]).await.unwrap();
        assert!(!last_batch(&table).here, "outside a request");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_lone_request_leaves_its_transaction_to_the_writer_while_another_process_writes() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let other = OtherProcess::lock(&dir);
        let in_flight = InFlight::default();
        let ordered = tokio::time::timeout(
            Duration::from_secs(5),
            in_flight.serve(table.order(vec![put("k", None)])),
        );
        let ordered = ordered
            .await
            .expect("ordered without waiting for the lock")
            .unwrap();
        taken(&table, 1).await;
        other.release();
        ordered.durable().await.unwrap();
        assert!(!last_batch(&table).here);
        assert!(table.get(&Key::new("k", "s")).await.unwrap().is_some());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn point_reads_borrow_the_writers_connection_between_batches_only() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let a = Key::new("a", "s");
        table.put(Item::new(a.clone()), None).await.unwrap();
        assert!(table.get(&a).await.unwrap().is_some());
        let readers = || table.inner.point_readers.lock().unwrap().len();
        assert_eq!(readers(), 0, "read on the writer's connection");

        let other = OtherProcess::lock(&dir);
        let ordered = table.order(vec![put("b", None)]).await.unwrap();
        taken(&table, 2).await;
        let read = tokio::time::timeout(Duration::from_secs(5), table.get(&a));
        assert!(
            read.await
                .expect("answered while the writer commits")
                .unwrap()
                .is_some()
        );
        assert_eq!(readers(), 1, "read on a reading connection");
        other.release();
        ordered.durable().await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn transactions_queued_while_the_writer_waits_commit_together() {
        let dir = tempfile::tempdir().unwrap();
        let (table, other, first) = held(&dir).await;
        let writers: Vec<_> = (1..64)
            .map(|n| {
                let table = table.clone();
                tokio::spawn(async move {
                    table
                        .transact(vec![put(&format!("k{n}"), Some(Condition::Absent))])
                        .await
                })
            })
            .collect();
        ordered_up_to(&table, 64).await;
        other.release();
        first.durable().await.unwrap();
        for writer in writers {
            writer.await.unwrap().unwrap();
        }
        assert_eq!(batches(&table), [(1, true), (63, true)]);
        for n in 1..64 {
            let key = Key::new(format!("k{n}"), "s");
            assert!(table.get(&key).await.unwrap().is_some(), "{key}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn an_ordered_write_is_seen_by_get_ordered_at_once_and_by_get_once_committed() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let key = Key::new("p", "s");
        let other = OtherProcess::lock(&dir);
        let ordered = table.order(vec![put("p", None)]).await.unwrap();
        let seen = table.get_ordered(&key).await.unwrap();
        assert_eq!(seen.and_then(|item| item.n("v")), Some(1));
        let get = tokio::spawn({
            let (table, key) = (table.clone(), key.clone());
            async move { table.get(&key).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!get.is_finished(), "get waits for the commit");
        other.release();
        ordered.durable().await.unwrap();
        let read = get.await.unwrap().unwrap();
        assert_eq!(read.and_then(|item| item.n("v")), Some(1));
        assert_eq!(table.inner.shared.pending.slot(&key), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_condition_another_process_breaks_fails_its_transaction_alone_at_commit() {
        let dir = tempfile::tempdir().unwrap();
        let (table, other, first) = held(&dir).await;
        let absent = table
            .order(vec![put("m", None), put("k", Some(Condition::Absent))])
            .await
            .unwrap();
        let beside = table.order(vec![put("j", None)]).await.unwrap();
        let theirs = Item::new(Key::new("k", "s")).with("v", 2);
        store(&other.0, &theirs, &encode(&theirs).unwrap()).unwrap();
        other.release();
        first.durable().await.unwrap();
        let absent = absent.durable().await;
        assert!(
            matches!(
                absent,
                Err(TableError::ConditionFailed { index: Some(1), .. })
            ),
            "{absent:?}"
        );
        beside.durable().await.unwrap();
        assert_eq!(batches(&table), [(1, true), (2, true)]);
        assert_eq!(
            table.get(&Key::new("m", "s")).await.unwrap(),
            None,
            "nothing of the failed transaction"
        );
        let k = table.get_ordered(&Key::new("k", "s")).await.unwrap();
        assert_eq!(
            k.and_then(|item| item.n("v")),
            Some(2),
            "the other process's"
        );
        assert!(table.get(&Key::new("j", "s")).await.unwrap().is_some());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_transaction_that_fails_after_writing_fails_its_batch_which_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (table, other, first) = held(&dir).await;
        let beside = table.order(vec![put("j", None)]).await.unwrap();
        let half: Work = Box::new(|conn, _| {
            let item = Item::new(Key::new("h", "s")).with("v", 1);
            store(conn, &item, &encode(&item)?)?;
            Err(TableError::Unavailable("failed after writing".into()))
        });
        let inner = table.inner.clone();
        let failed = tokio::spawn(async move { inner.write(true, half).await });
        ordered_up_to(&table, 3).await;
        other.release();
        first.durable().await.unwrap();
        assert!(beside.durable().await.is_err(), "its batch failed");
        assert!(failed.await.unwrap().is_err());
        assert!(batches(&table).iter().all(|b| b.0 == 1), "only the first");
        for pk in ["h", "j"] {
            assert_eq!(table.get(&Key::new(pk, "s")).await.unwrap(), None, "{pk}");
        }
        table.transact(vec![put("j", None)]).await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn when_the_writer_stops_reads_do_not_wait_for_it_and_writes_fail() {
        let dir = tempfile::tempdir().unwrap();
        let (table, other, first) = held(&dir).await;
        let inner = table.inner.clone();
        let crash: Work = Box::new(|_, _| panic!("the writer stops"));
        let crashed = tokio::spawn(async move { inner.write(false, crash).await });
        ordered_up_to(&table, 2).await;
        let lost = table.order(vec![put("q", None)]).await.unwrap();
        other.release();
        first.durable().await.unwrap();
        assert!(crashed.await.unwrap().is_err());
        assert!(lost.durable().await.is_err());
        let q = Key::new("q", "s");
        let read = tokio::time::timeout(Duration::from_secs(5), table.get(&q)).await;
        assert_eq!(read.expect("get does not wait").unwrap(), None);
        let after = table.put(Item::new(Key::new("r", "s")), None).await;
        assert!(
            matches!(after, Err(TableError::Unavailable(_))),
            "{after:?}"
        );
        assert_eq!(table.inner.shared.pending.slot(&Key::new("r", "s")), None);
    }

    #[test]
    fn a_query_page_runs_its_cached_statement_without_compiling_it_again() {
        let dir = tempfile::tempdir().unwrap();
        let _table = open(&dir);
        let conn = open_connection(&dir.path().join("svc.db")).unwrap();
        let between =
            |lo: &str, hi: &str| Query::new("p", SortKey::Between(lo.into(), hi.into())).limit(10);
        for (now, (lo, hi)) in [(1, ("a", "m")), (2, ("b", "n")), (3, ("c", "o"))] {
            run_query(&conn, &between(lo, hi), now).unwrap();
        }
        let (sql, _) = query_statement(&between("a", "m"), 1);
        let stmt = conn.prepare_cached(&sql).unwrap();
        assert_eq!(
            stmt.get_status(rusqlite::StatementStatus::RePrepare),
            0,
            "without a stable query plan, a statement is compiled again for each new range"
        );
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
