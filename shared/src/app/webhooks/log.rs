//! The delivery log of a webhook: every attempt, newest first, 30 days.

use super::WebhookError;
use super::manage::record;
use super::store::{self, Attempt};
use crate::app::keys::Caller;
use crate::ports::Ports;

/// Attempts of the caller's webhook `id`, newest first, after the attempt
/// `starting_after`; and whether more follow.
pub async fn attempts(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<Attempt>, bool), WebhookError> {
    let webhook = record(ports, caller, id).await?;
    store::attempts_page(ports, &webhook.id, limit, starting_after).await
}
