//! The `Aeat` adapter over HTTPS: a SOAP 1.1 POST to the AEAT's
//! VERI*FACTU service (or anything that speaks its contract, such as `svc
//! aeat-simulator`), with the issuer's certificate as the TLS client
//! identity.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::config::AeatEndpoint;
use crate::ports::Ports;
use crate::ports::aeat::{Aeat, AeatError, ClientIdentity};

/// How long a message may take before the submitter gives up on its answer.
pub const SEND_TIMEOUT_SECONDS: u64 = 60;

/// `ports` sending live records to `endpoint`.
pub fn with_live_endpoint(ports: Ports, endpoint: &AeatEndpoint) -> Ports {
    ports.with_aeat_live(Arc::new(HttpAeat::new(endpoint, SEND_TIMEOUT_SECONDS)))
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
