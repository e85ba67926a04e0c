//! The in-process dispatcher of `svc serve`: reads the embedded feed after its
//! checkpoint and dispatches each record in order (`app::dispatch`). Woken at
//! once by this process's commits, and every `POLL` for other processes'
//! (e.g. an admin command on the same file). The checkpoint moves only past
//! dispatched records, so records committed by a process that died before
//! dispatching them are dispatched when a dispatcher starts again. A failed
//! dispatch is retried with a growing pause and never skipped; only an item
//! that can never dispatch (malformed) is logged and passed. Woken by a
//! commit, it waits `GATHER` before reading, so that the commits of a burst
//! are read and dispatched together.

use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep};

use super::feed::{Feed, Record};
use crate::app::dispatch::dispatch;
use crate::app::webhooks::Subscribers;
use crate::ports::Ports;

/// The dispatcher's checkpoint name in the feed.
pub const CHECKPOINT: &str = "dispatcher";
/// Records read at once.
const BATCH: usize = 100;
/// How often the feed is read without a wake-up from this process.
pub const POLL: Duration = Duration::from_millis(500);
/// How long a wake-up waits for more commits before the feed is read:
/// sequential requests commit about every millisecond, and each read of
/// the feed and of an account's webhooks costs about as much as one
/// record's dispatch.
const GATHER: Duration = Duration::from_millis(2);
const FIRST_PAUSE: Duration = Duration::from_millis(50);
const LONGEST_PAUSE: Duration = Duration::from_secs(5);
/// The checkpoint is saved at most this often: a restart dispatches again
/// what was dispatched since, which dispatch allows, and one write per
/// record would cost as much as the records.
const SAVE_EVERY: Duration = Duration::from_millis(200);
/// How often dispatched records are deleted from the feed.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Starts the dispatcher on the current tokio runtime; it runs until aborted.
pub fn spawn(ports: Ports, feed: Feed) -> JoinHandle<()> {
    tokio::spawn(run(ports, feed))
}

pub async fn run(ports: Ports, feed: Feed) {
    let mut commits = feed.commits();
    let mut done = retrying("read the dispatcher checkpoint", || {
        feed.checkpoint(CHECKPOINT)
    })
    .await;
    let mut saved = Saved {
        seq: done,
        at: Instant::now(),
    };
    let mut pruned = Instant::now();
    loop {
        if pruned.elapsed() >= PRUNE_EVERY {
            if let Err(e) = feed.prune().await {
                tracing::warn!(error = %e, "pruning the feed failed");
            }
            pruned = Instant::now();
        }
        commits.borrow_and_update();
        let records = retrying("read the feed", || feed.after(done, BATCH)).await;
        let mut subscribers = Subscribers::default();
        for record in &records {
            dispatch_record(&ports, record, &mut subscribers).await;
            done = record.seq;
        }
        if saved.seq < done && saved.at.elapsed() >= SAVE_EVERY {
            saved.save(&feed, done).await;
        }
        if records.len() == BATCH {
            continue;
        }
        // Caught up: wait for a commit of this process (one made since the
        // read wakes at once), the poll, or the time to save the checkpoint.
        let nap = if saved.seq < done {
            SAVE_EVERY.saturating_sub(saved.at.elapsed())
        } else {
            POLL
        };
        tokio::select! {
            _ = commits.changed() => sleep(GATHER).await,
            () = sleep(nap) => {}
        }
    }
}

/// The checkpoint last saved.
struct Saved {
    seq: i64,
    at: Instant,
}

impl Saved {
    /// Not saved (e.g. the disk is full): the records are dispatched again
    /// after a restart, which dispatch allows.
    async fn save(&mut self, feed: &Feed, done: i64) {
        match feed.save_checkpoint(CHECKPOINT, done).await {
            Ok(()) => {
                *self = Saved {
                    seq: done,
                    at: Instant::now(),
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, seq = done, "saving the dispatcher checkpoint failed")
            }
        }
    }
}

