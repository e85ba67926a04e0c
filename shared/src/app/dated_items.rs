//! Partitions whose sort keys start with a date (`<date>#…`) and whose items
//! hold one JSON document: the ledger and the cash-regime collections.

use chrono::NaiveDate;
use serde::de::DeserializeOwned;

use crate::ports::Ports;
use crate::ports::table::{Query, SortKey, TableError};

/// The documents in `attribute` of the items of `partition` dated from
/// `from` to `to`, both inclusive, oldest first; `what` names them in the
/// error for one that does not read.
pub async fn between<T: DeserializeOwned>(
    ports: &Ports,
    partition: String,
    (from, to): (NaiveDate, NaiveDate),
    attribute: &str,
    what: &str,
) -> Result<Vec<T>, TableError> {
    let range = SortKey::Between(format!("{from}#"), format!("{to}#\u{10FFFF}"));
    let mut query = Query::new(partition, range).limit(500);
    let mut found = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            let json = item.s(attribute).unwrap_or_default();
            let document = serde_json::from_str(json).map_err(|e| {
                TableError::Unavailable(format!("unreadable {what} {}: {e}", item.key))
            })?;
            found.push(document);
        }
        match page.next {
            Some(next) => query.cursor = Some(next),
            None => return Ok(found),
        }
    }
}
