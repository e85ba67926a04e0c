//! Embedded adapters: everything in one process and local files.

pub mod aeat_simulator;
pub mod delivery_worker;
pub mod dispatcher;
pub mod feed;
pub mod file_blobs;
pub mod job_worker;
pub mod local_secrets;
pub mod processes;
pub mod queue_worker;
pub mod scheduler;
pub mod sqlite_queue;
pub mod sqlite_table;
pub mod tesseract;
pub mod verifactu_worker;

pub use file_blobs::FileBlobs;
pub use local_secrets::{LocalSecrets, SecretsKey};
pub use sqlite_queue::{QueueSettings, SqliteQueue};
pub use sqlite_table::SqliteTable;
