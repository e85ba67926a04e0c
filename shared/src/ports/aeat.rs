//! The AEAT's VERI*FACTU web service as a port: one SOAP message out, with
//! the issuer's certificate as the TLS client identity, the answer's
//! envelope back (an answer, or a SOAP Fault). Adapters: `HttpAeat` (HTTPS
//! to the AEAT, or to `svc aeat-simulator`) and `SimulatedAeat` (the
//! simulator in-process: where test records go).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::FixedOffset;

use zeroize::Zeroizing;

use super::Clock;
use crate::verifactu::simulator::Simulator;

/// The TLS client identity of a message: the private key and the chain of
/// the issuer's (or its representative's) certificate, as PEM.
pub struct ClientIdentity {
    /// SHA-256 of the certificate: one TLS client per certificate.
    pub fingerprint: String,
    pub pem: Zeroizing<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AeatError {
    /// Nothing came back in time: the message may or may not have arrived.
    #[error("no answer within {0} s")]
    Timeout(u64),
    #[error("the AEAT could not be reached: {0}")]
    Transport(String),
    /// An HTTP error without a SOAP body.
    #[error("the AEAT answered HTTP {0}")]
    Status(u16),
}

#[async_trait]
pub trait Aeat: Send + Sync {
    /// Sends one SOAP message as `identity`; the answer envelope (an answer
    /// or a Fault).
    async fn send(
        &self,
        message: String,
        identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError>;
}

/// The simulator's rules in-process. `fresh_each_message`: every message
/// meets a simulator that has seen nothing (so its chain starts where the
/// message's does), as test records need on hosts with several instances.
pub struct SimulatedAeat {
    simulator: Option<Arc<Mutex<Simulator>>>,
    clock: Arc<dyn Clock>,
}

impl SimulatedAeat {
    /// One simulator for every message (its state is `simulator`'s).
    pub fn new(simulator: Arc<Mutex<Simulator>>, clock: Arc<dyn Clock>) -> Self {
        SimulatedAeat {
            simulator: Some(simulator),
            clock,
        }
    }

    pub fn fresh_each_message(clock: Arc<dyn Clock>) -> Self {
        SimulatedAeat {
            simulator: None,
            clock,
        }
    }
}

#[async_trait]
impl Aeat for SimulatedAeat {
    async fn send(
        &self,
        message: String,
        _identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError> {
        let madrid = FixedOffset::east_opt(3600).expect("a valid offset");
        let now = self.clock.now().with_timezone(&madrid);
        let answer = match &self.simulator {
            Some(shared) => shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .respond(&message, now),
            None => Simulator::default().respond(&message, now),
        };
        Ok(answer.unwrap_or_else(|fault| fault))
    }
}

/// How long a message may take before the submitter gives up on its answer.
pub const SEND_TIMEOUT_SECONDS: u64 = 60;

/// `ports` sending live records to `endpoint`.
pub fn with_live_endpoint(ports: super::Ports, endpoint: &AeatEndpoint) -> super::Ports {
    ports.with_aeat_live(Arc::new(HttpAeat::new(endpoint, SEND_TIMEOUT_SECONDS)))
}

/// Where live records go (`SVC_AEAT_ENDPOINT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AeatEndpoint {
    /// The AEAT's production service.
    Production,
    /// The AEAT's pre-production (test) service.
    Test,
    /// Another service that speaks the same contract, such as `svc aeat-simulator`.
    Url(String),
}

impl AeatEndpoint {
    /// `production`, `test` or an https URL; plain http only to this
    /// machine (loopback: a local simulator in tests), as records and
    /// certificates must not cross a network in the clear.
    pub fn parse(raw: &str) -> Result<AeatEndpoint, String> {
        match raw.trim() {
            "production" => Ok(AeatEndpoint::Production),
            "test" => Ok(AeatEndpoint::Test),
            url => match url::Url::parse(url) {
                Ok(u) if u.scheme() == "https" && u.has_host() => {
                    Ok(AeatEndpoint::Url(url.to_string()))
                }
                Ok(u) if u.scheme() == "http" && loopback(&u) => {
                    Ok(AeatEndpoint::Url(url.to_string()))
                }
                Ok(u) if u.scheme() == "http" => Err(format!(
                    "SVC_AEAT_ENDPOINT={raw:?}: plain http is only allowed to loopback (127.0.0.1, ::1, localhost); give an https URL"
                )),
                _ => Err(format!(
                    "SVC_AEAT_ENDPOINT={raw:?}: give `production`, `test` (the AEAT's pre-production service) or an https URL"
                )),
            },
        }
    }

