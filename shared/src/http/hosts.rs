//! Which hosts the service answers to: loopback, and the public hosts of
//! `SVC_PUBLIC_HOSTS`. The agent-tool endpoint and the web application
//! refuse any other `Host` (DNS rebinding) and browser `Origin`.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiError;

/// `http://` a loopback host on any port, or `https://` a public host.
pub fn origin_allowed(origin: &str, public: &[String]) -> bool {
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

pub const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The host name of a `Host` value (`127.0.0.1:8080`, `[::1]:3000`).
fn name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    }
}

/// Whether a `Host` value names this machine (served over plain HTTP, so
/// the application's cookies cannot be `Secure` there).
pub fn is_loopback(host: &str) -> bool {
    LOOPBACK.contains(&name(host))
}

/// DNS-rebinding protection: the `Host` must be loopback or one of the
/// public hosts (`api.example.com`, `api.example.com:8443`, or a pattern
/// `*.execute-api.eu-west-1.amazonaws.com` for the API Gateway domain, which
/// the template cannot name without a circular reference).
pub async fn check_host(State(state): State<AppState>, req: Request, next: Next) -> Response {
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

pub fn host_allowed(host: &str, public: &[String]) -> bool {
    let name = name(host);
    LOOPBACK.contains(&name)
        || public.iter().any(|entry| match entry.strip_prefix("*.") {
            Some(suffix) => name
                .strip_suffix(suffix)
                .is_some_and(|sub| sub.ends_with('.') && sub.len() > 1),
            None if entry.contains(':') && !entry.starts_with('[') => entry == host,
            None => entry == name,
        })
}

#[cfg(test)]
mod tests {
    use super::{host_allowed, is_loopback, origin_allowed};

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
        for host in ["example.com", "localhost.example.com", "10.0.0.1:80"] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