/// A failed dispatch is retried with the webhooks read again.
async fn dispatch_record(ports: &Ports, record: &Record, subscribers: &mut Subscribers) {
    let mut pause = FIRST_PAUSE;
    loop {
        match dispatch(ports, &record.item, subscribers).await {
            Ok(()) => return,
            Err(e) if e.is_transient() => {
                tracing::warn!(error = %e, seq = record.seq, key = crate::redact::short_hash(&record.item.key.to_string()), "dispatch failed; retrying");
            }
            Err(e) => {
                tracing::error!(error = %e, seq = record.seq, key = crate::redact::short_hash(&record.item.key.to_string()), "item cannot be dispatched; passed");
                return;
            }
        }
        *subscribers = Subscribers::default();
        sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// Runs `op` until it succeeds, pausing longer after each failure.
async fn retrying<T, E, F, Fut>(what: &str, mut op: F) -> T
where
    E: std::fmt::Display,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut pause = FIRST_PAUSE;
    loop {
        match op().await {
            Ok(value) => return value,
            Err(e) => tracing::warn!(error = %e, "could not {what}; retrying"),
        }
        sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::embedded::SqliteTable;
    use crate::ports::Table;
    use crate::ports::clock::SystemClock;
    use crate::ports::recording_queue::RecordingQueue;
    use crate::ports::table::{Item, Key};

    /// One "process": a handle on the file and ports whose jobs queue records.
    fn process(path: &Path) -> (Arc<SqliteTable>, Ports, Arc<RecordingQueue>) {
        let clock = Arc::new(SystemClock);
        let table = Arc::new(SqliteTable::open(path, clock.clone()).unwrap());
        let jobs = Arc::new(RecordingQueue::default());
        let ports = crate::adapters::ports(table.clone(), clock)
            .with_queues(jobs.clone(), Arc::new(RecordingQueue::default()));
        (table, ports, jobs)
    }

    async fn create_job(table: &SqliteTable, id: &str) {
        let item = Item::new(Key::new(format!("JOB#{id}"), "JOB")).with("entity", "job");
        table.put(item, None).await.unwrap();
    }

    fn message(id: &str) -> String {
        format!(r#"{{"job_id":"{id}"}}"#)
    }

    /// Waits (up to 10 s) until `queue` holds `n` messages and returns them.
    async fn sent(queue: &RecordingQueue, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while queue.sent().len() < n && Instant::now() < deadline {
            sleep(Duration::from_millis(5)).await;
        }
        queue.sent()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_commit_wakes_the_dispatcher_without_waiting_for_the_poll() {
        let dir = tempfile::tempdir().unwrap();
        let (table, ports, jobs) = process(&dir.path().join("svc.db"));
        let dispatcher = spawn(ports, table.feed());
        sleep(POLL + Duration::from_millis(50)).await;
        let started = Instant::now();
        create_job(&table, "job_1").await;
        assert_eq!(sent(&jobs, 1).await, [message("job_1")]);
        assert!(started.elapsed() < POLL, "{:?}", started.elapsed());
        dispatcher.abort();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn what_a_dead_process_committed_is_dispatched_on_restart_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let (table, ports, jobs) = process(&path);
        jobs.refuse(usize::MAX);
        let dispatcher = spawn(ports, table.feed());
        create_job(&table, "job_1").await;
        create_job(&table, "job_2").await;
        sleep(Duration::from_millis(200)).await;
        dispatcher.abort();
        assert!(dispatcher.await.unwrap_err().is_cancelled());
        drop(table);

        let (table, ports, jobs) = process(&path);
        let dispatcher = spawn(ports, table.feed());
        assert_eq!(sent(&jobs, 2).await, [message("job_1"), message("job_2")]);
        let feed = table.feed();
        let last = feed.after(0, 10).await.unwrap().last().unwrap().seq;
        let deadline = Instant::now() + Duration::from_secs(10);
        while feed.checkpoint(CHECKPOINT).await.unwrap() < last && Instant::now() < deadline {
            sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(feed.checkpoint(CHECKPOINT).await.unwrap(), last);
        dispatcher.abort();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn failed_dispatches_are_retried_and_never_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let (table, ports, jobs) = process(&dir.path().join("svc.db"));
        jobs.refuse(3);
        let dispatcher = spawn(ports, table.feed());
        create_job(&table, "job_1").await;
        create_job(&table, "job_2").await;
        assert_eq!(sent(&jobs, 2).await, [message("job_1"), message("job_2")]);
        dispatcher.abort();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn another_process_commits_are_dispatched_by_the_poll() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let (table, ports, jobs) = process(&path);
        let dispatcher = spawn(ports, table.feed());
        let (admin, _, _) = process(&path);
        create_job(&admin, "job_1").await;
        assert_eq!(sent(&jobs, 1).await, [message("job_1")]);
        dispatcher.abort();
    }
}
