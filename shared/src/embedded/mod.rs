//! Embedded adapters: everything in one process and local files.

pub mod job_worker;
pub mod sqlite_table;
pub mod tesseract;

pub use sqlite_table::SqliteTable;
