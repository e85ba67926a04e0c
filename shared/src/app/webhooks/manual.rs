//! Sends an account asks for: a test event now, and a manual retry of a
//! delivery now. The HTTP call happens in the request; what it leaves (the
//! attempt, the delivery's state, the webhook's health) is returned as writes
//! for the request's unit of work. Like scheduled attempts, these count for
//! the webhook's health: a success clears `failing_since`, a `410 Gone`
//! disables the webhook.

use serde_json::json;

use super::manage::{record, space};
use super::store::{self, Attempt, Delivery, Status, Trigger};
use super::{WebhookError, send};
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::table::{Condition, UpdateOp, Write};
use crate::webhooks::event_type::EventType;
use crate::webhooks::health::Verdict;

/// Sends a `webhook.test` event to the webhook now (enabled or not; not
/// retried) and returns the attempt, which also shows in its delivery log.
pub async fn test(
    ports: &Ports,
    caller: &Caller,
    id: &str,
) -> Result<(Attempt, Vec<Write>), WebhookError> {
    let webhook = record(ports, caller, id).await?;
    let now = ports.clock.now();
    let event_id = crate::ids::new_ordered_id("evt", now);
    let created_at = store::stamp(now);
    let body = json!({
        "id": event_id,
        "type": EventType::WebhookTest,
        "created_at": created_at,
        "livemode": caller.mode.is_live(),
        "data": {
            "webhook_id": webhook.id,
            "message": "A test event sent by POST /api/v1/webhooks/{id}/test.",
        },
    });
    let delivery = Delivery {
        id: crate::ids::new_id("dlv"),
        webhook_id: webhook.id.clone(),
        space: space(caller),
        event_id,
        event_type: EventType::WebhookTest,
        body: body.to_string(),
        test: true,
        status: Status::Pending,
        attempts: 1,
        next_attempt_at: now,
        lease_until: None,
        created_at: now,
        version: 1,
    };
    let outcome = send::post(ports, &webhook, &delivery).await;
    let at = ports.clock.now();
    let attempt = send::attempt(&webhook, &delivery, Trigger::Test, Some(1), at, &outcome);
    let verdict = Verdict::of(outcome.status);
    let delivery = Delivery {
        status: match verdict {
            Verdict::Delivered => Status::Succeeded,
            _ => Status::Failed,
        },
        ..delivery
    };
    let mut writes = vec![
        store::put_delivery(&delivery, None),
        store::put_attempt(&attempt),
    ];
    writes.extend(send::judged(&webhook, verdict, at).1);
    Ok((attempt, writes))
}

/// Sends the delivery's event again now. A success finishes a delivery still
/// pending or failed; a failure leaves its schedule as it was.
pub async fn retry(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    delivery_id: &str,
) -> Result<(Attempt, Vec<Write>), WebhookError> {
    let webhook = record(ports, caller, id).await?;
    let delivery = store::get_delivery(ports, &webhook.id, delivery_id)
        .await?
        .ok_or_else(|| {
            WebhookError::NotFound(format!("no delivery {delivery_id} of webhook {id}"))
        })?;
    let outcome = send::post(ports, &webhook, &delivery).await;
    let at = ports.clock.now();
    let attempt = send::attempt(&webhook, &delivery, Trigger::Manual, None, at, &outcome);
    let verdict = Verdict::of(outcome.status);
    let mut writes = vec![store::put_attempt(&attempt)];
    if verdict == Verdict::Delivered && delivery.status != Status::Succeeded {
        let done = Delivery {
            status: Status::Succeeded,
            lease_until: None,
            version: delivery.version + 1,
            ..delivery.clone()
        };
        writes.push(store::put_delivery(&done, Some(delivery.version)));
        let event = store::event_key(&delivery.space, &delivery.event_id);
        if !delivery.test && ports.table.get(&event).await?.is_some() {
            writes.push(Write::Update {
                key: event,
                ops: vec![UpdateOp::add("delivered", 1)],
                condition: Some(Condition::Present),
            });
        }
    }
    writes.extend(send::judged(&webhook, verdict, at).1);
    Ok((attempt, writes))
}
