//! The feed of the embedded engine, its stand-in for DynamoDB Streams: every
//! transaction that creates an item whose `entity` is "event" or "job" appends
//! it here in the same SQLite transaction, under an ever-growing sequence
//! number, so a record exists exactly when its item was committed. Readers
//! keep a named checkpoint in the same file; records every checkpoint has
//! passed can be pruned. This process's commits wake readers at once
//! (`commits`); another process's are seen by reading again.

use std::sync::Arc;

use rusqlite::{Connection, params};
use tokio::sync::watch;

use super::sqlite_table::{Access, Applied, Inner, Work, decode, unavailable};
use crate::ports::table::{Item, Key, TableError};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS feed (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    attrs TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS feed_checkpoints (
    name TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
) WITHOUT ROWID;
";

/// The `entity` values whose creation is fed (as the stream filter on AWS):
/// events, jobs, letters of the web application, and a VERI*FACTU chain's
/// first pending record, which goes to the submitter at once rather than at
/// the next sweep.
pub const FED_ENTITIES: [&str; 4] = ["event", "job", "mail", "verifactu_chain"];

pub(super) fn is_fed(item: &Item) -> bool {
    item.s("entity").is_some_and(|e| FED_ENTITIES.contains(&e))
}

/// Appends a created item, with its attributes `attrs` as stored, inside the
/// caller's transaction; returns its sequence.
pub(super) fn append(conn: &Connection, item: &Item, attrs: &str) -> Result<i64, TableError> {
    conn.prepare_cached("INSERT INTO feed (pk, sk, attrs) VALUES (?1, ?2, ?3)")
        .and_then(|mut append| append.execute(params![item.key.pk, item.key.sk, attrs]))
        .map_err(unavailable)?;
    Ok(conn.last_insert_rowid())
}

/// One created item, as it was committed.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub seq: i64,
    pub item: Item,
}

/// A handle on the feed of one database file (`SqliteTable::feed`).
#[derive(Clone)]
pub struct Feed {
    inner: Arc<Inner>,
}

impl Feed {
    pub(super) fn new(inner: Arc<Inner>) -> Self {
        Feed { inner }
    }

