//! A VERI*FACTU record's state in the service: pending until the AEAT (or,
//! for test invoices, its simulator) answers, then as it answered.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `pending` until the tax authority answers, then `accepted`,
/// `accepted_with_errors` or `rejected`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordStatus {
    Pending,
    Accepted,
    AcceptedWithErrors,
    Rejected,
}

impl RecordStatus {
    pub const ALL: [RecordStatus; 4] = [
        RecordStatus::Pending,
        RecordStatus::Accepted,
        RecordStatus::AcceptedWithErrors,
        RecordStatus::Rejected,
    ];

    /// The code as the API and the stored records write it.
    pub fn code(self) -> &'static str {
        match self {
            RecordStatus::Pending => "pending",
            RecordStatus::Accepted => "accepted",
            RecordStatus::AcceptedWithErrors => "accepted_with_errors",
            RecordStatus::Rejected => "rejected",
        }
    }

    pub fn parse(code: &str) -> Option<RecordStatus> {
        RecordStatus::ALL.into_iter().find(|s| s.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_parse_back_and_serialise_as_themselves() {
        for status in RecordStatus::ALL {
            assert_eq!(RecordStatus::parse(status.code()), Some(status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.code());
        }
    }
}
