//! How webhooks, deliveries and attempts are kept as items.

use std::fmt;

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::WebhookError;
use super::sealing::Stored;
use crate::domain::account::Mode;
use crate::ports::Ports;
use crate::ports::table::{
    Condition, Cursor, Item, Key, Query, SortKey, TTL, TableError, Value, Write,
};
use crate::webhooks::event_type::EventType;
use crate::webhooks::event_type::Subscription;
use crate::webhooks::health::Health;
use crate::webhooks::secret::Secret;

/// How long deliveries and attempts are kept (as events are).
pub const RETENTION: Duration = Duration::days(30);
/// How long a rotated-out secret keeps signing beside the new one.
pub const ROTATION_OVERLAP: Duration = Duration::hours(24);

/// An account and mode: where webhooks and events live.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Space {
    pub account_id: String,
    pub mode: Mode,
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.account_id, self.mode.as_str())
    }
}

impl Space {
    fn parse(text: &str) -> Option<Space> {
        let (account_id, mode) = text.rsplit_once('#')?;
        Some(Space {
            account_id: account_id.to_string(),
            mode: mode.parse().ok()?,
        })
    }
}

pub fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn unreadable(item: &Item, what: &str) -> WebhookError {
    WebhookError::Storage(TableError::Unavailable(format!(
        "unreadable {what} {}",
        item.key
    )))
}

fn time(item: &Item, name: &str) -> Option<DateTime<Utc>> {
    item.s(name).and_then(|s| s.parse().ok())
}

fn with_opt(item: Item, name: &str, value: Option<String>) -> Item {
    match value {
        Some(v) => item.with(name, v),
        None => item,
    }
}

fn flag(item: &Item, name: &str) -> bool {
    matches!(item.attrs.get(name), Some(Value::Bool(true)))
}

// ---- webhooks ----

/// A webhook as stored, secrets included: never shown or logged as is.
#[derive(Clone, Debug)]
pub struct Record {
    pub id: String,
    pub space: Space,
    pub url: String,
    pub subscription: Subscription,
    pub description: Option<String>,
    pub health: Health,
    /// Sealed (`secret_sealed`), or in clear (`secret`) in items written
    /// before sealing (see `super::sealing`).
    pub secret: Stored,
    /// The secret rotated out, and until when it still signs.
    pub previous: Option<(Stored, DateTime<Utc>)>,
    pub created_at: DateTime<Utc>,
    pub version: i64,
}

/// The attribute that holds a secret in the form it has.
fn secret_attr(
    stored: &Stored,
    sealed: &'static str,
    clear: &'static str,
) -> (&'static str, String) {
    match stored {
        Stored::Sealed(text) => (sealed, text.clone()),
        Stored::Clear(secret) => (clear, secret.expose().to_string()),
    }
}

/// The secret of whichever of the two attributes the item has.
fn stored_secret(item: &Item, sealed: &str, clear: &str) -> Option<Stored> {
    match (item.s(sealed), item.s(clear)) {
        (Some(text), _) => Some(Stored::Sealed(text.to_string())),
        (None, Some(text)) => Some(Stored::Clear(Secret::from_stored(text.to_string()))),
        (None, None) => None,
    }
}

pub fn webhook_key(space: &Space, id: &str) -> Key {
    Key::new(format!("WEBHOOKS#{space}"), id)
}

/// The write that stores `record` (its `version` already advanced) if the
/// stored one still has `expected` as version (None: if there is none).
pub fn put_webhook(record: &Record, expected: Option<i64>) -> Write {
    let (secret_name, secret) = secret_attr(&record.secret, "secret_sealed", "secret");
    let item = Item::new(webhook_key(&record.space, &record.id))
        .with("id", record.id.as_str())
        .with("url", record.url.as_str())
        .with("events", record.subscription.to_string())
        .with("enabled", record.health.enabled)
        .with(secret_name, secret)
        .with("created_at", stamp(record.created_at))
        .with("version", record.version);
    let item = with_opt(item, "description", record.description.clone());
    let item = with_opt(
        item,
        "disabled_reason",
        record.health.disabled_reason.clone(),
    );
    let item = with_opt(
        item,
        "failing_since",
        record.health.failing_since.map(stamp),
    );
    let item = match &record.previous {
        Some((stored, until)) => {
            let (name, secret) = secret_attr(stored, "previous_secret_sealed", "previous_secret");
            item.with(name, secret)
                .with("previous_secret_until", stamp(*until))
        }
        None => item,
    };
    Write::Put {
        item,
        condition: Some(match expected {
            Some(v) => Condition::equals("version", v),
            None => Condition::Absent,
        }),
    }
}