    /// The VERI*FACTU service's address (SistemaFacturacion.wsdl: the
    /// ports for personal and representative certificates).
    pub fn url(&self) -> &str {
        match self {
            AeatEndpoint::Production => {
                "https://www1.agenciatributaria.gob.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP"
            }
            AeatEndpoint::Test => {
                "https://prewww1.aeat.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP"
            }
            AeatEndpoint::Url(url) => url,
        }
    }
}

/// Whether `url`'s host is this machine.
fn loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The AEAT's service over HTTP: a SOAP 1.1 POST to `url`, over TLS with the
/// message's client identity. One client (connection pool) per certificate.
pub struct HttpAeat {
    url: String,
    timeout_seconds: u64,
    roots: Vec<reqwest::Certificate>,
    clients: Mutex<HashMap<String, reqwest::Client>>,
}

impl HttpAeat {
    pub fn new(endpoint: &AeatEndpoint, timeout_seconds: u64) -> Self {
        HttpAeat {
            url: endpoint.url().to_string(),
            timeout_seconds,
            roots: Vec::new(),
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Also trusts the authority `pem` for the server's certificate (a
    /// private AEAT stand-in; the AEAT's own chains to public roots).
    pub fn trusting(mut self, pem: &[u8]) -> Result<Self, String> {
        self.roots
            .push(reqwest::Certificate::from_pem(pem).map_err(|e| e.to_string())?);
        Ok(self)
    }

    fn client(&self, identity: Option<&ClientIdentity>) -> Result<reqwest::Client, AeatError> {
        let name = identity.map_or("", |i| i.fingerprint.as_str());
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(client) = clients.get(name) {
            return Ok(client.clone());
        }
        super::tls::install();
        let mut builder = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(self.timeout_seconds))
            .redirect(reqwest::redirect::Policy::none());
        for root in &self.roots {
            builder = builder.add_root_certificate(root.clone());
        }
        if let Some(identity) = identity {
            let tls = reqwest::Identity::from_pem(&identity.pem).map_err(|e| {
                AeatError::Transport(format!("the certificate cannot be used for TLS: {e}"))
            })?;
            builder = builder.identity(tls);
        }
        let client = builder
            .build()
            .map_err(|e| AeatError::Transport(e.to_string()))?;
        clients.insert(name.to_string(), client.clone());
        Ok(client)
    }

    fn error(&self, e: reqwest::Error) -> AeatError {
        if e.is_timeout() {
            AeatError::Timeout(self.timeout_seconds)
        } else {
            AeatError::Transport(super::with_causes(&e))
        }
    }
}

#[async_trait]
impl Aeat for HttpAeat {
    async fn send(
        &self,
        message: String,
        identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError> {
        let response = self
            .client(identity)?
            .post(&self.url)
            .header("content-type", "text/xml; charset=utf-8")
            .header("soapaction", "\"\"")
            .body(message)
            .send()
            .await
            .map_err(|e| self.error(e))?;
        let status = response.status();
        let body = response.text().await.map_err(|e| self.error(e))?;
        // SOAP 1.1 answers a fault with 500 and the Fault in the body.
        if status.is_success() || (status.as_u16() == 500 && body.contains("Fault")) {
            Ok(body)
        } else {
            Err(AeatError::Status(status.as_u16()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_is_named_or_https_and_plain_http_only_to_loopback() {
        assert_eq!(
            AeatEndpoint::parse(" production "),
            Ok(AeatEndpoint::Production)
        );
        assert_eq!(AeatEndpoint::parse("test"), Ok(AeatEndpoint::Test));
        for url in [
            "https://aeat.example.com/ws",
            "http://127.0.0.1:8089/x",
            "http://127.8.0.1/x",
            "http://[::1]:8089/x",
            "http://localhost:8089/x",
        ] {
            assert_eq!(
                AeatEndpoint::parse(url),
                Ok(AeatEndpoint::Url(url.to_string())),
                "{url}"
            );
        }
        for url in [
            "http://aeat.example.com/ws",
            "http://10.0.0.7/ws",
            "http://[fe80::1]/ws",
            "http://localhost.example.com/ws",
        ] {
            let error = AeatEndpoint::parse(url).unwrap_err();
            assert!(error.contains("only allowed to loopback"), "{url}: {error}");
        }
        for raw in ["prod", "ftp://x", "https://", ""] {
            let error = AeatEndpoint::parse(raw).unwrap_err();
            assert!(error.contains("an https URL"), "{raw}: {error}");
        }
    }
}
