//! Developers: webhooks (with their delivery log), events and the API reference.

use axum::Router;

use crate::http::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
}
