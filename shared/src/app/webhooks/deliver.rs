//! One deliveries-queue message, handled at least once and acted on once:
//! a finished delivery is acked without work; a message that comes before the
//! delivery's next attempt is sent again for the time left (at most 15 min at
//! a time, SQS's longest delay); otherwise the worker takes a lease on the
//! delivery (a conditional write on its `version`), makes one attempt,
//! records it, judges the webhook's health and either ends the delivery or
//! schedules the next attempt by sending the message again with a delay.
//! The next message is sent after the commit: if that send fails, the error
//! leaves the received message in the queue, and its next arrival finds the
//! attempt not due and schedules it then.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::WebhookError;
use super::send;
use super::store::{self, Delivery, Status, Trigger};
use crate::metrics::{self, Metric};
use crate::ports::Ports;
use crate::ports::queue::MAX_DELAY;
use crate::ports::table::{Condition, TableError, UpdateOp, Write};
use crate::webhooks::health::Verdict;
use crate::webhooks::schedule;

/// How long an attempt may hold its delivery: a send's 10 s and bookkeeping,
/// well below the deliveries queue's visibility timeout (180 s), so that the
/// message of a worker that died mid-attempt finds the lease over when it
/// comes back.
const LEASE: chrono::Duration = chrono::Duration::seconds(30);
/// Rounds of read-modify-write of the webhook's health before giving up.
const HEALTH_ROUNDS: usize = 5;

/// The body of a deliveries-queue message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryMessage {
    pub webhook_id: String,
    pub delivery_id: String,
}

impl DeliveryMessage {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("messages serialise")
    }
}

/// A uniform number in [0, 1) for the schedule's jitter.
fn random_fraction() -> f64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the operating system RNG is unavailable");
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

/// Handles one message body. Ok: delete the message. Err: leave it; it comes
/// back after the queue's visibility timeout (and goes to the dead-letter
/// queue after the queue's receive limit).
pub async fn deliver(ports: &Ports, message: &str) -> Result<(), WebhookError> {
    let message: DeliveryMessage =
        serde_json::from_str(message).map_err(|e| WebhookError::Malformed(e.to_string()))?;
    let now = ports.clock.now();
    let Some(delivery) =
        store::get_delivery(ports, &message.webhook_id, &message.delivery_id).await?
    else {
        return Ok(());
    };
    if delivery.status != Status::Pending {
        return Ok(());
    }
    if delivery.next_attempt_at > now {
        return later(ports, &message, delivery.next_attempt_at, now).await;
    }
    if delivery.lease_until.is_some_and(|until| until > now) {
        return Err(WebhookError::Busy(delivery.id));
    }
    let leased = Delivery {
        lease_until: Some(now + LEASE),
        version: delivery.version + 1,
        ..delivery.clone()
    };
    match ports
        .table
        .transact(vec![store::put_delivery(&leased, Some(delivery.version))])
        .await
    {
        Ok(()) => {}
        Err(TableError::ConditionFailed { .. }) => return Err(WebhookError::Busy(delivery.id)),
        Err(e) => return Err(e.into()),
    }
    attempt(ports, &message, leased).await
}

async fn attempt(
    ports: &Ports,
    message: &DeliveryMessage,
    leased: Delivery,
) -> Result<(), WebhookError> {
    let webhook = store::get_webhook(ports, &leased.space, &leased.webhook_id)
        .await?
        .filter(|w| w.health.enabled);
    let Some(webhook) = webhook else {
        // Deleted or disabled since the event: the delivery ends unsent.
        let ended = Delivery {
            status: Status::Failed,
            lease_until: None,
            version: leased.version + 1,
            ..leased.clone()
        };
        return commit(ports, &ended, leased.version).await;
    };
    let number = leased.attempts + 1;
    let outcome = send::post(ports, &webhook, &leased).await;
    let at = ports.clock.now();
    let record = send::attempt(
        &webhook,
        &leased,
        Trigger::Scheduled,
        Some(number),
        at,
        &outcome,
    );
    ports
        .table
        .transact(vec![store::put_attempt(&record)])
        .await?;
    let verdict = Verdict::of(outcome.status);
    let enabled = judge(ports, &leased, verdict, at).await?;
    let (status, wait) = match verdict {
        Verdict::Delivered => (Status::Succeeded, None),
        _ if !enabled => (Status::Failed, None),
        _ => match schedule::delay_after(number, random_fraction()) {
            Some(wait) => (Status::Pending, Some(wait)),
            None => (Status::Failed, None),
        },
    };
    let next_attempt_at = match wait {
        Some(wait) => at + chrono::Duration::from_std(wait).expect("waits fit"),
        None => leased.next_attempt_at,
    };
    let done = Delivery {
        status,
        attempts: number,
        next_attempt_at,
        lease_until: None,
        version: leased.version + 1,
        ..leased.clone()
    };
    commit(ports, &done, leased.version).await?;
    if done.status == Status::Failed {
        metrics::emit(&[(Metric::DeliveriesFailed, 1.0)]);
    }
    match wait {
        Some(_) => later(ports, message, next_attempt_at, at).await,
        None => Ok(()),
    }
}

/// Applies the verdict to the webhook's health (again on fresh state when a
/// concurrent write won); whether the webhook is still enabled.
async fn judge(
    ports: &Ports,
    delivery: &Delivery,
    verdict: Verdict,
    at: DateTime<Utc>,
) -> Result<bool, WebhookError> {
    for _ in 0..HEALTH_ROUNDS {
        let Some(webhook) =
            store::get_webhook(ports, &delivery.space, &delivery.webhook_id).await?
        else {
            return Ok(false);
        };
        let (judged, write) = send::judged(&webhook, verdict, at);
        let Some(write) = write else {
            return Ok(judged.health.enabled);
        };
        match ports.table.transact(vec![write]).await {
            Ok(()) => {
                if !judged.health.enabled {
                    tracing::warn!(webhook = %judged.id, reason = judged.health.disabled_reason.as_deref().unwrap_or_default(), "webhook disabled");
                }
                return Ok(judged.health.enabled);
            }
            Err(TableError::ConditionFailed { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(TableError::Conflict.into())
}

/// Stores the delivery's new state if it is still the version this worker
/// leased; a success also counts on the event item (when it still exists).
/// A delivery changed meanwhile (a manual retry finished it) is left as is.
async fn commit(ports: &Ports, done: &Delivery, leased: i64) -> Result<(), WebhookError> {
    let mut writes = vec![store::put_delivery(done, Some(leased))];
    let event = store::event_key(&done.space, &done.event_id);
    if done.status == Status::Succeeded && !done.test {
        writes.push(Write::Update {
            key: event.clone(),
            ops: vec![UpdateOp::add("delivered", 1)],
            condition: Some(Condition::Present),
        });
    }
    loop {
        match ports.table.transact(writes.clone()).await {
            Ok(()) => return Ok(()),
            Err(TableError::ConditionFailed { key, .. }) if key == event => {
                writes.truncate(1);
            }
            Err(TableError::ConditionFailed { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Sends the message again to arrive when the attempt is due (or 15 min
/// sooner, to be sent again then). Delays are whole seconds, rounded up, so
/// the message never comes back just before it is due.
async fn later(
    ports: &Ports,
    message: &DeliveryMessage,
    due: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), WebhookError> {
    let left = (due - now).to_std().unwrap_or_default();
    let seconds = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    let delay = Duration::from_secs(seconds).min(MAX_DELAY);
    ports.deliveries.send(&message.to_json(), delay).await?;
    Ok(())
}