fn decode_webhook(item: &Item) -> Result<Record, WebhookError> {
    let space = Space::parse(item.key.pk.strip_prefix("WEBHOOKS#").unwrap_or_default());
    let previous = match (
        stored_secret(item, "previous_secret_sealed", "previous_secret"),
        time(item, "previous_secret_until"),
    ) {
        (Some(stored), Some(until)) => Some((stored, until)),
        _ => None,
    };
    Ok(Record {
        id: item.key.sk.clone(),
        space: space.ok_or_else(|| unreadable(item, "webhook"))?,
        url: item.s("url").unwrap_or_default().to_string(),
        subscription: item
            .s("events")
            .unwrap_or_default()
            .parse()
            .map_err(|_| unreadable(item, "webhook"))?,
        description: item.s("description").map(str::to_string),
        health: Health {
            enabled: flag(item, "enabled"),
            disabled_reason: item.s("disabled_reason").map(str::to_string),
            failing_since: time(item, "failing_since"),
        },
        secret: stored_secret(item, "secret_sealed", "secret")
            .ok_or_else(|| unreadable(item, "webhook"))?,
        previous,
        created_at: time(item, "created_at").ok_or_else(|| unreadable(item, "webhook"))?,
        version: item.n("version").unwrap_or_default(),
    })
}

pub async fn get_webhook(
    ports: &Ports,
    space: &Space,
    id: &str,
) -> Result<Option<Record>, WebhookError> {
    match ports.table.get(&webhook_key(space, id)).await? {
        Some(item) => decode_webhook(&item).map(Some),
        None => Ok(None),
    }
}

/// Webhooks of a space, newest first: `limit` of them after `starting_after`,
/// and whether more follow.
pub async fn webhooks_page(
    ports: &Ports,
    space: &Space,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<Record>, bool), WebhookError> {
    let query = Query::new(format!("WEBHOOKS#{space}"), SortKey::All)
        .backward()
        .after(starting_after.map(Cursor::from_token));
    let (items, has_more) = newest(ports, query, limit).await?;
    let records = items.iter().map(decode_webhook).collect::<Result<_, _>>()?;
    Ok((records, has_more))
}

/// Every webhook of a space.
pub async fn all_webhooks(ports: &Ports, space: &Space) -> Result<Vec<Record>, WebhookError> {
    let mut query = Query::new(format!("WEBHOOKS#{space}"), SortKey::All);
    let mut records = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            records.push(decode_webhook(item)?);
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(records),
        }
    }
}

/// Up to `limit` live items of a query, following its pages (expired items
/// leave pages short), and whether more follow.
async fn newest(
    ports: &Ports,
    mut query: Query,
    limit: usize,
) -> Result<(Vec<Item>, bool), WebhookError> {
    let mut items = Vec::new();
    loop {
        let page = ports
            .table
            .query(&query.clone().limit(limit + 1 - items.len()))
            .await?;
        items.extend(page.items);
        match page.next {
            Some(next) if items.len() <= limit => query = query.after(Some(next)),
            _ => break,
        }
    }
    let has_more = items.len() > limit;
    items.truncate(limit);
    Ok((items, has_more))
}

// ---- deliveries ----

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pending,
    Succeeded,
    Failed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Succeeded => "succeeded",
            Status::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Option<Status> {
        [Status::Pending, Status::Succeeded, Status::Failed]
            .into_iter()
            .find(|v| v.as_str() == s)
    }
}

/// One event to one webhook.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub id: String,
    pub webhook_id: String,
    pub space: Space,
    pub event_id: String,
    pub event_type: EventType,
    /// The envelope sent, the same bytes on every attempt.
    pub body: String,
    /// A test send's delivery: there is no event item behind it.
    pub test: bool,
    pub status: Status,
    /// Scheduled attempts made so far.
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    pub lease_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub version: i64,
}

pub fn delivery_key(webhook_id: &str, delivery_id: &str) -> Key {
    Key::new(
        format!("WEBHOOK#{webhook_id}"),
        format!("DLV#{delivery_id}"),
    )
}

/// The write that stores `d` (its `version` already advanced) if the stored
/// one still has `expected` as version (None: if there is none).
pub fn put_delivery(d: &Delivery, expected: Option<i64>) -> Write {
    let item = Item::new(delivery_key(&d.webhook_id, &d.id))
        .with("id", d.id.as_str())
        .with("webhook_id", d.webhook_id.as_str())
        .with("space", d.space.to_string())
        .with("event_id", d.event_id.as_str())
        .with("event_type", d.event_type.code())
        .with("body", d.body.as_str())
        .with("test", d.test)
        .with("status", d.status.as_str())
        .with("attempts", i64::from(d.attempts))
        .with("next_attempt_at", stamp(d.next_attempt_at))
        .with("created_at", stamp(d.created_at))
        .with("version", d.version)
        .with(TTL, (d.created_at + RETENTION).timestamp());
    let item = with_opt(item, "lease_until", d.lease_until.map(stamp));
    Write::Put {
        item,
        condition: Some(match expected {
            Some(v) => Condition::equals("version", v),
            None => Condition::Absent,
        }),
    }
}

