//! Invoices: issue, read, list, cancel, rectify and status changes, each a use
//! case that returns the invoice and the writes of its one transaction; and
//! sending by email (`send`), whose provider call sits between its writes.

pub mod error;
pub mod issue;
pub mod lifecycle;
pub mod record;
pub mod rectify;
pub mod request;
pub mod send;
pub mod send_record;
pub mod store;
pub mod test_options;
