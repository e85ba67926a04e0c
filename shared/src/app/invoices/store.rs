//! Where invoices, their counters and the VERI*FACTU chain live in the table.
//! Every write here is conditional on what was read, so a concurrent writer
//! makes the whole transaction fail instead of skipping or reusing a number.

use chrono::NaiveDate;

use super::error::InvoiceError;
use crate::app::keys::Caller;
use crate::app::nif_claims::{self, ClaimError};
use crate::domain::account::{AccountId, Mode};
use crate::domain::madrid;
use crate::invoice::model::Invoice;
use crate::invoice::payments;
use crate::ports::Ports;
use crate::ports::table::{Condition, Cursor, Item, Key, Query, SortKey, TableError, Value, Write};
use crate::verifactu::BuiltRecord;
use crate::verifactu::aeat::{Operation, RecordError};
use crate::verifactu::status::RecordStatus;

fn space(caller: &Caller) -> String {
    format!("{}#{}", caller.account_id, caller.mode.as_str())
}

pub fn invoices_pk(caller: &Caller) -> String {
    format!("INVOICES#{}", space(caller))
}

pub fn invoice_sk(id: u64) -> String {
    format!("{id:012}")
}

fn invoice_key(caller: &Caller, id: u64) -> Key {
    Key::new(invoices_pk(caller), invoice_sk(id))
}

/// An invoice's key from its account and mode (for work done on no caller's
/// behalf, such as VERI*FACTU submission).
pub fn invoice_key_in(account: &AccountId, mode: Mode, id: u64) -> Key {
    Key::new(
        format!("INVOICES#{account}#{}", mode.as_str()),
        invoice_sk(id),
    )
}

fn invoice_item(key: Key, invoice: &Invoice, version: i64) -> Item {
    let doc = serde_json::to_string(invoice).expect("invoices serialise");
    Item::new(key).with("doc", doc).with("version", version)
}

/// A new invoice (its id must be unused).
pub fn insert(caller: &Caller, invoice: &Invoice) -> Write {
    Write::Put {
        item: invoice_item(invoice_key(caller, invoice.id), invoice, 1),
        condition: Some(Condition::Absent),
    }
}

/// The next version of an invoice read at `version`.
pub fn replace(caller: &Caller, invoice: &Invoice, version: i64) -> Write {
    replace_at(invoice_key(caller, invoice.id), invoice, version)
}

/// The next version of the invoice at `key`, read at `version`.
pub fn replace_at(key: Key, invoice: &Invoice, version: i64) -> Write {
    Write::Put {
        item: invoice_item(key, invoice, version + 1),
        condition: Some(Condition::equals("version", version)),
    }
}

/// The stored invoice with its payment state derived for `today`.
fn decode(item: &Item, today: NaiveDate) -> Result<(Invoice, i64), InvoiceError> {
    let mut invoice = serde_json::from_str(item.s("doc").unwrap_or_default())
        .map_err(|e| TableError::Unavailable(format!("unreadable invoice {}: {e}", item.key)))?;
    payments::refresh(&mut invoice, today);
    Ok((invoice, item.n("version").unwrap_or(1)))
}

/// The invoice and its version.
pub async fn get(ports: &Ports, caller: &Caller, id: u64) -> Result<(Invoice, i64), InvoiceError> {
    get_at(ports, &invoice_key(caller, id))
        .await?
        .ok_or_else(|| InvoiceError::NotFound(format!("no invoice {id}")))
}

/// The invoice at `key` and its version, if there is one.
pub async fn get_at(ports: &Ports, key: &Key) -> Result<Option<(Invoice, i64)>, InvoiceError> {
    match ports.table.get(key).await? {
        Some(item) => decode(&item, madrid::date(ports.clock.now())).map(Some),
        None => Ok(None),
    }
}

/// A page of invoices, newest first, after the invoice `after`.
pub async fn page(
    ports: &Ports,
    caller: &Caller,
    after: Option<String>,
    limit: usize,
) -> Result<(Vec<Invoice>, Option<String>), InvoiceError> {
    let query = Query::new(invoices_pk(caller), SortKey::All)
        .backward()
        .limit(limit)
        .after(after.as_deref().map(Cursor::from_token));
    let page = ports.table.query(&query).await?;
    let today = madrid::date(ports.clock.now());
    let invoices = page
        .items
        .iter()
        .map(|i| decode(i, today).map(|(inv, _)| inv))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((invoices, page.next.map(|c| c.as_str().to_string())))
}

