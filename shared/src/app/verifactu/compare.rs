//! Comparing the records the AEAT holds of the account's issuer NIF for one
//! month (asked as issuer, in the key's mode) with ours: which of ours it
//! lacks, which it holds otherwise (another Huella or another state), which
//! it holds that we did not send from this account, and how many match.
//!
//! Ours are the account's records in its chain, by invoice: the newest one
//! the AEAT should hold (a rejected record is not held, so it does not
//! count), filed under the month of the alta's operation date, else of the
//! issue date, as the AEAT files them.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::query::{AskError, ask_all, asker};
use crate::app::invoices::store;
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::table::{Query, SortKey};
use crate::verifactu::aeat::Operation;
use crate::verifactu::aeat::query::{HeldRecord, HeldState, Period, Side, parse_date};
use crate::verifactu::status::RecordStatus;

/// What differs between a record of ours and the AEAT's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Another Huella: it holds another record of the invoice.
    Hash,
    /// Another state (ours may still be pending).
    State,
}

/// One invoice in the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub number: String,
    pub issue_date: NaiveDate,
    /// Our invoice, when one of ours.
    pub invoice_id: Option<u64>,
    /// Our newest record's operation and status, when one of ours.
    pub operation: Option<Operation>,
    pub our_status: Option<RecordStatus>,
    /// The state the AEAT holds, when it holds the invoice.
    pub aeat_state: Option<HeldState>,
    pub differences: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub issuer_nif: String,
    pub period: Period,
    pub matching: usize,
    pub missing_at_aeat: Vec<Entry>,
    pub different: Vec<Entry>,
    pub only_at_aeat: Vec<Entry>,
}

/// Our newest record of an invoice that the AEAT should hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ours {
    pub number: String,
    pub issue_date: NaiveDate,
    pub invoice_id: u64,
    pub operation: Operation,
    pub status: RecordStatus,
    pub hash: String,
}

impl Ours {
    /// The state the AEAT should hold it in; `None` while pending.
    fn expected(&self) -> Option<HeldState> {
        match (self.operation, self.status) {
            (_, RecordStatus::Pending | RecordStatus::Rejected) => None,
            (Operation::Anulacion, _) => Some(HeldState::Cancelled),
            (Operation::Alta, RecordStatus::AcceptedWithErrors) => {
                Some(HeldState::AcceptedWithErrors)
            }
            (Operation::Alta, RecordStatus::Accepted) => Some(HeldState::Correct),
        }
    }
}

/// Compares ours with what the AEAT holds (both of one month).
pub fn compare(
    issuer_nif: &str,
    period: Period,
    ours: Vec<Ours>,
    held: Vec<HeldRecord>,
) -> Comparison {
    let mut comparison = Comparison {
        issuer_nif: issuer_nif.to_string(),
        period,
        matching: 0,
        missing_at_aeat: Vec::new(),
        different: Vec::new(),
        only_at_aeat: Vec::new(),
    };
    let mut held: Vec<Option<HeldRecord>> = held.into_iter().map(Some).collect();
    for our in ours {
        let found = held.iter_mut().find(|h| {
            h.as_ref().is_some_and(|h| {
                h.invoice.number == our.number
                    && parse_date(&h.invoice.date) == Some(our.issue_date)
            })
        });
        let Some(theirs) = found.and_then(Option::take) else {
            comparison
                .missing_at_aeat
                .push(entry_of(&our, None, Vec::new()));
            continue;
        };
        let mut differences = Vec::new();
        if theirs.data.hash.as_deref() != Some(our.hash.as_str()) {
            differences.push(Field::Hash);
        }
        if our.expected() != Some(theirs.state) {
            differences.push(Field::State);
        }
        if differences.is_empty() {
            comparison.matching += 1;
        } else {
            let entry = entry_of(&our, Some(theirs.state), differences);
            comparison.different.push(entry);
        }
    }
    for theirs in held.into_iter().flatten() {
        if let Some(issue_date) = parse_date(&theirs.invoice.date) {
            comparison.only_at_aeat.push(Entry {
                number: theirs.invoice.number,
                issue_date,
                invoice_id: None,
                operation: None,
                our_status: None,
                aeat_state: Some(theirs.state),
                differences: Vec::new(),
            });
        }
    }
    comparison
}

fn entry_of(our: &Ours, aeat_state: Option<HeldState>, differences: Vec<Field>) -> Entry {
    Entry {
        number: our.number.clone(),
        issue_date: our.issue_date,
        invoice_id: Some(our.invoice_id),
        operation: Some(our.operation),
        our_status: Some(our.status),
        aeat_state,
        differences,
    }
}

/// One stored record of ours, as read from the chain.
struct Stored {
    number: String,
    issue_date: NaiveDate,
    operation_date: Option<NaiveDate>,
    ours: Ours,
}

fn stored(item: &crate::ports::table::Item) -> Option<Stored> {
    let record: serde_json::Value = serde_json::from_str(item.s("record")?).ok()?;
    let id = &record["IDFactura"];
    let operation = match item.s("operation")? {
        "Anulacion" => Operation::Anulacion,
        _ => Operation::Alta,
    };
    let (number, date) = match operation {
        Operation::Anulacion => (
            &id["NumSerieFacturaAnulada"],
            &id["FechaExpedicionFacturaAnulada"],
        ),
        Operation::Alta => (&id["NumSerieFactura"], &id["FechaExpedicionFactura"]),
    };
    let number = number.as_str()?.to_string();
    let issue_date = parse_date(date.as_str()?)?;
    Some(Stored {
        number: number.clone(),
        issue_date,
        operation_date: record["FechaOperacion"].as_str().and_then(parse_date),
        ours: Ours {
            number,
            issue_date,
            invoice_id: u64::try_from(item.n("invoice_id")?).ok()?,
            operation,
            status: RecordStatus::parse(item.s("status")?)?,
            hash: item.s("hash")?.to_string(),
        },
    })
}

