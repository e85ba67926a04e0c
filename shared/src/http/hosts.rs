//! Which hosts the service answers to: loopback, and the public hosts of
//! `SVC_PUBLIC_HOSTS`. The agent-tool endpoint and the web application
//! refuse any other `Host` (DNS rebinding) and browser `Origin`; every
//! router refuses a `Host` that is not a plain authority (`authority.rs`)
//! with 400 `host_invalid`, before any handler reads it.

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::authority::Authority;
use super::error::ApiError;

/// `http://` a loopback host on any port, or `https://` a public host.
pub fn origin_allowed(origin: &str, public: &[String]) -> bool {
    if let Some(authority) = origin.strip_prefix("http://") {
        return Authority::parse(authority).is_some_and(|a| LOOPBACK.contains(&a.name()));
    }
    let Some(authority) = origin.strip_prefix("https://").and_then(Authority::parse) else {
        return false;
    };
    let origin_host = match authority.port() {
        None | Some(443) => authority.name().to_string(),
        Some(_) => authority.to_string(),
    };
    public
        .iter()
        .any(|entry| !entry.starts_with("*.") && *entry == origin_host)
}

pub const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Whether a `Host` value names this machine (served over plain HTTP, so
/// the application's cookies cannot be `Secure` there).
pub fn is_loopback(host: &str) -> bool {
    Authority::parse(host).is_some_and(|a| LOOPBACK.contains(&a.name()))
}

/// What a request says its authority is.
enum Claimed {
    Absent,
    Invalid,
    Valid(Authority),
}

/// The request's one `Host` header, else the authority of an absolute
/// request URI, read strictly; two `Host` headers are invalid.
fn claimed(headers: &HeaderMap, uri: &Uri) -> Claimed {
    let mut hosts = headers.get_all(header::HOST).iter();
    let raw = match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => return Claimed::Invalid,
        (Some(value), None) => value.to_str().ok(),
        (None, _) => match uri.authority() {
            Some(authority) => Some(authority.as_str()),
            None => return Claimed::Absent,
        },
    };
    match raw.and_then(Authority::parse) {
        Some(authority) => Claimed::Valid(authority),
        None => Claimed::Invalid,
    }
}

/// The request's authority, when it has a valid one (after `check_host` or
/// `valid_host`, every request that reaches a handler with a `Host` does).
pub fn authority(parts: &Parts) -> Option<Authority> {
    match claimed(&parts.headers, &parts.uri) {
        Claimed::Valid(authority) => Some(authority),
        Claimed::Absent | Claimed::Invalid => None,
    }
}

fn host_invalid() -> Response {
    ApiError::invalid(
        "host_invalid",
        "the Host header is not a host name or address with an optional port (no user, path or spaces)",
    )
    .param("Host")
    .into_response()
}

/// The API's check: a `Host` that is there must be a plain authority. Any
/// host name is served (the API functions answer at whatever domain the
/// gateway gives them); a request without one (in-process) passes.
pub async fn valid_host(req: Request, next: Next) -> Response {
    match claimed(req.headers(), req.uri()) {
        Claimed::Invalid => host_invalid(),
        Claimed::Absent | Claimed::Valid(_) => next.run(req).await,
    }
}

/// DNS-rebinding protection: the `Host` must be a plain authority naming
/// loopback or one of the public hosts (`api.example.com`,
/// `api.example.com:8443`, or a pattern `*.execute-api.eu-west-1.amazonaws.com`
/// for the API Gateway domain, which the template cannot name without a
/// circular reference).
pub async fn check_host(State(state): State<AppState>, req: Request, next: Next) -> Response {
    match claimed(req.headers(), req.uri()) {
        Claimed::Valid(host) if host_allowed(&host, &state.config.public_hosts) => {
            next.run(req).await
        }
        Claimed::Valid(host) => ApiError::status(
            StatusCode::FORBIDDEN,
            "host_not_allowed",
            format!("{host} is not a host this service answers to; its operator can add it to SVC_PUBLIC_HOSTS"),
        )
        .into_response(),
        Claimed::Invalid => host_invalid(),
        Claimed::Absent => {
            ApiError::invalid("host_missing", "the request has no Host header").into_response()
        }
    }
}

/// Loopback, or a public entry: a pattern `*.domain` (any host under it),
/// `name:port` (that port only) or `name` (any port).
pub fn host_allowed(host: &Authority, public: &[String]) -> bool {
    let name = host.name();
    LOOPBACK.contains(&name)
        || public.iter().any(|entry| match entry.strip_prefix("*.") {
            Some(suffix) => name
                .strip_suffix(suffix)
                .is_some_and(|sub| sub.ends_with('.') && sub.len() > 1),
            None => Authority::parse(entry).is_some_and(|allowed| {
                allowed.name() == name
                    && allowed.port().is_none_or(|port| host.port() == Some(port))
            }),
        })
}

#[cfg(test)]
mod tests {
    use super::{Authority, host_allowed, is_loopback, origin_allowed};

    fn allowed(host: &str, public: &[String]) -> bool {
        host_allowed(&Authority::parse(host).unwrap(), public)
    }

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
            "http://127.0.0.1:8080@evil.example",
            "https://api.example.com:@evil.example",
            "https://api.example.com/path",
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
        for host in [
            "localhost:3000",
            "127.0.0.1",
            "[::1]:8080",
            "api.example.com",
            "api.example.com:443",
            "mcp.example.com:8443",
            "abc123.execute-api.eu-west-1.amazonaws.com",
        ] {
            assert!(allowed(host, &public), "{host}");
        }
        for host in [
            "evil.com",
            "api.example.com.evil.com",
            "mcp.example.com",
            "execute-api.eu-west-1.amazonaws.com",
            "x.execute-api.us-east-1.amazonaws.com",
            "evilexecute-api.eu-west-1.amazonaws.com",
        ] {
            assert!(!allowed(host, &public), "{host}");
        }
    }

    #[test]
    fn loopback_hosts_are_told_apart_from_public_ones() {
        for host in [
            "localhost",
            "127.0.0.1:8080",
            "[::1]:3000",
            "localhost:3000",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "example.com",
            "localhost.example.com",
            "10.0.0.1:80",
            "127.0.0.1:8080@evil.example",
            "localhost:@evil.example",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
