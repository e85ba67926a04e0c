//! Invoice states and the transitions `POST /invoices/{id}/status` allows.
//! `cancelled` is final and only reached by cancelling.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Issued,
    Accepted,
    Rejected,
    Paid,
    Unpaid,
    Cancelled,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Issued,
        Status::Accepted,
        Status::Rejected,
        Status::Paid,
        Status::Unpaid,
        Status::Cancelled,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Status::Issued => "issued",
            Status::Accepted => "accepted",
            Status::Rejected => "rejected",
            Status::Paid => "paid",
            Status::Unpaid => "unpaid",
            Status::Cancelled => "cancelled",
        }
    }

    pub fn parse(code: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The states a client may set from this one:
    /// issued → accepted, rejected, paid, unpaid; accepted → paid, unpaid, rejected;
    /// rejected → accepted; paid ↔ unpaid; cancelled → nothing.
    pub fn next(self) -> &'static [Status] {
        match self {
            Status::Issued => &[
                Status::Accepted,
                Status::Rejected,
                Status::Paid,
                Status::Unpaid,
            ],
            Status::Accepted => &[Status::Paid, Status::Unpaid, Status::Rejected],
            Status::Rejected => &[Status::Accepted],
            Status::Paid => &[Status::Unpaid],
            Status::Unpaid => &[Status::Paid],
            Status::Cancelled => &[],
        }
    }

    pub fn can_become(self, to: Status) -> bool {
        self.next().contains(&to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transition_table() {
        assert!(Status::Issued.can_become(Status::Paid));
        assert!(Status::Paid.can_become(Status::Unpaid) && Status::Unpaid.can_become(Status::Paid));
        assert!(!Status::Cancelled.can_become(Status::Paid));
        assert!(!Status::Paid.can_become(Status::Rejected));
        assert!(
            !Status::Issued.can_become(Status::Cancelled),
            "cancelling has its own endpoint"
        );
        assert!(!Status::Issued.can_become(Status::Issued));
    }
}
