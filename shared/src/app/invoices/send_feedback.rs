//! What the email provider reports after it accepted an invoice's email: a
//! bounce (the recipient's server refused it, at once or after retrying) or
//! a complaint (the recipient marked it as spam). On AWS, Amazon SES
//! publishes them through the stack's configuration set to SNS and SQS, and
//! the `email-feedback` function reads them (`infra_aws::ses_feedback`
//! parses SES's notice into a `Feedback`). SMTP has no such reports: a
//! relay's later bounce goes back to the sender's mailbox.
//!
//! A sent email leaves an index item from the provider's message id to its
//! invoice (`message_index`, written with the send's settling transaction).
//! Recording a report is one transaction: the invoice's next version with a
//! `send_failed` (bounce) or `send_complaint` history entry, the
//! `invoice.send_failed` event for a bounce, and a marker of the report's
//! own id on condition that it is absent. SQS delivers at least once: the
//! same report again finds its marker and records nothing twice.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::error::InvoiceError;
use super::issue::event_data;
use super::store;
use crate::app::{outbox, race};
use crate::domain::account::{AccountId, Mode};
use crate::invoice::model::{HistoryEvent, HistoryKind};
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Write};
use crate::webhooks::event_type::EventType;

/// The event of a bounced invoice email.
pub const EVENT: EventType = EventType::InvoiceSendFailed;
/// How long a sent message can still be reported on, and a report's marker kept.
const KEPT_DAYS: i64 = 30;
/// Tries of the transaction against concurrent changes of the invoice.
const ATTEMPTS: u32 = 10;
/// The longest diagnostic kept per recipient.
const MAX_DIAGNOSTIC_CHARS: usize = 200;

/// What the provider reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeedbackKind {
    /// Not delivered. `permanent` when the address does not accept mail
    /// (unknown user or domain); else the provider gave up retrying (a full
    /// mailbox, a message too large).
    Bounce { permanent: bool },
    /// Delivered, and the recipient marked it as spam.
    Complaint,
}

/// One recipient a report names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipient {
    pub address: String,
    /// The receiving server's words (`smtp; 550 5.1.1 user unknown`).
    pub diagnostic: Option<String>,
}

/// A provider's report on a message it accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// The report's own id (SES's `feedbackId`): one record per report.
    pub id: String,
    /// The provider's id of the message, as `Email::send` returned it.
    pub message_id: String,
    pub kind: FeedbackKind,
    pub recipients: Vec<Recipient>,
    pub at: DateTime<Utc>,
}

/// What became of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Written on the invoice.
    Recorded,
    /// Recorded before (a redelivery).
    Again,
    /// No invoice email has this message id (sent by something else, or
    /// more than `KEPT_DAYS` ago): nothing to record.
    Unknown,
}

/// Where an invoice email stands for its reports.
struct Sent {
    account: AccountId,
    mode: Mode,
    invoice_id: u64,
    send_id: String,
}

fn index_key(message_id: &str) -> Key {
    Key::new(format!("EMAILMSG#{message_id}"), "send")
}

fn marker_key(feedback_id: &str) -> Key {
    Key::new(format!("EMAILFEEDBACK#{feedback_id}"), "recorded")
}

fn expiry(at: DateTime<Utc>) -> i64 {
    (at + Duration::days(KEPT_DAYS)).timestamp()
}

/// The index item of a sent email, from the provider's message id to its
/// invoice: part of the transaction that settles the send.
pub fn message_index(
    message_id: &str,
    account: &AccountId,
    mode: Mode,
    invoice_id: u64,
    send_id: &str,
    at: DateTime<Utc>,
) -> Write {
    let item = Item::new(index_key(message_id))
        .with("account_id", account.as_str())
        .with("mode", mode.as_str())
        .with("invoice_id", invoice_id.to_string())
        .with("send_id", send_id)
        .with(TTL, expiry(at));
    Write::Put {
        item,
        condition: None,
    }
}

async fn sent(ports: &Ports, message_id: &str) -> Result<Option<Sent>, InvoiceError> {
    let Some(item) = ports.table.get(&index_key(message_id)).await? else {
        return Ok(None);
    };
    let unreadable = || {
        InvoiceError::Storage(TableError::Unavailable(format!(
            "unreadable email index item {}",
            item.key
        )))
    };
    Ok(Some(Sent {
        account: item
            .s("account_id")
            .and_then(|s| s.parse().ok())
            .ok_or_else(unreadable)?,
        mode: item
            .s("mode")
            .and_then(|s| s.parse().ok())
            .ok_or_else(unreadable)?,
        invoice_id: item
            .s("invoice_id")
            .and_then(|s| s.parse().ok())
            .ok_or_else(unreadable)?,
        send_id: item.s("send_id").ok_or_else(unreadable)?.to_string(),
    }))
}

