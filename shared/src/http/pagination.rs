//! Lists: `?limit=` (1–100, default 20) and `?starting_after=<id>`, answered
//! as `{"object": "list", "data": [...], "has_more": bool}`, newest first.

use serde::Serialize;
use utoipa::ToSchema;

use super::error::ApiError;

pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 100;

pub fn limit(raw: Option<u32>) -> Result<usize, ApiError> {
    match raw {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT as u32).contains(&n) => Ok(n as usize),
        Some(n) => Err(ApiError::invalid(
            "parameter_invalid",
            format!("limit {n} is outside 1–{MAX_LIMIT}"),
        )
        .param("limit")),
    }
}

#[derive(Serialize, ToSchema)]
pub struct List<T> {
    /// Always `list`.
    pub object: &'static str,
    pub data: Vec<T>,
    /// More items follow: ask again with `starting_after` = the last id.
    pub has_more: bool,
}

impl<T> List<T> {
    pub fn new(data: Vec<T>, has_more: bool) -> Self {
        List {
            object: "list",
            data,
            has_more,
        }
    }
}
