//! The outbox: events are written in the same transaction as the change that
//! causes them; the delivery worker fans them out to the account's webhooks.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value as Json;

use crate::domain::account::{AccountId, Mode};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, Write};

const OUTBOX_PK: &str = "OUTBOX";

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub id: String,
    pub account_id: String,
    pub kind: String,
    pub created_at: String,
    pub livemode: bool,
    pub data: Json,
}

/// The write that records an event, to be added to the causing transaction.
pub fn record(account: &AccountId, mode: Mode, kind: &str, data: Json, at: DateTime<Utc>) -> Write {
    let id = crate::ids::new_id("evt");
    let created_at = at.to_rfc3339_opts(SecondsFormat::Millis, true);
    let item = Item::new(Key::new(OUTBOX_PK, format!("{created_at}#{id}")))
        .with("id", id)
        .with("account_id", account.as_str())
        .with("type", kind)
        .with("created_at", created_at)
        .with("livemode", mode.is_live())
        .with("data", data.to_string());
    Write::Put {
        item,
        condition: Some(Condition::Absent),
    }
}

/// Events not yet delivered, oldest first.
pub async fn pending(ports: &Ports, limit: usize) -> Result<Vec<Event>, TableError> {
    let page = ports
        .table
        .query(&Query::new(OUTBOX_PK, SortKey::All).limit(limit))
        .await?;
    Ok(page
        .items
        .iter()
        .map(|i| Event {
            id: i.s("id").unwrap_or_default().into(),
            account_id: i.s("account_id").unwrap_or_default().into(),
            kind: i.s("type").unwrap_or_default().into(),
            created_at: i.s("created_at").unwrap_or_default().into(),
            livemode: matches!(
                i.attrs.get("livemode"),
                Some(crate::ports::table::Value::Bool(true))
            ),
            data: i
                .s("data")
                .and_then(|d| serde_json::from_str(d).ok())
                .unwrap_or(Json::Null),
        })
        .collect())
}
