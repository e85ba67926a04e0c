//! The DynamoDB engine of the `Table` port. It behaves as the embedded engine:
//! an item whose `ttl` is at or before the engine's clock reads as absent in
//! every read and every condition, whether or not DynamoDB has deleted it yet.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::client::Waiters;
use aws_sdk_dynamodb::error::{BuildError, DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, CancellationReason, ConditionCheck, Delete,
    KeySchemaElement, KeyType, Put, ReturnValue, ReturnValuesOnConditionCheckFailure,
    ScalarAttributeType, StreamSpecification, StreamViewType, TimeToLiveSpecification,
    TimeToLiveStatus, TransactWriteItem, Update,
};
use shared::ports::Clock;
use shared::ports::table::{
    Condition, Cursor, Item, Key, Page, Query, SortKey, TTL, Table, TableError, UpdateOp, Value,
    Write, validate_item, validate_query, validate_transaction, validate_update,
};

// The table's definition; `template.yaml` declares the same.
pub const PARTITION_KEY: &str = "pk";
pub const SORT_KEY: &str = "sk";
/// The DynamoDB type of both key attributes: string.
pub const KEY_ATTRIBUTE_TYPE: &str = "S";
pub const BILLING_MODE: &str = "PAY_PER_REQUEST";
pub const TTL_ATTRIBUTE: &str = TTL;
/// The table's stream carries each changed item as it is after the change:
/// what the `dispatcher` function needs of a created event or job.
pub const STREAM_VIEW_TYPE: &str = "NEW_IMAGE";

/// DynamoDB attribute values by name (or by placeholder).
type Attrs = HashMap<String, AttributeValue>;
/// Attribute names by placeholder (or placeholders by name).
type Names = HashMap<String, String>;

const TABLE_ACTIVE_WAIT: Duration = Duration::from_secs(300);
/// Attempts of a write that keeps meeting expired items not yet deleted by DynamoDB.
const MAX_ATTEMPTS: usize = 5;

pub struct DynamoTable {
    client: Client,
    name: String,
    clock: Arc<dyn Clock>,
}

impl DynamoTable {
    /// A table reached through the SDK's standard configuration (credentials,
    /// `AWS_REGION`, `AWS_ENDPOINT_URL[_DYNAMODB]`; see
    /// `sdk::require_region`).
    pub async fn from_env(table_name: &str, clock: Arc<dyn Clock>) -> DynamoTable {
        let config = crate::sdk::config().await;
        DynamoTable::new(Client::new(&config), table_name, clock)
    }

    pub fn new(
        client: Client,
        table_name: impl Into<String>,
        clock: Arc<dyn Clock>,
    ) -> DynamoTable {
        DynamoTable {
            client,
            name: table_name.into(),
            clock,
        }
    }

    /// Creates the table unless it exists, waits until it is active and
    /// enables TTL and the stream.
    pub async fn create_table(&self) -> Result<(), TableError> {
        let created = self
            .client
            .create_table()
            .table_name(&self.name)
            .attribute_definitions(key_attribute(PARTITION_KEY)?)
            .attribute_definitions(key_attribute(SORT_KEY)?)
            .key_schema(key_element(PARTITION_KEY, KeyType::Hash)?)
            .key_schema(key_element(SORT_KEY, KeyType::Range)?)
            .billing_mode(BillingMode::from(BILLING_MODE))
            .stream_specification(stream_specification()?)
            .send()
            .await;
        if let Err(err) = created
            && err.code() != Some("ResourceInUseException")
        {
            return Err(sdk_error(err));
        }
        self.client
            .wait_until_table_exists()
            .table_name(&self.name)
            .wait(TABLE_ACTIVE_WAIT)
            .await
            .map_err(|err| TableError::Unavailable(DisplayErrorContext(&err).to_string()))?;
        self.enable_stream().await?;
        self.enable_ttl().await
    }