/// What the chain says of one invoice.
struct Invoice {
    /// The alta's FechaOperacion.
    operation_date: Option<NaiveDate>,
    /// The newest record that was not rejected.
    newest: Option<Ours>,
    /// Its place in the chain.
    order: u64,
}

/// The account's newest record per invoice that the AEAT should hold, of
/// the invoices filed under `period`, in chain order.
async fn ours(
    ports: &Ports,
    caller: &Caller,
    chain: &str,
    period: Period,
) -> Result<Vec<Ours>, AskError> {
    let mut by_invoice: BTreeMap<(String, NaiveDate), Invoice> = BTreeMap::new();
    let mut query = Query::new(format!("{chain}#RECORDS"), SortKey::All).limit(500);
    let mut order = 0;
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            if item.s("account_id") != Some(caller.account_id.as_str()) {
                continue;
            }
            let Some(record) = stored(item) else {
                continue;
            };
            order += 1;
            let entry = by_invoice
                .entry((record.number.clone(), record.issue_date))
                .or_insert(Invoice {
                    operation_date: None,
                    newest: None,
                    order,
                });
            if record.ours.operation == Operation::Alta {
                entry.operation_date = record.operation_date.or(entry.operation_date);
            }
            if record.ours.status != RecordStatus::Rejected {
                entry.newest = Some(record.ours);
                entry.order = order;
            }
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => break,
        }
    }
    let mut ours: Vec<(u64, Ours)> = by_invoice
        .into_iter()
        .filter_map(|((_, issue_date), invoice)| {
            let filed = invoice.operation_date.unwrap_or(issue_date);
            let month = Period::new(
                chrono::Datelike::year(&filed),
                chrono::Datelike::month(&filed),
            );
            let order = invoice.order;
            invoice
                .newest
                .filter(|_| month == Some(period))
                .map(|ours| (order, ours))
        })
        .collect();
    ours.sort_by_key(|(order, _)| *order);
    Ok(ours.into_iter().map(|(_, ours)| ours).collect())
}

/// The comparison of the caller's records of `period` with the AEAT's
/// (asked as issuer; live keys with the account's certificate).
pub async fn compare_records(
    ports: &Ports,
    caller: &Caller,
    period: Period,
) -> Result<Comparison, AskError> {
    let asker = asker(ports, caller).await?;
    let (aeat, identity) = (asker.aeat, asker.identity.as_ref());
    let held = ask_all(aeat, identity, Side::Issuer, &asker.party, period)
        .await
        .map_err(AskError::Aeat)?;
    let chain = store::chain_pk(caller, &asker.party.nif);
    let ours = ours(ports, caller, &chain, period).await?;
    Ok(compare(&asker.party.nif, period, ours, held))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verifactu::aeat::InvoiceKey;
    use crate::verifactu::aeat::query::HeldData;

    fn ours(number: &str, operation: Operation, status: RecordStatus, hash: &str) -> Ours {
        Ours {
            number: number.into(),
            issue_date: NaiveDate::from_ymd_opt(2026, 11, 2).unwrap(),
            invoice_id: number.len() as u64,
            operation,
            status,
            hash: hash.into(),
        }
    }

    fn held(number: &str, state: HeldState, hash: &str) -> HeldRecord {
        HeldRecord {
            invoice: InvoiceKey {
                nif: "B12345674".into(),
                number: number.into(),
                date: "02-11-2026".into(),
            },
            data: HeldData {
                hash: Some(hash.into()),
                ..HeldData::default()
            },
            state,
            error: None,
            modified_at: "2026-11-02T10:00:00+01:00".into(),
        }
    }

    #[test]
    fn each_invoice_lands_in_one_list_and_says_what_differs() {
        let comparison = compare(
            "B12345674",
            Period::new(2026, 11).unwrap(),
            vec![
                ours("F-1", Operation::Alta, RecordStatus::Accepted, "H1"),
                ours("F-2", Operation::Alta, RecordStatus::Pending, "H2"),
                ours("F-3", Operation::Alta, RecordStatus::Accepted, "H3"),
                ours("F-4", Operation::Anulacion, RecordStatus::Accepted, "H4b"),
                ours(
                    "F-5",
                    Operation::Alta,
                    RecordStatus::AcceptedWithErrors,
                    "H5",
                ),
                ours("F-6", Operation::Alta, RecordStatus::Pending, "H6"),
            ],
            vec![
                held("F-1", HeldState::Correct, "H1"),
                held("F-3", HeldState::Correct, "OTHER"),
                held("F-4", HeldState::Correct, "H4a"),
                held("F-5", HeldState::AcceptedWithErrors, "H5"),
                held("F-6", HeldState::Correct, "H6"),
                held("F-9", HeldState::Cancelled, "H9"),
            ],
        );
        assert_eq!(comparison.matching, 2);
        let numbers = |entries: &[Entry]| {
            entries
                .iter()
                .map(|e| (e.number.clone(), e.differences.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            numbers(&comparison.missing_at_aeat),
            [("F-2".into(), vec![])]
        );
        assert_eq!(
            numbers(&comparison.different),
            [
                ("F-3".into(), vec![Field::Hash]),
                ("F-4".into(), vec![Field::Hash, Field::State]),
                ("F-6".into(), vec![Field::State]),
            ]
        );
        assert_eq!(comparison.different[1].aeat_state, Some(HeldState::Correct));
        let only = &comparison.only_at_aeat[0];
        assert_eq!(
            (only.number.as_str(), only.invoice_id, only.aeat_state),
            ("F-9", None, Some(HeldState::Cancelled))
        );
    }
}
