//! The embedded engine of the `Queue` port: named queues in a table of the
//! embedded engine's SQLite file, written as `SqliteTable` writes (WAL,
//! immediate transactions, a send a durable commit), so messages survive a
//! restart and several threads and processes can share a queue. A message is visible
//! when its `visible_at` is at or before the `Clock` port's now. A waiting
//! `receive` is woken by a send in this process at once, and polls for sends
//! of other processes and for moves of the clock; its wait is real time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{Connection, Params, TransactionBehavior, params};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::sqlite_table::open_connection;
use crate::ids::random_token;
use crate::ports::clock::Clock;
use crate::ports::queue::{Message, Queue, QueueError, validate_receive, validate_send};

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS queue_messages (
    id TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    body TEXT NOT NULL,
    visible_at INTEGER NOT NULL,
    receive_count INTEGER NOT NULL,
    receipt TEXT
);
CREATE INDEX IF NOT EXISTS queue_messages_by_visibility ON queue_messages (queue, visible_at);";

/// How often a waiting `receive` looks for what this process was not told
/// of: sends by other processes, a clock moved by a test.
const POLL: Duration = Duration::from_millis(200);

/// A queue of this process: its database file and its name.
type QueueKey = (PathBuf, String);

/// Wake-ups of the receivers in this process, by queue.
static WAKE_UPS: LazyLock<Mutex<HashMap<QueueKey, Arc<Notify>>>> = LazyLock::new(Default::default);

fn wake_up(path: &Path, queue: &str) -> Arc<Notify> {
    let mut all = WAKE_UPS.lock().unwrap_or_else(|e| e.into_inner());
    all.entry((path.to_path_buf(), queue.to_string()))
        .or_default()
        .clone()
}

/// An embedded queue's settings (on SQS, attributes of the queue).
#[derive(Clone, Copy, Debug)]
pub struct QueueSettings {
    /// How long a received message stays invisible unless deleted.
    pub visibility_timeout: Duration,
    /// The receives after which a message moves to the dead-letter queue.
    pub max_receives: u32,
}

pub struct SqliteQueue {
    db: Arc<Db>,
    name: String,
    visibility_timeout: Duration,
    /// `None` for a dead-letter queue, which keeps its messages.
    redrive: Option<Redrive>,
    wake: Arc<Notify>,
}

struct Db {
    conn: Mutex<Connection>,
    clock: Arc<dyn Clock>,
}

#[derive(Clone)]
struct Redrive {
    dead_letters: String,
    max_receives: u32,
    wake: Arc<Notify>,
}

fn unavailable(e: impl std::fmt::Display) -> QueueError {
    QueueError::Unavailable(e.to_string())
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl SqliteQueue {
    /// The queue `name` in the database file at `path` (created when
    /// needed); its messages move to the queue `<name>-dlq` (see
    /// `dead_letters`) when received `settings.max_receives` times undeleted.
    pub fn open(
        path: &Path,
        name: &str,
        settings: QueueSettings,
        clock: Arc<dyn Clock>,
    ) -> Result<SqliteQueue, QueueError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(unavailable)?;
        }
        let conn = open_connection(path).map_err(unavailable)?;
        conn.execute_batch(SCHEMA).map_err(unavailable)?;
        let path = path.canonicalize().map_err(unavailable)?;
        let dead_letters = format!("{name}-dlq");
        Ok(SqliteQueue {
            wake: wake_up(&path, name),
            redrive: Some(Redrive {
                wake: wake_up(&path, &dead_letters),
                dead_letters,
                max_receives: settings.max_receives,
            }),
            db: Arc::new(Db {
                conn: Mutex::new(conn),
                clock,
            }),
            name: name.to_string(),
            visibility_timeout: settings.visibility_timeout,
        })
    }

    /// The dead-letter queue of this queue, with the same visibility timeout.
    pub fn dead_letters(&self) -> Option<SqliteQueue> {
        let redrive = self.redrive.as_ref()?;
        Some(SqliteQueue {
            db: self.db.clone(),
            name: redrive.dead_letters.clone(),
            visibility_timeout: self.visibility_timeout,
            redrive: None,
            wake: redrive.wake.clone(),
        })
    }

    /// Runs `f` with the connection and the clock's now (ms since the epoch)
    /// on the blocking thread pool. Only a send must outlive a power loss: a
    /// lost receive, delete or visibility change means at worst one more
    /// delivery, which at-least-once consumers take anyway, so those skip the
    /// fsync of a `synchronous=FULL` commit (in WAL mode a crash of the
    /// process loses no commit either way).
    async fn run<T, F>(&self, durable: bool, f: F) -> Result<T, QueueError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> Result<T, QueueError> + Send + 'static,
    {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = db.conn.lock().unwrap_or_else(|e| e.into_inner());
            let synchronous = if durable { "FULL" } else { "NORMAL" };
            conn.pragma_update(None, "synchronous", synchronous)
                .map_err(unavailable)?;
            f(&mut conn, db.clock.now().timestamp_millis())
        })
        .await
        .map_err(unavailable)?
    }
}

