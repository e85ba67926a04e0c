//! Idempotency records. A record is begun (claimed with a lease) before the
//! request runs, and completed in the SAME table transaction that commits the
//! request's effects, so an effect never exists without its stored response:
//! a crash before that commit leaves no effect and a lease that expires, after
//! which a retry with the same key runs the request afresh. A restarted
//! embedded host frees at once the leases of the process that died
//! (`release_orphans`). Leases are bookkeeping writes (not synced one by one):
//! a lease lost to a power cut only frees its key early, and the completion
//! that names it is a durable commit.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use chrono::Duration;

use crate::app::accounts;
use crate::domain::account::{AccountId, Mode};
use crate::domain::idempotency_key::IdempotencyKey;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, Value, Write};

/// How long a key is kept after its first use.
pub const RETENTION: Duration = Duration::hours(24);
/// How long a running request holds its key before a retry may take it
/// over: longer than any request runs on AWS (API Gateway gives up after
/// 30 s; the functions time out at 29 s). A request still running after it
/// cannot commit (its completion holds only while the lease is its own), so
/// a retry never doubles an effect.
pub const LEASE: Duration = Duration::seconds(35);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The claim on a key held by the request that is running it.
#[derive(Clone, Debug)]
pub struct Lease {
    key: Key,
    token: String,
    fingerprint: String,
    expires: i64,
}

#[derive(Debug)]
pub enum Begin {
    Started(Lease),
    Replay(StoredResponse),
    /// The key was first used with another method, path or body.
    Mismatch,
    /// The key's first request is still running.
    InFlight,
}

fn record_key(account: &AccountId, mode: Mode, key: &IdempotencyKey) -> Key {
    Key::new(format!("IDEM#{account}#{}", mode.as_str()), key.as_str())
}