    /// Turns the stream on for a table created without it.
    async fn enable_stream(&self) -> Result<(), TableError> {
        let described = self
            .client
            .describe_table()
            .table_name(&self.name)
            .send()
            .await
            .map_err(sdk_error)?;
        let enabled = described
            .table()
            .and_then(|t| t.stream_specification())
            .is_some_and(|s| s.stream_enabled());
        if enabled {
            return Ok(());
        }
        self.client
            .update_table()
            .table_name(&self.name)
            .stream_specification(stream_specification()?)
            .send()
            .await
            .map_err(sdk_error)?;
        self.client
            .wait_until_table_exists()
            .table_name(&self.name)
            .wait(TABLE_ACTIVE_WAIT)
            .await
            .map_err(|err| TableError::Unavailable(DisplayErrorContext(&err).to_string()))?;
        Ok(())
    }

    async fn enable_ttl(&self) -> Result<(), TableError> {
        let described = self
            .client
            .describe_time_to_live()
            .table_name(&self.name)
            .send()
            .await
            .map_err(sdk_error)?;
        let status = described
            .time_to_live_description()
            .and_then(|d| d.time_to_live_status());
        if matches!(
            status,
            Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling)
        ) {
            return Ok(());
        }
        let spec = TimeToLiveSpecification::builder()
            .enabled(true)
            .attribute_name(TTL_ATTRIBUTE)
            .build()
            .map_err(build_error)?;
        self.client
            .update_time_to_live()
            .table_name(&self.name)
            .time_to_live_specification(spec)
            .send()
            .await
            .map_err(sdk_error)?;
        Ok(())
    }

    fn now(&self) -> i64 {
        self.clock.now().timestamp()
    }

    /// Deletes an expired item, unless it changed since it was read.
    async fn purge(&self, key: &Key, ttl: i64) -> Result<(), TableError> {
        let deleted = self
            .client
            .delete_item()
            .table_name(&self.name)
            .set_key(Some(key_attrs(key)))
            .condition_expression("#ttl = :ttl")
            .expression_attribute_names("#ttl", TTL)
            .expression_attribute_values(":ttl", AttributeValue::N(ttl.to_string()))
            .send()
            .await;
        match deleted {
            Err(err) if err.code() != Some("ConditionalCheckFailedException") => {
                Err(sdk_error(err))
            }
            _ => Ok(()),
        }
    }

    async fn purge_all(&self, stale: &[(Key, i64)]) -> Result<(), TableError> {
        for (key, ttl) in stale {
            self.purge(key, *ttl).await?;
        }
        Ok(())
    }

    async fn try_update(&self, write: &Write, now: i64) -> Result<Attempt<Item>, TableError> {
        let key = write.key();
        let e = write_expressions(write, now);
        let updated = self
            .client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(key_attrs(key)))
            .set_update_expression(e.update)
            .set_condition_expression(e.condition)
            .set_expression_attribute_names(e.names)
            .set_expression_attribute_values(e.values)
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        let err = match updated {
            Ok(out) => {
                let item = out
                    .attributes()
                    .ok_or_else(|| TableError::Unavailable("update returned no item".into()))?;
                return decode(item).map(Attempt::Done);
            }
            Err(err) => err,
        };
        let Some(UpdateItemError::ConditionalCheckFailedException(failed)) = err.as_service_error()
        else {
            return Err(sdk_error(err));
        };
        let old = failed.item().map(decode).transpose()?;
        match stale_ttl(write, old.as_ref(), now) {
            Some(ttl) => Ok(Attempt::Purge(vec![(key.clone(), ttl)])),
            None => Err(condition_failed(None, key)),
        }
    }

    async fn try_transact(&self, writes: &[Write], now: i64) -> Result<Attempt<()>, TableError> {
        let items = writes
            .iter()
            .map(|w| self.transact_item(w, now))
            .collect::<Result<Vec<_>, _>>()?;
        let sent = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .await;
        let err = match sent {
            Ok(_) => return Ok(Attempt::Done(())),
            Err(err) => err,
        };
        match err.as_service_error() {
            Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                cancellation(writes, cancelled.cancellation_reasons(), now).map(Attempt::Purge)
            }
            _ => Err(sdk_error(err)),
        }
    }

    fn transact_item(&self, write: &Write, now: i64) -> Result<TransactWriteItem, TableError> {
        let e = write_expressions(write, now);
        let old = ReturnValuesOnConditionCheckFailure::AllOld;
        let item = TransactWriteItem::builder();
        let item = match write {
            Write::Put { item: put, .. } => item.put(
                Put::builder()
                    .table_name(&self.name)
                    .set_item(Some(encode(put)))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .return_values_on_condition_check_failure(old)
                    .build()
                    .map_err(build_error)?,
            ),
            Write::Update { key, .. } => item.update(
                Update::builder()
                    .table_name(&self.name)
                    .set_key(Some(key_attrs(key)))
                    .set_update_expression(e.update)
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .return_values_on_condition_check_failure(old)
                    .build()
                    .map_err(build_error)?,
            ),
            Write::Delete { key, .. } => item.delete(
                Delete::builder()
                    .table_name(&self.name)
                    .set_key(Some(key_attrs(key)))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .return_values_on_condition_check_failure(old)
                    .build()
                    .map_err(build_error)?,
            ),
            Write::Check { key, .. } => item.condition_check(
                ConditionCheck::builder()
                    .table_name(&self.name)
                    .set_key(Some(key_attrs(key)))
                    .set_condition_expression(e.condition)
                    .set_expression_attribute_names(e.names)
                    .set_expression_attribute_values(e.values)
                    .return_values_on_condition_check_failure(old)
                    .build()
                    .map_err(build_error)?,
            ),
        };
        Ok(item.build())
    }
}

