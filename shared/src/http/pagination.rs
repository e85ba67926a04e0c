//! Lists: `?limit=` (1–100, default 20) and `?starting_after=<id>`, answered
//! as `{"object": "list", "data": [...], "has_more": bool}`, newest first.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use utoipa::openapi::Required;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
use utoipa::{IntoParams, ToSchema};

use super::error::ApiError;

pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 100;

/// The page a list's query asks for.
#[derive(Debug, PartialEq)]
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
            Some(n) => return Err(limit_invalid(&n.to_string())),
        };
        Ok(Page {
            limit,
            starting_after,
        })
    }
}

fn limit_invalid(limit: &str) -> ApiError {
    ApiError::invalid(
        "parameter_invalid",
        format!("limit {limit} is outside 1–{MAX_LIMIT}"),
    )
    .param("limit")
}

/// The paging parameters every list takes, as the OpenAPI document shows
/// them (each list adds its filters: `params(PageParams, …Filters)`).
pub struct PageParams;

impl IntoParams for PageParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let limit = ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int32)))
            .minimum(Some(1))
            .maximum(Some(MAX_LIMIT as u32));
        let cursor = ObjectBuilder::new().schema_type(Type::String);
        let parameter = |name: &str, schema: ObjectBuilder, text: &str| {
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Query)
                .required(Required::False)
                .schema(Some(schema))
                .description(Some(text))
                .build()
        };
        vec![
            parameter("limit", limit, "1–100, default 20."),
            parameter(
                "starting_after",
                cursor,
                "The id of the last item of the previous page: the list goes on with the \
                 items after it (older ones).",
            ),
        ]
    }
}

/// A list's query: its page (`limit`, `starting_after`) and its own filters
/// `F`, read from the query string with the same errors as `ApiQuery`
/// (an unknown parameter is 400 `parameter_unknown`).
pub struct ListQuery<F> {
    pub page: Page<String>,
    pub filters: F,
}

/// The filters of a list that has none.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFilters {}

impl<F: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ListQuery<F> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        list_query(parts.uri.query().unwrap_or(""))
    }
}

fn list_query<F: DeserializeOwned>(query: &str) -> Result<ListQuery<F>, ApiError> {
    let mut limit = None;
    let mut starting_after = None;
    let mut rest = form_urlencoded::Serializer::new(String::new());
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        match name.as_ref() {
            "limit" => limit = Some(value.parse::<u32>().map_err(|_| limit_invalid(&value))?),
            "starting_after" => starting_after = Some(value.into_owned()),
            _ => {
                rest.append_pair(&name, &value);
            }
        }
    }
    Ok(ListQuery {
        page: Page::new(limit, starting_after)?,
        filters: super::query::parse(&rest.finish())?,
    })
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

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Filters {
        status: Option<String>,
    }

    #[test]
    fn a_list_query_splits_the_page_from_the_filters() {
        let q: ListQuery<Filters> = list_query("status=paid&limit=5&starting_after=cus_9").unwrap();
        assert_eq!(
            (q.page, q.filters),
            (
                Page {
                    limit: 5,
                    starting_after: Some("cus_9".to_string())
                },
                Filters {
                    status: Some("paid".into())
                }
            )
        );
        let none: ListQuery<NoFilters> = list_query("").unwrap();
        assert_eq!(none.page.limit, 20);
        let bad = |query: &str| list_query::<Filters>(query).err().unwrap();
        let e = bad("limit=ten");
        assert_eq!(
            (e.code.as_str(), e.param.as_deref()),
            ("parameter_invalid", Some("limit"))
        );
        let e = bad("colour=red");
        assert_eq!(
            (e.code.as_str(), e.param.as_deref()),
            ("parameter_unknown", Some("colour"))
        );
        let e = list_query::<NoFilters>("status=paid").err().unwrap();
        assert_eq!(e.code, "parameter_unknown");
    }

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
