//! `ApiQuery<T>`: the query-string extractor, with the same precise errors as
//! `ApiJson` (unknown, missing and invalid parameters are named).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::json::field_error;

pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parse(parts.uri.query().unwrap_or("")).map(ApiQuery)
    }
}

/// Reads a query string into `T`, naming the parameter at fault.
pub fn parse<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
    serde_path_to_error::deserialize(de)
        .map_err(|err| field_error(&err.path().to_string(), &err.into_inner().to_string()))
}
