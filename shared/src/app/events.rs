//! Reading an account's events of the last 30 days, so a client can recover
//! what its webhooks missed: a filtered list, newest first, and one event.

use crate::app::outbox::{self, Event};
use crate::domain::account::{AccountId, Mode};
use crate::ports::Ports;
use crate::ports::table::{Cursor, Item, Query, SortKey, TableError};
use crate::webhooks::event_type::EventType;

/// Items examined per page when a filter may pass few of them.
const FILTERED_PAGE: usize = 500;
/// The table's largest page.
const MAX_PAGE: usize = 1000;

#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only events of this type.
    pub kind: Option<EventType>,
    /// `Some(false)`: events some targeted webhook has not (yet) acknowledged
    /// (`deliveries` > `delivered`); `Some(true)`: the others.
    pub delivery_success: Option<bool>,
}

#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    #[error("no event {0}")]
    NotFound(String),
    #[error(transparent)]
    Storage(#[from] TableError),
}

impl Filter {
    fn is_set(&self) -> bool {
        self.kind.is_some() || self.delivery_success.is_some()
    }

    fn accepts(&self, item: &Item) -> bool {
        let kind_ok = self.kind.is_none_or(|k| item.s("type") == Some(k.code()));
        let failed = item.n("deliveries").unwrap_or(0) > item.n("delivered").unwrap_or(0);
        kind_ok
            && self
                .delivery_success
                .is_none_or(|success| success != failed)
    }
}

/// Up to `limit` events, newest first, older than the event `starting_after`,
/// and whether more follow.
pub async fn list(
    ports: &Ports,
    account: &AccountId,
    mode: Mode,
    limit: usize,
    starting_after: Option<&str>,
    filter: &Filter,
) -> Result<(Vec<Event>, bool), EventsError> {
    let page_size = if filter.is_set() {
        FILTERED_PAGE
    } else {
        (limit + 1).min(MAX_PAGE)
    };
    let mut query = Query::new(outbox::partition(account, mode), SortKey::All)
        .backward()
        .limit(page_size)
        .after(starting_after.map(Cursor::from_token));
    let mut found = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in page.items.iter().filter(|i| filter.accepts(i)) {
            found.push(Event::from_item(item)?);
            if found.len() > limit {
                found.truncate(limit);
                return Ok((found, true));
            }
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok((found, false)),
        }
    }
}

/// One event of the account in this mode; another account's, or one past its
/// 30 days, is not found.
pub async fn get(
    ports: &Ports,
    account: &AccountId,
    mode: Mode,
    id: &str,
) -> Result<Event, EventsError> {
    let not_found = || EventsError::NotFound(id.to_string());
    if !id.starts_with("evt_") {
        return Err(not_found());
    }
    let item = ports
        .table
        .get(&outbox::key(account, mode, id))
        .await?
        .ok_or_else(not_found)?;
    Ok(Event::from_item(&item)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;
    use crate::ports::table::UpdateOp;
    use chrono::Duration;
    use serde_json::json;

    fn account() -> AccountId {
        "acct_0a1b".parse().unwrap()
    }

    async fn emit(ports: &Ports, mode: Mode, kind: &str) -> String {
        let kind = EventType::parse(kind).unwrap();
        let write = outbox::record(&account(), mode, kind, json!({}), ports.clock.now());
        let id = write.key().sk.clone();
        ports.table.transact(vec![write]).await.unwrap();
        id
    }

    fn ids(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.id.as_str()).collect()
    }

    #[tokio::test]
    async fn lists_newest_first_in_pages_and_by_filter() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let mut emitted = Vec::new();
        for kind in [
            "invoice.issued",
            "invoice.paid",
            "invoice.issued",
            "quota.threshold",
        ] {
            emitted.push(emit(&ports, Mode::Live, kind).await);
            clock.advance(Duration::milliseconds(5));
        }
        emit(&ports, Mode::Test, "invoice.issued").await;
        let all = Filter::default();
        let (page, more) = list(&ports, &account(), Mode::Live, 3, None, &all)
            .await
            .unwrap();
        assert_eq!(ids(&page), [&emitted[3], &emitted[2], &emitted[1]]);
        assert!(more);
        let (rest, more) = list(&ports, &account(), Mode::Live, 3, Some(&emitted[1]), &all)
            .await
            .unwrap();
        assert_eq!(ids(&rest), [&emitted[0]]);
        assert!(!more);

        let issued = Filter {
            kind: Some(EventType::InvoiceIssued),
            ..Filter::default()
        };
        let (page, more) = list(&ports, &account(), Mode::Live, 1, None, &issued)
            .await
            .unwrap();
        assert_eq!((ids(&page), more), (vec![emitted[2].as_str()], true));

        let key = outbox::key(&account(), Mode::Live, &emitted[1]);
        let ops = vec![
            UpdateOp::set("deliveries", 2),
            UpdateOp::set("delivered", 1),
        ];
        ports.table.update(&key, ops, None).await.unwrap();
        let failing = Filter {
            delivery_success: Some(false),
            ..Filter::default()
        };
        let (page, _) = list(&ports, &account(), Mode::Live, 10, None, &failing)
            .await
            .unwrap();
        assert_eq!(ids(&page), [&emitted[1]]);
        let delivered = Filter {
            delivery_success: Some(true),
            ..Filter::default()
        };
        let (page, _) = list(&ports, &account(), Mode::Live, 10, None, &delivered)
            .await
            .unwrap();
        assert_eq!(ids(&page), [&emitted[3], &emitted[2], &emitted[0]]);
    }

    #[tokio::test]
    async fn one_event_is_read_by_its_account_and_mode_for_30_days() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let id = emit(&ports, Mode::Live, "invoice.paid").await;
        let event = get(&ports, &account(), Mode::Live, &id).await.unwrap();
        assert_eq!(event.kind, "invoice.paid");
        let other: AccountId = "acct_ffff".parse().unwrap();
        for (account, mode, id) in [
            (&other, Mode::Live, id.as_str()),
            (&account(), Mode::Test, id.as_str()),
            (&account(), Mode::Live, "cus_1"),
        ] {
            let err = get(&ports, account, mode, id).await.unwrap_err();
            assert!(
                matches!(err, EventsError::NotFound(_)),
                "{account} {mode:?} {id}"
            );
        }
        clock.advance(Duration::days(30) - Duration::seconds(1));
        assert!(get(&ports, &account(), Mode::Live, &id).await.is_ok());
        clock.advance(Duration::seconds(1));
        let err = get(&ports, &account(), Mode::Live, &id).await.unwrap_err();
        assert!(matches!(err, EventsError::NotFound(_)));
    }
}
