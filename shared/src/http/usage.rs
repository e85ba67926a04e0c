//! The usage group: `GET /api/v1/usage`.

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::state::AppState;
use crate::app::keys::Caller;
use crate::app::usage;
use crate::domain::account::Plan;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_usage))
}

/// The caller's daily quota. Days run midnight to midnight in Europe/Madrid.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"object": "usage", "plan": "pro", "daily_limit": 100, "used": 12,
    "remaining": 88, "resets_at": "2026-11-21T23:00:00Z", "livemode": true}))]
pub struct UsageResponse {
    /// Always `usage`.
    pub object: &'static str,
    pub plan: Plan,
    /// Units per day of the plan (1 unit per analysis or extraction request).
    pub daily_limit: u32,
    /// Units used today by live requests (test keys never use quota).
    pub used: u32,
    pub remaining: u32,
    /// When the quota resets: the next midnight in Europe/Madrid, as UTC.
    pub resets_at: DateTime<Utc>,
    /// False when the request was made with a test key.
    pub livemode: bool,
}

/// Today's quota
///
/// The plan, the daily limit and what is left of it today. Analysis and
/// extraction requests with live keys use 1 unit each; test keys use none and
/// see the account's live figures with `livemode: false`.
#[utoipa::path(get, path = "/api/v1/usage", tag = "usage", operation_id = "get_usage",
    responses((status = 200, description = "The quota of today", body = UsageResponse)))]
async fn get_usage(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<UsageResponse>, ApiError> {
    let u = usage::today(&state.ports, &caller, &state.config.quotas).await?;
    Ok(Json(UsageResponse {
        object: "usage",
        plan: u.plan,
        daily_limit: u.daily_limit,
        used: u.used,
        remaining: u.remaining,
        resets_at: u.resets_at,
        livemode: u.livemode,
    }))
}
