//! Group commit: one thread writes this process's transactions. It takes
//! every transaction queued while it was busy and commits them as one SQLite
//! transaction, each in its own savepoint (a failed one rolls back alone), so
//! one sync covers the whole batch. A batch of bookkeeping writes only
//! commits with `synchronous=NORMAL`, without a sync of its own.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use rusqlite::{Connection, TransactionBehavior};
use tokio::sync::{oneshot, watch};

use super::pending::Pending;
use super::unavailable;
use crate::ports::clock::Clock;
use crate::ports::table::{Item, TableError};

/// More waiting transactions than this go into the next batch.
const MAX_BATCH: usize = 512;
/// How long a batch of bookkeeping writes waits for more work to commit
/// with. Nobody waits for such a commit (bookkeeping is answered once
/// ordered), and the durable transaction a request orders soon after its
/// rate-window hit and idempotency lease rewrites the same pages: one commit
/// instead of three writes each page once.
const BOOKKEEPING_WAIT: Duration = Duration::from_millis(2);

/// What a transaction did: the item its last write stored, the feed sequence
/// it appended last, and the rows a statement changed.
#[derive(Default)]
pub(in crate::embedded) struct Applied {
    pub stored: Option<Item>,
    pub fed: Option<i64>,
    pub rows: usize,
}

pub(in crate::embedded) type Work =
    Box<dyn FnOnce(&Connection, i64) -> Result<Applied, TableError> + Send>;

pub(super) struct Job {
    /// The transaction's sequence (`Pending`).
    pub seq: u64,
    /// Whether its commit must be synced.
    pub durable: bool,
    pub work: Work,
    pub reply: oneshot::Sender<Result<Applied, TableError>>,
}

/// What the writer thread shares with the table.
pub(super) struct Shared {
    pub pending: Arc<Pending>,
    pub clock: Arc<dyn Clock>,
    /// The sequence of the last feed record this process committed.
    pub commits: watch::Sender<i64>,
    /// Each batch committed: its transactions, and whether it was synced.
    #[cfg(test)]
    pub batches: std::sync::Mutex<Vec<(usize, bool)>>,
    /// The sequence of the last transaction the writer took.
    #[cfg(test)]
    pub taken: std::sync::atomic::AtomicU64,
}

/// Starts the writer on `conn`; it stops when every sender is dropped.
pub(super) fn start(conn: Connection, shared: Arc<Shared>) -> Result<Sender<Job>, TableError> {
    let (jobs, queue) = channel();
    std::thread::Builder::new()
        .name("sqlite-writer".into())
        .spawn(move || run(conn, queue, &shared))
        .map_err(unavailable)?;
    Ok(jobs)
}

/// The writer's end of its queue. However the writer stops, the queue
/// closes first, so that no transaction can be queued any more, and then
/// every transaction ordered is settled: no read waits for a commit that will
/// never come, and no write ordered meanwhile stays pending.
struct Queue<'a> {
    jobs: Option<Receiver<Job>>,
    pending: &'a Pending,
}

impl Drop for Queue<'_> {
    fn drop(&mut self) {
        drop(self.jobs.take());
        self.pending.settle(u64::MAX);
    }
}

fn run(mut conn: Connection, jobs: Receiver<Job>, shared: &Shared) {
    let guard = Queue {
        jobs: Some(jobs),
        pending: &shared.pending,
    };
    let Some(queue) = &guard.jobs else { return };
    let mut synced = true;
    while let Ok(first) = queue.recv() {
        let batch = gather(first, queue);
        let last = batch.last().map_or(0, |job| job.seq);
        #[cfg(test)]
        shared
            .taken
            .store(last, std::sync::atomic::Ordering::SeqCst);
        let durable = batch.iter().any(|job| job.durable);
        let (replies, works): (Vec<_>, Vec<_>) =
            batch.into_iter().map(|job| (job.reply, job.work)).unzip();
        let outcome = sync_commits(&conn, durable, &mut synced)
            .and_then(|()| commit(&mut conn, works, shared.clock.now().timestamp()));
        if let Some(seq) = outcome
            .iter()
            .flatten()
            .filter_map(|r| r.as_ref().ok()?.fed)
            .max()
        {
            shared.commits.send_replace(seq);
        }
        #[cfg(test)]
        if outcome.is_ok() {
            let mut batches = shared.batches.lock().unwrap();
            batches.push((replies.len(), durable));
        }
        shared.pending.settle(last);
        match outcome {
            Ok(results) => {
                for (reply, result) in replies.into_iter().zip(results) {
                    let _ = reply.send(result);
                }
            }
            Err(e) => {
                for reply in replies {
                    let _ = reply.send(Err(e.clone()));
                }
            }
        }
    }
}

/// The transactions of the next batch, from `first`: every one queued, and
/// when they are all bookkeeping, those queued within `BOOKKEEPING_WAIT`,
/// until a durable one comes.
fn gather(first: Job, queue: &Receiver<Job>) -> Vec<Job> {
    let mut batch = vec![first];
    batch.extend(queue.try_iter().take(MAX_BATCH - 1));
    let mut durable = batch.iter().any(|job| job.durable);
    let until = Instant::now() + BOOKKEEPING_WAIT;
    while !durable && batch.len() < MAX_BATCH {
        match queue.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(job) => {
                durable = job.durable;
                batch.push(job);
            }
            Err(_) => break,
        }
    }
    batch
}

/// Sets whether commits are synced, when it changes.
fn sync_commits(conn: &Connection, durable: bool, synced: &mut bool) -> Result<(), TableError> {
    if durable != *synced {
        let mode = if durable { "FULL" } else { "NORMAL" };
        conn.pragma_update(None, "synchronous", mode)
            .map_err(unavailable)?;
        *synced = durable;
    }
    Ok(())
}

/// Runs each work in its own savepoint of one transaction and commits it: a
/// work that fails is rolled back alone and answered with its error.
fn commit(
    conn: &mut Connection,
    works: Vec<Work>,
    now: i64,
) -> Result<Vec<Result<Applied, TableError>>, TableError> {
    let mut tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(unavailable)?;
    let mut results = Vec::with_capacity(works.len());
    for work in works {
        let savepoint = tx.savepoint().map_err(unavailable)?;
        let result = work(&savepoint, now);
        if result.is_ok() {
            savepoint.commit().map_err(unavailable)?;
        }
        results.push(result);
    }
    tx.commit().map_err(unavailable)?;
    Ok(results)
}
