//! The outbox: events are written in the same transaction as the change that
//! causes them, one partition per account and mode (`EVENTS#<account>#<mode>`),
//! sorted by their time-ordered ids and kept 30 days. The table's feed (DynamoDB
//! Streams, or the embedded engine's own feed) hands each new one to
//! `app::dispatch`.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::domain::account::{AccountId, Mode};
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Value, Write};
use crate::webhooks::event_type::EventType;

/// The `entity` attribute of an event item: what the feeds dispatch.
pub const ENTITY: &str = "event";
/// How long an event can be read (`GET /events`) after it happened.
pub const RETENTION_DAYS: i64 = 30;

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub account_id: String,
    pub kind: EventType,
    pub created_at: String,
    pub livemode: bool,
    pub data: Json,
}

/// What a webhook receives and `GET /events` lists: exactly these five members.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"id": "evt_019aa3b7c2e4a1b2c3d4e5f6a7b8", "type": "invoice.paid",
    "created_at": "2026-11-21T10:00:00.000Z", "livemode": true,
    "data": {"object": {"id": 1, "object": "invoice", "number": "F2026-1", "kind": "F1", "status": "paid",
        "livemode": true, "issue_date": "2026-11-20", "customer_id": null, "base": 100.0, "vat_amount": 21.0,
        "irpf_amount": 0.0, "total": 121.0}}}))]
pub struct Envelope {
    /// `evt_…`, sortable by creation time.
    pub id: String,
    /// The event type; the types and their `data` are listed under `GET /api/v1/events`.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// RFC 3339 UTC with milliseconds.
    pub created_at: String,
    pub livemode: bool,
    /// Depends on `type` (the table under `GET /api/v1/events`).
    #[schema(value_type = Object)]
    pub data: Json,
}

impl std::fmt::Display for Envelope {
    /// The JSON text of the envelope, as delivered.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

impl Event {
    pub fn envelope(&self) -> Envelope {
        Envelope {
            id: self.id.clone(),
            kind: self.kind,
            created_at: self.created_at.clone(),
            livemode: self.livemode,
            data: self.data.clone(),
        }
    }

    pub fn mode(&self) -> Mode {
        if self.livemode {
            Mode::Live
        } else {
            Mode::Test
        }
    }

    /// Reads an event item (as stored by `record`).
    pub fn from_item(item: &Item) -> Result<Event, TableError> {
        let unreadable =
            |what: &str| TableError::Unavailable(format!("unreadable event {}: {what}", item.key));
        if item.s("entity") != Some(ENTITY) {
            return Err(unreadable("not an event item"));
        }
        let text = |name: &str| {
            item.s(name)
                .map(str::to_string)
                .ok_or_else(|| unreadable(&format!("{name} missing")))
        };
        let livemode = match item.attrs.get("livemode") {
            Some(Value::Bool(b)) => *b,
            _ => return Err(unreadable("livemode missing")),
        };
        let data = serde_json::from_str(&text("data")?).map_err(|e| unreadable(&e.to_string()))?;
        let kind = text("type")?;
        let kind =
            EventType::parse(&kind).ok_or_else(|| unreadable(&format!("unknown type {kind:?}")))?;
        Ok(Event {
            id: text("id")?,
            account_id: text("account_id")?,
            kind,
            created_at: text("created_at")?,
            livemode,
            data,
        })
    }
}

/// The partition of an account's events in one mode.
pub fn partition(account: &AccountId, mode: Mode) -> String {
    format!("EVENTS#{account}#{}", mode.as_str())
}

pub fn key(account: &AccountId, mode: Mode, id: &str) -> Key {
    Key::new(partition(account, mode), id)
}

/// The write that records an event, to be added to the causing transaction.
pub fn record(
    account: &AccountId,
    mode: Mode,
    kind: EventType,
    data: Json,
    at: DateTime<Utc>,
) -> Write {
    let id = crate::ids::new_ordered_id("evt", at);
    let expires = (at + Duration::days(RETENTION_DAYS)).timestamp();
    let item = Item::new(key(account, mode, &id))
        .with("entity", ENTITY)
        .with("id", id)
        .with("account_id", account.as_str())
        .with("livemode", mode.is_live())
        .with("type", kind.code())
        .with(
            "created_at",
            at.to_rfc3339_opts(SecondsFormat::Millis, true),
        )
        .with("data", data.to_string())
        .with(TTL, expires);
    Write::Put {
        item,
        condition: Some(Condition::Absent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn recorded(mode: Mode) -> Item {
        let account: AccountId = "acct_0a1b".parse().unwrap();
        let at = "2026-11-21T10:00:00.123Z".parse().unwrap();
        match record(
            &account,
            mode,
            EventType::InvoicePaid,
            json!({"object": {"id": 1}}),
            at,
        ) {
            Write::Put { item, condition } => {
                assert_eq!(condition, Some(Condition::Absent));
                item
            }
            other => panic!("not a put: {other:?}"),
        }
    }

    #[test]
    fn events_live_in_the_partition_of_their_account_and_mode_for_30_days() {
        let item = recorded(Mode::Test);
        assert_eq!(item.key.pk, "EVENTS#acct_0a1b#test");
        assert!(item.key.sk.starts_with("evt_"));
        assert_eq!(item.s("id"), Some(item.key.sk.as_str()));
        assert_eq!(item.s("entity"), Some("event"));
        let created: DateTime<Utc> = "2026-11-21T10:00:00.123Z".parse().unwrap();
        assert_eq!(item.ttl(), Some(created.timestamp() + 30 * 86_400));
    }

    #[test]
    fn the_envelope_has_exactly_the_five_members() {
        let event = Event::from_item(&recorded(Mode::Live)).unwrap();
        assert_eq!(event.mode(), Mode::Live);
        let envelope = serde_json::to_value(event.envelope()).unwrap();
        assert_eq!(
            envelope,
            json!({"id": event.id, "type": "invoice.paid", "created_at": "2026-11-21T10:00:00.123Z",
                "livemode": true, "data": {"object": {"id": 1}}})
        );
        let text = event.envelope().to_string();
        assert!(text.starts_with(r#"{"id":"evt_"#), "{text}");
        assert_eq!(serde_json::from_str::<Json>(&text).unwrap(), envelope);
    }

    #[test]
    fn other_items_are_not_events() {
        let mut item = recorded(Mode::Live);
        item.attrs.remove("entity");
        assert!(Event::from_item(&item).is_err());
    }
}