/// The partition of the caller's counters.
pub fn counters_pk(caller: &Caller) -> String {
    format!("COUNTERS#{}", space(caller))
}

/// A named counter (`ID`, `F2026`, `R2026`) of the caller's space: its value
/// and the last issue date it numbered.
#[derive(Clone, Debug)]
pub struct Counter {
    key: Key,
    pub value: u64,
    pub last_date: Option<NaiveDate>,
}

/// Reads a counter as this process's ordered writes leave it (`get_ordered`):
/// its advance is conditional on the value read.
pub async fn counter(ports: &Ports, caller: &Caller, name: &str) -> Result<Counter, InvoiceError> {
    let key = Key::new(counters_pk(caller), name);
    let item = ports.table.get_ordered(&key).await?;
    Ok(Counter {
        value: item.as_ref().and_then(|i| i.n("n")).unwrap_or(0).max(0) as u64,
        last_date: item
            .as_ref()
            .and_then(|i| i.s("last_date"))
            .and_then(|d| d.parse().ok()),
        key,
    })
}

impl Counter {
    pub fn next(&self) -> u64 {
        self.value + 1
    }

    /// Advances by one, on condition that nobody advanced it since it was
    /// read. The whole counter is written (it holds only these two values),
    /// so ordering the write needs no read of the stored counter.
    pub fn advance(&self, date: Option<NaiveDate>) -> Write {
        let mut item = Item::new(self.key.clone()).with("n", self.next() as i64);
        if let Some(d) = date.or(self.last_date) {
            item = item.with("last_date", d.to_string());
        }
        let condition = if self.value == 0 {
            Condition::Absent
        } else {
            Condition::equals("n", self.value as i64)
        };
        Write::Put {
            item,
            condition: Some(condition),
        }
    }
}

/// The chain of one issuer NIF: one across all series and accounts for live
/// records; test records chain separately per account.
pub fn chain_pk(caller: &Caller, nif: &str) -> String {
    if caller.mode.is_live() {
        live_chain_pk(nif)
    } else {
        format!("CHAIN#test#{}#{nif}", caller.account_id)
    }
}

/// The live chain of an issuer NIF.
pub fn live_chain_pk(nif: &str) -> String {
    format!("CHAIN#live#{nif}")
}

/// The write that commits with a live record: the caller's claim on the
/// issuer NIF (see `nif_claims`); none for test records.
pub async fn chain_owner(
    ports: &Ports,
    caller: &Caller,
    nif: &str,
) -> Result<Option<Write>, InvoiceError> {
    if !caller.mode.is_live() {
        return Ok(None);
    }
    match nif_claims::claim(ports, &caller.account_id, nif).await {
        Ok(write) => Ok(Some(write)),
        Err(ClaimError::Taken(nif)) => Err(InvoiceError::IssuerNifTaken(nif)),
        Err(ClaimError::Storage(e)) => Err(e.into()),
    }
}

/// The mode of a chain's records (of `chain_pk`'s key, or a key under it).
pub fn chain_mode(chain: &str) -> Mode {
    if chain.starts_with("CHAIN#live#") {
        Mode::Live
    } else {
        Mode::Test
    }
}

/// The issuer NIF of a chain (`chain_pk`'s last part).
pub fn chain_nif(chain: &str) -> &str {
    chain.rsplit('#').next().unwrap_or_default()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainHead {
    pub seq: u64,
    pub hash: String,
    pub number: String,
    pub issue_date: NaiveDate,
}

/// Reads a chain's head as this process's ordered writes leave it
/// (`get_ordered`): appending is conditional on the head read.
pub async fn chain_head(ports: &Ports, chain: &str) -> Result<Option<ChainHead>, InvoiceError> {
    let Some(item) = ports.table.get_ordered(&Key::new(chain, "HEAD")).await? else {
        return Ok(None);
    };
    let head = ChainHead {
        seq: item.n("seq").unwrap_or(0).max(0) as u64,
        hash: item.s("hash").unwrap_or_default().to_string(),
        number: item.s("number").unwrap_or_default().to_string(),
        issue_date: item
            .s("issue_date")
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| {
                TableError::Unavailable(format!(
                    "unreadable chain head of {}",
                    crate::redact::short_hash(chain)
                ))
            })?,
    };
    Ok(Some(head))
}

