//! The book of expenses (received invoices): add (typed, from extraction's
//! fields, or from an e-invoice read exactly), list, read, correct and
//! delete, each change kept in the expense's history with an
//! `expense.created` / `expense.updated` / `expense.deleted` event. The
//! same invoice (supplier, number, date) is refused a second time, naming
//! the one in the book. Test keys check everything and store nothing.

pub mod document;
pub mod import;
pub mod store;

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::app::keys::Caller;
use crate::app::outbox;
use crate::app::race;
use crate::app::uploads::UploadError;
use crate::domain::madrid;
use crate::expense::input::foreign_currency;
use crate::expense::{Category, Entry, Expense, ExpenseFields, Source, Status};
use crate::ports::Ports;
use crate::ports::blobs::BlobError;
use crate::ports::table::{Cursor, Item, Key, Query, TableError, Write};
use crate::webhooks::event_type::EventType;
use store::{Action, Stored};

#[derive(Debug)]
pub enum ExpenseError {
    Invalid {
        code: &'static str,
        field: String,
        message: String,
    },
    NotFound(String),
    /// The book has this invoice already: its id.
    Duplicate(String),
    TooLarge(String),
    Upload(UploadError),
    Blobs(BlobError),
    Storage(TableError),
}

impl From<TableError> for ExpenseError {
    fn from(e: TableError) -> Self {
        ExpenseError::Storage(e)
    }
}

impl From<UploadError> for ExpenseError {
    fn from(e: UploadError) -> Self {
        ExpenseError::Upload(e)
    }
}

impl From<BlobError> for ExpenseError {
    fn from(e: BlobError) -> Self {
        ExpenseError::Blobs(e)
    }
}

fn not_found(id: &str) -> ExpenseError {
    ExpenseError::NotFound(id.to_string())
}

/// The fields of the request in their layers (document, extraction, typed),
/// checked; where they came from.
async fn checked(
    ports: &Ports,
    mut fields: ExpenseFields,
    under: ExpenseFields,
    einvoice: Option<&crate::extraction::Fields>,
    source: Source,
) -> Result<(Entry, Source), ExpenseError> {
    let mut merged = under;
    let mut source = source;
    if let Some(read) = einvoice {
        merged = merged.overlay(ExpenseFields::from_einvoice(read));
        source = Source::Einvoice;
    }
    if let Some(extracted) = fields.extracted.take() {
        if let Some(currency) = foreign_currency(&extracted) {
            return Err(ExpenseError::Invalid {
                code: "parameter_invalid",
                field: "extracted.currency".into(),
                message: format!("the book keeps euros; this invoice is in {currency}"),
            });
        }
        merged = merged.overlay(ExpenseFields::from_extracted(&extracted));
        source = Source::Extraction;
    }
    let today = madrid::date(ports.clock.now());
    let entry = Entry::parse(merged.overlay(fields), today).map_err(|e| ExpenseError::Invalid {
        code: "parameter_invalid",
        field: e.field,
        message: e.message,
    })?;
    Ok((entry, source))
}

fn event(caller: &Caller, kind: EventType, data: serde_json::Value, e: &Expense) -> Write {
    outbox::record(&caller.account_id, caller.mode, kind, data, e.updated_at)
}

/// The id of the expense in the book with this supplier, number and date.
async fn holder(
    ports: &Ports,
    caller: &Caller,
    duplicate_key: &str,
) -> Result<Option<String>, ExpenseError> {
    let index = ports
        .table
        .get(&store::duplicate_index(&caller.account_id, duplicate_key))
        .await?;
    Ok(index.and_then(|i| i.s("expense_id").map(str::to_string)))
}

/// The new expense and the writes that keep it (with a live key; a test
/// key's only write is its event). Its document, if any, is stored first.
pub async fn create(
    ports: &Ports,
    caller: &Caller,
    mut fields: ExpenseFields,
) -> Result<(Expense, Vec<Write>), ExpenseError> {
    let received = match fields.document.take() {
        Some(input) => Some(document::receive(ports, caller, input).await?),
        None => None,
    };
    let einvoice = received.as_ref().and_then(|r| r.einvoice.as_ref());
    let (entry, source) = checked(
        ports,
        fields,
        ExpenseFields::default(),
        einvoice,
        Source::Typed,
    )
    .await?;
    create_checked(ports, caller, entry, source, received).await
}

