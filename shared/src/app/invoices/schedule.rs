//! The instalments of a new invoice: the requested `due_dates`, or the
//! single `due_date`, or by default the whole total due the account's
//! payment terms after the issue date (30 days unless set; Ley 3/2004 art. 4).

use chrono::{Days, NaiveDate};
use rust_decimal::Decimal;
use serde::Deserialize;
use utoipa::ToSchema;

use super::error::InvoiceError;
use crate::invoice::payments::{self, Instalment};
use crate::tax::money::decimal_from_json;

/// One instalment of an issue request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DueDateRequest {
    /// The due date; not before the issue date, after the previous instalment's.
    pub date: NaiveDate,
    /// More than 0, up to 2 decimals.
    #[serde(deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub amount: Decimal,
}

/// The instalments of an invoice of `total` issued on `issue_date`. None
/// when the total is not positive (nothing to collect); `due_dates` is then
/// refused. `terms_days`: without due dates, the total falls due this many
/// days after the issue date (the account's payment terms); none (a ticket,
/// paid at the counter, or an invoice replacing tickets): nothing falls due
/// unless asked.
pub fn instalments(
    due_date: Option<NaiveDate>,
    due_dates: Option<Vec<DueDateRequest>>,
    issue_date: NaiveDate,
    total: Decimal,
    terms_days: Option<u32>,
) -> Result<Vec<Instalment>, InvoiceError> {
    match (due_date, due_dates) {
        (Some(_), Some(_)) => Err(InvoiceError::invalid(
            "parameter_invalid",
            "due_dates".into(),
            "send either due_date (one instalment of the total) or due_dates, not both",
        )),
        (_, Some(requested)) => {
            let requested: Vec<_> = requested.iter().map(|r| (r.date, r.amount)).collect();
            payments::check_schedule(&requested, issue_date, total).map_err(|(field, message)| {
                InvoiceError::invalid("parameter_invalid", format!("due_dates{field}"), message)
            })
        }
        _ if total <= Decimal::ZERO => Ok(Vec::new()),
        (Some(date), None) => Ok(vec![Instalment::new(date, total)]),
        (None, None) => Ok(terms_days
            .map(|days| {
                vec![Instalment::new(
                    issue_date + Days::new(u64::from(days)),
                    total,
                )]
            })
            .unwrap_or_default()),
    }
}
