//! The caller's quota for today.

use chrono::{DateTime, Utc};

use crate::app::keys::Caller;
use crate::app::quota;
use crate::domain::account::QuotaLimits;
use crate::ports::Ports;
use crate::ports::table::TableError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    pub plan: crate::domain::account::Plan,
    pub daily_limit: u32,
    pub used: u32,
    pub remaining: u32,
    pub resets_at: DateTime<Utc>,
    pub livemode: bool,
}

/// Today's quota of the caller's account. Test keys use no quota, so for them
/// this reports the account's live use, with `livemode: false`.
pub async fn today(
    ports: &Ports,
    caller: &Caller,
    limits: &QuotaLimits,
) -> Result<Usage, TableError> {
    let status = quota::status(ports, &caller.account_id, caller.plan, limits).await?;
    Ok(Usage {
        plan: caller.plan,
        daily_limit: status.limit,
        used: status.used,
        remaining: status.remaining(),
        resets_at: status.resets_at,
        livemode: caller.mode.is_live(),
    })
}
