//! VERI*FACTU submission: the records of each chain sent to the AEAT (test
//! records to the simulator), their answers stored with an event each, the
//! correction of a record the AEAT rejected or accepted with errors, and
//! asking the AEAT which records it holds.

pub mod certificates;
pub mod compare;
pub mod query;
pub mod queue;
pub mod reason;
pub mod resubmit;
pub mod sent_records;
pub mod submit;

pub use reason::with_pending_reason;
pub use submit::{Backlog, Outcome, backlog, submit_chain, submit_pending};
