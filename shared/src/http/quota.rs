//! The charge of one unit of the daily quota by the handlers that cost one
//! (analysis and extraction): 429 `quota_exceeded` once the day's units are
//! used, otherwise the charge joins the request's unit of work, so the unit
//! is spent only when the request succeeds and commits, once, even when
//! replayed with its idempotency key. Test keys are never charged.

use super::error::ApiError;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::keys::Caller;
use crate::app::quota::{self, QuotaError};

/// Adds the charge of one unit to the unit of work, or answers 429
/// `quota_exceeded`. Returns the Madrid day charged (`None` for a test key).
pub async fn charge_unit(
    state: &AppState,
    caller: &Caller,
    uow: &UnitOfWork,
) -> Result<Option<String>, ApiError> {
    match quota::charge(&state.ports, caller, &state.config.quotas).await {
        Ok(charge) => {
            uow.extend(charge.writes);
            Ok(charge.day)
        }
        Err(QuotaError::Exceeded(status)) => {
            let retry_after = (status.resets_at - state.ports.clock.now()).num_seconds();
            Err(ApiError::too_many(
                "quota_exceeded",
                format!(
                    "the daily quota of {} units of the {} plan is used up; it resets at {} (midnight, Europe/Madrid)",
                    status.limit,
                    caller.plan,
                    status.resets_at.to_rfc3339()
                ),
                retry_after,
            ))
        }
        Err(QuotaError::Table(e)) => Err(e.into()),
    }
}
