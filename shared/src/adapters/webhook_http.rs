//! The `WebhookSender` adapter: reqwest with rustls. SSRF guard (reference
//! §5.5): names are resolved by the injected `Resolver` inside reqwest's
//! connector and every non-public address is dropped there, so the socket
//! only ever opens to a vetted address (no second lookup to rebind);
//! IP-literal hosts skip resolvers, so they are checked before the request;
//! no redirects are followed and no proxy from the environment is used.
//! `allow_private` (operator setting `SVC_WEBHOOK_ALLOW_PRIVATE`) lifts the
//! address and port rules for a developer's own machine and for tests; the
//! operator's extra ports (`SVC_WEBHOOK_PORTS`) widen the port rule.
//!
//! A refusal says only that the URL is not allowed: which addresses a name
//! resolves to is the service's network, not the caller's business (an
//! attacker would map internal DNS with it). The detail is logged, the host
//! as a short hash.

use std::error::Error as _;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use async_trait::async_trait;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use crate::ports::webhook_sender::{
    CONNECT_TIMEOUT, Outcome, RESPONSE_KEPT, Refusal, Resolver, SystemResolver, TIMEOUT,
    USER_AGENT, WebhookSender,
};
use crate::webhooks::address::non_public;
use crate::webhooks::port::PortRule;

/// What a refused name is told, whatever the reason (no answer, or only
/// addresses webhooks may not reach): the same words, so they map nothing.
pub const NAME_REFUSED: &str =
    "url is not allowed: its host has no address webhooks may reach (public addresses only)";

struct Guard {
    resolver: Arc<dyn Resolver>,
    allow_private: bool,
    ports: PortRule,
}

impl Guard {
    fn check(&self, ip: IpAddr) -> Result<(), &'static str> {
        match non_public(ip) {
            Some(why) if !self.allow_private => Err(why),
            _ => Ok(()),
        }
    }

    /// The addresses of `host` that may be reached.
    async fn addresses(&self, host: &str) -> Result<Vec<IpAddr>, Refusal> {
        let found = match self.resolver.resolve(host).await {
            Ok(found) => found,
            Err(e) => return Err(refused_name(host, &format!("does not resolve ({e})"))),
        };
        let (allowed, refused): (Vec<_>, Vec<_>) = found
            .into_iter()
            .map(|ip| (ip, self.check(ip)))
            .partition(|(_, c)| c.is_ok());
        if allowed.is_empty() {
            let why: Vec<String> = refused
                .into_iter()
                .filter_map(|(ip, c)| c.err().map(|why| format!("{ip} is {why}")))
                .collect();
            return Err(refused_name(
                host,
                &format!("resolves to [{}]", why.join("; ")),
            ));
        }
        Ok(allowed.into_iter().map(|(ip, _)| ip).collect())
    }

    /// The check of an IP-literal host, which no resolver sees; None for
    /// names. The caller wrote the address, so its class may be named.
    fn literal(&self, url: &Url) -> Option<Result<(), Refusal>> {
        let ip = match url.host()? {
            Host::Ipv4(ip) => IpAddr::V4(ip),
            Host::Ipv6(ip) => IpAddr::V6(ip),
            Host::Domain(_) => return None,
        };
        Some(self.check(ip).map_err(|why| {
            Refusal(format!(
                "url is not allowed: its address is {why} (public addresses only)"
            ))
        }))
    }
}

/// The refusal of a name, its detail logged with the host hashed.
fn refused_name(host: &str, detail: &str) -> Refusal {
    tracing::info!(
        host = %crate::redact::short_hash(host),
        detail,
        "webhook host refused"
    );
    Refusal(NAME_REFUSED.into())
}

/// reqwest's resolver: the guard's vetted addresses only.
struct Vetted(Arc<Guard>);

impl Resolve for Vetted {
    fn resolve(&self, name: Name) -> Resolving {
        let guard = self.0.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let ips = guard.addresses(&host).await?;
            Ok(Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0))) as Addrs)
        })
    }
}

