//! `fiscal.deadline` events: 7 days and 1 day before each deadline of the tax
//! calendar that applies to an account, in Madrid dates, run by a schedule
//! (hourly on AWS, every 15 minutes in `svc serve`).
//!
//! Decisions:
//! - Which forms apply is read from what the account holds, its issuer's NIF:
//!   a person (DNI, NIE, K/L/M) files 303 and 390 (VAT), 130 (income tax
//!   instalments, direct estimation: the regime of a freelancer who invoices)
//!   and 100 (Renta); an entity files 303, 390, 200 (corporate tax) and 202
//!   (its instalments); without a NIF only the VAT forms 303 and 390. An
//!   issuer in the Canary Islands files IGIC's 420 instead of 303 and 390;
//!   one in Ceuta or Melilla no VAT forms (see `forms_for`). Forms
//!   that depend on facts the account does not hold (staff or rent
//!   withholdings 111/115/180/190, intra-EU 349, third parties over
//!   3.005,06 € 347, módulos 131) are not announced.
//! - Live mode only, and only for plans with live keys: deadlines are facts of
//!   the real business, and test webhooks receive test-space activity.
//! - Exactly once per account, deadline and offset: a marker item is written
//!   with `Condition::Absent` in the event's own transaction, so a second or a
//!   concurrent run finds it and sends nothing.
//! - A late run still sends the reminder that is due, with the real
//!   `days_left` (down to 0 on the deadline day; nothing once it has passed).
//!   When a run finds both due (the 7-day one was missed and 1 day or less is
//!   left) it sends only the 1-day reminder and marks the 7-day one as passed.

use chrono::{DateTime, Days, NaiveDate, Utc};
use serde::Serialize;
use serde_json::json;

use crate::app::{accounts, outbox};
use crate::domain::account::{Account, AccountId, Mode};
use crate::domain::madrid;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Write};
use crate::tax::calendar::{Deadline, Form, Lang, deadlines};
use crate::tax::indirect::IndirectTax;
use crate::tax::nif::NifKind;
use crate::webhooks::event_type::EventType;

pub const EVENT: EventType = EventType::FiscalDeadline;
/// Days before a deadline when a reminder is sent, nearest first.
pub const OFFSETS: [u64; 2] = [1, 7];
/// How long a marker outlives its deadline.
const MARKER_DAYS_AFTER: u64 = 30;

const PERSON_FORMS: [Form; 4] = [Form::M303, Form::M390, Form::M130, Form::M100];
const ENTITY_FORMS: [Form; 4] = [Form::M303, Form::M390, Form::M200, Form::M202];
const VAT_FORMS: [Form; 2] = [Form::M303, Form::M390];

/// The `data` of a `fiscal.deadline` event.
#[derive(Debug, Serialize, PartialEq)]
pub struct DeadlineData {
    pub form: &'static str,
    pub period: String,
    pub end: NaiveDate,
    pub days_left: u64,
    pub description: String,
}

/// The forms whose deadlines are announced to the account. An issuer in the
/// Canary Islands files IGIC's 420 instead of VAT's 303 and 390 (its yearly
/// 425 is not announced: its closing day is not confirmed); one in Ceuta or
/// Melilla files its city's IPSI returns, which are not announced, and no VAT forms.
pub fn forms_for(account: &Account) -> Vec<Form> {
    let forms: &[Form] = match account.issuer.nif.as_ref().map(|nif| nif.kind()) {
        Some(NifKind::Entity(_)) => &ENTITY_FORMS,
        Some(NifKind::Dni | NifKind::Nie | NifKind::Special(_)) => &PERSON_FORMS,
        None => &VAT_FORMS,
    };
    let tax =
        IndirectTax::of_postal_code(account.issuer.postal_code.as_deref().unwrap_or_default());
    forms
        .iter()
        .filter_map(|&form| match (tax, form) {
            (IndirectTax::Iva, form) => Some(form),
            (IndirectTax::Igic, Form::M303) => Some(Form::M420),
            (_, Form::M303 | Form::M390) => None,
            (_, form) => Some(form),
        })
        .collect()
}

/// The reminder due with `days_left` days to go: the nearest offset that has
/// been reached (none before 7 days, none once the deadline has passed).
fn due_offset(days_left: u64) -> Option<u64> {
    OFFSETS.into_iter().find(|&offset| days_left <= offset)
}

fn marker_key(account: &AccountId, deadline: &Deadline, offset: u64) -> Key {
    Key::new(
        format!("FISCAL#{account}"),
        format!("{}#{}#{offset}", deadline.form.code(), deadline.period),
    )
}

