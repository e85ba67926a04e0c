//! Sending an invoice by email: its documents rendered as `GET
//! /invoices/{id}/pdf` and `/xml` render them, a Spanish message, the
//! `Email` port, and a record of what happened.
//!
//! Crash safety. An email cannot be part of a table transaction, so a send
//! is three steps, each durable before the next: (1) a `pending` record is
//! claimed for the invoice and the request's idempotency key (a
//! conditional put: one claim per key); (2) the provider is called; (3) in
//! ONE transaction the record is settled (`sent` with the provider's id, or
//! `rejected` with its reason) together with the invoice's history event
//! (`sent` or `send_failed`) and, when sent, the `invoice.sent` event and
//! the index from the provider's message id to the invoice, which later
//! bounces and complaints are recorded by (`send_feedback`).
//! Then the unit of work stores the response under the idempotency key.
//! So one key emails at most once: a retry after step 3 answers from the
//! record without sending; a retry after a crash between steps 1 and 3
//! finds the claim still `pending` and answers 409
//! `send_outcome_unknown` (the email may or may not have left; a new key
//! sends again). A send is never recorded as sent unless the provider
//! accepted it. An unreachable provider (nothing accepted) gives the claim
//! back, so the same key may retry.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::json;
use utoipa::ToSchema;

use super::error::InvoiceError;
use super::issue::event_data;
use super::send_feedback;
use super::send_record::{self, Claim, InvoiceSend, SendState, SentAttachment};
use super::store;
use crate::app::keys::Caller;
use crate::app::{outbox, race};
use crate::invoice::email::{self, Attach};
use crate::invoice::model::{HistoryEvent, HistoryKind, Invoice};
use crate::invoice::status::Status;
use crate::ports::Ports;
use crate::ports::email::{Attachment, EmailError, OutgoingEmail};
use crate::ports::table::TableError;
use crate::webhooks::event_type::EventType;

/// Tries of the settling transaction against concurrent changes of the invoice.
const ATTEMPTS: u32 = 10;
/// The longest provider reason kept in the invoice's history.
const MAX_REASON_CHARS: usize = 300;

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendRequest {
    /// Recipients (1–10 plain addresses); default: the customer's `email`.
    #[schema(max_items = 10, example = json!(["facturas@tallerana.es"]))]
    pub to: Option<Vec<String>>,
    /// Copies (up to 10 addresses).
    #[schema(max_items = 10)]
    pub cc: Option<Vec<String>>,
    /// A personal message put before the invoice's details (up to 2,000 characters).
    #[schema(max_length = 2000)]
    pub message: Option<String>,
    /// The documents attached: `pdf` and at most one e-invoice format
    /// (`facturae`, `ubl` or `cii`); default `["pdf"]`.
    #[schema(min_items = 1, max_items = 2, example = json!(["pdf", "facturae"]))]
    pub attach: Option<Vec<AttachCode>>,
}

/// A document to attach.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AttachCode {
    Pdf,
    Facturae,
    Ubl,
    Cii,
}

impl From<AttachCode> for Attach {
    fn from(code: AttachCode) -> Attach {
        match code {
            AttachCode::Pdf => Attach::Pdf,
            AttachCode::Facturae => Attach::Facturae,
            AttachCode::Ubl => Attach::Ubl,
            AttachCode::Cii => Attach::Cii,
        }
    }
}

#[derive(Debug)]
pub enum SendError {
    Invoice(InvoiceError),
    /// This host has no email configured.
    NotConfigured,
    /// The provider refused the message; recorded on the invoice.
    Rejected(Box<InvoiceSend>),
    /// The provider could not be reached; nothing was sent or recorded.
    Unavailable(String),
    /// An earlier request with this key was cut while sending.
    OutcomeUnknown(Box<InvoiceSend>),
}

impl From<InvoiceError> for SendError {
    fn from(e: InvoiceError) -> Self {
        SendError::Invoice(e)
    }
}

impl From<TableError> for SendError {
    fn from(e: TableError) -> Self {
        SendError::Invoice(InvoiceError::Storage(e))
    }
}

fn invalid((field, message): email::FieldError) -> SendError {
    SendError::Invoice(InvoiceError::invalid("parameter_invalid", field, message))
}

/// What one send would be: the message and its record before sending.
fn plan(
    invoice: &Invoice,
    request: &SendRequest,
    caller: &Caller,
    from: Option<&str>,
    id: String,
    now: DateTime<Utc>,
) -> Result<(OutgoingEmail, InvoiceSend), SendError> {
    let customer_email = invoice.customer.as_ref().and_then(|c| c.email.as_deref());
    let (to, cc) = email::recipients(request.to.as_deref(), request.cc.as_deref(), customer_email)
        .map_err(invalid)?;
    let codes: Option<Vec<String>> = request.attach.as_ref().map(|list| {
        list.iter()
            .map(|c| Attach::from(*c).code().to_string())
            .collect()
    });
    let attach = email::attachments(codes.as_deref()).map_err(invalid)?;
    let note = email::message(request.message.as_deref()).map_err(invalid)?;
    let files: Vec<Attachment> = attach
        .iter()
        .map(|a| {
            let document = a.render(invoice);
            Attachment {
                filename: document.filename,
                content_type: document.content_type.into(),
                bytes: document.bytes,
            }
        })
        .collect();
    let names: Vec<String> = files.iter().map(|f| f.filename.clone()).collect();
    let summary = email::Summary::from(invoice);
    let subject = email::subject(&summary);
    let record = InvoiceSend {
        id,
        object: "invoice_send".into(),
        invoice_id: invoice.id,
        number: invoice.number.clone(),
        state: if caller.mode.is_live() {
            SendState::Pending
        } else {
            SendState::Simulated
        },
        simulated: !caller.mode.is_live(),
        livemode: caller.mode.is_live(),
        message_id: None,
        from: from.map(str::to_string),
        to: to.clone(),
        cc: cc.clone(),
        subject: subject.clone(),
        attachments: files
            .iter()
            .map(|f| SentAttachment {
                filename: f.filename.clone(),
                content_type: f.content_type.clone(),
                size: f.bytes.len(),
            })
            .collect(),
        reason: None,
        created_at: now,
        sent_at: None,
    };
    let message = OutgoingEmail {
        from: from.unwrap_or_default().to_string(),
        to,
        cc,
        subject,
        text: email::text(&summary, note.as_deref(), &names),
        html: None,
        attachments: files,
    };
    Ok((message, record))
}

