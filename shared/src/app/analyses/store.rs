//! Where live analyses live in the table, per account: a small summary item
//! that lists scan and the item with the whole resource that reads fetch, both
//! under the analysis id. Ids sort by creation time, so a date range is a
//! range of sort keys.

use super::AnalysesError;
use super::model::AnalysisSummary;
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::table::{Condition, Cursor, Item, Key, Query, SortKey, TableError, Write};

/// What an analysis id starts with.
pub const ID_PREFIX: &str = "an";
/// The largest stored analysis (its JSON). An idempotency record keeps the
/// response in base64 (4/3 of it), and that must stay under DynamoDB's
/// 400 KB item limit too.
pub const MAX_RESOURCE_BYTES: usize = 256 * 1024;

fn space(caller: &Caller) -> String {
    format!("{}#{}", caller.account_id, caller.mode.as_str())
}

fn summaries_pk(caller: &Caller) -> String {
    format!("ANALYSES#{}", space(caller))
}

fn resource_key(caller: &Caller, id: &str) -> Key {
    Key::new(format!("ANALYSIS#{}", space(caller)), id)
}

/// Whether `s` has the shape of an analysis id (`an_` and 28 hex digits).
pub fn is_id(s: &str) -> bool {
    s.strip_prefix(ID_PREFIX)
        .and_then(|t| t.strip_prefix('_'))
        .is_some_and(|t| t.len() == 28 && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The writes that store a new analysis: its resource (JSON) and its summary.
pub fn insert(caller: &Caller, resource_json: String, summary: &AnalysisSummary) -> [Write; 2] {
    let summary_json = serde_json::to_string(summary).expect("summaries serialise");
    [
        Write::Put {
            item: Item::new(resource_key(caller, &summary.id)).with("doc", resource_json),
            condition: Some(Condition::Absent),
        },
        Write::Put {
            item: Item::new(Key::new(summaries_pk(caller), summary.id.clone()))
                .with("doc", summary_json),
            condition: Some(Condition::Absent),
        },
    ]
}

/// The stored resource (JSON), if the caller's space has it.
pub async fn resource(
    ports: &Ports,
    caller: &Caller,
    id: &str,
) -> Result<Option<String>, AnalysesError> {
    let item = ports.table.get(&resource_key(caller, id)).await?;
    Ok(item.and_then(|i| i.s("doc").map(str::to_string)))
}

fn decode(item: &Item) -> Result<AnalysisSummary, AnalysesError> {
    serde_json::from_str(item.s("doc").unwrap_or_default()).map_err(|e| {
        AnalysesError::Storage(TableError::Unavailable(format!(
            "unreadable analysis {}: {e}",
            item.key
        )))
    })
}

/// One page of summaries with ids in `range` (inclusive), newest first,
/// after the id `cursor`; and where the next page starts.
pub async fn page(
    ports: &Ports,
    caller: &Caller,
    range: (&str, &str),
    cursor: Option<String>,
) -> Result<(Vec<AnalysisSummary>, Option<String>), AnalysesError> {
    let query = Query::new(
        summaries_pk(caller),
        SortKey::Between(range.0.to_string(), range.1.to_string()),
    )
    .backward()
    .limit(100)
    .after(cursor.as_deref().map(Cursor::from_token));
    let page = ports.table.query(&query).await?;
    let summaries = page.items.iter().map(decode).collect::<Result<_, _>>()?;
    Ok((summaries, page.next.map(|c| c.as_str().to_string())))
}
