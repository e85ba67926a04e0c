//! Lists: `?limit=` (1–100, default 20) and `?starting_after=<id>`, answered
//! as `{"object": "list", "data": [...], "has_more": bool}`, newest first.

use serde::Serialize;
use utoipa::ToSchema;

use super::error::ApiError;

pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 100;

/// The page a list's query asks for. Each list's query declares `limit` and
/// `starting_after` itself (the cursor's description and type are the list's
/// own in the OpenAPI document) and hands them to `Page::new`, which holds the
/// paging rules.
pub struct Page<C> {
    /// How many items, at most.
    pub limit: usize,
    /// The last id of the previous page: the list goes on after it.
    pub starting_after: Option<C>,
}

impl<C> Page<C> {
    /// `limit` defaults to 20; outside 1–100 it is 400 `parameter_invalid`
    /// (param `limit`).
    pub fn new(limit: Option<u32>, starting_after: Option<C>) -> Result<Self, ApiError> {
        let limit = match limit {
            None => DEFAULT_LIMIT,
            Some(n) if (1..=MAX_LIMIT as u32).contains(&n) => n as usize,
            Some(n) => {
                return Err(ApiError::invalid(
                    "parameter_invalid",
                    format!("limit {n} is outside 1–{MAX_LIMIT}"),
                )
                .param("limit"));
            }
        };
        Ok(Page {
            limit,
            starting_after,
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_holds_20_items_unless_asked_for_1_to_100() {
        let page = Page::new(None, Some("cus_1")).unwrap();
        assert_eq!((page.limit, page.starting_after), (20, Some("cus_1")));
        assert_eq!(Page::<u64>::new(Some(1), None).unwrap().limit, 1);
        assert_eq!(Page::<u64>::new(Some(100), None).unwrap().limit, 100);
        for outside in [0, 101] {
            let e = Page::<u64>::new(Some(outside), None).err().unwrap();
            assert_eq!(
                (e.code.as_str(), e.message, e.param.as_deref()),
                (
                    "parameter_invalid",
                    format!("limit {outside} is outside 1–100"),
                    Some("limit")
                )
            );
        }
    }
}
