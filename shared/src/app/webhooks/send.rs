//! One signed POST of a delivery's envelope, and what it leaves behind: the
//! attempt record and the webhook's new health.

use chrono::{DateTime, Utc};

use super::sealing;
use super::store::{self, Attempt, Delivery, Record, Trigger};
use crate::ports::Ports;
use crate::ports::secrets::SecretsError;
use crate::ports::table::Write;
use crate::ports::webhook_sender::Outcome;
use crate::webhooks::health::Verdict;
use crate::webhooks::secret::Secret;
use crate::webhooks::{signature, url};

/// Signs `delivery.body` with the webhook's current secrets and POSTs it.
/// The stored URL is checked again (rules, port and addresses) on every send.
pub async fn post(ports: &Ports, hook: &Record, delivery: &Delivery) -> Outcome {
    let started = std::time::Instant::now();
    let target = match url::parse(&hook.url, hook.space.mode, ports.sender.ports()) {
        Ok(target) => target,
        Err(e) => return Outcome::failed(format!("not sent: {e}"), started.elapsed()),
    };
    let now = ports.clock.now();
    let secrets = match signing_secrets(ports, hook, now).await {
        Ok(secrets) => secrets,
        Err(e) => {
            tracing::error!(webhook = %hook.id, error = %e, "signing secret not opened");
            return Outcome::failed(
                "not sent: the signing secret cannot be opened on this host".into(),
                started.elapsed(),
            );
        }
    };
    let signing: Vec<&str> = secrets.iter().map(Secret::expose).collect();
    let body = delivery.body.as_bytes();
    let headers = [
        ("content-type", "application/json".to_string()),
        (
            "svc-signature",
            signature::header(body, &signing, now.timestamp()),
        ),
        ("svc-event", delivery.event_type.code().to_string()),
        ("svc-event-id", delivery.event_id.clone()),
    ];
    ports.sender.post(&target, &headers, body).await
}

/// The secrets that sign at `now`, opened: the current one, then the
/// rotated-out one while it still signs.
async fn signing_secrets(
    ports: &Ports,
    hook: &Record,
    now: DateTime<Utc>,
) -> Result<Vec<Secret>, SecretsError> {
    let mut secrets = vec![sealing::open(ports, &hook.space, &hook.id, &hook.secret).await?];
    if let Some((old, until)) = &hook.previous
        && *until > now
    {
        secrets.push(sealing::open(ports, &hook.space, &hook.id, old).await?);
    }
    Ok(secrets)
}

/// The record of an attempt that ended at `at`.
pub fn attempt(
    hook: &Record,
    delivery: &Delivery,
    trigger: Trigger,
    number: Option<u32>,
    at: DateTime<Utc>,
    outcome: &Outcome,
) -> Attempt {
    Attempt {
        id: crate::ids::new_ordered_id("att", at),
        object: "webhook_attempt".into(),
        webhook_id: hook.id.clone(),
        delivery_id: delivery.id.clone(),
        event_id: delivery.event_id.clone(),
        event_type: delivery.event_type,
        trigger,
        attempt: number,
        created_at: at,
        status_code: outcome.status,
        duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        response_body: outcome.body.clone(),
        error: outcome.error.clone(),
        succeeded: Verdict::of(outcome.status) == Verdict::Delivered,
        livemode: hook.space.mode.is_live(),
    }
}

/// The webhook after an attempt's verdict, and the write that stores it
/// (conditional on the version read) when its health changed.
pub fn judged(hook: &Record, verdict: Verdict, at: DateTime<Utc>) -> (Record, Option<Write>) {
    let health = hook.health.after(verdict, at);
    if health == hook.health {
        return (hook.clone(), None);
    }
    let updated = Record {
        health,
        version: hook.version + 1,
        ..hook.clone()
    };
    let write = store::put_webhook(&updated, Some(hook.version));
    (updated, Some(write))
}
