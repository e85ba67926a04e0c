//! The agent-tool endpoint: `POST /api/mcp`, the Model Context Protocol over
//! streamable HTTP (rmcp), stateless with JSON answers, so any instance (a
//! Lambda behind API Gateway, or `svc serve`) answers any request. Legacy
//! clients (`initialize`, 2025-11-25 and earlier) and modern ones
//! (2026-07-28, `server/discover`) share the path; GET and DELETE are 405.
//!
//! A tool is its REST operation called in-process (`call`): the same handler,
//! validation, quota, idempotency and test mode, by construction. The HTTP
//! request goes through the REST pipeline's outer layers: request id and
//! logs, panic guard, the same Bearer authentication (401 with a
//! `WWW-Authenticate` challenge and no OAuth metadata), and the rate limit,
//! which counts `tools/call` requests (protocol chatter such as `initialize`,
//! `tools/list` or `server/discover` is free).

mod call;
pub mod catalogue;
mod feedback;
mod schemas;
mod server;
mod summary;

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, Method, StatusCode};
use axum::middleware::{Next, from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use http_body_util::{BodyExt, Limited};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::tower::StreamableHttpService;
use serde::Deserialize;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer, ExposeHeaders};

use crate::config::Config;
use crate::http::error::ApiError;
use crate::http::hosts::{check_host, origin_allowed};
use crate::http::{AppState, auth, in_process, observe, rate_limit};
pub use server::McpServer;

pub const PATH: &str = "/api/mcp";

/// Room for the JSON-RPC envelope around arguments as large as a REST body.
const ENVELOPE_BYTES: usize = 64 * 1024;

/// The endpoint behind its pipeline, and the OAuth discovery paths answered
/// 404 without a key (clients probe them before sending any credential).
pub fn router(state: AppState) -> Router {
    let state_hosts = state.config.public_hosts.clone();
    let rest = in_process(state.clone());
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(rest.clone())),
        Arc::new(NeverSessionManager::default()),
        transport_config(&state.config),
    );
    let endpoint = Router::new()
        .route_service(PATH, service)
        .layer(from_fn_with_state(state.clone(), count_tool_calls))
        .layer(from_fn_with_state(state.clone(), auth::authenticate))
        .layer(from_fn_with_state(state, check_host));
    let discovery = Router::new()
        .route("/.well-known/oauth-protected-resource", any(no_oauth))
        .route(
            "/.well-known/oauth-protected-resource/{*path}",
            any(no_oauth),
        )
        .route("/.well-known/oauth-authorization-server", any(no_oauth))
        .route(
            "/.well-known/oauth-authorization-server/{*path}",
            any(no_oauth),
        )
        .route("/.well-known/openid-configuration", any(no_oauth));
    endpoint
        .merge(discovery)
        .layer(CatchPanicLayer::custom(observe::panic_response))
        .layer(cors(state_hosts))
        .layer(from_fn(observe::observe))
}

/// Browser clients (e.g. the MCP Inspector's web UI on a loopback port):
/// preflights answered before authentication, and CORS headers on every
/// answer, 401s included, for the origins the transport accepts.
fn cors(public_hosts: Vec<String>) -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(move |origin, _| {
            origin
                .to_str()
                .is_ok_and(|o| origin_allowed(o, &public_hosts))
        }))
        .allow_methods([Method::POST, Method::GET, Method::DELETE])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers(ExposeHeaders::list(
            [
                "mcp-session-id",
                "request-id",
                "www-authenticate",
                "retry-after",
                "x-ratelimit-limit",
                "x-ratelimit-remaining",
                "x-ratelimit-reset",
            ]
            .map(HeaderName::from_static),
        ))
        .max_age(std::time::Duration::from_secs(600))
}

/// Stateless, JSON answers, the REST body limit, and the Origin check
/// against loopback and the configured public hosts (the Host check is
/// `check_host`, which also takes `*.` patterns).
fn transport_config(config: &Config) -> StreamableHttpServerConfig {
    let origins = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .iter()
        .map(|o| o.to_string())
        .chain(
            config
                .public_hosts
                .iter()
                .filter(|h| !h.starts_with("*."))
                .map(|h| format!("https://{h}")),
        );
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts()
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(config.max_body_bytes + ENVELOPE_BYTES)
}

async fn no_oauth() -> ApiError {
    ApiError::status(
        StatusCode::NOT_FOUND,
        "route_not_found",
        "this API authenticates with API keys (`Authorization: Bearer svc_…`), not OAuth",
    )
}

#[derive(Deserialize)]
struct JsonRpcMethod {
    method: Option<String>,
}

/// The rate limit of the REST API, counted on tool calls only.
async fn count_tool_calls(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let limit = state.config.max_body_bytes + ENVELOPE_BYTES;
    let bytes: Bytes = match Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return ApiError::status(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("the request body is larger than {limit} bytes"),
            )
            .into_response();
        }
    };
    let is_tool_call = serde_json::from_slice::<JsonRpcMethod>(&bytes)
        .ok()
        .and_then(|m| m.method)
        .is_some_and(|m| m == "tools/call");
    let req = Request::from_parts(parts, Body::from(bytes));
    if is_tool_call {
        rate_limit::limit(State(state), req, next).await
    } else {
        next.run(req).await
    }
}