/// Sends the reminders due at `now` to every account; returns how many were sent.
pub async fn run(ports: &Ports, now: DateTime<Utc>) -> Result<usize, TableError> {
    let today = madrid::date(now);
    let mut sent = 0;
    let mut cursor = None;
    loop {
        let (ids, next) = accounts::ids(ports, cursor).await.map_err(storage)?;
        for id in ids {
            let account = match accounts::get(ports, &id).await {
                Ok(account) => account,
                Err(accounts::AccountError::Table(e)) => return Err(e),
                Err(e) => {
                    tracing::warn!(error = %e, account = %id, "no fiscal deadlines for an unreadable account");
                    continue;
                }
            };
            sent += remind(ports, &account, today, now).await?;
        }
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(sent),
        }
    }
}

fn storage(e: accounts::AccountError) -> TableError {
    match e {
        accounts::AccountError::Table(t) => t,
        other => TableError::Unavailable(other.to_string()),
    }
}

async fn remind(
    ports: &Ports,
    account: &Account,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Result<usize, TableError> {
    if !account.plan.allows_live_keys() {
        return Ok(0);
    }
    let horizon = today + Days::new(OFFSETS[OFFSETS.len() - 1]);
    let mut sent = 0;
    for deadline in deadlines(today, horizon, &forms_for(account)) {
        let Ok(days_left) = u64::try_from((deadline.end - today).num_days()) else {
            continue;
        };
        let Some(offset) = due_offset(days_left) else {
            continue;
        };
        let writes = reminder(ports, account, &deadline, (offset, days_left), now).await?;
        if writes.is_empty() {
            continue;
        }
        match ports.table.transact(writes).await {
            Ok(()) => sent += 1,
            // Another run sent it meanwhile (or marked an offset this run
            // meant to pass): the next run sees the markers and converges.
            Err(TableError::ConditionFailed { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(sent)
}

/// The writes of the reminder `offset` of `deadline`, `days_left` days ahead:
/// its marker, the markers of the earlier reminders it supersedes, and the
/// event; none when it was sent.
async fn reminder(
    ports: &Ports,
    account: &Account,
    deadline: &Deadline,
    (offset, days_left): (u64, u64),
    now: DateTime<Utc>,
) -> Result<Vec<Write>, TableError> {
    let key = marker_key(&account.id, deadline, offset);
    if ports.table.get(&key).await?.is_some() {
        return Ok(Vec::new());
    }
    let expires = madrid::start_of(deadline.end + Days::new(MARKER_DAYS_AFTER)).timestamp();
    let marker = |key: Key, sent: bool| Write::Put {
        item: Item::new(key).with("sent", sent).with(TTL, expires),
        condition: Some(Condition::Absent),
    };
    let mut writes = vec![marker(key, true)];
    for earlier in OFFSETS.into_iter().filter(|&o| o > offset) {
        let key = marker_key(&account.id, deadline, earlier);
        if ports.table.get(&key).await?.is_none() {
            writes.push(marker(key, false));
        }
    }
    let data = DeadlineData {
        form: deadline.form.code(),
        period: deadline.period.clone(),
        end: deadline.end,
        days_left,
        description: deadline.description(Lang::Es).to_string(),
    };
    writes.push(outbox::record(
        &account.id,
        Mode::Live,
        EVENT,
        json!(data),
        now,
    ));
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::Arc;

    use chrono::Duration;

    use super::*;
    use crate::app::events::{Filter, list};
    use crate::app::test_ports_at;
    use crate::domain::account::Plan;
    use crate::ports::clock::{Clock, ManualClock};
    use crate::tax::nif::Nif;

    #[test]
    fn the_nearest_reached_offset_is_due() {
        let due: Vec<_> = (0..=9).map(due_offset).collect();
        assert_eq!(
            due,
            [
                Some(1),
                Some(1),
                Some(7),
                Some(7),
                Some(7),
                Some(7),
                Some(7),
                Some(7),
                None,
                None
            ]
        );
    }

    async fn account(ports: &Ports, plan: Plan, nif: Option<&str>) -> AccountId {
        let nif = nif.map(|n| Nif::parse(n).unwrap());
        accounts::create(ports, "Fiscal", plan, nif)
            .await
            .unwrap()
            .id
    }

    /// (form, period, days_left, created_at) of the account's fiscal events, oldest first.
    async fn reminders(ports: &Ports, id: &AccountId) -> Vec<(String, String, u64, String)> {
        let filter = Filter {
            kind: Some(EVENT),
            ..Filter::default()
        };
        let (events, _) = list(ports, id, Mode::Live, 100, None, &filter)
            .await
            .unwrap();
        let mut found: Vec<_> = events
            .into_iter()
            .map(|e| {
                let d = &e.data;
                assert_eq!(d["end"], "2026-01-30", "{d}");
                assert!(d["description"].as_str().unwrap().starts_with("Modelo "));
                let form = d["form"].as_str().unwrap().to_string();
                let period = d["period"].as_str().unwrap().to_string();
                (form, period, d["days_left"].as_u64().unwrap(), e.created_at)
            })
            .collect();
        found.reverse();
        let unique: HashSet<_> = found.iter().map(|(f, p, d, _)| (f, p, *d)).collect();
        assert_eq!(unique.len(), found.len(), "a reminder was sent twice");
        found
    }

    async fn every_hour(ports: &Ports, clock: &ManualClock, until: &str, runs: usize) -> usize {
        let until: DateTime<Utc> = until.parse().unwrap();
        let mut sent = 0;
        while clock.now() < until {
            for _ in 0..runs {
                sent += run(ports, clock.now()).await.unwrap();
            }
            clock.advance(Duration::hours(1));
        }
        sent
    }

    fn forms(found: &[(String, String, u64, String)], days_left: u64) -> Vec<&str> {
        let mut forms: Vec<_> = found
            .iter()
            .filter(|r| r.2 == days_left)
            .map(|r| r.0.as_str())
            .collect();
        forms.sort();
        forms
    }

    #[tokio::test]
    async fn a_month_run_hourly_twice_sends_each_reminder_once_on_its_madrid_day() {
        let (ports, clock, _dir) = test_ports_at("2026-01-01T00:00:00Z");
        let person = account(&ports, Plan::Pro, Some("12345678Z")).await;
        let company = account(&ports, Plan::Max, Some("B64717838")).await;
        let unknown = account(&ports, Plan::Pro, None).await;
        let mini = account(&ports, Plan::Mini, Some("87654321X")).await;

        let sent = every_hour(&ports, &clock, "2026-02-01T00:00:00Z", 2).await;

        let found = reminders(&ports, &person).await;
        assert_eq!(forms(&found, 7), ["130", "303", "390"]);
        assert_eq!(forms(&found, 1), ["130", "303", "390"]);
        for (_, period, days_left, created_at) in &found {
            assert!(period == "2025" || period == "2025-4T", "{period}");
            // Madrid midnight of 23 and 29 January, the first run of those days.
            let expected = if *days_left == 7 {
                "2026-01-22T23:00:00.000Z"
            } else {
                "2026-01-28T23:00:00.000Z"
            };
            assert_eq!(created_at, expected);
        }
        let found = reminders(&ports, &company).await;
        assert_eq!(
            (forms(&found, 7), forms(&found, 1)),
            (vec!["303", "390"], vec!["303", "390"])
        );
        let found = reminders(&ports, &unknown).await;
        assert_eq!(
            (forms(&found, 7), forms(&found, 1)),
            (vec!["303", "390"], vec!["303", "390"])
        );
        assert!(
            reminders(&ports, &mini).await.is_empty(),
            "no live space on Mini"
        );
        assert_eq!(sent, 6 + 4 + 4);
        let (test_events, _) = list(&ports, &person, Mode::Test, 100, None, &Filter::default())
            .await
            .unwrap();
        assert!(test_events.is_empty(), "live mode only");
    }

    #[tokio::test]
    async fn late_runs_send_what_is_due_and_only_the_nearest_when_both_are() {
        // Down from before the 7-day mark until 26 January: the 7-day reminder
        // goes out late with 4 days left, the 1-day one on time.
        let (ports, clock, _dir) = test_ports_at("2026-01-26T09:00:00Z");
        let late = account(&ports, Plan::Pro, None).await;
        every_hour(&ports, &clock, "2026-01-26T12:00:00Z", 1).await;
        clock.set("2026-01-29T08:00:00Z".parse().unwrap());
        every_hour(&ports, &clock, "2026-02-03T00:00:00Z", 1).await;
        let found = reminders(&ports, &late).await;
        assert_eq!(found.len(), 4);
        assert_eq!(
            (forms(&found, 4), forms(&found, 1)),
            (vec!["303", "390"], vec!["303", "390"])
        );

        // Down until the deadline day: only the 1-day reminder, with 0 days left.
        let (ports, clock, _dir) = test_ports_at("2026-01-30T07:00:00Z");
        let very_late = account(&ports, Plan::Pro, None).await;
        every_hour(&ports, &clock, "2026-02-03T00:00:00Z", 2).await;
        let found = reminders(&ports, &very_late).await;
        assert_eq!((found.len(), forms(&found, 0)), (2, vec!["303", "390"]));
        let passed = Key::new(format!("FISCAL#{very_late}"), "303#2025-4T#7");
        let marker = ports.table.get(&passed).await.unwrap().unwrap();
        assert_eq!(marker.attrs.get("sent"), Some(&false.into()));
    }

    #[tokio::test]
    async fn concurrent_runs_send_once() {
        let (ports, _clock, _dir) = test_ports_at("2026-01-29T10:00:00Z");
        let id = account(&ports, Plan::Pro, None).await;
        let now = ports.clock.now();
        let ports = Arc::new(ports);
        let runs: Vec<_> = (0..4)
            .map(|_| {
                let ports = ports.clone();
                tokio::spawn(async move { run(&ports, now).await.unwrap() })
            })
            .collect();
        let mut sent = 0;
        for r in runs {
            sent += r.await.unwrap();
        }
        assert_eq!(sent, 2);
        assert_eq!(reminders(&ports, &id).await.len(), 2);
    }
}
