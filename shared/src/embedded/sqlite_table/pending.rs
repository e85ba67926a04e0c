//! The writes this process has ordered and not yet committed (`Table::order`):
//! what each key will hold should they commit, by the sequence of the
//! transaction that wrote it last. The writer drops them as their batch
//! settles (commits or fails); until then `get_ordered` reads them and `get`
//! waits for them.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::watch;

use crate::ports::table::{Item, Key};

/// What a pending write leaves at a key: the item, or none (deleted).
pub(super) type Slot = Option<Item>;

#[derive(Default)]
pub(super) struct Pending {
    ordering: Mutex<Ordering>,
    /// The sequence of the last transaction whose batch has settled.
    settled: watch::Sender<u64>,
}

/// Held while a transaction is ordered: its sequence is taken, its effects
/// recorded and the transaction handed to the writer under one lock, so the
/// writer receives transactions in sequence order.
#[derive(Default)]
pub(super) struct Ordering {
    last: u64,
    slots: HashMap<Key, (u64, Slot)>,
}

impl Ordering {
    /// The sequence of the last transaction ordered.
    #[cfg(test)]
    pub fn last(&self) -> u64 {
        self.last
    }

    pub fn slot(&self, key: &Key) -> Option<&Slot> {
        self.slots.get(key).map(|(_, slot)| slot)
    }

    /// Takes the next sequence and records what its transaction leaves.
    pub fn record(&mut self, effects: impl IntoIterator<Item = (Key, Slot)>) -> u64 {
        self.last += 1;
        let seq = self.last;
        for (key, slot) in effects {
            self.slots.insert(key, (seq, slot));
        }
        seq
    }

    /// Forgets what the transaction `seq` would leave (it was never queued).
    pub fn forget(&mut self, seq: u64) {
        self.slots.retain(|_, (written, _)| *written != seq);
    }
}

impl Pending {
    pub fn ordering(&self) -> MutexGuard<'_, Ordering> {
        self.ordering.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The sequence of the transaction not yet settled that wrote `key` last.
    pub fn last_writer(&self, key: &Key) -> Option<u64> {
        self.ordering().slots.get(key).map(|(seq, _)| *seq)
    }

    /// The sequence of the last transaction not yet settled that wrote an
    /// item of the partition `pk`.
    pub fn last_writer_in(&self, pk: &str) -> Option<u64> {
        let ordering = self.ordering();
        let writers = ordering.slots.iter().filter(|(key, _)| key.pk == pk);
        writers.map(|(_, (seq, _))| *seq).max()
    }

    /// The pending slot of `key`, if a transaction not yet settled wrote it.
    pub fn slot(&self, key: &Key) -> Option<(u64, Slot)> {
        self.ordering().slots.get(key).cloned()
    }

    /// Forgets every write of the transactions up to `seq` (their batch has
    /// committed or failed) and wakes who waits for them.
    pub fn settle(&self, seq: u64) {
        self.ordering()
            .slots
            .retain(|_, (written, _)| *written > seq);
        self.settled.send_replace(seq);
    }

    /// Resolves once the transaction `seq` has settled.
    pub async fn settled(&self, seq: u64) {
        let mut settled = self.settled.subscribe();
        // The sender lives as long as `self`, so this only ends by settling.
        let _ = settled.wait_for(|s| *s >= seq).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slot_lives_until_the_transaction_that_wrote_it_last_settles() {
        let pending = Pending::default();
        let key = Key::new("p", "s");
        let first = pending
            .ordering()
            .record([(key.clone(), Some(Item::new(key.clone()).with("v", 1)))]);
        let second = pending.ordering().record([(key.clone(), None)]);
        assert_eq!(pending.slot(&key), Some((second, None)));
        assert_eq!(pending.last_writer(&key), Some(second));
        assert_eq!(pending.last_writer_in("p"), Some(second));
        assert_eq!(pending.last_writer_in("q"), None);
        pending.settle(first);
        assert_eq!(pending.slot(&key), Some((second, None)), "a later write");
        pending.settled(first).await;
        pending.settle(second);
        assert_eq!(pending.slot(&key), None);
        pending.settled(second).await;
    }
}
