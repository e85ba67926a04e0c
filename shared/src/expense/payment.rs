//! Whether and when the account paid a received invoice. IRPF withheld from
//! the supplier is due when the income is paid (RIRPF art. 78.1), so the
//! payment date places it in a Modelo 111 or 115.

use chrono::NaiveDate;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// In JSON: the date, or `null` when not paid yet. Expenses stored before the
/// book recorded payments have no member at all: they count as paid on
/// their issue date, as the returns counted them then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Paid {
    On(NaiveDate),
    Unpaid,
    #[default]
    NotRecorded,
}

impl Paid {
    pub fn not_recorded(&self) -> bool {
        *self == Paid::NotRecorded
    }

    pub fn from_date(date: Option<NaiveDate>) -> Paid {
        date.map_or(Paid::Unpaid, Paid::On)
    }
}

impl Serialize for Paid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Paid::On(date) => s.serialize_some(date),
            Paid::Unpaid | Paid::NotRecorded => s.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for Paid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Paid, D::Error> {
        Option::<NaiveDate>::deserialize(d).map(Paid::from_date)
    }
}
