//! Embedded adapters: everything in one process and local files.

pub mod dispatcher;
pub mod feed;
pub mod scheduler;
pub mod sqlite_table;
pub mod tesseract;

pub use sqlite_table::SqliteTable;
