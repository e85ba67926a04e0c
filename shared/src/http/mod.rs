//! HTTP: one axum router per endpoint group, and the request pipeline they all
//! share. A Lambda serves one group; `svc serve` serves them all.

pub mod aeat;
pub mod analyses;
pub mod analyze_request;
pub mod async_mode;
pub mod auth;
pub mod authority;
pub mod blob_put;
pub mod client_address;
pub mod customers;
pub mod deadline;
pub mod documents;
pub mod edge;
pub mod error;
pub mod events;
pub mod expenses;
pub mod extraction;
pub mod hosts;
pub mod invoice_send;
pub mod invoices;
pub mod jobs;
pub mod json;
pub mod observe;
pub mod openapi;
pub mod pagination;
pub mod payments;
pub mod query;
pub mod quota;
pub mod rate_limit;
pub mod series;
pub mod serving;
pub mod state;
pub mod tax;
pub mod unit_of_work;
pub mod uploads;
pub mod usage;
pub mod verifactu;
pub mod webhooks;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::{from_fn, from_fn_with_state};
use tower_http::catch_panic::CatchPanicLayer;
use utoipa_axum::router::OpenApiRouter;

use error::ApiError;
pub use state::AppState;

/// The endpoint groups of the API; each is one Lambda function in AWS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Usage,
    Aeat,
    Tax,
    Customers,
    Expenses,
    Invoices,
    Extraction,
    Analyses,
    OpenApi,
    Events,
    Webhooks,
    Jobs,
    Uploads,
}

impl Group {
    pub const ALL: [Group; 13] = [
        Group::Usage,
        Group::Aeat,
        Group::Tax,
        Group::Customers,
        Group::Expenses,
        Group::Invoices,
        Group::Extraction,
        Group::Analyses,
        Group::OpenApi,
        Group::Events,
        Group::Webhooks,
        Group::Jobs,
        Group::Uploads,
    ];

    pub fn routes(self) -> OpenApiRouter<AppState> {
        match self {
            Group::Usage => usage::routes(),
            Group::Aeat => aeat::routes(),
            Group::Tax => tax::routes(),
            Group::Customers => customers::routes(),
            Group::Expenses => expenses::routes(),
            Group::Invoices => invoices::routes(),
            Group::Extraction => extraction::routes(),
            Group::Analyses => analyses::routes(),
            Group::OpenApi => openapi::routes(),
            Group::Events => events::routes(),
            Group::Webhooks => webhooks::routes(),
            Group::Jobs => jobs::routes(),
            Group::Uploads => uploads::routes(),
        }
    }
}

/// One group behind the pipeline: what a Lambda function serves.
pub fn group_router(routes: OpenApiRouter<AppState>, state: AppState) -> Router {
    with_pipeline(Router::from(routes), state)
}

/// The routes of every group, before the pipeline.
pub fn all_groups() -> Router<AppState> {
    Group::ALL.into_iter().fold(Router::new(), |router, group| {
        router.merge(Router::from(group.routes()))
    })
}

/// Every group behind the pipeline, and the agent-tool endpoint: what
/// `svc serve` serves.
pub fn service_router(state: AppState) -> Router {
    with_pipeline(all_groups(), state.clone()).merge(crate::mcp::router(state))
}

async fn route_not_found(uri: Uri) -> ApiError {
    ApiError::status(
        StatusCode::NOT_FOUND,
        "route_not_found",
        format!("no endpoint at {}; see /api/v1/openapi.json", uri.path()),
    )
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::status(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{method} is not allowed on {}", uri.path()),
    )
}

/// The request pipeline, outermost first: request id and logs, panic guard,
/// a well-formed `Host`, authentication, rate limit, then the routes' own
/// layers (`core`).
pub fn with_pipeline(router: Router<AppState>, state: AppState) -> Router {
    core(router, &state)
        .layer(from_fn_with_state(state.clone(), rate_limit::limit))
        .layer(from_fn_with_state(state.clone(), auth::authenticate))
        .layer(from_fn(hosts::valid_host))
        .layer(CatchPanicLayer::custom(observe::panic_response))
        .layer(from_fn(observe::observe))
        .with_state(state)
}

/// Every group with the layers inside authentication: the body limit, the
/// unit of work of POSTs, the fallbacks and the deadline of the handlers. The agent-tool endpoint calls it
/// in-process with the caller it authenticated (see `crate::mcp`).
pub fn in_process(state: AppState) -> Router {
    core(all_groups(), &state).with_state(state)
}

fn core(router: Router<AppState>, state: &AppState) -> Router<AppState> {
    router
        .layer(from_fn(deadline::bound))
        .fallback(route_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(from_fn_with_state(
            state.clone(),
            unit_of_work::unit_of_work,
        ))
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes))
}
