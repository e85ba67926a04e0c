//! Requests per minute per key, counted in the table so the limit holds across
//! processes and Lambda instances: one counter item per key and clock minute,
//! written as bookkeeping (not synced to disk one by one).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::ports::Ports;
use crate::ports::table::{Key, TableError, UpdateOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateDecision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Epoch seconds at which the current window ends.
    pub reset_at: i64,
    /// Seconds until the window ends (at least 1).
    pub retry_after: i64,
}

type Waiter = oneshot::Sender<Result<u64, TableError>>;

/// This process's requests being counted: the hits on one key's window that
/// arrive while its counter is being written are added to it together, in one
/// write, and each learns its own place in the window: one write per burst
/// instead of one per request. Every hit is added to the shared counter; the
/// place a hit learns counts this process's hits and what other processes
/// have committed (on SQLite a bookkeeping update is answered once ordered).
#[derive(Default)]
pub struct RateCounter {
    waiting: Mutex<HashMap<(String, i64), Vec<Waiter>>>,
}

impl RateCounter {
    /// Counts one request of `key_id` and decides whether it may proceed.
    pub async fn hit(
        self: &Arc<Self>,
        ports: &Ports,
        key_id: &str,
        limit: u32,
    ) -> Result<RateDecision, TableError> {
        let now = ports.clock.now().timestamp();
        let window = now.div_euclid(60);
        let reset_at = (window + 1) * 60;
        let (tx, rx) = oneshot::channel();
        let slot = (key_id.to_string(), window);
        let first = match self.lock().entry(slot.clone()) {
            Entry::Occupied(mut waiting) => {
                waiting.get_mut().push(tx);
                false
            }
            Entry::Vacant(vacant) => {
                vacant.insert(vec![tx]);
                true
            }
        };
        if first {
            // A task of its own, so a request that is dropped midway (its
            // client went away) cannot strand the others waiting on it.
            tokio::spawn(self.clone().count(ports.clone(), slot, reset_at));
        }
        let used = rx
            .await
            .map_err(|_| TableError::Unavailable("the rate counter stopped".into()))??;
        Ok(RateDecision {
            allowed: used <= u64::from(limit),
            limit,
            remaining: u64::from(limit).saturating_sub(used) as u32,
            reset_at,
            retry_after: (reset_at - now).max(1),
        })
    }

    /// Adds the waiting hits of `slot` to its counter, burst after burst,
    /// until none is waiting.
    async fn count(self: Arc<Self>, ports: Ports, slot: (String, i64), reset_at: i64) {
        let key = Key::new(format!("RATE#{}", slot.0), slot.1.to_string());
        loop {
            // The write may be answered at once (an unconditional bookkeeping
            // update): let the hits of running requests join this burst.
            tokio::task::yield_now().await;
            let burst = {
                let mut waiting = self.lock();
                match waiting.get_mut(&slot) {
                    Some(list) if !list.is_empty() => std::mem::take(list),
                    _ => {
                        waiting.remove(&slot);
                        return;
                    }
                }
            };
            let hits = burst.len() as i64;
            let counted = ports
                .bookkeeping
                .update(
                    &key,
                    vec![
                        UpdateOp::add("n", hits),
                        UpdateOp::set("ttl", reset_at + 60),
                    ],
                    None,
                )
                .await
                .map(|counter| counter.n("n").unwrap_or(hits).max(hits) as u64);
            for (place, waiter) in burst.into_iter().enumerate() {
                let used = counted
                    .clone()
                    .map(|total| total - hits as u64 + 1 + place as u64);
                let _ = waiter.send(used);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, i64), Vec<Waiter>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;
    use chrono::Duration;

    #[tokio::test]
    async fn the_window_fills_and_resets_on_the_next_minute() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:30Z");
        let counter = Arc::new(RateCounter::default());
        for i in 1..=3 {
            let d = counter.hit(&ports, "key_a", 3).await.unwrap();
            assert!(d.allowed);
            assert_eq!(d.remaining, 3 - i);
            assert_eq!(d.retry_after, 30);
        }
        let over = counter.hit(&ports, "key_a", 3).await.unwrap();
        assert!(!over.allowed);
        assert_eq!(over.remaining, 0);
        assert!(
            counter.hit(&ports, "key_b", 3).await.unwrap().allowed,
            "limits are per key"
        );
        clock.advance(Duration::seconds(30));
        let next = counter.hit(&ports, "key_a", 3).await.unwrap();
        assert!(next.allowed);
        assert_eq!(next.remaining, 2);
        assert_eq!(next.retry_after, 60);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_hits_of_two_processes_are_each_counted_once() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-21T10:00:30Z");
        let processes = [
            Arc::new(RateCounter::default()),
            Arc::new(RateCounter::default()),
        ];
        let hits: Vec<_> = (0..200)
            .map(|i| {
                let (counter, ports) = (processes[i % 2].clone(), ports.clone());
                tokio::spawn(async move { counter.hit(&ports, "key_a", 150).await.unwrap() })
            })
            .collect();
        let mut remaining = Vec::new();
        for hit in hits {
            let d = hit.await.unwrap();
            if d.allowed {
                remaining.push(d.remaining);
            }
        }
        remaining.sort();
        assert_eq!(
            remaining,
            (0..150).collect::<Vec<_>>(),
            "each place given once"
        );
        let last = processes[0].hit(&ports, "key_a", 150).await.unwrap();
        assert!(!last.allowed);
    }
}
