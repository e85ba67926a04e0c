//! The event types a webhook can subscribe to (API spec §6), and a
//! subscription: a list of them or `["*"]` for all, present and future.

use std::fmt;
use std::str::FromStr;

/// The event types of the API.
pub const EVENT_TYPES: [&str; 17] = [
    "analysis.completed",
    "job.completed",
    "job.failed",
    "quota.threshold",
    "fiscal.deadline",
    "invoice.issued",
    "invoice.cancelled",
    "invoice.rejected",
    "invoice.accepted",
    "invoice.paid",
    "invoice.unpaid",
    "invoice.payment_received",
    "invoice.overdue",
    "invoice.sent",
    "invoice.send_failed",
    "verifactu.accepted",
    "verifactu.rejected",
];

/// The subscription to every type, present and future.
pub const ALL: &str = "*";

/// The type of the event sent by `POST /api/v1/webhooks/{id}/test`: it is not
/// subscribable and goes only to the webhook being tested.
pub const TEST_EVENT_TYPE: &str = "webhook.test";

/// What a webhook receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subscription {
    All,
    /// Known types, without duplicates, in the order given.
    Types(Vec<String>),
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
    format!("\"*\" or any of: {}", EVENT_TYPES.join(", "))
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
        let mut kept: Vec<String> = Vec::new();
        for (index, t) in types.iter().enumerate() {
            if !EVENT_TYPES.contains(&t.as_str()) {
                return Err(SubscriptionError {
                    index: Some(index),
                    message: format!("unknown event type {t:?}; accepted: {}", accepted()),
                });
            }
            if !kept.contains(t) {
                kept.push(t.clone());
            }
        }
        Ok(Subscription::Types(kept))
    }

    pub fn includes(&self, event_type: &str) -> bool {
        match self {
            Subscription::All => true,
            Subscription::Types(types) => types.iter().any(|t| t == event_type),
        }
    }

    /// The list as stored and shown: `["*"]` or the types.
    pub fn to_list(&self) -> Vec<String> {
        match self {
            Subscription::All => vec![ALL.to_string()],
            Subscription::Types(types) => types.clone(),
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
    fn known_types_and_the_wildcard_parse() {
        assert_eq!(Subscription::parse(&list(&["*"])), Ok(Subscription::All));
        let s =
            Subscription::parse(&list(&["invoice.paid", "job.failed", "invoice.paid"])).unwrap();
        assert_eq!(s.to_list(), list(&["invoice.paid", "job.failed"]));
        assert!(s.includes("job.failed") && !s.includes("invoice.issued"));
        assert!(Subscription::All.includes("fiscal.deadline"));
    }

    #[test]
    fn unknown_types_name_the_entry_and_the_accepted_list() {
        let e = Subscription::parse(&list(&["invoice.paid", "invoice.payed"])).unwrap_err();
        assert_eq!(e.index, Some(1));
        assert!(e.message.contains("\"invoice.payed\""), "{e}");
        for t in EVENT_TYPES {
            assert!(e.message.contains(t), "{t} missing from {e}");
        }
        assert_eq!(Subscription::parse(&[]).unwrap_err().index, None);
        assert!(Subscription::parse(&list(&["*", "job.failed"])).is_err());
        assert!(Subscription::parse(&list(&[TEST_EVENT_TYPE])).is_err());
    }

    #[test]
    fn the_stored_text_round_trips() {
        for s in [
            Subscription::All,
            Subscription::Types(list(&["invoice.paid", "quota.threshold"])),
        ] {
            assert_eq!(s.to_string().parse::<Subscription>(), Ok(s));
        }
    }
}
