//! The customer address book, per account and mode. A tax id is unique in it:
//! an index item per tax id makes a second customer with the same one fail.
//! Invoices keep their own copy of the customer, so edits and deletions here
//! never change an issued invoice.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::app::keys::Caller;
use crate::app::race;
use crate::invoice::party::{Party, PartyError, PartyInput};
use crate::ports::Ports;
use crate::ports::table::{Condition, Cursor, Item, Key, Query, SortKey, TableError, Write};

/// Customer fields as sent: all of them on create (name required), any of them on update.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
    "postal_code": "10003", "city": "Cáceres", "email": "facturas@tallerana.es"}))]
pub struct CustomerFields {
    /// Up to 120 characters.
    pub name: Option<String>,
    /// Spanish NIF/NIE/CIF (checked) when `country` is ES, else the foreign tax id.
    pub tax_id: Option<String>,
    pub address: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    /// ISO 3166-1 alpha-2; default ES.
    pub country: Option<String>,
    pub email: Option<String>,
}

impl CustomerFields {
    pub fn into_input(self) -> PartyInput {
        PartyInput {
            name: self.name,
            tax_id: self.tax_id,
            address: self.address,
            postal_code: self.postal_code,
            city: self.city,
            country: self.country,
            email: self.email,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(example = json!({"id": "cus_019aa3b7c2e41f0c2a9d8e7b", "object": "customer", "name": "Taller Ana SL",
    "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres", "country": "ES",
    "email": "facturas@tallerana.es", "livemode": true, "created_at": "2026-11-21T10:00:00Z"}))]
pub struct Customer {
    pub id: String,
    pub object: String,
    pub name: String,
    pub tax_id: Option<String>,
    pub address: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    pub country: String,
    pub email: Option<String>,
    pub livemode: bool,
    pub created_at: DateTime<Utc>,
}

impl Customer {
    pub fn party(&self) -> Party {
        Party {
            name: self.name.clone(),
            tax_id: self.tax_id.clone(),
            address: self.address.clone(),
            postal_code: self.postal_code.clone(),
            city: self.city.clone(),
            country: self.country.clone(),
            email: self.email.clone(),
        }
    }
}

#[derive(Debug)]
pub enum CustomerError {
    Invalid(PartyError),
    NotFound(String),
    /// Another customer has this tax id; its id.
    Duplicate(String),
    Storage(TableError),
}

impl From<TableError> for CustomerError {
    fn from(e: TableError) -> Self {
        CustomerError::Storage(e)
    }
}

fn space(caller: &Caller) -> String {
    format!("{}#{}", caller.account_id, caller.mode.as_str())
}

fn customer_key(caller: &Caller, id: &str) -> Key {
    Key::new(format!("CUSTOMERS#{}", space(caller)), id)
}

fn tax_index_key(caller: &Caller, tax_key: &str) -> Key {
    Key::new(format!("CUSTAX#{}", space(caller)), tax_key)
}

fn put_customer(caller: &Caller, c: &Customer, condition: Condition) -> Write {
    let json = serde_json::to_string(c).expect("customers serialise");
    Write::Put {
        item: Item::new(customer_key(caller, &c.id)).with("doc", json),
        condition: Some(condition),
    }
}

fn decode(item: &Item) -> Result<Customer, CustomerError> {
    serde_json::from_str(item.s("doc").unwrap_or_default()).map_err(|e| {
        CustomerError::Storage(TableError::Unavailable(format!(
            "unreadable customer {}: {e}",
            item.key
        )))
    })
}

async fn holder_of(
    ports: &Ports,
    caller: &Caller,
    party: &Party,
) -> Result<Option<String>, CustomerError> {
    let Some(tax_key) = party.tax_key() else {
        return Ok(None);
    };
    let index = ports.table.get(&tax_index_key(caller, &tax_key)).await?;
    Ok(index.and_then(|i| i.s("customer_id").map(str::to_string)))
}

fn view(id: String, party: Party, caller: &Caller, created_at: DateTime<Utc>) -> Customer {
    Customer {
        id,
        object: "customer".into(),
        name: party.name,
        tax_id: party.tax_id,
        address: party.address,
        postal_code: party.postal_code,
        city: party.city,
        country: party.country,
        email: party.email,
        livemode: caller.mode.is_live(),
        created_at,
    }
}

/// The new customer and the writes that store it.
pub async fn create(
    ports: &Ports,
    caller: &Caller,
    fields: CustomerFields,
) -> Result<(Customer, Vec<Write>), CustomerError> {
    let party = Party::parse(fields.into_input()).map_err(CustomerError::Invalid)?;
    if let Some(existing) = holder_of(ports, caller, &party).await? {
        return Err(CustomerError::Duplicate(existing));
    }
    let now = ports.clock.now();
    let id = crate::ids::new_ordered_id("cus", now);
    let tax_key = party.tax_key();
    let customer = view(id.clone(), party, caller, now);
    let mut writes = vec![put_customer(caller, &customer, Condition::Absent)];
    if let Some(tax_key) = tax_key {
        writes.push(Write::Put {
            item: Item::new(tax_index_key(caller, &tax_key)).with("customer_id", id),
            condition: Some(Condition::Absent),
        });
    }
    Ok((customer, writes))
}

pub async fn get(ports: &Ports, caller: &Caller, id: &str) -> Result<Customer, CustomerError> {
    let item = ports
        .table
        .get(&customer_key(caller, id))
        .await?
        .ok_or_else(|| CustomerError::NotFound(id.to_string()))?;
    decode(&item)
}

/// How many times an update that lost a race with another write of the
/// same customer is read and applied again.
const UPDATE_ATTEMPTS: u32 = 10;

/// Applies the given fields and commits; a changed tax id moves its index
/// entry. A concurrent write of the customer makes it read and apply again
/// (a concurrent delete makes it `NotFound`).
pub async fn update(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    fields: CustomerFields,
) -> Result<Customer, CustomerError> {
    for attempt in 0..UPDATE_ATTEMPTS {
        if let Some(updated) = try_update(ports, caller, id, fields.clone()).await? {
            return Ok(updated);
        }
        race::pause(attempt).await;
    }
    Err(TableError::Conflict.into())
}

/// One read and write of the customer; None when another write of it came
/// in between.
async fn try_update(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    fields: CustomerFields,
) -> Result<Option<Customer>, CustomerError> {
    let current = get(ports, caller, id).await?;
    let old = current.party();
    let merged = PartyInput {
        name: fields.name.or(Some(old.name.clone())),
        tax_id: fields.tax_id.or(old.tax_id.clone()),
        address: fields.address.or(old.address.clone()),
        postal_code: fields.postal_code.or(old.postal_code.clone()),
        city: fields.city.or(old.city.clone()),
        country: fields.country.or(Some(old.country.clone())),
        email: fields.email.or(old.email.clone()),
    };
    let party = Party::parse(merged).map_err(CustomerError::Invalid)?;
    let (old_key, new_key) = (old.tax_key(), party.tax_key());
    if old_key != new_key
        && let Some(existing) = holder_of(ports, caller, &party).await?
    {
        return Err(CustomerError::Duplicate(existing));
    }
    let updated = view(id.to_string(), party, caller, current.created_at);
    let previous = serde_json::to_string(&current).expect("customers serialise");
    let mut writes = vec![put_customer(
        caller,
        &updated,
        Condition::equals("doc", previous),
    )];
    if old_key != new_key {
        if let Some(k) = old_key {
            writes.push(Write::Delete {
                key: tax_index_key(caller, &k),
                condition: None,
            });
        }
        if let Some(k) = new_key {
            writes.push(Write::Put {
                item: Item::new(tax_index_key(caller, &k)).with("customer_id", id),
                condition: Some(Condition::Absent),
            });
        }
    }
    match ports.table.transact(writes).await {
        Ok(()) => Ok(Some(updated)),
        Err(TableError::ConditionFailed { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

pub async fn delete(ports: &Ports, caller: &Caller, id: &str) -> Result<Customer, CustomerError> {
    let current = get(ports, caller, id).await?;
    let mut writes = vec![Write::Delete {
        key: customer_key(caller, id),
        condition: Some(Condition::Present),
    }];
    if let Some(k) = current.party().tax_key() {
        writes.push(Write::Delete {
            key: tax_index_key(caller, &k),
            condition: None,
        });
    }
    match ports.table.transact(writes).await {
        Ok(()) => Ok(current),
        Err(TableError::ConditionFailed { .. }) => Err(CustomerError::NotFound(id.to_string())),
        Err(e) => Err(e.into()),
    }
}

/// Customers, newest first, after the customer `starting_after`.
pub async fn list(
    ports: &Ports,
    caller: &Caller,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<Customer>, bool), CustomerError> {
    let query = Query::new(format!("CUSTOMERS#{}", space(caller)), SortKey::All)
        .backward()
        .limit(limit + 1)
        .after(starting_after.map(Cursor::from_token));
    let page = ports.table.query(&query).await?;
    let mut customers = page
        .items
        .iter()
        .map(decode)
        .collect::<Result<Vec<_>, _>>()?;
    let has_more = customers.len() > limit;
    customers.truncate(limit);
    Ok((customers, has_more))
}
