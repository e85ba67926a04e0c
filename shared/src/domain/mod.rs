//! Pure domain types: no I/O, no clock reads.

pub mod account;
pub mod api_key;
pub mod idempotency_key;
pub mod madrid;
