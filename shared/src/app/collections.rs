//! The account's collections under the cash-accounting regime: the VAT each
//! payment of an invoice issued under it made accrue (`tax::cash_accounting`
//! explains the design), written in the payment's transaction and read by
//! date for Modelo 303. Keyed `<payment date>#<number>#<payment id>`. Live
//! invoices only, as the ledger.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::app::invoices::lifecycle::invoice_groups;
use crate::domain::account::AccountId;
use crate::invoice::model::Invoice;
use crate::invoice::payments::amount_paid;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TableError, Write};
use crate::tax::cash_accounting::{Collection, collected, deadline};
use crate::tax::ledger_entry::accrual_of;

fn partition(account: &AccountId) -> String {
    format!("COLLECTED#{account}")
}

/// The collection the invoice's last payment makes, given what was paid
/// before it: none when the invoice is not under the regime (or is a
/// rectifying one), or the payment is dated after the deadline (everything
/// accrued then).
pub fn of_last_payment(invoice: &Invoice, paid_before: Decimal) -> Option<Collection> {
    if !invoice.cash_accounting || invoice.kind.is_rectifying() {
        return None;
    }
    let payment = invoice.payments.last()?;
    let groups = invoice_groups(invoice);
    let accrual = accrual_of(
        invoice.kind,
        invoice.issue_date,
        invoice.operation_date,
        &groups,
    );
    if payment.date > deadline(accrual) {
        return None;
    }
    let shares = collected(
        &groups,
        invoice.total.value(),
        paid_before,
        amount_paid(invoice),
    );
    Some(Collection {
        invoice_id: invoice.id.to_string(),
        number: invoice.number.clone(),
        payment_id: payment.id.clone(),
        date: payment.date,
        groups: shares,
    })
    .filter(|c| !c.groups.is_empty())
}

/// The write that records a collection, for the payment's transaction.
pub fn record(account: &AccountId, c: &Collection) -> Write {
    let sk = format!("{}#{}#{}", c.date, c.number, c.payment_id);
    let json = serde_json::to_string(c).expect("collections serialise");
    Write::Put {
        item: Item::new(Key::new(partition(account), sk)).with("collection", json),
        condition: Some(Condition::Absent),
    }
}

/// The collections dated from `from` to `to`, both inclusive, oldest first.
pub async fn between(
    ports: &Ports,
    account: &AccountId,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<Collection>, TableError> {
    crate::app::dated_items::between(
        ports,
        partition(account),
        (from, to),
        "collection",
        "collection",
    )
    .await
}
