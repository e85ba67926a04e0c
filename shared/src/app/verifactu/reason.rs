//! Why an invoice's record is still `pending`, shown with the invoice.

use crate::app::invoices::error::InvoiceError;
use crate::app::invoices::model::Invoice;
use crate::app::invoices::store;
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::ports::table::Key;

use crate::domain::account::Mode;

/// Why live records wait when no transport to the AEAT is configured.
pub const CERTIFICATE_MISSING: &str = "certificate_missing";

/// `certificate_missing` for live records on a host that cannot send them.
pub fn unsendable(ports: &Ports, mode: Mode) -> Option<String> {
    (mode.is_live() && ports.aeat_live.is_none()).then(|| CERTIFICATE_MISSING.to_string())
}

/// `invoice` with `verifactu.status_reason` set while one of its records is
/// pending: `certificate_missing` (live records cannot be sent), the last
/// failure of its chain's submissions, or `waiting` (the AEAT's flow control).
pub async fn with_pending_reason(
    ports: &Ports,
    caller: &Caller,
    mut invoice: Invoice,
) -> Result<Invoice, InvoiceError> {
    let v = &invoice.verifactu;
    let pending = v.status == "pending" || v.cancellation_status.as_deref() == Some("pending");
    if !pending {
        return Ok(invoice);
    }
    let reason = if let Some(reason) = unsendable(ports, caller.mode) {
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
