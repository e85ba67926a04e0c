//! Group commit: one thread writes this process's transactions. It takes
//! every transaction queued while it was busy and commits them as one SQLite
//! transaction, each in its own savepoint (a failed one rolls back alone), so
//! one sync covers the whole batch. A batch of bookkeeping writes only
//! commits with `synchronous=NORMAL`, without a sync of its own.
//!
//! The writer is woken by a durable transaction, or by bookkeeping when it
//! sleeps; it then waits until its oldest bookkeeping is `BOOKKEEPING_WAIT`
//! old, unless a durable transaction comes. A request's rate-window hit and
//! idempotency lease thus wake it once, not twice, before its invoice.
//! Between batches, point reads borrow its connection (`Inner::read`): its
//! page cache outlives its own commits, while a reading connection's starts
//! empty after each of them.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
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
    /// When it was ordered.
    pub ordered: Instant,
    /// Whether its commit must be synced.
    pub durable: bool,
    pub work: Work,
    pub reply: oneshot::Sender<Result<Applied, TableError>>,
}

/// What the writer thread shares with the table.
pub(super) struct Shared {
    /// The writer's connection, held for each batch.
    pub connection: Mutex<Connection>,
    pub queue: Queue,
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

/// The transactions ordered and not yet taken by the writer, in sequence
/// order.
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    /// How many of `jobs` are durable.
    durable: usize,
    /// No transaction can be queued any more.
    closed: bool,
    writer: Writer,
}

/// What the writer is doing.
#[derive(Default, PartialEq)]
enum Writer {
    /// Waiting for a transaction.
    #[default]
    Asleep,
    /// Waiting until its oldest bookkeeping is `BOOKKEEPING_WAIT` old, or a
    /// durable transaction comes.
    Gathering,
    /// Committing; it takes what is queued next without being woken.
    Working,
}

impl Queue {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `job`, or gives it back once the queue is closed.
    pub fn push(&self, job: Job) -> Result<(), Job> {
        let mut state = self.state();
        if state.closed {
            return Err(job);
        }
        let wake = match state.writer {
            Writer::Asleep => true,
            Writer::Gathering => job.durable,
            Writer::Working => false,
        };
        state.durable += usize::from(job.durable);
        state.jobs.push_back(job);
        drop(state);
        if wake {
            self.wake.notify_one();
        }
        Ok(())
    }

    /// Closes the queue once the table is dropped: the writer commits what
    /// is queued and stops.
    pub fn finish(&self) {
        self.state().closed = true;
        self.wake.notify_one();
    }

    /// The next batch: every transaction queued (up to `MAX_BATCH`), once
    /// one is durable, the queue is full or closed, or the oldest is
    /// `BOOKKEEPING_WAIT` old. None once the queue is closed and empty.
    fn next_batch(&self) -> Option<Vec<Job>> {
        let mut state = self.state();
        loop {
            let Some(oldest) = state.jobs.front() else {
                if state.closed {
                    return None;
                }
                state.writer = Writer::Asleep;
                state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let due = oldest.ordered + BOOKKEEPING_WAIT;
            let now = Instant::now();
            if state.durable > 0 || state.jobs.len() >= MAX_BATCH || state.closed || due <= now {
                state.writer = Writer::Working;
                let n = state.jobs.len().min(MAX_BATCH);
                let batch: Vec<Job> = state.jobs.drain(..n).collect();
                state.durable -= batch.iter().filter(|job| job.durable).count();
                return Some(batch);
            }
            state.writer = Writer::Gathering;
            state = self
                .wake
                .wait_timeout(state, due - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Closes the queue and drops what it holds: their transactions answer
    /// that the writer stopped.
    fn close(&self) {
        let mut state = self.state();
        state.closed = true;
        state.jobs.clear();
        state.durable = 0;
    }
}

/// Starts the writer on `shared.connection`; it stops once the queue is
/// finished.
pub(super) fn start(shared: Arc<Shared>) -> Result<(), TableError> {
    std::thread::Builder::new()
        .name("sqlite-writer".into())
        .spawn(move || run(&shared))
        .map_err(unavailable)?;
    Ok(())
}

/// However the writer stops, the queue closes first, so that no transaction
/// can be queued any more, and then every transaction ordered is settled: no
/// read waits for a commit that will never come, and no write ordered
/// meanwhile stays pending.
struct Stopping<'a>(&'a Shared);

impl Drop for Stopping<'_> {
    fn drop(&mut self) {
        self.0.queue.close();
        self.0.pending.settle(u64::MAX);
    }
}

fn run(shared: &Shared) {
    let _stopping = Stopping(shared);
    let mut synced = true;
    while let Some(batch) = shared.queue.next_batch() {
        let last = batch.last().map_or(0, |job| job.seq);
        #[cfg(test)]
        shared
            .taken
            .store(last, std::sync::atomic::Ordering::SeqCst);
        let durable = batch.iter().any(|job| job.durable);
        let (replies, works): (Vec<_>, Vec<_>) =
            batch.into_iter().map(|job| (job.reply, job.work)).unzip();
        let outcome = {
            let mut conn = shared.connection.lock().unwrap_or_else(|e| e.into_inner());
            sync_commits(&conn, durable, &mut synced)
                .and_then(|()| commit(&mut conn, works, shared.clock.now().timestamp()))
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn job(seq: u64, durable: bool, ordered: Instant) -> Job {
        Job {
            seq,
            ordered,
            durable,
            work: Box::new(|_, _| Ok(Applied::default())),
            reply: oneshot::channel().0,
        }
    }

    fn seqs(batch: Option<Vec<Job>>) -> Option<Vec<u64>> {
        batch.map(|jobs| jobs.iter().map(|job| job.seq).collect())
    }

    #[test]
    fn a_durable_transaction_takes_the_bookkeeping_queued_before_it_at_once() {
        let queue = Queue::default();
        let now = Instant::now();
        for (seq, durable) in [(1, false), (2, false), (3, true), (4, false)] {
            assert!(queue.push(job(seq, durable, now)).is_ok());
        }
        assert_eq!(seqs(queue.next_batch()), Some(vec![1, 2, 3, 4]));
    }

    #[test]
    fn bookkeeping_is_taken_once_its_oldest_has_waited() {
        let queue = Queue::default();
        let now = Instant::now();
        assert!(queue.push(job(1, false, now - BOOKKEEPING_WAIT)).is_ok());
        assert!(queue.push(job(2, false, now)).is_ok());
        assert_eq!(seqs(queue.next_batch()), Some(vec![1, 2]));
    }

    #[test]
    fn a_batch_holds_at_most_max_batch_transactions() {
        let queue = Queue::default();
        let now = Instant::now();
        for seq in 1..=MAX_BATCH as u64 + 1 {
            assert!(queue.push(job(seq, true, now)).is_ok());
        }
        assert_eq!(queue.next_batch().map(|b| b.len()), Some(MAX_BATCH));
        assert_eq!(seqs(queue.next_batch()), Some(vec![MAX_BATCH as u64 + 1]));
    }

    #[test]
    fn a_finished_queue_refuses_transactions_and_gives_what_it_holds_then_ends() {
        let queue = Queue::default();
        let now = Instant::now();
        assert!(queue.push(job(1, false, now)).is_ok());
        queue.finish();
        assert!(queue.push(job(2, true, now)).is_err());
        assert_eq!(seqs(queue.next_batch()), Some(vec![1]), "without waiting");
        assert_eq!(seqs(queue.next_batch()), None);
    }
}