/// The chains with records waiting to be submitted: one item per chain,
/// holding the sequence number of its newest record.
pub const PENDING_CHAINS: &str = "VERIFACTU#PENDING";

/// Whose a new record is: its invoice, and what the submitter needs beside
/// the record itself.
pub struct RecordOwner<'a> {
    pub account: &'a AccountId,
    pub invoice_id: u64,
    /// The invoice's number and issue date: the new head's identity.
    pub number: &'a str,
    pub issue_date: NaiveDate,
    pub issuer_name: &'a str,
    pub operation: Operation,
    /// Test records only: the AEAT error the simulator is asked to answer.
    pub simulated_error: Option<&'a RecordError>,
}

/// Moves the head to the new record and stores the record (its JSON view,
/// its XML, `pending`), on condition that the head is still the one read (so
/// two records never share a predecessor), and marks the chain as having
/// records to submit.
pub fn append(
    chain: &str,
    previous: Option<&ChainHead>,
    record: &BuiltRecord,
    owner: &RecordOwner,
) -> [Write; 3] {
    let next = ChainHead {
        seq: previous.map_or(1, |h| h.seq + 1),
        hash: record.hash.clone(),
        number: owner.number.to_string(),
        issue_date: owner.issue_date,
    };
    let condition = match previous {
        None => Condition::Absent,
        Some(p) => Condition::equals("hash", p.hash.clone()),
    };
    let head = Item::new(Key::new(chain, "HEAD"))
        .with("seq", next.seq as i64)
        .with("hash", next.hash.clone())
        .with("number", next.number.clone())
        .with("issue_date", next.issue_date.to_string());
    let stored = Item::new(Key::new(
        format!("{chain}#RECORDS"),
        format!("{:012}", next.seq),
    ))
    .with("record", record.json.to_string())
    .with("xml", record.xml.clone())
    .with("hash", next.hash.clone())
    .with("invoice_id", owner.invoice_id as i64)
    .with("account_id", owner.account.to_string())
    .with("issuer_name", owner.issuer_name.to_string())
    .with("operation", owner.operation.as_str())
    .with("status", RecordStatus::Pending.code());
    let stored = match owner.simulated_error {
        Some(e) => stored
            .with("simulated_code", i64::from(e.code))
            .with("simulated_description", e.description.clone()),
        None => stored,
    };
    let marker = Item::new(Key::new(PENDING_CHAINS, chain))
        .with("seq", next.seq as i64)
        .with("entity", crate::app::verifactu::queue::ENTITY);
    [
        Write::Put {
            item: head,
            condition: Some(condition),
        },
        Write::Put {
            item: stored,
            condition: Some(Condition::Absent),
        },
        Write::Put {
            item: marker,
            condition: None,
        },
    ]
}

/// Every record of a chain that `account` made, oldest first: a chain
/// another account wrote to before issuer NIFs were claimed shows a break
/// where that account's records are, never their numbers.
pub async fn chain_records(
    ports: &Ports,
    chain: &str,
    account: &AccountId,
) -> Result<Vec<serde_json::Value>, InvoiceError> {
    let mut query = Query::new(format!("{chain}#RECORDS"), SortKey::All).limit(500);
    let mut records = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            if item.s("account_id") != Some(account.as_str()) {
                continue;
            }
            let record = match item.attrs.get("record") {
                Some(Value::S(s)) => {
                    serde_json::from_str(s).map_err(|e| TableError::Unavailable(e.to_string()))?
                }
                _ => serde_json::Value::Null,
            };
            records.push(record);
        }
        match page.next {
            Some(next) => query.cursor = Some(next),
            None => return Ok(records),
        }
    }
}
