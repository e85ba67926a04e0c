//! An invoice's VERI*FACTU records as they were sent (the RegistroAlta, its
//! corrections, the RegistroAnulacion) and, once answered, the AEAT's answer
//! envelope as it was received (stored once per message; see `submit`).

use super::submit::stored_answer;
use crate::app::invoices::error::InvoiceError;
use crate::app::invoices::store;
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::table::{Query, SortKey};
use crate::verifactu::aeat::Operation;
use crate::verifactu::status::RecordStatus;

/// One record of the invoice, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentRecord {
    pub operation: Operation,
    pub status: RecordStatus,
    pub hash: String,
    /// The record element as sent.
    pub xml: String,
    /// The answer envelope of the message that carried it, as received;
    /// absent while pending, and for a record resolved by a query.
    pub answer_xml: Option<String>,
}

/// The records of the caller's invoice `id`: `NotFound` for an invoice of
/// another account or mode, or none.
pub async fn sent_records(
    ports: &Ports,
    caller: &Caller,
    id: u64,
) -> Result<Vec<SentRecord>, InvoiceError> {
    let (invoice, _) = store::get(ports, caller, id).await?;
    let chain = store::chain_pk(caller, &invoice.issuer.tax_id);
    let mut query = Query::new(format!("{chain}#RECORDS"), SortKey::All).limit(500);
    let mut records = Vec::new();
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            if item.s("account_id") != Some(caller.account_id.as_str())
                || item.n("invoice_id") != i64::try_from(id).ok()
            {
                continue;
            }
            let answer_xml = match item.s("answer_xml") {
                Some(token) => stored_answer(ports, &chain, token).await?,
                None => None,
            };
            records.push(SentRecord {
                operation: match item.s("operation") {
                    Some("Anulacion") => Operation::Anulacion,
                    _ => Operation::Alta,
                },
                status: item
                    .s("status")
                    .and_then(RecordStatus::parse)
                    .unwrap_or(RecordStatus::Pending),
                hash: item.s("hash").unwrap_or_default().to_string(),
                xml: item.s("xml").unwrap_or_default().to_string(),
                answer_xml,
            });
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(records),
        }
    }
}