pub struct HttpWebhookSender {
    guard: Arc<Guard>,
    /// Built on first use, so hosts that never send pay nothing for TLS set-up.
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl HttpWebhookSender {
    /// The sender with the system resolver.
    pub fn new(allow_private: bool) -> Self {
        Self::with_resolver(Arc::new(SystemResolver), allow_private)
    }

    /// The sender as the operator configured it: `SVC_WEBHOOK_ALLOW_PRIVATE`
    /// and `SVC_WEBHOOK_PORTS`.
    pub fn from_config(config: &crate::config::Config) -> Self {
        Self::new(config.webhook_allow_private).with_extra_ports(config.webhook_ports.clone())
    }

    /// Private addresses (and then any port) only with `allow_private`.
    pub fn with_resolver(resolver: Arc<dyn Resolver>, allow_private: bool) -> Self {
        let ports = match allow_private {
            true => PortRule::any(),
            false => PortRule::default(),
        };
        HttpWebhookSender {
            guard: Arc::new(Guard {
                resolver,
                allow_private,
                ports,
            }),
            client: OnceLock::new(),
        }
    }

    /// The same sender, also allowing `extra` ports (before any send).
    pub fn with_extra_ports(self, extra: Vec<u16>) -> Self {
        if self.guard.allow_private || extra.is_empty() {
            return self;
        }
        HttpWebhookSender {
            guard: Arc::new(Guard {
                resolver: self.guard.resolver.clone(),
                allow_private: false,
                ports: PortRule::with_extra(extra),
            }),
            client: OnceLock::new(),
        }
    }

    fn client(&self) -> Result<&reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                super::tls::install();
                reqwest::Client::builder()
                    .user_agent(USER_AGENT)
                    .redirect(reqwest::redirect::Policy::none())
                    .no_proxy()
                    .timeout(TIMEOUT)
                    .connect_timeout(CONNECT_TIMEOUT)
                    .dns_resolver(Arc::new(Vetted(self.guard.clone())))
                    .build()
                    .map_err(|e| format!("the HTTP client cannot start: {}", chain(&e)))
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// An error and its causes on one line.
fn chain(e: &reqwest::Error) -> String {
    let head = if e.is_timeout() {
        format!("timed out (limit {} s)", TIMEOUT.as_secs())
    } else {
        e.to_string()
    };
    match e.source() {
        Some(cause) => format!("{head}: {}", crate::ports::with_causes(cause)),
        None => head,
    }
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    fn ports(&self) -> &PortRule {
        &self.guard.ports
    }

    async fn vet(&self, url: &Url) -> Result<(), Refusal> {
        self.guard.ports.check(url).map_err(Refusal)?;
        match (self.guard.literal(url), url.host_str()) {
            (Some(check), _) => check,
            (None, Some(host)) => self.guard.addresses(host).await.map(drop),
            (None, None) => Err(Refusal("the URL has no host".into())),
        }
    }

    async fn post(&self, url: &Url, headers: &[(&str, String)], body: &[u8]) -> Outcome {
        let started = Instant::now();
        if let Err(refusal) = self.guard.ports.check(url) {
            return Outcome::failed(format!("not sent: {refusal}"), started.elapsed());
        }
        if let Some(Err(refusal)) = self.guard.literal(url) {
            return Outcome::failed(format!("not sent: {refusal}"), started.elapsed());
        }
        let client = match self.client() {
            Ok(client) => client,
            Err(e) => return Outcome::failed(e, started.elapsed()),
        };
        let mut request = client.post(url.clone()).body(body.to_vec());
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(e) => return Outcome::failed(chain(&e.without_url()), started.elapsed()),
        };
        let status = response.status().as_u16();
        let mut kept = Vec::new();
        let mut error = None;
        while kept.len() < RESPONSE_KEPT {
            match response.chunk().await {
                Ok(Some(chunk)) => kept.extend_from_slice(&chunk),
                Ok(None) => break,
                Err(e) => {
                    error = Some(format!("reading the response: {}", chain(&e.without_url())));
                    break;
                }
            }
        }
        kept.truncate(RESPONSE_KEPT);
        Outcome {
            status: Some(status),
            duration: started.elapsed(),
            body: String::from_utf8_lossy(&kept).into_owned(),
            error,
        }
    }
}