/// The outcome of one try of a write: done, or blocked by expired items that
/// must be deleted before trying again.
enum Attempt<T> {
    Done(T),
    Purge(Vec<(Key, i64)>),
}

#[async_trait]
impl Table for DynamoTable {
    async fn get(&self, key: &Key) -> Result<Option<Item>, TableError> {
        // DynamoDB rejects empty key parts, and no item can have one.
        if has_empty_part(key) {
            return Ok(None);
        }
        let out = self
            .client
            .get_item()
            .table_name(&self.name)
            .set_key(Some(key_attrs(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk_error)?;
        let item = out.item().map(decode).transpose()?;
        Ok(item.filter(|i| i.is_live(self.now())))
    }

    async fn query(&self, query: &Query) -> Result<Page, TableError> {
        validate_query(query)?;
        let mut expr = Expr::new(self.now());
        let Some(key_condition) = expr.key_condition(query) else {
            return Ok(Page::default());
        };
        let filter = expr.live();
        let limit = i32::try_from(query.limit)
            .map_err(|_| TableError::Invalid("query limit out of range".into()))?;
        let start = query
            .cursor
            .as_ref()
            .map(|c| key_attrs(&Key::new(query.pk.clone(), c.as_str())));
        let (names, values) = expr.finish();
        let out = self
            .client
            .query()
            .table_name(&self.name)
            .key_condition_expression(key_condition)
            .filter_expression(filter)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .scan_index_forward(query.forward)
            .limit(limit)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(sdk_error)?;
        let items = out.items().iter().map(decode).collect::<Result<_, _>>()?;
        let next = out
            .last_evaluated_key()
            .map(|k| string_attr(k, SORT_KEY))
            .transpose()?
            .map(|sk| Cursor::from_token(&sk));
        Ok(Page { items, next })
    }

    async fn put(&self, item: Item, condition: Option<Condition>) -> Result<(), TableError> {
        validate_item(&item)?;
        let e = expressions(condition.as_ref(), None, self.now());
        self.client
            .put_item()
            .table_name(&self.name)
            .set_item(Some(encode(&item)))
            .set_condition_expression(e.condition)
            .set_expression_attribute_names(e.names)
            .set_expression_attribute_values(e.values)
            .send()
            .await
            .map_err(|err| write_error(err, &item.key))?;
        Ok(())
    }

    async fn update(
        &self,
        key: &Key,
        ops: Vec<UpdateOp>,
        condition: Option<Condition>,
    ) -> Result<Item, TableError> {
        validate_update(key, &ops)?;
        let write = Write::Update {
            key: key.clone(),
            ops,
            condition,
        };
        for _ in 0..MAX_ATTEMPTS {
            match self.try_update(&write, self.now()).await? {
                Attempt::Done(item) => return Ok(item),
                Attempt::Purge(stale) => self.purge_all(&stale).await?,
            }
        }
        Err(TableError::Conflict)
    }

    async fn delete(&self, key: &Key, condition: Option<Condition>) -> Result<(), TableError> {
        // DynamoDB rejects empty key parts, and no item can have one.
        if has_empty_part(key) {
            return match condition {
                Some(c) if !c.holds(None) => Err(condition_failed(None, key)),
                _ => Ok(()),
            };
        }
        let e = expressions(condition.as_ref(), None, self.now());
        self.client
            .delete_item()
            .table_name(&self.name)
            .set_key(Some(key_attrs(key)))
            .set_condition_expression(e.condition)
            .set_expression_attribute_names(e.names)
            .set_expression_attribute_values(e.values)
            .send()
            .await
            .map_err(|err| write_error(err, key))?;
        Ok(())
    }

    async fn transact(&self, writes: Vec<Write>) -> Result<(), TableError> {
        validate_transaction(&writes)?;
        for _ in 0..MAX_ATTEMPTS {
            match self.try_transact(&writes, self.now()).await? {
                Attempt::Done(()) => return Ok(()),
                Attempt::Purge(stale) => self.purge_all(&stale).await?,
            }
        }
        Err(TableError::Conflict)
    }

    fn bookkeeping(self: Arc<Self>) -> Arc<dyn Table> {
        self
    }
}

/// The ttl of the expired item that failed an update's liveness guard, when
/// deleting that item is all the update needs: its own condition holds on an
/// absent item. None when the failure is the write's own condition.
fn stale_ttl(write: &Write, old: Option<&Item>, now: i64) -> Option<i64> {
    let Write::Update { condition, .. } = write else {
        return None;
    };
    let ttl = old?.ttl().filter(|&t| t <= now)?;
    condition
        .as_ref()
        .is_none_or(|c| c.holds(None))
        .then_some(ttl)
}

/// Reads why a transaction was cancelled: the error to report, or the expired
/// items to delete before trying again.
fn cancellation(
    writes: &[Write],
    reasons: &[CancellationReason],
    now: i64,
) -> Result<Vec<(Key, i64)>, TableError> {
    let mut stale = Vec::new();
    let mut other = None;
    for (index, (write, reason)) in writes.iter().zip(reasons).enumerate() {
        match reason.code() {
            Some("ConditionalCheckFailed") => {
                let old = reason.item().map(decode).transpose()?;
                match stale_ttl(write, old.as_ref(), now) {
                    Some(ttl) => stale.push((write.key().clone(), ttl)),
                    None => return Err(condition_failed(Some(index), write.key())),
                }
            }
            None | Some("None") => {}
            Some(_) => other = other.or(Some(reason)),
        }
    }
    match other {
        Some(reason) => Err(reason_error(reason)),
        None if stale.is_empty() => Err(TableError::Unavailable(
            "transaction cancelled without a reason".into(),
        )),
        None => Ok(stale),
    }
}

fn reason_error(reason: &CancellationReason) -> TableError {
    let message = format!(
        "{}: {}",
        reason.code().unwrap_or_default(),
        reason.message().unwrap_or_default()
    );
    match reason.code() {
        Some("TransactionConflict") => TableError::Conflict,
        Some("ValidationError") => TableError::Invalid(message),
        _ => TableError::Unavailable(message),
    }
}

fn condition_failed(index: Option<usize>, key: &Key) -> TableError {
    TableError::ConditionFailed {
        index,
        key: key.clone(),
    }
}

fn write_error<E, R>(err: SdkError<E, R>, key: &Key) -> TableError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    if err.code() == Some("ConditionalCheckFailedException") {
        return condition_failed(None, key);
    }
    sdk_error(err)
}

fn sdk_error<E, R>(err: SdkError<E, R>) -> TableError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match err.code() {
        Some("TransactionConflictException") => TableError::Conflict,
        Some("ValidationException") => {
            TableError::Invalid(err.message().unwrap_or("validation failed").to_string())
        }
        _ => TableError::Unavailable(DisplayErrorContext(&err).to_string()),
    }
}

