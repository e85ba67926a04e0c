//! Commit receipts: how a unit of work learns whether its commit landed when
//! the table's answer was lost (a timeout, a 500 after the commit, or the
//! SDK's retry of a committed transaction failing its own conditions).
//! A request with an `Idempotency-Key` has its record for that; any other
//! commits a receipt in the same transaction, an item of its own that only
//! exists if the commit does.

use chrono::Duration;

use crate::app::idempotency::{self, Lease};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TableError, Write};

/// Receipts are read at once, when an answer is lost; an hour is plenty.
const KEPT: Duration = Duration::hours(1);

pub enum Receipt<'a> {
    /// The idempotency record the commit completes.
    Record(&'a Lease),
    /// A receipt item the commit adds.
    Own(Key),
}

impl<'a> Receipt<'a> {
    /// The receipt of one commit attempt.
    pub fn new(lease: Option<&'a Lease>) -> Self {
        match lease {
            Some(lease) => Receipt::Record(lease),
            None => Receipt::Own(Key::new(
                format!("RECEIPT#{}", crate::ids::random_token(12)),
                "RECEIPT",
            )),
        }
    }

    /// The write to add to the commit (none when the record is the receipt).
    pub fn write(&self, ports: &Ports) -> Option<Write> {
        match self {
            Receipt::Record(_) => None,
            Receipt::Own(key) => Some(Write::Put {
                item: Item::new(key.clone()).with("ttl", (ports.clock.now() + KEPT).timestamp()),
                condition: Some(Condition::Absent),
            }),
        }
    }

    /// Whether the commit this receipt belongs to landed.
    pub async fn landed(&self, ports: &Ports) -> Result<bool, TableError> {
        match self {
            Receipt::Record(lease) => idempotency::completed(ports, lease).await,
            Receipt::Own(key) => Ok(ports.table.get(key).await?.is_some()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports_at;

    #[tokio::test]
    async fn a_receipt_exists_only_once_its_commit_landed() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        let receipt = Receipt::new(None);
        assert!(!receipt.landed(&ports).await.unwrap());
        let write = receipt.write(&ports).expect("an own receipt is written");
        ports.table.transact(vec![write]).await.unwrap();
        assert!(receipt.landed(&ports).await.unwrap());
        assert!(!Receipt::new(None).landed(&ports).await.unwrap());
    }
}
