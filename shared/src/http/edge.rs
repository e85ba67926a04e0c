//! What the host that received a request vouches for, beside the request
//! itself: the public origin it was served at and the client's address. On
//! AWS the Lambda adapter reads them from API Gateway's request context,
//! which the client cannot forge (`infra_aws::http_function`); `svc serve`
//! knows its origin from its configuration and the client from its socket.
//! Headers a client sends (`Host`, `X-Forwarded-For`) never decide either.

use std::net::IpAddr;

use axum::http::Extensions;

use crate::config::Config;

/// A request extension set by the host adapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// `https://{domainName}` (with `/{stage}` on a named stage).
    pub origin: String,
    /// API Gateway's `sourceIp`.
    pub client: Option<IpAddr>,
}

/// Where emailed links and upload URLs point: `SVC_PUBLIC_URL` (which `svc
/// serve` defaults to its own address), else the origin the gateway
/// served the request at; None where neither is known (a test router).
pub fn public_origin(config: &Config, extensions: &Extensions) -> Option<String> {
    config
        .public_url
        .as_deref()
        .map(|url| url.trim_end_matches('/').to_string())
        .or_else(|| extensions.get::<Edge>().map(|edge| edge.origin.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_url_wins_over_the_gateway_and_nothing_else_counts() {
        let mut extensions = Extensions::new();
        let config = |url: Option<&str>| Config {
            public_url: url.map(str::to_string),
            ..Config::default()
        };
        assert_eq!(public_origin(&config(None), &extensions), None);
        extensions.insert(Edge {
            origin: "https://abc.execute-api.eu-west-1.amazonaws.com".into(),
            client: None,
        });
        assert_eq!(
            public_origin(&config(None), &extensions).as_deref(),
            Some("https://abc.execute-api.eu-west-1.amazonaws.com")
        );
        assert_eq!(
            public_origin(&config(Some("https://app.example.com/")), &extensions).as_deref(),
            Some("https://app.example.com")
        );
    }
}
