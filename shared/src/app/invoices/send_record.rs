//! The record of one email of an invoice: what was sent, to whom, and what
//! the provider answered. One per invoice and idempotency key, so a key
//! sends at most one email: the record is claimed (`pending`) before the
//! provider is called, and settled (`sent` or `rejected`) right after.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::store;
use crate::app::keys::Caller;
use crate::ports::table::{Condition, Item, Key, TableError, Write};

/// Where an email of an invoice stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SendState {
    /// Claimed: the provider is being called, or the call was cut by a crash.
    Pending,
    /// The provider accepted the message.
    Sent,
    /// The provider refused the message for good (see `reason`).
    Rejected,
    /// A test key: nothing was sent; the answer shows what would have been.
    Simulated,
}

/// A file that went with the email.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SentAttachment {
    /// `F2026-000001.pdf`, `F2026-000001-facturae.xml`.
    pub filename: String,
    pub content_type: String,
    /// Bytes.
    pub size: usize,
}

/// An email of an invoice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "snd_9f2c4e1a7b3d5f60e8a1c2b4", "object": "invoice_send",
    "invoice_id": 1, "number": "F2026-000001", "state": "sent", "simulated": false, "livemode": true,
    "message_id": "<1764237600.1f0c@svc.example.com>", "from": "Facturas <facturas@example.com>",
    "to": ["facturas@tallerana.es"], "cc": [], "subject": "Factura F2026-000001 de Ana García Pérez",
    "attachments": [{"filename": "F2026-000001.pdf", "content_type": "application/pdf", "size": 48213}],
    "created_at": "2026-11-21T10:00:00Z", "sent_at": "2026-11-21T10:00:01Z"}))]
pub struct InvoiceSend {
    /// `snd_…`: the same for every retry with one idempotency key.
    pub id: String,
    /// `invoice_send`.
    pub object: String,
    pub invoice_id: u64,
    pub number: String,
    pub state: SendState,
    /// True for a test key: nothing was sent.
    pub simulated: bool,
    pub livemode: bool,
    /// The provider's id of the message (SMTP: its `Message-ID`; SES: its MessageId).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The sender; absent in a simulation on a host without email.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub attachments: Vec<SentAttachment>,
    /// Why the provider refused the message (state `rejected`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
    /// When the provider accepted it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<DateTime<Utc>>,
}

/// The id of the email of `invoice_id` sent with `idempotency_key`.
pub fn send_id(invoice_id: u64, idempotency_key: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(invoice_id.to_be_bytes());
    hash.update(idempotency_key.as_bytes());
    format!("snd_{}", &hex::encode(hash.finalize())[..24])
}

fn key(caller: &Caller, invoice_id: u64, id: &str) -> Key {
    Key::new(
        format!("SENDS#{}#{}", caller.account_id, caller.mode.as_str()),
        format!("{}#{id}", store::invoice_sk(invoice_id)),
    )
}

fn item(caller: &Caller, send: &InvoiceSend) -> Item {
    let doc = serde_json::to_string(send).expect("sends serialise");
    Item::new(key(caller, send.invoice_id, &send.id))
        .with("doc", doc)
        .with("state", state_code(send.state))
}

fn state_code(state: SendState) -> &'static str {
    match state {
        SendState::Pending => "pending",
        SendState::Sent => "sent",
        SendState::Rejected => "rejected",
        SendState::Simulated => "simulated",
    }
}

/// What claiming a send found.
pub enum Claim {
    /// The claim is ours: call the provider.
    Claimed,
    /// A send with this id exists already (a retry): its record.
    Existing(Box<InvoiceSend>),
}

/// Claims `send` (state `pending`) unless a send with its id exists. A
/// durable write of its own, before the provider is called: an email
/// cannot be taken back, so its claim must outlive a crash of the request.
pub async fn claim(
    ports: &crate::ports::Ports,
    caller: &Caller,
    send: &InvoiceSend,
) -> Result<Claim, TableError> {
    let pending = item(caller, send);
    match ports.table.put(pending, Some(Condition::Absent)).await {
        Ok(()) => Ok(Claim::Claimed),
        Err(TableError::ConditionFailed { .. }) => {
            let found = ports
                .table
                .get(&key(caller, send.invoice_id, &send.id))
                .await?
                .ok_or_else(|| TableError::Unavailable("a claimed send vanished".into()))?;
            let existing =
                serde_json::from_str(found.s("doc").unwrap_or_default()).map_err(|e| {
                    TableError::Unavailable(format!("unreadable send {}: {e}", found.key))
                })?;
            Ok(Claim::Existing(Box::new(existing)))
        }
        Err(e) => Err(e),
    }
}

/// The write that settles a pending send (it holds only while pending).
pub fn settle(caller: &Caller, send: &InvoiceSend) -> Write {
    Write::Put {
        item: item(caller, send),
        condition: Some(Condition::equals("state", "pending")),
    }
}

/// Gives up a pending send whose provider was unreachable, so the same key
/// may try again.
pub async fn release(
    ports: &crate::ports::Ports,
    caller: &Caller,
    send: &InvoiceSend,
) -> Result<(), TableError> {
    let pending = Condition::equals("state", "pending");
    match ports
        .table
        .delete(&key(caller, send.invoice_id, &send.id), Some(pending))
        .await
    {
        Ok(()) | Err(TableError::ConditionFailed { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_id_per_invoice_and_key() {
        let id = send_id(1, "k1");
        assert!(id.starts_with("snd_") && id.len() == 28, "{id}");
        assert_eq!(id, send_id(1, "k1"));
        assert_ne!(id, send_id(2, "k1"));
        assert_ne!(id, send_id(1, "k2"));
    }
}