fn build_error(err: BuildError) -> TableError {
    TableError::Invalid(err.to_string())
}

fn unreadable(what: String) -> TableError {
    TableError::Unavailable(format!("unreadable item: {what}"))
}

fn has_empty_part(key: &Key) -> bool {
    key.pk.is_empty() || key.sk.is_empty()
}

fn key_attribute(name: &str) -> Result<AttributeDefinition, TableError> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::from(KEY_ATTRIBUTE_TYPE))
        .build()
        .map_err(build_error)
}

fn key_element(name: &str, key_type: KeyType) -> Result<KeySchemaElement, TableError> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(key_type)
        .build()
        .map_err(build_error)
}

fn stream_specification() -> Result<StreamSpecification, TableError> {
    StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::from(STREAM_VIEW_TYPE))
        .build()
        .map_err(build_error)
}

fn key_attrs(key: &Key) -> Attrs {
    HashMap::from([
        (PARTITION_KEY.to_string(), AttributeValue::S(key.pk.clone())),
        (SORT_KEY.to_string(), AttributeValue::S(key.sk.clone())),
    ])
}

fn encode(item: &Item) -> Attrs {
    let mut attrs = key_attrs(&item.key);
    attrs.extend(item.attrs.iter().map(|(k, v)| (k.clone(), to_attr(v))));
    attrs
}