/// Adds an expense whose fields are checked already (an import from the AEAT).
pub async fn create_checked(
    ports: &Ports,
    caller: &Caller,
    entry: Entry,
    source: Source,
    received: Option<document::Received>,
) -> Result<(Expense, Vec<Write>), ExpenseError> {
    let now = ports.clock.now();
    let id = crate::ids::new_ordered_id("exp", now);
    let (bytes, doc) = match received {
        Some(r) => (Some(r.bytes), Some(r.document)),
        None => (None, None),
    };
    let expense = Expense {
        id,
        object: "expense".into(),
        livemode: caller.mode.is_live(),
        source,
        entry,
        document: doc,
        created_at: now,
        updated_at: now,
    };
    let created = event(
        caller,
        EventType::ExpenseCreated,
        json!({ "object": expense }),
        &expense,
    );
    if !caller.mode.is_live() {
        return Ok((expense, vec![created]));
    }
    if let Some(existing) = holder(ports, caller, &expense.duplicate_key()).await? {
        return Err(ExpenseError::Duplicate(existing));
    }
    if let Some(bytes) = bytes {
        document::keep(ports, &caller.account_id, &expense.id, bytes).await?;
    }
    let mut writes = store::put(&caller.account_id, &expense, None);
    writes.push(store::record_history(
        &caller.account_id,
        &expense,
        Action::Created,
        1,
        now,
    ));
    writes.push(created);
    Ok((expense, writes))
}

async fn read(ports: &Ports, caller: &Caller, id: &str) -> Result<Stored, ExpenseError> {
    if !caller.mode.is_live() {
        return Err(not_found(id));
    }
    let pointer = ports
        .table
        .get(&store::pointer_key(&caller.account_id, id))
        .await?
        .ok_or_else(|| not_found(id))?;
    let at = pointer.s("at").unwrap_or_default();
    let item = ports
        .table
        .get(&Key::new(store::book(&caller.account_id), at))
        .await?
        .ok_or_else(|| not_found(id))?;
    Ok(store::decode(&item)?)
}

pub async fn get(ports: &Ports, caller: &Caller, id: &str) -> Result<Expense, ExpenseError> {
    Ok(read(ports, caller, id).await?.expense)
}

/// The filters of a list.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// A tax id or a part of the name, in lower case: it matches a tax id
    /// exactly and a name in any case.
    pub supplier: Option<String>,
    pub category: Option<Category>,
    pub status: Option<Status>,
}

impl Filters {
    fn keeps(&self, e: &Expense) -> bool {
        let supplier = self.supplier.as_deref().is_none_or(|s| {
            e.entry.supplier.tax_id.eq_ignore_ascii_case(s)
                || e.entry.supplier.name.to_lowercase().contains(s)
        });
        supplier
            && self.category.is_none_or(|c| c == e.entry.category)
            && self.status.is_none_or(|s| s == e.entry.status)
    }
}

/// Expenses, newest issue date first, after the expense `starting_after`.
pub async fn list(
    ports: &Ports,
    caller: &Caller,
    filters: &Filters,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<Expense>, bool), ExpenseError> {
    if !caller.mode.is_live() {
        return Ok((Vec::new(), false));
    }
    let cursor = match starting_after {
        Some(id) => Some(Cursor::from_token(&store::place(
            &get(ports, caller, id).await?,
        ))),
        None => None,
    };
    let mut query = Query::new(
        store::book(&caller.account_id),
        store::dated(filters.from, filters.to),
    )
    .backward()
    .limit(limit + 1)
    .after(cursor);
    let mut found = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            let e = store::decode(item)?.expense;
            if filters.keeps(&e) {
                found.push(e);
            }
        }
        match page.next {
            Some(next) if found.len() <= limit => query = query.after(Some(next)),
            _ => break,
        }
    }
    let has_more = found.len() > limit;
    found.truncate(limit);
    Ok((found, has_more))
}

/// Every confirmed and draft expense dated from `from` to `to` (issue date), oldest first.
pub async fn between(
    ports: &Ports,
    caller: &Caller,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<Expense>, TableError> {
    if !caller.mode.is_live() {
        return Ok(Vec::new());
    }
    let mut query = Query::new(
        store::book(&caller.account_id),
        store::dated(Some(from), Some(to)),
    )
    .limit(500);
    let mut found = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            found.push(store::decode(item)?.expense);
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(found),
        }
    }
}

/// How many times an update that lost a race is read and applied again.
const ATTEMPTS: u32 = 10;

