//! Webhooks, the pure part: event types and subscriptions, the signature
//! (and `verify` for Rust receivers), secrets, the retry schedule, endpoint
//! health, and the URL, port and address rules against SSRF. The use cases are in
//! `crate::app::webhooks`; the HTTP sender is a port.

pub mod address;
pub mod event_type;
pub mod health;
pub mod port;
pub mod schedule;
pub mod secret;
pub mod signature;
pub mod url;

pub use signature::{DEFAULT_TOLERANCE, VerifyError, verify};
