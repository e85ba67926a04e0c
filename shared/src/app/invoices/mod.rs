//! Invoices: issue, read, list, cancel, rectify and status changes, each a use
//! case that returns the invoice and the writes of its one transaction; and
//! sending by email (`send`), whose provider call sits between its writes;
//! and verifying the caller's VERI*FACTU chain (`verify_chain`).

pub mod due_index;
pub mod error;
pub mod form;
pub mod issue;
pub mod lifecycle;
pub mod overdue;
pub mod payments;
pub mod record;
pub mod rectify;
pub mod replace;
pub mod request;
pub mod schedule;
pub mod send;
pub mod send_feedback;
pub mod send_record;
pub mod store;
pub mod test_options;
pub mod verify_chain;
