//! The due-date index: one item per instalment that is neither covered by
//! payments nor announced as overdue, so the scheduler finds the instalments
//! due before a day with a range query instead of reading every account's
//! invoices. Items live in a few partitions (`INVOICES#DUE#<n>`, n = invoice
//! id mod `SHARDS`) with sort keys that begin with the due date, so "due
//! before today" is one `Between` query per partition on either engine.
//!
//! The items follow the invoice: every write of a new invoice version puts
//! the items of instalments that became open and deletes those that no
//! longer are (`changes`), in the same transaction. The scheduler deletes an
//! item when it sends its `invoice.overdue`, and drops stale ones (a
//! cancelled invoice, a covered instalment).

use chrono::NaiveDate;

use crate::domain::account::{AccountId, Mode};
use crate::invoice::model::Invoice;
use crate::invoice::payments::open_instalments;
use crate::ports::Ports;
use crate::ports::table::{Item, Key, Query, SortKey, TableError, Write};

/// Partitions of the index.
pub const SHARDS: u64 = 8;

fn partition(shard: u64) -> String {
    format!("INVOICES#DUE#{shard}")
}

/// One instalment in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DueEntry {
    pub key: Key,
    pub account: AccountId,
    pub mode: Mode,
    pub invoice_id: u64,
    /// The instalment's position in the invoice's `instalments`.
    pub index: usize,
}

fn key(account: &AccountId, mode: Mode, invoice: &Invoice, index: usize) -> Key {
    let date = invoice.instalments[index].date;
    Key::new(
        partition(invoice.id % SHARDS),
        format!(
            "{date}#{account}#{}#{:012}#{index:02}",
            mode.as_str(),
            invoice.id
        ),
    )
}

/// The writes that move the index from the open instalments `before` (of
/// the version read; none for a new invoice) to those of `after`.
pub fn changes(before: &[usize], after: &Invoice, mode: Mode, account: &AccountId) -> Vec<Write> {
    let open = open_instalments(after);
    let added = open.iter().filter(|i| !before.contains(i)).map(|&i| {
        let item = Item::new(key(account, mode, after, i))
            .with("account_id", account.to_string())
            .with("mode", mode.as_str())
            .with("invoice_id", after.id as i64)
            .with("index", i as i64);
        Write::Put {
            item,
            condition: None,
        }
    });
    let removed = before
        .iter()
        .filter(|i| !open.contains(i))
        .map(|&i| Write::Delete {
            key: key(account, mode, after, i),
            condition: None,
        });
    added.chain(removed).collect()
}

fn entry(item: &Item) -> Option<DueEntry> {
    Some(DueEntry {
        key: item.key.clone(),
        account: item.s("account_id")?.parse().ok()?,
        mode: item.s("mode")?.parse().ok()?,
        invoice_id: u64::try_from(item.n("invoice_id")?).ok()?,
        index: usize::try_from(item.n("index")?).ok()?,
    })
}

/// The instalments in the index due before `day`, every partition, oldest
/// first within each.
pub async fn due_before(ports: &Ports, day: NaiveDate) -> Result<Vec<DueEntry>, TableError> {
    let mut found = Vec::new();
    for shard in 0..SHARDS {
        let range = SortKey::Between("0".into(), day.to_string());
        let mut query = Query::new(partition(shard), range).limit(500);
        loop {
            let page = ports.table.query(&query).await?;
            for item in &page.items {
                match entry(item) {
                    Some(e) => found.push(e),
                    None => tracing::warn!(key = %item.key, "an unreadable due-date index item"),
                }
            }
            match page.next {
                Some(next) => query.cursor = Some(next),
                None => break,
            }
        }
    }
    Ok(found)
}
