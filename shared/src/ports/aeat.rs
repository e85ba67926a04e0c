//! The AEAT's VERI*FACTU web service as a port: one SOAP message out, with
//! the issuer's certificate as the TLS client identity, the answer's
//! envelope back (an answer, or a SOAP Fault). Adapters:
//! `crate::adapters::aeat_http` (HTTPS to the AEAT, or to `svc
//! aeat-simulator`) and `crate::adapters::aeat_simulated` (the simulator
//! in-process: where test records go).

use async_trait::async_trait;
use zeroize::Zeroizing;

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