fn decode_delivery(item: &Item) -> Result<Delivery, WebhookError> {
    let bad = || unreadable(item, "delivery");
    Ok(Delivery {
        id: item.s("id").ok_or_else(bad)?.to_string(),
        webhook_id: item.s("webhook_id").ok_or_else(bad)?.to_string(),
        space: item.s("space").and_then(Space::parse).ok_or_else(bad)?,
        event_id: item.s("event_id").ok_or_else(bad)?.to_string(),
        event_type: item
            .s("event_type")
            .and_then(EventType::parse)
            .ok_or_else(bad)?,
        body: item.s("body").ok_or_else(bad)?.to_string(),
        test: flag(item, "test"),
        status: item.s("status").and_then(Status::parse).ok_or_else(bad)?,
        attempts: u32::try_from(item.n("attempts").unwrap_or_default()).map_err(|_| bad())?,
        next_attempt_at: time(item, "next_attempt_at").ok_or_else(bad)?,
        lease_until: time(item, "lease_until"),
        created_at: time(item, "created_at").ok_or_else(bad)?,
        version: item.n("version").unwrap_or_default(),
    })
}

pub async fn get_delivery(
    ports: &Ports,
    webhook_id: &str,
    delivery_id: &str,
) -> Result<Option<Delivery>, WebhookError> {
    match ports
        .table
        .get(&delivery_key(webhook_id, delivery_id))
        .await?
    {
        Some(item) => decode_delivery(&item).map(Some),
        None => Ok(None),
    }
}

/// The event item whose `deliveries` and `delivered` counts the webhooks keep.
/// The key `outbox::record` gives the event (checked by a test below).
pub fn event_key(space: &Space, event_id: &str) -> Key {
    Key::new(format!("EVENTS#{space}"), event_id)
}

// ---- attempts ----

/// What started an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = WebhookAttemptTrigger)]
pub enum Trigger {
    /// The delivery schedule (first send and automatic retries).
    Scheduled,
    /// `POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/retry`.
    Manual,
    /// `POST /api/v1/webhooks/{id}/test`.
    Test,
}

/// One HTTP try of a delivery, as the delivery log shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = WebhookAttempt, example = json!({"id": "att_019aa3b7c2e4a1b2c3d4e5f6a7b8", "object": "webhook_attempt",
    "webhook_id": "we_019aa3b7c2e41f0c2a9d8e7b6a5c", "delivery_id": "dlv_5b1f0e9d8c7b6a5f4e3d2c1b",
    "event_id": "evt_019aa3b7c2e40a1b2c3d4e5f6a7b", "event_type": "invoice.paid", "trigger": "scheduled",
    "attempt": 2, "created_at": "2026-11-21T10:00:05.123Z", "status_code": 503, "duration_ms": 184,
    "response_body": "Service Unavailable", "error": null, "succeeded": false, "livemode": true}))]
pub struct Attempt {
    /// `att_…`, ordered by time.
    pub id: String,
    /// Always `webhook_attempt`.
    pub object: String,
    pub webhook_id: String,
    /// The delivery this attempt belongs to (what the retry endpoint takes).
    pub delivery_id: String,
    pub event_id: String,
    pub event_type: EventType,
    pub trigger: Trigger,
    /// The attempt's number in the delivery schedule (1–8); null for manual retries.
    pub attempt: Option<u32>,
    /// When the answer (or the failure) came.
    pub created_at: DateTime<Utc>,
    /// The HTTP status answered; null when there was no answer.
    pub status_code: Option<u16>,
    pub duration_ms: u64,
    /// The first 2 KB of the response body.
    pub response_body: String,
    /// Why there was no usable answer (address refused, DNS, connection, TLS, timeout).
    pub error: Option<String>,
    /// A 2xx answer within 10 s.
    pub succeeded: bool,
    pub livemode: bool,
}

pub fn attempt_key(webhook_id: &str, attempt_id: &str) -> Key {
    Key::new(format!("WEBHOOK#{webhook_id}"), format!("ATT#{attempt_id}"))
}

pub fn put_attempt(a: &Attempt) -> Write {
    Write::Put {
        item: Item::new(attempt_key(&a.webhook_id, &a.id))
            .with("doc", serde_json::to_string(a).expect("attempts serialise"))
            .with(TTL, (a.created_at + RETENTION).timestamp()),
        condition: Some(Condition::Absent),
    }
}

/// Attempts of a webhook, newest first: `limit` of them after `starting_after`,
/// and whether more follow.
pub async fn attempts_page(
    ports: &Ports,
    webhook_id: &str,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<Attempt>, bool), WebhookError> {
    let query = Query::new(
        format!("WEBHOOK#{webhook_id}"),
        SortKey::Prefix("ATT#".into()),
    )
    .backward()
    .after(starting_after.map(|id| Cursor::from_token(&format!("ATT#{id}"))));
    let (items, has_more) = newest(ports, query, limit).await?;
    let attempts = items
        .iter()
        .map(|item| {
            serde_json::from_str(item.s("doc").unwrap_or_default())
                .map_err(|_| unreadable(item, "attempt"))
        })
        .collect::<Result<_, _>>()?;
    Ok((attempts, has_more))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::account::AccountId;

    #[test]
    fn event_keys_are_the_outbox_keys() {
        let account = AccountId::generate();
        for mode in [Mode::Live, Mode::Test] {
            let space = Space {
                account_id: account.to_string(),
                mode,
            };
            assert_eq!(
                event_key(&space, "evt_1"),
                crate::app::outbox::key(&account, mode, "evt_1")
            );
        }
    }
}
