//! Webhooks: registration and management, fan-out of events to deliveries,
//! the delivery of one queue message with its retries, test sends, manual
//! retries and the delivery log.
//!
//! Items (one table; `space` = `<account_id>#<live|test>`):
//! - webhook: pk `WEBHOOKS#<space>`, sk `we_…` (its secrets, sealed: see
//!   `sealing`; subscription,
//!   health and a `version` for optimistic updates);
//! - delivery of one event to one webhook: pk `WEBHOOK#<we_id>`, sk
//!   `DLV#<dlv_id>`, the id derived from (event id, webhook id); it keeps the
//!   envelope it sends, its status, attempt count, next attempt time and lease;
//! - attempt: pk `WEBHOOK#<we_id>`, sk `ATT#<att_id>` (time-ordered), one per
//!   HTTP try, kept 30 days like deliveries.
//!
//! Deliveries-queue messages carry ids only: `{"webhook_id", "delivery_id"}`.

mod deliver;
mod fan_out;
mod log;
mod manage;
mod manual;
mod sealing;
mod send;
mod store;

use crate::ports::queue::QueueError;
use crate::ports::secrets::SecretsError;
use crate::ports::table::TableError;

pub use deliver::deliver;
pub use fan_out::{Subscribers, fan_out};
pub use log::attempts;
pub use manage::{
    MAX_WEBHOOKS, Webhook, WebhookInput, WebhookPatch, create, delete, get, list, rotate_secret,
    update,
};
pub use manual::{retry, test};
pub use store::{Attempt, Trigger};

#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// A field of the request is invalid; `param` names it.
    #[error("{message}")]
    Invalid { param: String, message: String },
    /// The URL breaks the URL rules.
    #[error("{0}")]
    UrlInvalid(String),
    /// The URL points where webhooks may not go (SSRF guard).
    #[error("{0}")]
    UrlNotAllowed(String),
    #[error("an account has at most {MAX_WEBHOOKS} webhooks per mode")]
    TooMany,
    #[error("{0}")]
    NotFound(String),
    /// A deliveries-queue message that is not `{"webhook_id", "delivery_id"}`.
    #[error("unreadable delivery message: {0}")]
    Malformed(String),
    /// Another worker holds the delivery's lease: leave the message, it comes
    /// back after the queue's visibility timeout.
    #[error("another worker is delivering {0}")]
    Busy(String),
    /// The host has no key to seal signing secrets with (as for certificates).
    #[error(
        "webhooks need the key that seals their secrets: set SVC_SECRETS_KEY (`svc secrets-key` prints one) or, on AWS, SVC_KMS_WEBHOOK_KEY_ID"
    )]
    NoSealingKey,
    #[error("the signing secret cannot be sealed: {0}")]
    Sealing(SecretsError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Storage(#[from] TableError),
}