fn decode(item: &Item) -> Option<StoredResponse> {
    let status = u16::try_from(item.n("status")?).ok()?;
    let body = match item.s("text") {
        Some(text) => text.as_bytes().to_vec(),
        None => B64.decode(item.s("body")?).ok()?,
    };
    let headers = match item.attrs.get("headers") {
        Some(Value::L(list)) => list
            .iter()
            .filter_map(|pair| match pair {
                Value::L(kv) => match kv.as_slice() {
                    [Value::S(k), Value::S(v)] => Some((k.clone(), v.clone())),
                    _ => None,
                },
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(StoredResponse {
        status,
        headers,
        body,
    })
}

/// Claims `key` for a request with this fingerprint, or says why it cannot run.
pub async fn begin(
    ports: &Ports,
    account: &AccountId,
    mode: Mode,
    key: &IdempotencyKey,
    fingerprint: &str,
) -> Result<Begin, TableError> {
    let record = record_key(account, mode, key);
    loop {
        let now = ports.clock.now();
        let lease = Lease {
            key: record.clone(),
            token: crate::ids::random_token(12),
            fingerprint: fingerprint.to_string(),
            expires: (now + RETENTION).timestamp(),
        };
        let item = Item::new(record.clone())
            .with("fingerprint", fingerprint)
            .with("state", "running")
            .with("lease", lease.token.clone())
            .with("lease_until", (now + LEASE).timestamp())
            .with("pid", i64::from(std::process::id()))
            .with("ttl", lease.expires);
        let existing = match ports
            .bookkeeping
            .put(item.clone(), Some(Condition::Absent))
            .await
        {
            Ok(()) => return Ok(Begin::Started(lease)),
            Err(TableError::ConditionFailed { .. }) => match ports.table.get(&record).await? {
                Some(existing) => existing,
                None => continue,
            },
            Err(e) => return Err(e),
        };
        if existing.s("fingerprint") != Some(fingerprint) {
            return Ok(Begin::Mismatch);
        }
        if existing.s("state") == Some("done") {
            return Ok(match decode(&existing) {
                Some(stored) => Begin::Replay(stored),
                None => Begin::Mismatch,
            });
        }
        if existing.n("lease_until").unwrap_or(i64::MAX) > now.timestamp() {
            return Ok(Begin::InFlight);
        }
        let held_by = Condition::equals("lease", existing.s("lease").unwrap_or_default());
        match ports.bookkeeping.put(item, Some(held_by)).await {
            Ok(()) => return Ok(Begin::Started(lease)),
            Err(TableError::ConditionFailed { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
}

/// The write that stores the response; it holds only while the lease is ours.
pub fn complete(lease: &Lease, response: &StoredResponse) -> Write {
    let headers = response
        .headers
        .iter()
        .map(|(k, v)| Value::L(vec![Value::S(k.clone()), Value::S(v.clone())]))
        .collect();
    let item = Item::new(lease.key.clone())
        .with("fingerprint", lease.fingerprint.clone())
        .with("state", "done")
        .with("status", i64::from(response.status))
        .with("headers", Value::L(headers))
        .with("committed_by", lease.token.clone())
        .with("ttl", lease.expires);
    // A text body (every JSON response) is kept as it is: base64 would make
    // it a third larger, in every write of the record and its replays.
    let item = match std::str::from_utf8(&response.body) {
        Ok(text) => item.with("text", text),
        Err(_) => item.with("body", B64.encode(&response.body)),
    };
    Write::Put {
        item,
        condition: Some(Condition::equals("lease", lease.token.clone())),
    }
}

/// Whether the completion `complete` made for this lease is stored: after a
/// commit whose answer was lost, it tells whether the commit landed.
pub async fn completed(ports: &Ports, lease: &Lease) -> Result<bool, TableError> {
    let stored = ports.table.get(&lease.key).await?;
    Ok(stored.is_some_and(|item| {
        item.s("state") == Some("done") && item.s("committed_by") == Some(lease.token.as_str())
    }))
}

/// Gives the key back after a request that had no effect, so it can be retried.
pub async fn release(ports: &Ports, lease: &Lease) -> Result<(), TableError> {
    let ours = Condition::equals("lease", lease.token.clone());
    match ports.bookkeeping.delete(&lease.key, Some(ours)).await {
        Ok(()) | Err(TableError::ConditionFailed { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Frees the keys held by running requests of processes that are gone
/// (`alive` says whether a process id runs on this machine), so a restarted
/// embedded host lets the requests a crash cut be retried at once instead
/// of after their lease. Only for hosts whose every writer runs on this
/// machine. How many keys it freed.
pub async fn release_orphans(
    ports: &Ports,
    alive: impl Fn(u32) -> bool,
) -> Result<usize, TableError> {
    let mut released = 0;
    let mut cursor = None;
    loop {
        let (ids, next) = accounts::ids(ports, cursor).await.map_err(|e| match e {
            accounts::AccountError::Table(t) => t,
            other => TableError::Unavailable(other.to_string()),
        })?;
        for account in &ids {
            for mode in [Mode::Live, Mode::Test] {
                released += release_orphans_in(ports, account, mode, &alive).await?;
            }
        }
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(released),
        }
    }
}

async fn release_orphans_in(
    ports: &Ports,
    account: &AccountId,
    mode: Mode,
    alive: &impl Fn(u32) -> bool,
) -> Result<usize, TableError> {
    let mut query = Query::new(format!("IDEM#{account}#{}", mode.as_str()), SortKey::All);
    let mut released = 0;
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            let orphan = item.s("state") == Some("running")
                && item
                    .n("pid")
                    .and_then(|pid| u32::try_from(pid).ok())
                    .is_some_and(|pid| !alive(pid));
            if !orphan {
                continue;
            }
            let held = Condition::equals("lease", item.s("lease").unwrap_or_default());
            match ports.table.delete(&item.key, Some(held)).await {
                Ok(()) => released += 1,
                Err(TableError::ConditionFailed { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(released),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;

    fn response() -> StoredResponse {
        StoredResponse {
            status: 201,
            headers: vec![("content-type".into(), "application/json".into())],
            body: br#"{"ok":true}"#.to_vec(),
        }
    }

    #[test]
    fn a_text_body_is_kept_as_text_and_every_body_replays() {
        let lease = Lease {
            key: Key::new("IDEM#acct_01#live", "k1"),
            token: "t".into(),
            fingerprint: "fp".into(),
            expires: 0,
        };
        for body in [br#"{"ok":true}"#.to_vec(), vec![0xff, 0x00, 0x80]] {
            let stored = StoredResponse { body, ..response() };
            let Write::Put { item, .. } = complete(&lease, &stored) else {
                panic!("a completion is a put")
            };
            let text = std::str::from_utf8(&stored.body).is_ok();
            assert_eq!(item.s("text").is_some(), text);
            assert_eq!(item.s("body").is_some(), !text);
            assert_eq!(decode(&item), Some(stored));
        }
        let before = Item::new(lease.key.clone())
            .with("status", 201)
            .with("body", B64.encode(b"{}"));
        assert_eq!(
            decode(&before).unwrap().body,
            b"{}",
            "records stored before"
        );
    }

    #[tokio::test]
    async fn a_key_runs_once_then_replays() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let account: AccountId = "acct_01".parse().unwrap();
        let key: IdempotencyKey = "k1".parse().unwrap();
        let Begin::Started(lease) = begin(&ports, &account, Mode::Live, &key, "fp")
            .await
            .unwrap()
        else {
            panic!("expected a fresh start")
        };
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key, "fp")
                .await
                .unwrap(),
            Begin::InFlight
        ));
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key, "other")
                .await
                .unwrap(),
            Begin::Mismatch
        ));
        assert!(
            matches!(
                begin(&ports, &account, Mode::Test, &key, "fp")
                    .await
                    .unwrap(),
                Begin::Started(_)
            ),
            "test and live keys live in separate spaces"
        );
        ports
            .table
            .transact(vec![complete(&lease, &response())])
            .await
            .unwrap();
        match begin(&ports, &account, Mode::Live, &key, "fp")
            .await
            .unwrap()
        {
            Begin::Replay(stored) => assert_eq!(stored, response()),
            other => panic!("expected a replay, got {other:?}"),
        }
        clock.advance(RETENTION);
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key, "fp")
                .await
                .unwrap(),
            Begin::Started(_)
        ));
    }

    #[tokio::test]
    async fn an_abandoned_lease_is_taken_over_and_the_old_holder_cannot_complete() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let account: AccountId = "acct_02".parse().unwrap();
        let key: IdempotencyKey = "k2".parse().unwrap();
        let Begin::Started(old) = begin(&ports, &account, Mode::Live, &key, "fp")
            .await
            .unwrap()
        else {
            panic!()
        };
        clock.advance(LEASE + Duration::seconds(1));
        let Begin::Started(new) = begin(&ports, &account, Mode::Live, &key, "fp")
            .await
            .unwrap()
        else {
            panic!("expected a takeover")
        };
        let err = ports
            .table
            .transact(vec![complete(&old, &response())])
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            TableError::ConditionFailed { index: Some(0), .. }
        ));
        release(&ports, &old).await.unwrap();
        ports
            .table
            .transact(vec![complete(&new, &response())])
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_crashed_requests_key_is_free_within_40_s() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let account: AccountId = "acct_04".parse().unwrap();
        let key: IdempotencyKey = "k4".parse().unwrap();
        begin(&ports, &account, Mode::Live, &key, "fp")
            .await
            .unwrap();
        clock.advance(Duration::seconds(30));
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key, "fp")
                .await
                .unwrap(),
            Begin::InFlight
        ));
        clock.advance(Duration::seconds(10));
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key, "fp")
                .await
                .unwrap(),
            Begin::Started(_)
        ));
    }

    #[tokio::test]
    async fn a_restarted_host_frees_the_keys_of_the_process_that_died_at_once() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let account = accounts::create(&ports, "A", crate::domain::account::Plan::Pro, None)
            .await
            .unwrap()
            .id;
        let key = |k: &str| k.parse::<IdempotencyKey>().unwrap();
        let Begin::Started(done) = begin(&ports, &account, Mode::Live, &key("done"), "fp")
            .await
            .unwrap()
        else {
            panic!()
        };
        ports
            .table
            .transact(vec![complete(&done, &response())])
            .await
            .unwrap();
        for (mode, k) in [(Mode::Live, "cut-1"), (Mode::Test, "cut-2")] {
            begin(&ports, &account, mode, &key(k), "fp").await.unwrap();
        }
        assert_eq!(release_orphans(&ports, |_| true).await.unwrap(), 0);
        assert_eq!(release_orphans(&ports, |_| false).await.unwrap(), 2);
        for (mode, k) in [(Mode::Live, "cut-1"), (Mode::Test, "cut-2")] {
            assert!(matches!(
                begin(&ports, &account, mode, &key(k), "fp").await.unwrap(),
                Begin::Started(_)
            ));
        }
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key("done"), "fp")
                .await
                .unwrap(),
            Begin::Replay(_)
        ));
    }

    #[tokio::test]
    async fn a_released_key_can_run_again() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let account: AccountId = "acct_03".parse().unwrap();
        let key: IdempotencyKey = "k3".parse().unwrap();
        let Begin::Started(lease) = begin(&ports, &account, Mode::Live, &key, "fp")
            .await
            .unwrap()
        else {
            panic!()
        };
        release(&ports, &lease).await.unwrap();
        assert!(matches!(
            begin(&ports, &account, Mode::Live, &key, "fp2")
                .await
                .unwrap(),
            Begin::Started(_)
        ));
    }
}
