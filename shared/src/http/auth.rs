//! The auth layer: resolves `Authorization: Bearer <key>` to a `Caller`.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::observe::ServedAccount;
use super::state::AppState;
use crate::app::keys::{self, AuthError, Caller};

pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let header = match req.headers().get(AUTHORIZATION).map(|v| v.to_str()) {
        None => None,
        Some(Ok(value)) => Some(value.to_string()),
        Some(Err(_)) => return ApiError::from(AuthError::Malformed).into_response(),
    };
    let caller = match keys::authenticate(&state.ports, header.as_deref()).await {
        Ok(caller) => caller,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let account = ServedAccount(caller.account_id.to_string());
    req.extensions_mut().insert(caller);
    let mut response = next.run(req).await;
    response.extensions_mut().insert(account);
    response
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .ok_or_else(|| ApiError::internal("route served without the auth layer"))
    }
}
