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

/// `http://` a loopback host on any port, or `https://` a public host.
fn origin_allowed(origin: &str, public: &[String]) -> bool {
    if let Some(authority) = origin.strip_prefix("http://") {
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(v6),
            None => authority.split(':').next().unwrap_or(authority),
        };
        return LOOPBACK.contains(&host);
    }
    origin.strip_prefix("https://").is_some_and(|authority| {
        let host = authority.strip_suffix(":443").unwrap_or(authority);
        public
            .iter()
            .any(|entry| !entry.starts_with("*.") && entry == host)
    })
}

const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

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

/// DNS-rebinding protection: the `Host` must be loopback or one of the
/// public hosts (`api.example.com`, `api.example.com:8443`, or a pattern
/// `*.execute-api.eu-west-1.amazonaws.com` for the API Gateway domain, which
/// the template cannot name without a circular reference).
async fn check_host(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_ascii_lowercase)
        .or_else(|| {
            req.uri()
                .authority()
                .map(|a| a.as_str().to_ascii_lowercase())
        });
    match host {
        Some(host) if host_allowed(&host, &state.config.public_hosts) => next.run(req).await,
        Some(host) => ApiError::status(
            StatusCode::FORBIDDEN,
            "host_not_allowed",
            format!("{host} is not a host this service answers to; its operator can add it to SVC_PUBLIC_HOSTS"),
        )
        .into_response(),
        None => ApiError::invalid("host_missing", "the request has no Host header").into_response(),
    }
}

fn host_allowed(host: &str, public: &[String]) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    LOOPBACK.contains(&name)
        || public.iter().any(|entry| match entry.strip_prefix("*.") {
            Some(suffix) => name
                .strip_suffix(suffix)
                .is_some_and(|sub| sub.ends_with('.') && sub.len() > 1),
            None if entry.contains(':') && !entry.starts_with('[') => entry == host,
            None => entry == name,
        })
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

#[cfg(test)]
mod tests {
    use super::{host_allowed, origin_allowed};

    #[test]
    fn browser_origins_are_loopback_or_https_public_hosts() {
        let public = ["api.example.com".to_string(), "*.example.org".to_string()];
        for allowed in [
            "http://localhost:6274",
            "http://127.0.0.1:6274",
            "http://[::1]:3000",
            "https://api.example.com",
            "https://api.example.com:443",
        ] {
            assert!(origin_allowed(allowed, &public), "{allowed}");
        }
        for refused in [
            "https://evil.com",
            "http://api.example.com",
            "https://a.example.org",
            "http://localhost.evil.com",
            "null",
        ] {
            assert!(!origin_allowed(refused, &public), "{refused}");
        }
    }

    #[test]
    fn hosts_are_loopback_or_configured_exactly_or_by_pattern() {
        let public = [
            "api.example.com".to_string(),
            "mcp.example.com:8443".to_string(),
            "*.execute-api.eu-west-1.amazonaws.com".to_string(),
        ];
        for allowed in [
            "localhost:3000",
            "127.0.0.1",
            "[::1]:8080",
            "api.example.com",
            "api.example.com:443",
            "mcp.example.com:8443",
            "abc123.execute-api.eu-west-1.amazonaws.com",
        ] {
            assert!(host_allowed(allowed, &public), "{allowed}");
        }
        for refused in [
            "evil.com",
            "api.example.com.evil.com",
            "mcp.example.com",
            "execute-api.eu-west-1.amazonaws.com",
            "x.execute-api.us-east-1.amazonaws.com",
            "evilexecute-api.eu-west-1.amazonaws.com",
        ] {
            assert!(!host_allowed(refused, &public), "{refused}");
        }
    }
}
