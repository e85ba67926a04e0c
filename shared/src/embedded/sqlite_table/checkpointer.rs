//! Checkpoints on a thread of their own, so that no commit waits for one.
//!
//! A checkpoint copies the write-ahead log into the database file; once the
//! whole log is copied, the next commit writes the log again from its start,
//! over pages already on disk, which syncs faster than a growing file.
//! SQLite runs it inside the commit that fills the log, so every thousandth
//! page or so a request waited for several milliseconds of copying. Here the
//! writer's commits only wake the checkpointer, which copies without
//! blocking the writer or any reader (`PASSIVE`), again until the log is
//! all copied. Should it fall behind, the writer copies the log itself.

use std::ffi::c_int;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use rusqlite::hooks::Wal;
use rusqlite::wal::CheckpointMode;
use rusqlite::{Connection, MAIN_DB};

use super::{open_connection, unavailable};
use crate::ports::table::TableError;

/// The log is copied once it holds this many pages (16 MiB of 4 KiB pages).
/// Each round of copying costs syncs of the log and of the file whatever
/// its length, and copies a page written by many commits once: at SQLite's
/// default of 1,000 pages, sequential issuing had the checkpointer sync
/// about 0.8 times and copy about 11 pages per issue; at 4,000, about 0.1
/// times and 5 pages.
const PAGES: c_int = 4000;
/// Past this many times `PAGES` the writer copies the log itself.
const BACKSTOP: c_int = 8;
/// Copies in a row while commits keep adding to the log.
const PASSES: usize = 8;

/// Starts the checkpointer of the file at `path` and hands `writer` the hook
/// that wakes it; it stops when the writer's connection closes.
pub(super) fn start(path: &Path, writer: &mut Connection) -> Result<(), TableError> {
    start_at(path, writer, PAGES)
}

/// `start`, with the checkpointer woken once the log holds `pages`.
fn start_at(path: &Path, writer: &mut Connection, pages: c_int) -> Result<(), TableError> {
    let conn = open_connection(path)?;
    let (wake, woken) = sync_channel(1);
    std::thread::Builder::new()
        .name("sqlite-checkpointer".into())
        .spawn(move || run(&conn, &woken))
        .map_err(unavailable)?;
    hook(writer, wake, pages)
}

/// Has every commit of `writer` wake the checkpointer (`wake`) once the log
/// holds `pages`, or copy the log itself once it is longer than the backstop.
fn hook(writer: &mut Connection, wake: SyncSender<()>, pages: c_int) -> Result<(), TableError> {
    writer
        .wal_hook(Some(move |wal: &mut Wal, logged: c_int| {
            // What the hook returns is what the commit answers, and the
            // commit has happened: a checkpoint that cannot run now (the
            // checkpointer holds it) is left for the next commit.
            if logged >= BACKSTOP * pages {
                let _ = wal.checkpoint();
            } else if logged >= pages {
                let _ = wake.try_send(());
            }
            Ok(())
        }))
        .map_err(unavailable)
}

fn run(conn: &Connection, woken: &Receiver<()>) {
    while woken.recv().is_ok() {
        for _ in 0..PASSES {
            match conn.wal_checkpoint_v2(Some(MAIN_DB), CheckpointMode::PASSIVE) {
                Ok((log, copied)) if copied < log => continue,
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "a checkpoint failed; the writer copies the log once it grows");
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: u64 = 4096;
    /// The tests' log length, shorter than `PAGES` to write less.
    const LOG: c_int = 1000;

    fn log_pages(path: &Path) -> u64 {
        let wal = path.with_extension("db-wal");
        std::fs::metadata(wal).map_or(0, |m| m.len() / (PAGE + 24))
    }

    /// Commits `pages` pages of new rows, a hundred per commit.
    fn fill(conn: &Connection, pages: u64) {
        let row = "x".repeat(PAGE as usize - 200);
        for _ in 0..pages / 100 {
            conn.execute_batch("BEGIN").unwrap();
            for _ in 0..100 {
                conn.execute("INSERT INTO t (v) VALUES (?1)", [&row])
                    .unwrap();
            }
            conn.execute_batch("COMMIT").unwrap();
        }
    }

    fn writer(path: &Path) -> Connection {
        let conn = open_connection(path).unwrap();
        conn.pragma_update(None, "synchronous", "OFF").unwrap();
        conn.execute_batch("CREATE TABLE t (v TEXT)").unwrap();
        conn
    }

    #[test]
    fn the_checkpointer_keeps_the_log_near_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let mut conn = writer(&path);
        start_at(&path, &mut conn, LOG).unwrap();
        for _ in 0..6 {
            fill(&conn, LOG as u64);
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let pages = log_pages(&path);
        assert!(pages < 3 * LOG as u64, "{pages} pages in the log");
    }

    #[test]
    fn without_a_checkpointer_the_writer_copies_the_log_past_the_backstop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let mut conn = writer(&path);
        let (wake, woken) = sync_channel(1);
        drop(woken);
        hook(&mut conn, wake, LOG).unwrap();
        fill(&conn, 3 * (BACKSTOP * LOG) as u64);
        let pages = log_pages(&path);
        assert!(
            pages < (BACKSTOP * LOG) as u64 + 200,
            "{pages} pages in the log"
        );
    }
}