/// An item from its DynamoDB attributes (as stored, or as a stream image).
pub(crate) fn decode(attrs: &Attrs) -> Result<Item, TableError> {
    let key = Key::new(
        string_attr(attrs, PARTITION_KEY)?,
        string_attr(attrs, SORT_KEY)?,
    );
    let attrs = attrs
        .iter()
        .filter(|(name, _)| *name != PARTITION_KEY && *name != SORT_KEY)
        .map(|(name, value)| Ok((name.clone(), from_attr(value)?)))
        .collect::<Result<_, TableError>>()?;
    Ok(Item { key, attrs })
}

fn string_attr(attrs: &Attrs, name: &str) -> Result<String, TableError> {
    match attrs.get(name) {
        Some(AttributeValue::S(s)) => Ok(s.clone()),
        _ => Err(unreadable(format!("no string attribute {name:?}"))),
    }
}

fn to_attr(value: &Value) -> AttributeValue {
    match value {
        Value::S(s) => AttributeValue::S(s.clone()),
        Value::N(n) => AttributeValue::N(n.to_string()),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::L(items) => AttributeValue::L(items.iter().map(to_attr).collect()),
        Value::M(map) => {
            AttributeValue::M(map.iter().map(|(k, v)| (k.clone(), to_attr(v))).collect())
        }
        Value::Null => AttributeValue::Null(true),
    }
}

fn from_attr(value: &AttributeValue) -> Result<Value, TableError> {
    Ok(match value {
        AttributeValue::S(s) => Value::S(s.clone()),
        AttributeValue::N(n) => Value::N(
            n.parse()
                .map_err(|_| unreadable(format!("number {n} is not an i64")))?,
        ),
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::L(items) => {
            Value::L(items.iter().map(from_attr).collect::<Result<_, _>>()?)
        }
        AttributeValue::M(map) => Value::M(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), from_attr(v)?)))
                .collect::<Result<_, TableError>>()?,
        ),
        AttributeValue::Null(_) => Value::Null,
        other => return Err(unreadable(format!("unsupported attribute value {other:?}"))),
    })
}

/// The expressions of one request, over the live view of its item.
struct Expressions {
    condition: Option<String>,
    update: Option<String>,
    names: Option<Names>,
    values: Option<Attrs>,
}

fn write_expressions(write: &Write, now: i64) -> Expressions {
    let ops = match write {
        Write::Update { ops, .. } => Some(ops.as_slice()),
        _ => None,
    };
    expressions(write.condition(), ops, now)
}

/// The expressions of a write with this condition and, for an update, these
/// operations. Every update is guarded by the liveness of its item, so that an
/// expired item never contributes attributes to the new one (see `stale_ttl`).
fn expressions(condition: Option<&Condition>, ops: Option<&[UpdateOp]>, now: i64) -> Expressions {
    let mut expr = Expr::new(now);
    let own = condition.map(|c| expr.condition(c));
    let (condition, update) = match ops {
        Some(ops) => {
            let live = expr.live();
            let condition = match own {
                Some(own) => format!("{live} AND {own}"),
                None => live,
            };
            (Some(condition), Some(expr.update(ops)))
        }
        None => (own, None),
    };
    let (names, values) = expr.finish();
    Expressions {
        condition,
        update,
        names,
        values,
    }
}

