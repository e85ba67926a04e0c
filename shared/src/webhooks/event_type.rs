//! The event types a webhook can subscribe to (API spec §6), and a
//! subscription: a list of them or `["*"]` for all, present and future.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An event's type (API spec §6), written as its `code()`; its schema below
/// says which ones a webhook can subscribe to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    AnalysisCompleted,
    JobCompleted,
    JobFailed,
    QuotaThreshold,
    FiscalDeadline,
    InvoiceIssued,
    InvoiceCancelled,
    InvoiceRejected,
    InvoiceAccepted,
    InvoicePaid,
    InvoiceUnpaid,
    InvoicePaymentReceived,
    InvoiceOverdue,
    InvoiceSent,
    InvoiceSendFailed,
    VerifactuAccepted,
    VerifactuRejected,
    ExpenseCreated,
    ExpenseUpdated,
    ExpenseDeleted,
    WebhookTest,
}

impl EventType {
    /// The types a webhook can subscribe to, in the order the API lists them.
    pub const SUBSCRIBABLE: [EventType; 20] = [
        EventType::AnalysisCompleted,
        EventType::JobCompleted,
        EventType::JobFailed,
        EventType::QuotaThreshold,
        EventType::FiscalDeadline,
        EventType::InvoiceIssued,
        EventType::InvoiceCancelled,
        EventType::InvoiceRejected,
        EventType::InvoiceAccepted,
        EventType::InvoicePaid,
        EventType::InvoiceUnpaid,
        EventType::InvoicePaymentReceived,
        EventType::InvoiceOverdue,
        EventType::InvoiceSent,
        EventType::InvoiceSendFailed,
        EventType::VerifactuAccepted,
        EventType::VerifactuRejected,
        EventType::ExpenseCreated,
        EventType::ExpenseUpdated,
        EventType::ExpenseDeleted,
    ];

    pub fn code(self) -> &'static str {
        match self {
            EventType::AnalysisCompleted => "analysis.completed",
            EventType::JobCompleted => "job.completed",
            EventType::JobFailed => "job.failed",
            EventType::QuotaThreshold => "quota.threshold",
            EventType::FiscalDeadline => "fiscal.deadline",
            EventType::InvoiceIssued => "invoice.issued",
            EventType::InvoiceCancelled => "invoice.cancelled",
            EventType::InvoiceRejected => "invoice.rejected",
            EventType::InvoiceAccepted => "invoice.accepted",
            EventType::InvoicePaid => "invoice.paid",
            EventType::InvoiceUnpaid => "invoice.unpaid",
            EventType::InvoicePaymentReceived => "invoice.payment_received",
            EventType::InvoiceOverdue => "invoice.overdue",
            EventType::InvoiceSent => "invoice.sent",
            EventType::InvoiceSendFailed => "invoice.send_failed",
            EventType::VerifactuAccepted => "verifactu.accepted",
            EventType::VerifactuRejected => "verifactu.rejected",
            EventType::ExpenseCreated => "expense.created",
            EventType::ExpenseUpdated => "expense.updated",
            EventType::ExpenseDeleted => "expense.deleted",
            EventType::WebhookTest => "webhook.test",
        }
    }

    /// Any type, `webhook.test` included (as stored events and deliveries name it).
    pub fn parse(code: &str) -> Option<EventType> {
        EventType::SUBSCRIBABLE
            .into_iter()
            .chain([EventType::WebhookTest])
            .find(|t| t.code() == code)
    }

    /// A type a webhook can subscribe to or `GET /events` can filter by.
    pub fn parse_subscribable(code: &str) -> Option<EventType> {
        EventType::SUBSCRIBABLE
            .into_iter()
            .find(|t| t.code() == code)
    }
}

/// Written and read as its code (`invoice.paid`).
impl Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        EventType::parse(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown event type {code:?}")))
    }
}

impl utoipa::PartialSchema for EventType {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let codes = EventType::SUBSCRIBABLE
            .into_iter()
            .chain([EventType::WebhookTest])
            .map(EventType::code);
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some(
                "An event's type (API spec §6). Every type but `webhook.test` can be\n\
                 subscribed to; `webhook.test` is what `POST /api/v1/webhooks/{id}/test`\n\
                 sends, to the webhook being tested only.",
            ))
            .enum_values(Some(codes))
            .into()
    }
}

impl ToSchema for EventType {}

