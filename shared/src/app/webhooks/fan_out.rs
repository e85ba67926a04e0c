//! From an event to its deliveries: one per enabled webhook of the event's
//! account and mode subscribed to its type, each announced on the deliveries
//! queue. Called by the dispatcher after the event's commit, at least once:
//! the delivery id is derived from (event id, webhook id), so dispatching an
//! event again creates nothing twice.

use std::collections::HashMap;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::WebhookError;
use super::deliver::DeliveryMessage;
use super::store::{self, Delivery, Record, Space, Status};
use crate::app::outbox::Event;
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, UpdateOp};

/// The delivery of an event to a webhook: the same ids give the same id.
pub fn delivery_id(event_id: &str, webhook_id: &str) -> String {
    let digest = Sha256::digest(format!("{event_id}\n{webhook_id}").as_bytes());
    format!("dlv_{}", &hex::encode(digest)[..24])
}

/// The webhooks of each account and mode that a batch of events reaches,
/// each read once per batch (one read of the embedded feed, one event of
/// DynamoDB Streams): a batch of one account's events costs one query, not
/// one per event.
#[derive(Default)]
pub struct Subscribers {
    read: HashMap<Space, Vec<Record>>,
}

impl Subscribers {
    async fn of(&mut self, ports: &Ports, space: &Space) -> Result<&[Record], WebhookError> {
        if !self.read.contains_key(space) {
            let webhooks = store::all_webhooks(ports, space).await?;
            self.read.insert(space.clone(), webhooks);
        }
        Ok(&self.read[space])
    }
}

pub async fn fan_out(
    ports: &Ports,
    event: &Event,
    subscribers: &mut Subscribers,
) -> Result<(), WebhookError> {
    let space = Space {
        account_id: event.account_id.clone(),
        mode: event.mode(),
    };
    let targets: Vec<_> = subscribers
        .of(ports, &space)
        .await?
        .iter()
        .filter(|w| w.health.enabled && w.subscription.includes(event.kind))
        .collect();
    if targets.is_empty() {
        return Ok(());
    }
    let body = serde_json::to_string(&event.envelope()).expect("envelopes serialise");
    let now = ports.clock.now();
    for webhook in &targets {
        let delivery = Delivery {
            id: delivery_id(&event.id, &webhook.id),
            webhook_id: webhook.id.clone(),
            space: space.clone(),
            event_id: event.id.clone(),
            event_type: event.kind,
            body: body.clone(),
            test: false,
            status: Status::Pending,
            attempts: 0,
            next_attempt_at: now,
            lease_until: None,
            created_at: now,
            version: 1,
        };
        if announce(ports, &delivery).await? {
            let message = DeliveryMessage {
                webhook_id: webhook.id.clone(),
                delivery_id: delivery.id.clone(),
            };
            ports
                .deliveries
                .send(&message.to_json(), Duration::ZERO)
                .await?;
        }
    }
    let count = i64::try_from(targets.len()).unwrap_or(i64::MAX);
    match ports
        .table
        .update(
            &store::event_key(&space, &event.id),
            vec![UpdateOp::set("deliveries", count)],
            Some(Condition::Present),
        )
        .await
    {
        Ok(_) | Err(TableError::ConditionFailed { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Stores a new delivery; true when it needs its first message: it is new, or
/// a former dispatch stored it but may have died before sending the message.
async fn announce(ports: &Ports, delivery: &Delivery) -> Result<bool, WebhookError> {
    match ports
        .table
        .transact(vec![store::put_delivery(delivery, None)])
        .await
    {
        Ok(()) => Ok(true),
        Err(TableError::ConditionFailed { .. }) => {
            let stored = store::get_delivery(ports, &delivery.webhook_id, &delivery.id).await?;
            Ok(stored.is_some_and(|d| d.status == Status::Pending && d.attempts == 0))
        }
        Err(e) => Err(e.into()),
    }
}
