//! Embedded adapters: everything in one process and local files. The SQLite
//! engine (table, queues, feed and its dispatcher) is the `embedded` feature.

pub mod aeat_simulator;
pub mod delivery_worker;
#[cfg(feature = "embedded")]
pub mod dispatcher;
#[cfg(feature = "embedded")]
pub mod feed;
pub mod file_blobs;
pub mod job_worker;
pub mod local_secrets;
pub mod presigned_put;
pub mod processes;
pub mod queue_worker;
pub mod scheduler;
#[cfg(feature = "embedded")]
pub mod sqlite_queue;
#[cfg(feature = "embedded")]
pub mod sqlite_table;
pub mod tesseract;
pub mod verifactu_worker;

pub use file_blobs::FileBlobs;
pub use local_secrets::LocalSecrets;
#[cfg(feature = "embedded")]
pub use sqlite_queue::{QueueSettings, SqliteQueue};
#[cfg(feature = "embedded")]
pub use sqlite_table::SqliteTable;
