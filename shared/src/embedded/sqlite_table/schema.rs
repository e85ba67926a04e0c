//! The layout of the items table, and its migration from older files.
//!
//! Version 1 keeps each item in a row of an ordinary table, found through
//! the index of its key (pk, sk). Version 0 kept the items in the key's own
//! B-tree (`WITHOUT ROWID`), where the tree's pages compare whole rows: an
//! item larger than about a quarter of a page (an invoice, a chain record,
//! a stored response) spilled to overflow pages, and every search that
//! passed it read them again, page by page.

use rusqlite::{Connection, TransactionBehavior};

use super::unavailable;
use crate::embedded::feed;
use crate::ports::table::TableError;

/// The version a file's `user_version` holds once migrated.
const VERSION: i64 = 1;

const ITEMS: &str = "CREATE TABLE items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    ttl INTEGER,
    attrs TEXT NOT NULL,
    PRIMARY KEY (pk, sk)
)";

fn version(conn: &Connection) -> Result<i64, TableError> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(unavailable)
}

/// Creates the tables of a new file, or moves an older file's items into
/// the current layout; in one transaction, so a process that opens the
/// file at the same time waits and then finds it done. A current file is
/// only read: opening it does not wait for another process's writes.
pub(super) fn create_or_migrate(conn: &mut Connection) -> Result<(), TableError> {
    if version(conn)? >= VERSION {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(unavailable)?;
    if version(&tx)? < VERSION {
        let tables: i64 = tx
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'items'",
                [],
                |r| r.get(0),
            )
            .map_err(unavailable)?;
        let migration = match tables {
            0 => ITEMS.to_string(),
            _ => format!(
                "ALTER TABLE items RENAME TO items_v0;
                 {ITEMS};
                 INSERT INTO items (pk, sk, ttl, attrs) SELECT pk, sk, ttl, attrs FROM items_v0;
                 DROP TABLE items_v0;"
            ),
        };
        tx.execute_batch(&migration).map_err(unavailable)?;
        tx.execute_batch(feed::SCHEMA).map_err(unavailable)?;
        tx.pragma_update(None, "user_version", VERSION)
            .map_err(unavailable)?;
    }
    tx.commit().map_err(unavailable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedded::sqlite_table::open_connection;

    const VERSION_0: &str = "CREATE TABLE items (
        pk TEXT NOT NULL, sk TEXT NOT NULL, ttl INTEGER, attrs TEXT NOT NULL,
        PRIMARY KEY (pk, sk)
    ) WITHOUT ROWID";

    fn layout(conn: &Connection) -> (i64, String) {
        let version = version(conn).unwrap();
        let sql = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'items'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (version, sql)
    }

    fn rows(conn: &Connection) -> Vec<(String, Option<i64>, String)> {
        let mut rows = conn
            .prepare("SELECT sk, ttl, attrs FROM items ORDER BY sk")
            .unwrap();
        rows.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_version_0_file_keeps_every_item_in_the_new_layout_and_a_second_open_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        let mut conn = open_connection(&path).unwrap();
        conn.execute_batch(VERSION_0).unwrap();
        let big = "x".repeat(10_000);
        for (sk, ttl, attrs) in [
            ("a", None, r#"{"v":{"N":"1"}}"#.to_string()),
            ("b", Some(7), format!(r#"{{"v":{{"S":"{big}"}}}}"#)),
        ] {
            conn.execute(
                "INSERT INTO items (pk, sk, ttl, attrs) VALUES ('p', ?1, ?2, ?3)",
                rusqlite::params![sk, ttl, attrs],
            )
            .unwrap();
        }
        let before = rows(&conn);

        create_or_migrate(&mut conn).unwrap();
        let (version, sql) = layout(&conn);
        assert_eq!(version, VERSION);
        assert!(!sql.contains("WITHOUT ROWID"), "{sql}");
        assert_eq!(rows(&conn), before);

        create_or_migrate(&mut conn).unwrap();
        assert_eq!(layout(&conn), (version, sql));
        assert_eq!(rows(&conn), before);
    }

    #[test]
    fn a_current_file_opens_while_another_process_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.db");
        create_or_migrate(&mut open_connection(&path).unwrap()).unwrap();
        let writing = open_connection(&path).unwrap();
        writing.execute_batch("BEGIN IMMEDIATE").unwrap();
        let mut opening = open_connection(&path).unwrap();
        opening.busy_timeout(std::time::Duration::ZERO).unwrap();
        create_or_migrate(&mut opening).expect("no wait for the write lock");
        writing.execute_batch("COMMIT").unwrap();
    }

    #[test]
    fn a_new_file_starts_in_the_current_layout() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open_connection(&dir.path().join("svc.db")).unwrap();
        create_or_migrate(&mut conn).unwrap();
        let (version, sql) = layout(&conn);
        assert_eq!(version, VERSION);
        assert!(!sql.contains("WITHOUT ROWID"), "{sql}");
    }
}
