//! The `Aeat` adapter over HTTPS: a SOAP 1.1 POST to the AEAT's
//! VERI*FACTU service (or anything that speaks its contract, such as `svc
//! aeat-simulator`), with the issuer's certificate as the TLS client
//! identity; and where live records go (`SVC_AEAT_ENDPOINT`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::ports::Ports;
use crate::ports::aeat::{Aeat, AeatError, ClientIdentity};

/// How long a message may take before the submitter gives up on its answer.
pub const SEND_TIMEOUT_SECONDS: u64 = 60;

/// `ports` sending live records to `endpoint`.
pub fn with_live_endpoint(ports: Ports, endpoint: &AeatEndpoint) -> Ports {
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
            AeatError::Transport(crate::ports::with_causes(&e))
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
