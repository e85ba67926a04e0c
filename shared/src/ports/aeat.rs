//! The AEAT's VERI*FACTU web service as a port: one SOAP message out, the
//! answer's envelope back (an answer, or a SOAP Fault). Adapters: `HttpAeat`
//! (HTTPS to the AEAT, or to `svc aeat-simulator`) and `SimulatedAeat` (the
//! simulator in-process: where test records go).

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::FixedOffset;

use super::Clock;
use crate::verifactu::simulator::Simulator;

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
    /// Sends one SOAP message; the answer envelope (an answer or a Fault).
    async fn send(&self, message: String) -> Result<String, AeatError>;
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
    async fn send(&self, message: String) -> Result<String, AeatError> {
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

/// `ports` sending live records to `endpoint` (`SVC_AEAT_ENDPOINT`), when set.
pub fn with_live_endpoint(
    ports: super::Ports,
    endpoint: Option<&str>,
) -> Result<super::Ports, String> {
    Ok(match endpoint {
        Some(url) => ports.with_aeat_live(Arc::new(HttpAeat::new(url, SEND_TIMEOUT_SECONDS)?)),
        None => ports,
    })
}

/// The AEAT's service over HTTP: a SOAP 1.1 POST to `url`.
pub struct HttpAeat {
    client: reqwest::Client,
    url: String,
    timeout_seconds: u64,
}

impl HttpAeat {
    pub fn new(url: &str, timeout_seconds: u64) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(timeout_seconds))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| e.to_string())?;
        Ok(HttpAeat {
            client,
            url: url.to_string(),
            timeout_seconds,
        })
    }
}

impl HttpAeat {
    fn error(&self, e: reqwest::Error) -> AeatError {
        if e.is_timeout() {
            AeatError::Timeout(self.timeout_seconds)
        } else {
            AeatError::Transport(e.to_string())
        }
    }
}

#[async_trait]
impl Aeat for HttpAeat {
    async fn send(&self, message: String) -> Result<String, AeatError> {
        let response = self
            .client
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
