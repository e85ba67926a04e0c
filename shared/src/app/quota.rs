//! The daily quota: units per Madrid calendar day and account, charged for
//! analysis and extraction requests with live keys, never for test keys.
//! A charge is a conditional write on the day's counter, committed in the same
//! transaction as the request's effect and its idempotency record.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use crate::app::keys::Caller;
use crate::app::outbox;
use crate::domain::account::{AccountId, Plan, QuotaLimits};
use crate::domain::madrid;
use crate::ports::Ports;
use crate::ports::table::{Condition, Key, TableError, UpdateOp, Write};
use crate::webhooks::event_type::EventType;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotaStatus {
    pub limit: u32,
    pub used: u32,
    pub resets_at: DateTime<Utc>,
}

impl QuotaStatus {
    pub fn remaining(&self) -> u32 {
        self.limit.saturating_sub(self.used)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum QuotaError {
    #[error("the daily quota of {} units is used up", .0.limit)]
    Exceeded(QuotaStatus),
    #[error(transparent)]
    Table(#[from] TableError),
}

fn counter_key(account: &AccountId, day: &str) -> Key {
    Key::new(format!("QUOTA#{account}"), day.to_string())
}

/// Today's use of the account's quota.
pub async fn status(
    ports: &Ports,
    account: &AccountId,
    plan: Plan,
    limits: &QuotaLimits,
) -> Result<QuotaStatus, TableError> {
    status_at(ports, account, plan, limits, ports.clock.now()).await
}

async fn status_at(
    ports: &Ports,
    account: &AccountId,
    plan: Plan,
    limits: &QuotaLimits,
    now: DateTime<Utc>,
) -> Result<QuotaStatus, TableError> {
    let day = madrid::date(now).to_string();
    let used = ports
        .table
        .get(&counter_key(account, &day))
        .await?
        .and_then(|i| i.n("used"))
        .unwrap_or(0);
    Ok(QuotaStatus {
        limit: limits.for_plan(plan),
        used: used.clamp(0, i64::from(u32::MAX)) as u32,
        resets_at: madrid::next_midnight(now),
    })
}

fn crossed(old: u32, new: u32, limit: u32, percent: u32) -> bool {
    let mark = u64::from(limit) * u64::from(percent);
    u64::from(old) * 100 < mark && u64::from(new) * 100 >= mark
}

/// One unit charged: the writes to commit, and the Madrid day whose counter
/// they raise (what a `refund` lowers); a test key's charge is empty.
#[derive(Debug, Default)]
pub struct Charge {
    pub day: Option<String>,
    pub writes: Vec<Write>,
}

/// The writes that charge one unit to a live caller, or nothing for a test key.
/// They hold only if nobody else charged meanwhile; the caller retries on a
/// failed condition. Crossing 80 % and 100 % records a `quota.threshold` event
/// in the same writes, so each is recorded exactly once per day.
pub async fn charge(
    ports: &Ports,
    caller: &Caller,
    limits: &QuotaLimits,
) -> Result<Charge, QuotaError> {
    if !caller.mode.is_live() {
        return Ok(Charge::default());
    }
    let now = ports.clock.now();
    let status = status_at(ports, &caller.account_id, caller.plan, limits, now).await?;
    if status.used >= status.limit {
        return Err(QuotaError::Exceeded(status));
    }
    let day = madrid::date(now).to_string();
    let used = status.used + 1;
    let condition = if status.used == 0 {
        Condition::Absent
    } else {
        Condition::equals("used", i64::from(status.used))
    };
    let expires = (status.resets_at + Duration::days(2)).timestamp();
    let mut writes = vec![Write::Update {
        key: counter_key(&caller.account_id, &day),
        ops: vec![
            UpdateOp::set("used", i64::from(used)),
            UpdateOp::set("ttl", expires),
        ],
        condition: Some(condition),
    }];
    for percent in [80, 100] {
        if crossed(status.used, used, status.limit, percent) {
            let data = json!({
                "percent": percent,
                "used": used,
                "limit": status.limit,
                "day": day,
                "resets_at": status.resets_at.to_rfc3339(),
            });
            writes.push(outbox::record(
                &caller.account_id,
                caller.mode,
                EventType::QuotaThreshold,
                data,
                now,
            ));
        }
    }
    Ok(Charge {
        day: Some(day),
        writes,
    })
}

/// The write that gives back a unit charged on `day` (a failed job costs
/// nothing), to commit with the failure. The day's counter outlives any job
/// (it is kept two days past its day, a job one day), so it is there to lower.
pub fn refund(account: &AccountId, day: &str) -> Write {
    Write::Update {
        key: counter_key(account, day),
        ops: vec![UpdateOp::add("used", -1)],
        condition: Some(Condition::Present),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;
    use crate::domain::account::Mode;

    fn caller(mode: Mode) -> Caller {
        Caller {
            account_id: "acct_01".parse().unwrap(),
            plan: Plan::Pro,
            mode,
            key_id: "key_1".into(),
        }
    }

    #[test]
    fn thresholds_are_crossed_once() {
        assert!(crossed(7, 8, 10, 80));
        assert!(!crossed(8, 9, 10, 80));
        assert!(crossed(9, 10, 10, 100));
        assert!(crossed(0, 1, 1, 80) && crossed(0, 1, 1, 100));
        assert!(crossed(3, 4, 5, 80));
    }

    #[tokio::test]
    async fn charges_count_up_to_the_limit_and_emit_thresholds_once() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T22:30:00Z");
        let limits = QuotaLimits {
            mini: 1,
            pro: 5,
            max: 9,
        };
        let live = caller(Mode::Live);
        for expected_events in [0, 0, 0, 1, 1] {
            let writes = charge(&ports, &live, &limits).await.unwrap().writes;
            assert_eq!(writes.len(), 1 + expected_events);
            ports.table.transact(writes).await.unwrap();
            clock.advance(Duration::seconds(1));
        }
        let err = charge(&ports, &live, &limits).await.unwrap_err();
        let QuotaError::Exceeded(exceeded) = err else {
            panic!("expected exceeded")
        };
        assert_eq!(exceeded.used, 5);
        assert_eq!(exceeded.resets_at.to_rfc3339(), "2026-11-21T23:00:00+00:00");
        let filter = crate::app::events::Filter::default();
        let (events, _) =
            crate::app::events::list(&ports, &live.account_id, Mode::Live, 10, None, &filter)
                .await
                .unwrap();
        let percents: Vec<_> = events.iter().map(|e| e.data["percent"].clone()).collect();
        assert_eq!(percents, [json!(100), json!(80)], "newest first");
        assert!(
            events
                .iter()
                .all(|e| e.kind == "quota.threshold" && e.livemode)
        );

        let free = charge(&ports, &caller(Mode::Test), &limits).await.unwrap();
        assert!(free.writes.is_empty() && free.day.is_none());
        clock.set("2026-11-21T23:00:00Z".parse().unwrap());
        let fresh = status(&ports, &live.account_id, Plan::Pro, &limits)
            .await
            .unwrap();
        assert_eq!(
            fresh.used, 0,
            "a new Madrid day starts at 23:00 UTC in winter"
        );
    }

    #[tokio::test]
    async fn a_stale_charge_fails_its_condition() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let limits = QuotaLimits::default();
        let live = caller(Mode::Live);
        let first = charge(&ports, &live, &limits).await.unwrap().writes;
        let second = charge(&ports, &live, &limits).await.unwrap().writes;
        ports.table.transact(first).await.unwrap();
        let err = ports.table.transact(second).await.unwrap_err();
        assert!(matches!(
            err,
            TableError::ConditionFailed { index: Some(0), .. }
        ));
    }

    #[tokio::test]
    async fn a_refund_lowers_the_day_charged_even_after_midnight() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T22:59:00Z");
        let limits = QuotaLimits::default();
        let live = caller(Mode::Live);
        let charged = charge(&ports, &live, &limits).await.unwrap();
        assert_eq!(charged.day.as_deref(), Some("2026-11-21"));
        ports.table.transact(charged.writes).await.unwrap();
        clock.advance(Duration::minutes(2));
        let next = charge(&ports, &live, &limits).await.unwrap().writes;
        ports.table.transact(next).await.unwrap();
        ports
            .table
            .transact(vec![refund(&live.account_id, "2026-11-21")])
            .await
            .unwrap();
        let used = |day: &'static str| {
            let ports = ports.clone();
            let account = live.account_id.clone();
            async move {
                ports
                    .table
                    .get(&counter_key(&account, day))
                    .await
                    .unwrap()
                    .and_then(|i| i.n("used"))
            }
        };
        assert_eq!(used("2026-11-21").await, Some(0));
        assert_eq!(used("2026-11-22").await, Some(1));
    }
}