/// What one look at a queue found: the messages it took, or else when the
/// next one becomes visible.
struct Look {
    messages: Vec<Message>,
    next_visible: Option<i64>,
    moved_to_dead_letters: bool,
}

fn take(
    conn: &mut Connection,
    queue: &str,
    max: usize,
    visibility_timeout: i64,
    redrive: Option<(&str, u32)>,
    now: i64,
) -> Result<Look, QueueError> {
    let mut look = Look {
        messages: Vec::new(),
        next_visible: None,
        moved_to_dead_letters: false,
    };
    // A plain read first: an empty queue costs no write lock.
    look.next_visible = conn
        .query_row(
            "SELECT MIN(visible_at) FROM queue_messages WHERE queue = ?1",
            [queue],
            |r| r.get(0),
        )
        .map_err(unavailable)?;
    if look.next_visible.is_none_or(|at| at > now) {
        return Ok(look);
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(unavailable)?;
    loop {
        let wanted = max - look.messages.len();
        let visible: Vec<(String, String, u32)> = {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT id, body, receive_count FROM queue_messages
                     WHERE queue = ?1 AND visible_at <= ?2 ORDER BY visible_at LIMIT ?3",
                )
                .map_err(unavailable)?;
            stmt.query_map(params![queue, now, wanted as i64], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .map_err(unavailable)?
            .collect::<Result<_, _>>()
            .map_err(unavailable)?
        };
        if visible.is_empty() {
            break;
        }
        for (id, body, count) in visible {
            if let Some((dead_letters, max_receives)) = redrive
                && count >= max_receives
            {
                tx.execute(
                    "UPDATE queue_messages SET queue = ?2, visible_at = ?3, receipt = NULL
                     WHERE id = ?1",
                    params![id, dead_letters, now],
                )
                .map_err(unavailable)?;
                look.moved_to_dead_letters = true;
                continue;
            }
            let receipt = format!("{id}.{}", random_token(16));
            tx.execute(
                "UPDATE queue_messages SET visible_at = ?2, receive_count = ?3, receipt = ?4
                 WHERE id = ?1",
                params![
                    id,
                    now.saturating_add(visibility_timeout),
                    count + 1,
                    receipt
                ],
            )
            .map_err(unavailable)?;
            look.messages.push(Message {
                id,
                body,
                receipt,
                receive_count: count + 1,
            });
        }
        if look.messages.len() == max {
            break;
        }
    }
    tx.commit().map_err(unavailable)?;
    Ok(look)
}

/// Runs one write in an immediate transaction, as every write of the file
/// runs: it waits for the write lock rather than fail on a stale snapshot.
fn write_one(conn: &mut Connection, sql: &str, args: impl Params) -> Result<usize, QueueError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(unavailable)?;
    let changed = tx.execute(sql, args).map_err(unavailable)?;
    tx.commit().map_err(unavailable)?;
    Ok(changed)
}

fn message_id(receipt: &str) -> Result<&str, QueueError> {
    receipt
        .split_once('.')
        .map(|(id, _)| id)
        .ok_or_else(|| QueueError::Invalid(format!("{receipt:?} is not a receipt")))
}

#[async_trait]
impl Queue for SqliteQueue {
    async fn send(&self, body: &str, delay: Duration) -> Result<(), QueueError> {
        validate_send(delay)?;
        let (queue, body) = (self.name.clone(), body.to_string());
        self.run(true, move |conn, now| {
            write_one(
                conn,
                "INSERT INTO queue_messages (id, queue, body, visible_at, receive_count)
                 VALUES (?1, ?2, ?3, ?4, 0)",
                params![random_token(16), queue, body, now + millis(delay)],
            )
        })
        .await?;
        // Also for a delayed message: a waiting receive then naps until it is due.
        self.wake.notify_waiters();
        Ok(())
    }