/// An event type is its code: `event.kind == "invoice.paid"` reads as the API writes it.
impl PartialEq<&str> for EventType {
    fn eq(&self, code: &&str) -> bool {
        self.code() == *code
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// The subscription to every type, present and future.
pub const ALL: &str = "*";

/// What a webhook receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subscription {
    All,
    /// Subscribable types, without duplicates, in the order given.
    Types(Vec<EventType>),
}

/// Why a list of types was refused, and which entry (its index) when one is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionError {
    pub index: Option<usize>,
    pub message: String,
}

impl fmt::Display for SubscriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn accepted() -> String {
    let codes: Vec<&str> = EventType::SUBSCRIBABLE.map(EventType::code).to_vec();
    format!("\"*\" or any of: {}", codes.join(", "))
}

impl Subscription {
    pub fn parse(types: &[String]) -> Result<Self, SubscriptionError> {
        if types.is_empty() {
            return Err(SubscriptionError {
                index: None,
                message: format!("events must list at least one type: {}", accepted()),
            });
        }
        if types.iter().any(|t| t == ALL) {
            return match types.len() {
                1 => Ok(Subscription::All),
                _ => Err(SubscriptionError {
                    index: None,
                    message: "\"*\" subscribes to every type; send it alone".into(),
                }),
            };
        }
        let mut kept: Vec<EventType> = Vec::new();
        for (index, t) in types.iter().enumerate() {
            let Some(event_type) = EventType::parse_subscribable(t) else {
                return Err(SubscriptionError {
                    index: Some(index),
                    message: format!("unknown event type {t:?}; accepted: {}", accepted()),
                });
            };
            if !kept.contains(&event_type) {
                kept.push(event_type);
            }
        }
        Ok(Subscription::Types(kept))
    }

    pub fn includes(&self, event_type: EventType) -> bool {
        match self {
            Subscription::All => true,
            Subscription::Types(types) => types.contains(&event_type),
        }
    }

    /// The list as stored and shown: `["*"]` or the types.
    pub fn to_list(&self) -> Vec<String> {
        match self {
            Subscription::All => vec![ALL.to_string()],
            Subscription::Types(types) => types.iter().map(|t| t.code().to_string()).collect(),
        }
    }
}

impl FromStr for Subscription {
    type Err = SubscriptionError;

    /// A comma-separated list, as the table keeps it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let types: Vec<String> = s.split(',').map(str::to_string).collect();
        Subscription::parse(&types)
    }
}

impl fmt::Display for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_list().join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(types: &[&str]) -> Vec<String> {
        types.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn codes_parse_back_and_serialise_as_themselves() {
        for t in EventType::SUBSCRIBABLE
            .into_iter()
            .chain([EventType::WebhookTest])
        {
            assert_eq!(EventType::parse(t.code()), Some(t));
            assert_eq!(serde_json::to_value(t).unwrap(), t.code());
        }
        assert_eq!(EventType::parse_subscribable("webhook.test"), None);
    }

    #[test]
    fn known_types_and_the_wildcard_parse() {
        assert_eq!(Subscription::parse(&list(&["*"])), Ok(Subscription::All));
        let s =
            Subscription::parse(&list(&["invoice.paid", "job.failed", "invoice.paid"])).unwrap();
        assert_eq!(s.to_list(), list(&["invoice.paid", "job.failed"]));
        assert!(s.includes(EventType::JobFailed) && !s.includes(EventType::InvoiceIssued));
        assert!(Subscription::All.includes(EventType::FiscalDeadline));
    }

    #[test]
    fn unknown_types_name_the_entry_and_the_accepted_list() {
        let e = Subscription::parse(&list(&["invoice.paid", "invoice.payed"])).unwrap_err();
        assert_eq!(e.index, Some(1));
        assert!(e.message.contains("\"invoice.payed\""), "{e}");
        for t in EventType::SUBSCRIBABLE {
            assert!(e.message.contains(t.code()), "{t} missing from {e}");
        }
        assert_eq!(Subscription::parse(&[]).unwrap_err().index, None);
        assert!(Subscription::parse(&list(&["*", "job.failed"])).is_err());
        assert!(Subscription::parse(&list(&[EventType::WebhookTest.code()])).is_err());
    }

    #[test]
    fn the_stored_text_round_trips() {
        for s in [
            Subscription::All,
            Subscription::Types(vec![EventType::InvoicePaid, EventType::QuotaThreshold]),
        ] {
            assert_eq!(s.to_string().parse::<Subscription>(), Ok(s));
        }
    }
}