/// `a@example.com (smtp; 550 5.1.1 user unknown), b@example.com`.
fn who(recipients: &[Recipient]) -> String {
    let named: Vec<String> = recipients
        .iter()
        .map(|r| match &r.diagnostic {
            Some(d) => {
                let d: String = d.chars().take(MAX_DIAGNOSTIC_CHARS).collect();
                format!("{} ({d})", r.address)
            }
            None => r.address.clone(),
        })
        .collect();
    if named.is_empty() {
        "recipients not named".into()
    } else {
        named.join(", ")
    }
}

/// The history entry a report adds to its invoice.
fn history(feedback: &Feedback) -> HistoryEvent {
    let (kind, detail) = match feedback.kind {
        FeedbackKind::Bounce { permanent: true } => (
            HistoryKind::SendFailed,
            format!("bounced: {}", who(&feedback.recipients)),
        ),
        FeedbackKind::Bounce { permanent: false } => (
            HistoryKind::SendFailed,
            format!(
                "not delivered, the provider gave up retrying: {}",
                who(&feedback.recipients)
            ),
        ),
        FeedbackKind::Complaint => (
            HistoryKind::SendComplaint,
            format!("marked as spam by {}", who(&feedback.recipients)),
        ),
    };
    HistoryEvent {
        kind,
        at: feedback.at,
        detail: Some(detail),
    }
}

/// Records `feedback` on the invoice its message was sent for (see the
/// module's notes).
pub async fn record(ports: &Ports, feedback: &Feedback) -> Result<Recorded, InvoiceError> {
    let Some(sent) = sent(ports, &feedback.message_id).await? else {
        return Ok(Recorded::Unknown);
    };
    let key = store::invoice_key_in(&sent.account, sent.mode, sent.invoice_id);
    let entry = history(feedback);
    for attempt in 0..ATTEMPTS {
        let Some((mut invoice, version)) = store::get_at(ports, &key).await? else {
            return Ok(Recorded::Unknown);
        };
        invoice.events.push(entry.clone());
        let marker = Item::new(marker_key(&feedback.id))
            .with("message_id", feedback.message_id.as_str())
            .with(TTL, expiry(feedback.at));
        let mut writes = vec![
            Write::Put {
                item: marker,
                condition: Some(Condition::Absent),
            },
            store::replace_at(key.clone(), &invoice, version),
        ];
        if let FeedbackKind::Bounce { permanent } = feedback.kind {
            let mut data = event_data(&invoice);
            data["send"] = json!({
                "id": sent.send_id,
                "message_id": feedback.message_id,
                "bounce": if permanent { "permanent" } else { "transient" },
                "recipients": feedback.recipients.iter().map(|r| json!({
                    "address": r.address,
                    "diagnostic": r.diagnostic,
                })).collect::<Vec<_>>(),
            });
            writes.push(outbox::record(
                &sent.account,
                sent.mode,
                EVENT,
                data,
                feedback.at,
            ));
        }
        match ports.table.transact(writes).await {
            Ok(()) => return Ok(Recorded::Recorded),
            Err(TableError::ConditionFailed { index: Some(0), .. }) => return Ok(Recorded::Again),
            Err(TableError::ConditionFailed { index: Some(1), .. } | TableError::Conflict) => {
                race::pause(attempt).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(InvoiceError::Storage(TableError::Conflict))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounce(permanent: bool) -> Feedback {
        Feedback {
            id: "fb-1".into(),
            message_id: "msg-1".into(),
            kind: FeedbackKind::Bounce { permanent },
            recipients: vec![
                Recipient {
                    address: "ana@example.com".into(),
                    diagnostic: Some("smtp; 550 5.1.1 user unknown".into()),
                },
                Recipient {
                    address: "luis@example.com".into(),
                    diagnostic: None,
                },
            ],
            at: "2026-11-21T10:05:00Z".parse().unwrap(),
        }
    }

    #[test]
    fn a_bounce_is_a_failed_send_naming_each_recipient_and_why() {
        let entry = history(&bounce(true));
        assert_eq!(entry.kind, HistoryKind::SendFailed);
        assert_eq!(
            entry.detail.as_deref(),
            Some("bounced: ana@example.com (smtp; 550 5.1.1 user unknown), luis@example.com")
        );
        assert_eq!(entry.at, bounce(true).at);
        let soft = history(&bounce(false));
        assert_eq!(soft.kind, HistoryKind::SendFailed);
        assert!(
            soft.detail
                .unwrap()
                .starts_with("not delivered, the provider gave up retrying: ana@")
        );
    }

    #[test]
    fn a_complaint_is_its_own_entry() {
        let complaint = Feedback {
            kind: FeedbackKind::Complaint,
            recipients: vec![],
            ..bounce(true)
        };
        let entry = history(&complaint);
        assert_eq!(entry.kind, HistoryKind::SendComplaint);
        assert_eq!(
            entry.detail.as_deref(),
            Some("marked as spam by recipients not named")
        );
    }

    #[test]
    fn a_long_diagnostic_is_cut() {
        let mut feedback = bounce(true);
        feedback.recipients[0].diagnostic = Some("x".repeat(1000));
        let detail = history(&feedback).detail.unwrap();
        assert!(detail.len() < 300, "{}", detail.len());
    }
}
