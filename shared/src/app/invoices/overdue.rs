//! `invoice.overdue` events: once per instalment, the first scheduled run
//! of the Madrid day after its due date while it is not covered by payments
//! (hourly on AWS, every 15 minutes in `svc serve`, beside `fiscal.deadline`).
//!
//! The run reads only the due-date index (`due_index`) for instalments due
//! before today, never the accounts' invoices. For each, one transaction
//! writes the invoice's next version (the instalment's
//! `overdue_notified_at`, an `overdue` history entry) on condition of the
//! version read, deletes the index item on condition that it is still there,
//! and records the event: a second or concurrent run, or a payment that
//! landed meanwhile, makes it fail and nothing is sent twice. Items of
//! instalments that are covered, or of cancelled invoices, are dropped
//! without an event. Both modes: test invoices send test events.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::due_index::{self, DueEntry};
use super::error::InvoiceError;
use super::issue::event_data;
use super::store;
use crate::app::outbox;
use crate::domain::madrid;
use crate::invoice::model::{HistoryEvent, HistoryKind};
use crate::invoice::payments::{self, open_instalments};
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, Write};
use crate::tax::money::as_number;
use crate::webhooks::event_type::EventType;

pub const EVENT: EventType = EventType::InvoiceOverdue;

/// Sends the `invoice.overdue` events due at `now`; returns how many were sent.
pub async fn run(ports: &Ports, now: DateTime<Utc>) -> Result<usize, TableError> {
    let today = madrid::date(now);
    let mut sent = 0;
    for entry in due_index::due_before(ports, today).await? {
        // An invoice that cannot be read is skipped, not a stop for the
        // others: its index item stays, so a later run tries it again.
        let writes = match notice(ports, &entry, now).await {
            Ok(writes) => writes,
            Err(e) => {
                tracing::warn!(error = ?e, key = %entry.key, "an overdue instalment was skipped");
                continue;
            }
        };
        let event = writes.len() > 1;
        match ports.table.transact(writes).await {
            Ok(()) => sent += usize::from(event),
            // Another run sent it, or a payment covered it, meanwhile.
            Err(TableError::ConditionFailed { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(sent)
}

/// The writes for one index item: the event with the invoice's new version,
/// or only the item's deletion when it is stale.
async fn notice(
    ports: &Ports,
    entry: &DueEntry,
    now: DateTime<Utc>,
) -> Result<Vec<Write>, InvoiceError> {
    let drop_item = Write::Delete {
        key: entry.key.clone(),
        condition: Some(Condition::Present),
    };
    let key = store::invoice_key_in(&entry.account, entry.mode, entry.invoice_id);
    let Some((mut invoice, version)) = store::get_at(ports, &key).await? else {
        return Ok(vec![drop_item]);
    };
    let before = open_instalments(&invoice);
    if !before.contains(&entry.index) {
        return Ok(vec![drop_item]);
    }
    let instalment = &mut invoice.instalments[entry.index];
    instalment.overdue_notified_at = Some(now);
    let (date, amount) = (instalment.date, instalment.amount);
    let number = entry.index + 1;
    invoice.events.push(HistoryEvent {
        kind: HistoryKind::Overdue,
        at: now,
        detail: Some(format!("instalment {number} of {amount} due {date}")),
    });
    payments::refresh(&mut invoice, madrid::date(now));
    let money = |x| as_number(&x, serde_json::value::Serializer).expect("amounts serialise");
    let mut data = event_data(&invoice);
    data["instalment"] = json!({"number": number, "date": date, "amount": money(amount.value())});
    data["payment_status"] = json!(invoice.payment_status);
    data["amount_paid"] = money(invoice.amount_paid.value());
    data["amount_due"] = money(invoice.amount_due.value());
    let mut writes = vec![store::replace_at(key, &invoice, version), drop_item];
    // The notified instalment leaves the index by `drop_item`; nothing else changes.
    writes.extend(
        due_index::changes(&before, &invoice, entry.mode, &entry.account)
            .into_iter()
            .filter(|w| w.key() != &entry.key),
    );
    writes.push(outbox::record(&entry.account, entry.mode, EVENT, data, now));
    Ok(writes)
}
