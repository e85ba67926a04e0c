//! Why an invoice's record is still `pending`, shown with the invoice.

use crate::app::invoices::error::InvoiceError;
use crate::app::invoices::store;
use crate::app::keys::Caller;
use crate::invoice::model::Invoice;
use crate::ports::Ports;
use crate::ports::table::Key;
use crate::verifactu::status::RecordStatus;

use crate::domain::account::{AccountId, Mode};
use crate::ports::table::TableError;

/// Live records wait: the account has no certificate stored.
pub const CERTIFICATE_MISSING: &str = "certificate_missing";
/// Live records wait: the account's certificate has expired.
pub const CERTIFICATE_EXPIRED: &str = "certificate_expired";
/// Live records wait: the host cannot open the stored certificate.
pub const CERTIFICATE_SEALED: &str = "certificate_unreadable";

/// `certificate_missing` or `certificate_expired` for live records of an
/// account whose certificate cannot send them.
pub async fn unsendable(
    ports: &Ports,
    account: &AccountId,
    mode: Mode,
) -> Result<Option<String>, TableError> {
    if !mode.is_live() {
        return Ok(None);
    }
    Ok(super::certificates::standing(ports, account)
        .await?
        .map(|unusable| unusable.reason()))
}

/// `invoice` with `verifactu.status_reason` set while one of its records is
/// pending: `certificate_missing` / `certificate_expired` (live records
/// cannot be sent), the last failure of its chain's submissions, or
/// `waiting` (the AEAT's flow control).
pub async fn with_pending_reason(
    ports: &Ports,
    caller: &Caller,
    mut invoice: Invoice,
) -> Result<Invoice, InvoiceError> {
    let v = &invoice.verifactu;
    let pending =
        v.status == RecordStatus::Pending || v.cancellation_status == Some(RecordStatus::Pending);
    if !pending {
        return Ok(invoice);
    }
    let reason = if let Some(reason) = unsendable(ports, &caller.account_id, caller.mode).await? {
        Some(reason)
    } else {
        let chain = store::chain_pk(caller, &invoice.issuer.tax_id);
        let state = ports.table.get(&Key::new(chain, "SUBMISSION")).await?;
        let next_at = state
            .as_ref()
            .and_then(|s| s.s("next_at"))
            .and_then(|t| t.parse::<chrono::DateTime<chrono::Utc>>().ok());
        match (state.as_ref().and_then(|s| s.s("reason")), next_at) {
            (Some(reason), _) => Some(reason.to_string()),
            (None, Some(at)) if at > ports.clock.now() => Some("waiting".to_string()),
            _ => None,
        }
    };
    invoice.verifactu.status_reason = reason;
    Ok(invoice)
}
