//! The `WebhookSender` port: one HTTP POST of a signed event to an account's
//! endpoint, and the check of where such a POST may go. The adapter
//! (`webhook_http::HttpWebhookSender`) resolves names itself through a
//! `Resolver` and connects only to public addresses (SSRF guard).

use std::io;
use std::net::IpAddr;
use std::time::Duration;

use async_trait::async_trait;
use url::Url;

use crate::webhooks::port::PortRule;

/// How much of a response body an attempt keeps.
pub const RESPONSE_KEPT: usize = 2048;
/// An attempt that has not had its whole answer by then failed.
pub const TIMEOUT: Duration = Duration::from_secs(10);
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
pub const USER_AGENT: &str = concat!("svc-webhooks/", env!("CARGO_PKG_VERSION"));

/// What came of a POST.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The response's status; None when there was no response.
    pub status: Option<u16>,
    pub duration: Duration,
    /// The first `RESPONSE_KEPT` bytes of the response body (invalid UTF-8 replaced).
    pub body: String,
    /// Why there was no usable response (refused address, DNS, connection, TLS, timeout).
    pub error: Option<String>,
}

impl Outcome {
    pub fn failed(error: String, duration: Duration) -> Self {
        Outcome {
            status: None,
            duration,
            body: String::new(),
            error: Some(error),
        }
    }
}

/// Why a URL may not be sent to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// The ports URLs may name, which registration checks too.
    fn ports(&self) -> &PortRule;
    /// Whether a POST to `url` may go out now (an allowed port, and a host
    /// resolving to at least one address the sender may reach); Err says
    /// that it is not allowed, never where the host resolves.
    async fn vet(&self, url: &Url) -> Result<(), Refusal>;
    /// POSTs `body` with `headers` to `url`; never follows redirects.
    async fn post(&self, url: &Url, headers: &[(&str, String)], body: &[u8]) -> Outcome;
}

/// Name resolution, injected so tests can answer what they need (private
/// addresses, rebinding).
#[async_trait]
pub trait Resolver: Send + Sync {
    async fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The operating system's resolver.
pub struct SystemResolver;

#[async_trait]
impl Resolver for SystemResolver {
    async fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 0))
            .await?
            .map(|a| a.ip())
            .collect())
    }
}