    async fn receive(&self, max: usize, wait: Duration) -> Result<Vec<Message>, QueueError> {
        validate_receive(max, wait)?;
        let deadline = Instant::now() + wait;
        loop {
            // Registered before looking, so a send during the look still wakes it.
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let (queue, timeout) = (self.name.clone(), millis(self.visibility_timeout));
            let redrive = self.redrive.clone();
            let look = self
                .run(false, move |conn, now| {
                    let redrive = redrive
                        .as_ref()
                        .map(|r| (r.dead_letters.as_str(), r.max_receives));
                    take(conn, &queue, max, timeout, redrive, now)
                })
                .await?;
            if look.moved_to_dead_letters
                && let Some(redrive) = &self.redrive
            {
                redrive.wake.notify_waiters();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if !look.messages.is_empty() || left.is_zero() {
                return Ok(look.messages);
            }
            let mut nap = left.min(POLL);
            if let Some(at) = look.next_visible {
                let due = at - self.db.clock.now().timestamp_millis();
                nap = nap.min(Duration::from_millis(due.max(0).unsigned_abs()));
            }
            tokio::select! {
                () = woken => {}
                () = tokio::time::sleep(nap) => {}
            }
        }
    }

    async fn delete(&self, receipt: &str) -> Result<(), QueueError> {
        let id = message_id(receipt)?.to_string();
        let (queue, receipt) = (self.name.clone(), receipt.to_string());
        let deleted = self
            .run(false, move |conn, _| {
                write_one(
                    conn,
                    "DELETE FROM queue_messages WHERE id = ?1 AND queue = ?2 AND receipt = ?3",
                    params![id, queue, receipt],
                )
            })
            .await?;
        if deleted == 0 {
            return Err(QueueError::Invalid(
                "unknown receipt, or the message was received again since".into(),
            ));
        }
        Ok(())
    }

    async fn change_visibility(&self, receipt: &str, timeout: Duration) -> Result<(), QueueError> {
        let id = message_id(receipt)?.to_string();
        let (queue, receipt) = (self.name.clone(), receipt.to_string());
        let changed = self
            .run(false, move |conn, now| {
                write_one(
                    conn,
                    "UPDATE queue_messages SET visible_at = ?4
                     WHERE id = ?1 AND queue = ?2 AND receipt = ?3 AND visible_at > ?5",
                    params![id, queue, receipt, now.saturating_add(millis(timeout)), now],
                )
            })
            .await?;
        if changed == 0 {
            return Err(QueueError::Invalid(
                "unknown or expired receipt (the message is no longer in flight)".into(),
            ));
        }
        if timeout.is_zero() {
            self.wake.notify_waiters();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::ports::clock::{ManualClock, SystemClock};
    use crate::ports::queue::MAX_DELAY;
    use crate::ports::queue_contract::{self, Fixture};

    const SETTINGS: QueueSettings = QueueSettings {
        visibility_timeout: Duration::from_secs(360),
        max_receives: 5,
    };

    /// Longer than any check takes: a `receive` returns when its message comes.
    const LONG_WAIT: Duration = Duration::from_secs(10);

    fn manual_clock() -> Arc<ManualClock> {
        Arc::new(ManualClock::new(chrono::Utc::now()))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn embedded_queue_passes_the_queue_contract() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let settings = QueueSettings {
            visibility_timeout: queue_contract::VISIBILITY_TIMEOUT,
            max_receives: queue_contract::MAX_RECEIVES,
        };
        let made = AtomicUsize::new(0);
        queue_contract::run(|| {
            let name = format!("contract-{}", made.fetch_add(1, Ordering::Relaxed));
            let queue = SqliteQueue::open(&path, &name, settings, Arc::new(SystemClock)).unwrap();
            let dead_letters = Arc::new(queue.dead_letters().unwrap());
            std::future::ready(Fixture {
                queue: Arc::new(queue),
                dead_letters,
            })
        })
        .await;
    }

    #[tokio::test]
    async fn delay_and_visibility_follow_the_clock_port() {
        let dir = tempfile::tempdir().unwrap();
        let clock = manual_clock();
        let q =
            SqliteQueue::open(&dir.path().join("svc.db"), "jobs", SETTINGS, clock.clone()).unwrap();
        q.send("late", MAX_DELAY).await.unwrap();
        clock.advance(chrono::Duration::minutes(15) - chrono::Duration::milliseconds(1));
        assert!(q.receive(1, Duration::ZERO).await.unwrap().is_empty());
        clock.advance(chrono::Duration::milliseconds(1));
        let first = q.receive(1, Duration::ZERO).await.unwrap().remove(0);
        clock.advance(chrono::Duration::seconds(359));
        assert!(q.receive(1, Duration::ZERO).await.unwrap().is_empty());
        clock.advance(chrono::Duration::seconds(1));
        let again = q.receive(1, Duration::ZERO).await.unwrap().remove(0);
        assert_eq!((again.id, again.receive_count), (first.id, 2));
        let expired = q.change_visibility(&first.receipt, Duration::ZERO).await;
        assert!(matches!(expired, Err(QueueError::Invalid(_))));
    }

    #[tokio::test]
    async fn a_wait_is_real_time_and_notices_the_clock_move() {
        let dir = tempfile::tempdir().unwrap();
        let clock = manual_clock();
        let q = Arc::new(
            SqliteQueue::open(&dir.path().join("svc.db"), "jobs", SETTINGS, clock.clone()).unwrap(),
        );
        q.send("in an hour", MAX_DELAY).await.unwrap();
        let started = Instant::now();
        assert!(
            q.receive(1, Duration::from_millis(300))
                .await
                .unwrap()
                .is_empty()
        );
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(2));

        let waiting = tokio::spawn({
            let q = q.clone();
            async move { q.receive(1, LONG_WAIT).await.unwrap() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        clock.advance(chrono::Duration::hours(1));
        let moved = Instant::now();
        assert_eq!(waiting.await.unwrap()[0].body, "in an hour");
        assert!(moved.elapsed() < POLL * 3, "{:?}", moved.elapsed());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_send_in_this_process_wakes_a_waiting_receive_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let sender =
            SqliteQueue::open(&path, "deliveries", SETTINGS, Arc::new(SystemClock)).unwrap();
        let receiver = Arc::new(
            SqliteQueue::open(&path, "deliveries", SETTINGS, Arc::new(SystemClock)).unwrap(),
        );
        let mut latencies = Vec::new();
        for _ in 0..20 {
            let waiting = tokio::spawn({
                let receiver = receiver.clone();
                async move {
                    let m = receiver.receive(1, LONG_WAIT).await.unwrap();
                    receiver.delete(&m[0].receipt).await.unwrap();
                    Instant::now()
                }
            });
            tokio::time::sleep(Duration::from_millis(20)).await;
            let sent = Instant::now();
            sender.send("{}", Duration::ZERO).await.unwrap();
            latencies.push(waiting.await.unwrap().saturating_duration_since(sent));
        }
        latencies.sort();
        let median = latencies[latencies.len() / 2];
        assert!(
            median < POLL / 4,
            "median wake-up {median:?} of {latencies:?}"
        );
    }

    #[tokio::test]
    async fn messages_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let clock = manual_clock();
        let in_flight = {
            let q = SqliteQueue::open(&path, "jobs", SETTINGS, clock.clone()).unwrap();
            q.send("waiting", Duration::ZERO).await.unwrap();
            q.send("leased", Duration::ZERO).await.unwrap();
            q.receive(1, Duration::ZERO).await.unwrap().remove(0)
        };
        let q = SqliteQueue::open(&path, "jobs", SETTINGS, clock.clone()).unwrap();
        let waiting = q.receive(10, Duration::ZERO).await.unwrap();
        assert_eq!(waiting.len(), 1);
        assert_ne!(waiting[0].id, in_flight.id);
        clock.advance(chrono::Duration::seconds(360));
        let back = q.receive(10, Duration::ZERO).await.unwrap();
        assert_eq!(
            (back[0].id.as_str(), back[0].receive_count),
            (in_flight.id.as_str(), 2)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_receivers_on_several_handles_share_the_messages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let open = || SqliteQueue::open(&path, "jobs", SETTINGS, Arc::new(SystemClock)).unwrap();
        let sender = open();
        for i in 0..60 {
            sender.send(&i.to_string(), Duration::ZERO).await.unwrap();
        }
        let receivers = (0..4).map(|_| {
            let q = open();
            tokio::spawn(async move {
                let mut bodies = Vec::new();
                loop {
                    let batch = q.receive(3, Duration::ZERO).await.unwrap();
                    if batch.is_empty() {
                        return bodies;
                    }
                    for m in batch {
                        q.delete(&m.receipt).await.unwrap();
                        bodies.push(m.body);
                    }
                }
            })
        });
        let mut all: Vec<u32> = Vec::new();
        for r in receivers.collect::<Vec<_>>() {
            all.extend(r.await.unwrap().iter().map(|b| b.parse::<u32>().unwrap()));
        }
        all.sort();
        assert_eq!(all, (0..60).collect::<Vec<_>>(), "each message once");
    }
}