/// Emails invoice `id` once per `idempotency_key` (see the module's notes);
/// with a test key, sends nothing and answers what would be sent.
pub async fn send(
    ports: &Ports,
    caller: &Caller,
    id: u64,
    request: &SendRequest,
    idempotency_key: &str,
) -> Result<InvoiceSend, SendError> {
    let (invoice, _) = store::get(ports, caller, id).await?;
    if invoice.status == Status::Cancelled {
        return Err(SendError::Invoice(InvoiceError::InvalidState(
            "the invoice is cancelled; a cancelled invoice is not sent".into(),
        )));
    }
    let mailer = ports.mailer.as_ref();
    let from = mailer.map(|m| m.from.as_str());
    let now = ports.clock.now();
    let send_id = send_record::send_id(id, idempotency_key);
    let (message, mut record) = plan(&invoice, request, caller, from, send_id, now)?;
    if !caller.mode.is_live() {
        return Ok(record);
    }
    let mailer = mailer.ok_or(SendError::NotConfigured)?;
    match send_record::claim(ports, caller, &record).await? {
        Claim::Claimed => {}
        Claim::Existing(existing) => {
            return match existing.state {
                SendState::Rejected => Err(SendError::Rejected(existing)),
                SendState::Pending => Err(SendError::OutcomeUnknown(existing)),
                SendState::Sent | SendState::Simulated => Ok(*existing),
            };
        }
    }
    match mailer.email.send(&message).await {
        Ok(message_id) => {
            record.state = SendState::Sent;
            record.message_id = Some(message_id);
            record.sent_at = Some(ports.clock.now());
            settle(
                ports,
                caller,
                &record,
                HistoryKind::Sent,
                recipients(&record),
            )
            .await?;
            Ok(record)
        }
        Err(EmailError::Rejected(reason)) => {
            let reason: String = reason.chars().take(MAX_REASON_CHARS).collect();
            record.state = SendState::Rejected;
            record.reason = Some(reason.clone());
            let detail = format!("{}: {reason}", recipients(&record));
            settle(ports, caller, &record, HistoryKind::SendFailed, detail).await?;
            Err(SendError::Rejected(Box::new(record)))
        }
        Err(EmailError::Unavailable(reason)) => {
            send_record::release(ports, caller, &record).await?;
            Err(SendError::Unavailable(reason))
        }
    }
}

/// `to: a@example.com, b@example.com; cc: c@example.org`.
fn recipients(record: &InvoiceSend) -> String {
    let mut text = format!("to: {}", record.to.join(", "));
    if !record.cc.is_empty() {
        text.push_str(&format!("; cc: {}", record.cc.join(", ")));
    }
    text
}

/// Step 3: the record settled, the invoice's history event and, when sent,
/// `invoice.sent`, in one transaction, retried on a concurrent change of
/// the invoice.
async fn settle(
    ports: &Ports,
    caller: &Caller,
    record: &InvoiceSend,
    kind: HistoryKind,
    detail: String,
) -> Result<(), SendError> {
    let at = record.sent_at.unwrap_or_else(|| ports.clock.now());
    for attempt in 0..ATTEMPTS {
        let (mut invoice, version) = store::get(ports, caller, record.invoice_id).await?;
        invoice.events.push(HistoryEvent {
            kind,
            at,
            detail: Some(detail.clone()),
        });
        let mut writes = vec![
            store::replace(caller, &invoice, version),
            send_record::settle(caller, record),
        ];
        if record.state == SendState::Sent {
            let mut data = event_data(&invoice);
            data["send"] = json!({
                "id": record.id,
                "message_id": record.message_id,
                "to": record.to,
                "cc": record.cc,
                "attachments": record.attachments.iter().map(|a| &a.filename).collect::<Vec<_>>(),
            });
            writes.push(outbox::record(
                &caller.account_id,
                caller.mode,
                EventType::InvoiceSent,
                data,
                at,
            ));
            if let Some(message_id) = &record.message_id {
                writes.push(send_feedback::message_index(
                    message_id,
                    &caller.account_id,
                    caller.mode,
                    record.invoice_id,
                    &record.id,
                    at,
                ));
            }
        }
        match ports.table.transact(writes).await {
            Ok(()) => return Ok(()),
            Err(TableError::ConditionFailed { index: Some(0), .. } | TableError::Conflict) => {
                race::pause(attempt).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(SendError::Invoice(InvoiceError::Storage(
        TableError::Conflict,
    )))
}