    /// Up to `limit` records with a sequence above `seq`, oldest first.
    pub async fn after(&self, seq: i64, limit: usize) -> Result<Vec<Record>, TableError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.inner.read(Access::Point, |conn, _| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT seq, pk, sk, attrs FROM feed WHERE seq > ?1 ORDER BY seq LIMIT ?2",
                )
                .map_err(unavailable)?;
            let rows = stmt
                .query_map(params![seq, limit], |r| {
                    let (pk, sk, attrs): (String, String, String) =
                        (r.get(1)?, r.get(2)?, r.get(3)?);
                    Ok((r.get::<_, i64>(0)?, pk, sk, attrs))
                })
                .map_err(unavailable)?;
            rows.map(|row| {
                let (seq, pk, sk, attrs) = row.map_err(unavailable)?;
                let item = decode(Key::new(pk, sk), &attrs)?;
                Ok(Record { seq, item })
            })
            .collect()
        })
    }

    /// The sequence the reader `name` has handled up to (0 for a new reader).
    pub async fn checkpoint(&self, name: &str) -> Result<i64, TableError> {
        self.inner.read(Access::Point, |conn, _| {
            conn.query_row(
                "SELECT COALESCE(MAX(seq), 0) FROM feed_checkpoints WHERE name = ?1",
                params![name],
                |r| r.get(0),
            )
            .map_err(unavailable)
        })
    }

    /// Records that the reader `name` has handled every record up to `seq`;
    /// a checkpoint never moves back. Not synced on its own: a checkpoint lost
    /// to a power cut only has records handled again, which readers allow.
    pub async fn save_checkpoint(&self, name: &str, seq: i64) -> Result<(), TableError> {
        let name = name.to_string();
        let save: Work = Box::new(move |conn, _| {
            conn.execute(
                "INSERT INTO feed_checkpoints (name, seq) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET seq = MAX(seq, excluded.seq)",
                params![name, seq],
            )
            .map_err(unavailable)?;
            Ok(Applied::default())
        });
        self.inner.write(false, save).await.map(|_| ())
    }

    /// Deletes the records every reader's checkpoint has passed; returns how many.
    pub async fn prune(&self) -> Result<usize, TableError> {
        let prune: Work = Box::new(|conn, _| {
            let rows = conn
                .execute(
                    "DELETE FROM feed WHERE seq <= (SELECT MIN(seq) FROM feed_checkpoints)",
                    [],
                )
                .map_err(unavailable)?;
            Ok(Applied {
                rows,
                ..Applied::default()
            })
        });
        Ok(self.inner.write(false, prune).await?.rows)
    }

    /// Changes after every commit of this process that appended to the feed
    /// (the value is the last sequence appended).
    pub fn commits(&self) -> watch::Receiver<i64> {
        self.inner.commits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_feed_carries_what_the_stream_filter_on_aws_passes() {
        let template = include_str!("../../../template.yaml");
        let filter = template
            .lines()
            .find(|l| l.contains(r#""NewImage": {"entity""#))
            .expect("the dispatcher's stream filter");
        let list = filter
            .split(r#""S": ["#)
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .expect("the filter's entity list");
        let mut listed: Vec<&str> = list
            .split(',')
            .map(|e| e.trim().trim_matches('"'))
            .collect();
        listed.sort_unstable();
        let mut fed = FED_ENTITIES.to_vec();
        fed.sort_unstable();
        assert_eq!(listed, fed);
    }
    use crate::embedded::SqliteTable;
    use crate::ports::Table;
    use crate::ports::clock::SystemClock;
    use crate::ports::table::{Condition, UpdateOp, Write};

    fn open(dir: &tempfile::TempDir) -> SqliteTable {
        SqliteTable::open(&dir.path().join("svc.db"), Arc::new(SystemClock)).unwrap()
    }

    fn entity(pk: &str, entity: &str) -> Item {
        Item::new(Key::new(pk, "s")).with("entity", entity)
    }

    fn keys(records: &[Record]) -> Vec<&str> {
        records.iter().map(|r| r.item.key.pk.as_str()).collect()
    }

    #[tokio::test]
    async fn only_created_event_and_job_items_are_fed_in_commit_order() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        let feed = table.feed();
        let mut commits = feed.commits();
        table.put(entity("e1", "event"), None).await.unwrap();
        assert!(commits.has_changed().unwrap());
        commits.borrow_and_update();
        table.put(entity("c1", "customer"), None).await.unwrap();
        assert!(!commits.has_changed().unwrap(), "nothing fed, nobody woken");
        table
            .transact(vec![
                Write::Put {
                    item: entity("j1", "job"),
                    condition: Some(Condition::Absent),
                },
                Write::Put {
                    item: entity("e2", "event"),
                    condition: None,
                },
            ])
            .await
            .unwrap();
        let changes = [UpdateOp::set("status", "running")];
        table
            .update(&Key::new("j1", "s"), changes.to_vec(), None)
            .await
            .unwrap();
        table.put(entity("e1", "event"), None).await.unwrap();
        table
            .update(
                &Key::new("j2", "s"),
                vec![UpdateOp::set("entity", "job")],
                None,
            )
            .await
            .unwrap();
        let failed = table
            .put(entity("e3", "event"), Some(Condition::Present))
            .await;
        assert!(failed.is_err());

        let records = feed.after(0, 100).await.unwrap();
        assert_eq!(keys(&records), ["e1", "j1", "e2", "j2"]);
        assert!(records.windows(2).all(|w| w[0].seq < w[1].seq));
        assert_eq!(*commits.borrow_and_update(), records[3].seq);
        assert_eq!(keys(&feed.after(records[1].seq, 1).await.unwrap()), ["e2"]);
    }

    #[tokio::test]
    async fn checkpoints_persist_never_move_back_and_bound_pruning() {
        let dir = tempfile::tempdir().unwrap();
        let table = open(&dir);
        for pk in ["e1", "e2", "e3"] {
            table.put(entity(pk, "event"), None).await.unwrap();
        }
        let feed = table.feed();
        assert_eq!(feed.prune().await.unwrap(), 0, "no reader yet");
        let seqs: Vec<i64> = feed
            .after(0, 10)
            .await
            .unwrap()
            .iter()
            .map(|r| r.seq)
            .collect();
        feed.save_checkpoint("a", seqs[1]).await.unwrap();
        feed.save_checkpoint("a", seqs[0]).await.unwrap();
        feed.save_checkpoint("b", seqs[0]).await.unwrap();
        assert_eq!(feed.prune().await.unwrap(), 1, "only what b has passed too");

        let reopened = open(&dir).feed();
        assert_eq!(reopened.checkpoint("a").await.unwrap(), seqs[1]);
        assert_eq!(reopened.checkpoint("new").await.unwrap(), 0);
        assert_eq!(keys(&reopened.after(0, 10).await.unwrap()), ["e2", "e3"]);
        reopened.save_checkpoint("b", seqs[2]).await.unwrap();
        assert_eq!(reopened.prune().await.unwrap(), 1);
        table.put(entity("e4", "event"), None).await.unwrap();
        let last = reopened.after(0, 10).await.unwrap();
        assert_eq!(keys(&last), ["e3", "e4"]);
        assert!(last[1].seq > seqs[2], "sequences are never reused");
    }

    #[tokio::test]
    async fn another_handle_on_the_file_sees_the_records_it_did_not_commit() {
        let dir = tempfile::tempdir().unwrap();
        let writer = open(&dir);
        let reader = open(&dir).feed();
        let commits = reader.commits();
        writer.put(entity("e1", "event"), None).await.unwrap();
        assert!(
            !commits.has_changed().unwrap(),
            "woken only by its own commits"
        );
        assert_eq!(keys(&reader.after(0, 10).await.unwrap()), ["e1"]);
    }
}