/// Builds expressions that refer to every attribute and value through generated
/// placeholders, and sends only the placeholders used.
struct Expr {
    now: i64,
    /// Attribute name → placeholder.
    names: Names,
    /// Placeholder → value.
    values: Attrs,
}

impl Expr {
    fn new(now: i64) -> Expr {
        Expr {
            now,
            names: HashMap::new(),
            values: HashMap::new(),
        }
    }

    fn name(&mut self, name: &str) -> String {
        let next = format!("#n{}", self.names.len());
        self.names.entry(name.to_string()).or_insert(next).clone()
    }

    fn value(&mut self, value: AttributeValue) -> String {
        let placeholder = format!(":v{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    fn now(&mut self) -> String {
        let placeholder = ":now".to_string();
        self.values
            .entry(placeholder.clone())
            .or_insert_with(|| AttributeValue::N(self.now.to_string()));
        placeholder
    }

    /// True when the item is absent or has not expired.
    fn live(&mut self) -> String {
        let ttl = self.name(TTL);
        let now = self.now();
        format!("(attribute_not_exists({ttl}) OR {ttl} > {now})")
    }

    fn present(&mut self) -> String {
        let pk = self.name(PARTITION_KEY);
        let live = self.live();
        format!("(attribute_exists({pk}) AND {live})")
    }

    fn condition(&mut self, condition: &Condition) -> String {
        match condition {
            Condition::Absent => {
                let pk = self.name(PARTITION_KEY);
                let ttl = self.name(TTL);
                let now = self.now();
                format!("(attribute_not_exists({pk}) OR {ttl} <= {now})")
            }
            Condition::Present => self.present(),
            Condition::Equals(name, value) => {
                let present = self.present();
                let name = self.name(name);
                let value = self.value(to_attr(value));
                format!("({present} AND {name} = {value})")
            }
            Condition::And(all) if all.is_empty() => {
                let pk = self.name(PARTITION_KEY);
                format!("(attribute_exists({pk}) OR attribute_not_exists({pk}))")
            }
            Condition::And(all) => {
                let parts: Vec<String> = all.iter().map(|c| self.condition(c)).collect();
                format!("({})", parts.join(" AND "))
            }
        }
    }

    fn update(&mut self, ops: &[UpdateOp]) -> String {
        let (mut set, mut add, mut remove) = (Vec::new(), Vec::new(), Vec::new());
        for op in ops {
            match op {
                UpdateOp::Set(name, value) => {
                    set.push(format!(
                        "{} = {}",
                        self.name(name),
                        self.value(to_attr(value))
                    ));
                }
                UpdateOp::Add(name, by) => {
                    let by = AttributeValue::N(by.to_string());
                    add.push(format!("{} {}", self.name(name), self.value(by)));
                }
                UpdateOp::Remove(name) => remove.push(self.name(name)),
            }
        }
        [("SET", set), ("ADD", add), ("REMOVE", remove)]
            .into_iter()
            .filter(|(_, clauses)| !clauses.is_empty())
            .map(|(action, clauses)| format!("{action} {}", clauses.join(", ")))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The key condition of a query, or None when no sort key can match.
    fn key_condition(&mut self, query: &Query) -> Option<String> {
        let pk = self.name(PARTITION_KEY);
        let pk_value = self.value(AttributeValue::S(query.pk.clone()));
        let on_pk = format!("{pk} = {pk_value}");
        let on_sk = match &query.sk {
            SortKey::All => return Some(on_pk),
            SortKey::Prefix(prefix) if prefix.is_empty() => return Some(on_pk),
            SortKey::Prefix(prefix) => {
                let sk = self.name(SORT_KEY);
                format!(
                    "begins_with({sk}, {})",
                    self.value(AttributeValue::S(prefix.clone()))
                )
            }
            // Sort keys are never empty; DynamoDB rejects empty bounds and inverted ranges.
            SortKey::Between(low, high) if low > high || high.is_empty() => return None,
            SortKey::Between(low, high) if low.is_empty() => {
                let sk = self.name(SORT_KEY);
                format!("{sk} <= {}", self.value(AttributeValue::S(high.clone())))
            }
            SortKey::Between(low, high) => {
                let sk = self.name(SORT_KEY);
                let low = self.value(AttributeValue::S(low.clone()));
                let high = self.value(AttributeValue::S(high.clone()));
                format!("{sk} BETWEEN {low} AND {high}")
            }
        };
        Some(format!("{on_pk} AND {on_sk}"))
    }

    /// The placeholder maps, None when empty (DynamoDB rejects empty maps).
    fn finish(self) -> (Option<Names>, Option<Attrs>) {
        let names: Names = self.names.into_iter().map(|(name, p)| (p, name)).collect();
        let names = (!names.is_empty()).then_some(names);
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholders_used(e: &Expressions) -> bool {
        let text = [&e.condition, &e.update]
            .into_iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        let names = e.names.iter().flat_map(|m| m.keys());
        let values = e.values.iter().flat_map(|m| m.keys());
        names.chain(values).all(|p| text.contains(p.as_str()))
    }

    #[test]
    fn expressions_send_only_the_placeholders_they_use() {
        let key = Key::new("p", "s");
        let writes = [
            Write::Put {
                item: Item::new(key.clone()),
                condition: None,
            },
            Write::Delete {
                key: key.clone(),
                condition: Some(Condition::And(vec![
                    Condition::equals("a", 1),
                    Condition::equals("a", 1),
                ])),
            },
            Write::Update {
                key: key.clone(),
                ops: vec![
                    UpdateOp::add("n", 1),
                    UpdateOp::set("ttl", 5),
                    UpdateOp::Remove("r".into()),
                ],
                condition: Some(Condition::Absent),
            },
        ];
        let all: Vec<Expressions> = writes.iter().map(|w| write_expressions(w, 7)).collect();
        assert!(all.iter().all(placeholders_used));
        assert!(all[0].names.is_none() && all[0].values.is_none());
        assert_eq!(
            all[2].update.as_deref(),
            Some("SET #n1 = :v2 ADD #n2 :v1 REMOVE #n3")
        );
    }

    #[test]
    fn values_round_trip_through_attribute_values() {
        let item = Item::new(Key::new("p", "s"))
            .with("s", "x")
            .with("n", i64::MIN)
            .with("b", false)
            .with("l", Value::L(vec![Value::Null, Value::N(1)]))
            .with(
                "m",
                Value::M([("k".to_string(), Value::S("v".into()))].into()),
            );
        assert_eq!(decode(&encode(&item)), Ok(item));
    }

    #[test]
    fn only_an_expired_item_blocking_an_update_is_stale() {
        let key = Key::new("p", "s");
        let update = |condition| Write::Update {
            key: key.clone(),
            ops: vec![UpdateOp::add("n", 1)],
            condition,
        };
        let expired = Item::new(key.clone()).with(TTL, 10);
        assert_eq!(stale_ttl(&update(None), Some(&expired), 10), Some(10));
        assert_eq!(
            stale_ttl(&update(Some(Condition::Absent)), Some(&expired), 10),
            Some(10)
        );
        assert_eq!(
            stale_ttl(&update(Some(Condition::Present)), Some(&expired), 10),
            None
        );
        assert_eq!(stale_ttl(&update(None), Some(&expired), 9), None);
        assert_eq!(stale_ttl(&update(None), None, 10), None);
        let put = Write::Put {
            item: expired.clone(),
            condition: None,
        };
        assert_eq!(stale_ttl(&put, Some(&expired), 10), None);
    }

    #[test]
    fn impossible_ranges_skip_the_request() {
        let mut expr = Expr::new(0);
        let query = |sk| Query::new("p", sk);
        assert!(
            expr.key_condition(&query(SortKey::Between("b".into(), "a".into())))
                .is_none()
        );
        assert!(
            expr.key_condition(&query(SortKey::Between(String::new(), String::new())))
                .is_none()
        );
        assert!(
            expr.key_condition(&query(SortKey::Prefix(String::new())))
                .is_some()
        );
    }
}
