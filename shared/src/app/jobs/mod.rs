//! Async jobs: an extraction or an analysis requested in async mode. The
//! request is checked and charged at once; its body is staged in `Blobs`
//! and a job item (`queued`) is committed with the charge; the dispatcher
//! sends `{"job_id"}` on the jobs queue; a worker (`work`) runs the same use
//! case as the synchronous request and ends the job `succeeded` with the
//! result or `failed` with an error, with its event, in one transaction.
//! Jobs are read for 24 h after they end.

mod finish;
mod item;
mod lease;
mod model;
mod read;
mod resource;
mod run;
mod store;
mod submit;
mod work;

pub use lease::{LEASE, MAX_ATTEMPTS};
pub use model::{Job, JobError, Kind, RETENTION, Status, UNFINISHED_RETENTION};
pub use read::get;
pub use resource::JobResource;
pub use submit::submit;
pub use work::work;
