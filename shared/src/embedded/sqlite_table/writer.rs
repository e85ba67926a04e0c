//! Group commit: one thread writes this process's transactions. It takes
//! every transaction queued while it was busy and commits them as one SQLite
//! transaction (one that fails before writing fails alone: `run`), so one
//! sync covers the whole batch. A batch of bookkeeping writes only
//! commits with `synchronous=NORMAL`, without a sync of its own.
//!
//! The writer is woken by a durable transaction, or by bookkeeping when it
//! sleeps; it then waits until its oldest bookkeeping is `BOOKKEEPING_WAIT`
//! old, unless a durable transaction comes. A request's rate-window hit and
//! idempotency lease thus wake it once, not twice, before its invoice.
//! Between batches, point reads borrow its connection (`Inner::read`): its
//! page cache outlives its own commits, while a reading connection's starts
//! empty after each of them.
//! A request served alone (`crate::http::serving`) commits its durable
//! transaction on its own thread, with what is queued before it, while the
//! writer idles (`Shared::claim`): two thread wake-ups fewer per request.
//! Only then: with other requests in flight, their transactions would wait
//! for that commit instead of joining it, and the request's runtime thread
//! would be held by a sync. The transaction begins only if no other process
//! holds the write lock, so that thread never waits for one.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tokio::sync::{oneshot, watch};

use super::pending::Pending;
use super::{BUSY_TIMEOUT, unavailable};
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
    pub connection: Mutex<WriterConnection>,
    pub queue: Queue,
    pub pending: Arc<Pending>,
    pub clock: Arc<dyn Clock>,
    /// The sequence of the last feed record this process committed.
    pub commits: watch::Sender<i64>,
    /// Each batch committed.
    #[cfg(test)]
    pub batches: std::sync::Mutex<Vec<Batch>>,
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
    while let Some(jobs) = shared.queue.next_batch() {
        #[cfg(test)]
        shared.taken.store(
            jobs.last().map_or(0, |job| job.seq),
            std::sync::atomic::Ordering::SeqCst,
        );
        let mut conn = shared.connection();
        let durable = jobs.iter().any(|job| job.durable);
        let began = conn.begin(durable);
        shared.commit(conn, began, jobs);
    }
}

impl Shared {
    fn connection(&self) -> MutexGuard<'_, WriterConnection> {
        self.connection.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Begins the durable `job`'s batch, with what is queued before it, on
    /// the caller's thread when the writer idles and the write lock is free;
    /// otherwise gives `job` back, to be queued. A lone request's transaction
    /// is then not handed to the writer thread and back: two thread wake-ups
    /// of a commit's time. The queue stays locked until the transaction has
    /// begun, so whatever is ordered next commits after it.
    pub fn claim(&self, job: Job) -> Result<Claimed<'_>, Job> {
        let mut state = self.queue.state();
        if state.closed
            || state.writer == Writer::Working
            || state.durable > 0
            || state.jobs.len() >= MAX_BATCH
        {
            return Err(job);
        }
        let mut conn = self.connection();
        if conn.begin_at_once().is_err() {
            return Err(job);
        }
        let mut jobs: Vec<Job> = state.jobs.drain(..).collect();
        jobs.push(job);
        Ok(Claimed {
            shared: self,
            conn,
            jobs,
        })
    }

    /// Runs `jobs` in the transaction `began` on `conn` and commits it, then
    /// answers them once `conn` is free for point reads again.
    fn commit(
        &self,
        mut conn: MutexGuard<'_, WriterConnection>,
        began: Result<(), TableError>,
        jobs: Vec<Job>,
    ) {
        let last = jobs.last().map_or(0, |job| job.seq);
        #[cfg(test)]
        let (durable, here) = (
            jobs.iter().any(|job| job.durable),
            std::thread::current().name() != Some("sqlite-writer"),
        );
        let (replies, works): (Vec<_>, Vec<_>) =
            jobs.into_iter().map(|job| (job.reply, job.work)).unzip();
        let outcome = began.and_then(|()| conn.run(works, self.clock.now().timestamp()));
        drop(conn);
        if let Some(seq) = outcome
            .iter()
            .flatten()
            .filter_map(|r| r.as_ref().ok()?.fed)
            .max()
        {
            self.commits.send_replace(seq);
        }
        #[cfg(test)]
        if outcome.is_ok() {
            let mut batches = self.batches.lock().unwrap();
            batches.push(Batch {
                transactions: replies.len(),
                durable,
                here,
            });
        }
        self.pending.settle(last);
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

/// A batch begun on the thread that ordered its last transaction
/// (`Shared::claim`).
pub(super) struct Claimed<'a> {
    shared: &'a Shared,
    conn: MutexGuard<'a, WriterConnection>,
    jobs: Vec<Job>,
}

impl Claimed<'_> {
    /// Commits the batch and answers its transactions, on this thread.
    pub fn commit(self) {
        self.shared.commit(self.conn, Ok(()), self.jobs);
    }
}

/// The writer's connection, and whether its commits are synced.
pub(super) struct WriterConnection {
    pub conn: Connection,
    synced: bool,
}

impl WriterConnection {
    /// `conn` opened by `open_connection`, whose commits are synced.
    pub fn new(conn: Connection) -> Self {
        WriterConnection { conn, synced: true }
    }

    /// Begins a batch's transaction, whose commit is synced when `durable`.
    fn begin(&mut self, durable: bool) -> Result<(), TableError> {
        // A batch that panicked (on a request's thread) left its
        // transaction open.
        if !self.conn.is_autocommit() {
            self.conn.execute_batch("ROLLBACK").map_err(unavailable)?;
        }
        if durable != self.synced {
            let mode = if durable { "FULL" } else { "NORMAL" };
            self.conn
                .pragma_update(None, "synchronous", mode)
                .map_err(unavailable)?;
            self.synced = durable;
        }
        self.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(unavailable)
    }

    /// Begins a durable batch's transaction unless another process holds
    /// the write lock: the caller's thread does not wait for it.
    fn begin_at_once(&mut self) -> Result<(), TableError> {
        self.conn
            .busy_timeout(Duration::ZERO)
            .map_err(unavailable)?;
        let began = self.begin(true);
        self.conn.busy_timeout(BUSY_TIMEOUT).map_err(unavailable)?;
        began
    }

    /// Runs each work in the open transaction and commits it. A work that
    /// fails before writing (its conditions are checked first) is answered
    /// with its error alone; one that fails after writing, or ends the
    /// transaction, fails the batch, whose transaction is rolled back. So
    /// no work needs a savepoint, which would copy every page it writes.
    fn run(
        &mut self,
        works: Vec<Work>,
        now: i64,
    ) -> Result<Vec<Result<Applied, TableError>>, TableError> {
        let committed = self.each(works, now).and_then(|results| {
            self.conn.execute_batch("COMMIT").map_err(unavailable)?;
            Ok(results)
        });
        if committed.is_err() && !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        committed
    }

    fn each(
        &mut self,
        works: Vec<Work>,
        now: i64,
    ) -> Result<Vec<Result<Applied, TableError>>, TableError> {
        let mut results = Vec::with_capacity(works.len());
        for work in works {
            let before = self.conn.total_changes();
            let result = work(&self.conn, now);
            if let Err(e) = &result
                && (self.conn.total_changes() != before || self.conn.is_autocommit())
            {
                return Err(e.clone());
            }
            results.push(result);
        }
        Ok(results)
    }
}

/// A batch committed, as tests see it.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Batch {
    pub transactions: usize,
    pub durable: bool,
    /// Committed on the thread that ordered it (`Shared::claim`).
    pub here: bool,
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
