//! Pure domain types: no I/O, no clock reads.

pub mod account;
pub mod api_key;
pub mod idempotency_key;
pub mod lang;
pub mod madrid;
pub mod one_time_secret;
pub mod person;
