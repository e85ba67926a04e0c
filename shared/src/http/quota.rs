//! `QuotaUnit`: the extractor of handlers that cost one unit of the daily quota
//! (analysis and extraction). It answers 429 `quota_exceeded` once the day's
//! units are used, and otherwise adds the charge to the request's unit of work,
//! so the unit is spent only when the request succeeds and commits, once, even
//! when replayed with its idempotency key. Test keys are never charged.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::error::ApiError;
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::keys::Caller;
use crate::app::quota::{self, QuotaError};

pub struct QuotaUnit;

impl FromRequestParts<AppState> for QuotaUnit {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let caller = Caller::from_request_parts(parts, state).await?;
        let uow = UnitOfWork::from_request_parts(parts, state).await?;
        charge_unit(state, &caller, &uow).await?;
        Ok(QuotaUnit)
    }
}

/// Adds the charge of one unit to the unit of work, or answers 429
/// `quota_exceeded`; for handlers whose cost depends on the request. Returns
/// the Madrid day charged (`None` for a test key).
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