/// Applies the fields sent (a new document replaces the kept one; an
/// e-invoice's fields go under the typed ones) and commits, with its
/// history entry and `expense.updated`. IRPF and the total are computed
/// again when the lines, the IRPF rate or the treatment change and they
/// are not sent.
pub async fn update(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    mut fields: ExpenseFields,
) -> Result<Expense, ExpenseError> {
    let current = read(ports, caller, id).await?;
    let received = match fields.document.take() {
        Some(input) => Some(document::receive(ports, caller, input).await?),
        None => None,
    };
    let mut kept = false;
    for attempt in 0..ATTEMPTS {
        let current = if attempt == 0 {
            Stored {
                expense: current.expense.clone(),
                version: current.version,
            }
        } else {
            read(ports, caller, id).await?
        };
        let mut under = ExpenseFields::from_expense(&current.expense);
        if fields.changes_amounts() {
            under.irpf_amount = None;
            under.total = None;
        }
        let (entry, source) = checked(
            ports,
            fields.clone(),
            under,
            received.as_ref().and_then(|r| r.einvoice.as_ref()),
            current.expense.source,
        )
        .await?;
        let now = ports.clock.now();
        let prior = &current.expense;
        let updated = Expense {
            id: prior.id.clone(),
            object: prior.object.clone(),
            livemode: true,
            source,
            entry,
            document: received
                .as_ref()
                .map(|r| r.document.clone())
                .or(prior.document.clone()),
            created_at: prior.created_at,
            updated_at: now,
        };
        if updated.duplicate_key() != prior.duplicate_key()
            && let Some(existing) = holder(ports, caller, &updated.duplicate_key()).await?
        {
            return Err(ExpenseError::Duplicate(existing));
        }
        if let (Some(r), false) = (&received, kept) {
            document::keep(ports, &caller.account_id, id, r.bytes.clone()).await?;
            kept = true;
        }
        let mut writes = store::put(&caller.account_id, &updated, Some(&current));
        writes.push(store::record_history(
            &caller.account_id,
            &updated,
            Action::Updated,
            current.version + 1,
            now,
        ));
        writes.push(event(
            caller,
            EventType::ExpenseUpdated,
            json!({ "object": updated, "previous_attributes": changed(prior, &updated) }),
            &updated,
        ));
        match ports.table.transact(writes).await {
            Ok(()) => return Ok(updated),
            Err(TableError::ConditionFailed { .. }) => race::pause(attempt).await,
            Err(e) => return Err(e.into()),
        }
    }
    Err(TableError::Conflict.into())
}

/// The top-level fields of `before` that `after` changed, with their old values.
fn changed(before: &Expense, after: &Expense) -> serde_json::Value {
    let (serde_json::Value::Object(before), serde_json::Value::Object(after)) =
        (json!(before), json!(after))
    else {
        return json!({});
    };
    let old: serde_json::Map<String, serde_json::Value> = before
        .into_iter()
        .filter(|(k, v)| k != "updated_at" && after.get(k) != Some(v))
        .collect();
    serde_json::Value::Object(old)
}

/// Removes the expense and its document; its history stays.
pub async fn delete(ports: &Ports, caller: &Caller, id: &str) -> Result<Expense, ExpenseError> {
    for attempt in 0..ATTEMPTS {
        let current = read(ports, caller, id).await?;
        let now = ports.clock.now();
        let mut gone = current.expense.clone();
        gone.updated_at = now;
        let mut writes = store::remove(&caller.account_id, &current);
        writes.push(store::record_history(
            &caller.account_id,
            &gone,
            Action::Deleted,
            current.version + 1,
            now,
        ));
        writes.push(event(
            caller,
            EventType::ExpenseDeleted,
            json!({ "object": gone }),
            &gone,
        ));
        match ports.table.transact(writes).await {
            Ok(()) => {
                if gone.document.is_some() {
                    document::forget(ports, &caller.account_id, id).await;
                }
                return Ok(gone);
            }
            Err(TableError::ConditionFailed { .. }) => race::pause(attempt).await,
            Err(e) => return Err(e.into()),
        }
    }
    Err(TableError::Conflict.into())
}

/// One version of an expense, as written.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ExpenseVersion)]
pub struct Version {
    pub action: Action,
    pub at: String,
    pub expense: Expense,
}

/// Every version of an expense, oldest first; also after its deletion.
pub async fn history(
    ports: &Ports,
    caller: &Caller,
    id: &str,
) -> Result<Vec<Version>, ExpenseError> {
    if !caller.mode.is_live() {
        return Err(not_found(id));
    }
    let mut query = Query::new(
        store::history(&caller.account_id, id),
        crate::ports::table::SortKey::All,
    )
    .limit(100);
    let mut versions = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            versions.push(version(item)?);
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => break,
        }
    }
    if versions.is_empty() {
        return Err(not_found(id));
    }
    Ok(versions)
}

fn version(item: &Item) -> Result<Version, TableError> {
    let unreadable = |what: &str| {
        TableError::Unavailable(format!("unreadable expense history {}: {what}", item.key))
    };
    let action = serde_json::from_value(json!(item.s("action").unwrap_or_default()))
        .map_err(|e| unreadable(&e.to_string()))?;
    let expense = serde_json::from_str(item.s("doc").unwrap_or_default())
        .map_err(|e| unreadable(&e.to_string()))?;
    Ok(Version {
        action,
        at: item.s("at").unwrap_or_default().to_string(),
        expense,
    })
}

/// The kept document of an expense: its description and bytes.
pub async fn document(
    ports: &Ports,
    caller: &Caller,
    id: &str,
) -> Result<(crate::expense::Document, Vec<u8>), ExpenseError> {
    let expense = get(ports, caller, id).await?;
    let doc = expense
        .document
        .ok_or_else(|| ExpenseError::NotFound(format!("{id} has no document")))?;
    let bytes = document::read(ports, &caller.account_id, id)
        .await?
        .ok_or_else(|| ExpenseError::NotFound(format!("the document of {id}")))?;
    Ok((doc, bytes))
}
