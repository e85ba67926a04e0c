//! Live records and the issuer's certificate: without one they wait
//! (`certificate_missing`), with one they go out with it as the TLS client
//! identity (through the submitter, and over real TLS to a server that
//! requires a client certificate from the issuing authority), and an expired
//! one stops them (`certificate_expired`).

use crate::support;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Router;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use shared::adapters::aeat_http::HttpAeat;
use shared::adapters::aeat_simulated::SimulatedAeat;
use shared::app::verifactu::certificates::{self, Unusable};
use shared::app::verifactu::{Outcome, submit_pending};
use shared::config::AeatEndpoint;
use shared::domain::account::Plan;
use shared::embedded::LocalSecrets;
use shared::ports::Aeat;
use shared::ports::aeat::{AeatError, ClientIdentity};
use shared::secrets_key::SecretsKey;
use shared::verifactu::aeat::{Answer, SendState, soap};
use shared::verifactu::certificate_fixture::Fixture;
use shared::verifactu::simulator::Simulator;
use support::{Harness, get, post_json, send};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The simulator, noting the certificate each message came with.
struct Recording {
    inner: SimulatedAeat,
    identities: Mutex<Vec<Option<String>>>,
}

#[async_trait]
impl Aeat for Recording {
    async fn send(
        &self,
        message: String,
        identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError> {
        self.identities
            .lock()
            .unwrap()
            .push(identity.map(|i| i.fingerprint.clone()));
        self.inner.send(message, identity).await
    }
}

async fn harness() -> (Harness, Arc<Recording>) {
    let mut made = None;
    let h = support::start_wired(
        support::relaxed(),
        Plan::Pro,
        Router::new(),
        |ports, wiring| {
            let live = Arc::new(Recording {
                inner: SimulatedAeat::new(
                    Arc::new(Mutex::new(Simulator::default())),
                    wiring.clock.clone(),
                ),
                identities: Mutex::default(),
            });
            made = Some(live.clone());
            let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
            ports
                .with_aeat_live(live)
                .with_secrets(Arc::new(LocalSecrets::new(key)))
        },
    )
    .await;
    h.set_issuer().await;
    (h, made.unwrap())
}

async fn issue(h: &Harness) -> Value {
    let body = json!({"lines": [{"description": "Consultoría", "quantity": 1, "unit_price": 100, "vat_rate": 21}]});
    let idem = shared::ids::random_token(8);
    let r = send(
        &h.app,
        post_json("/api/v1/invoices", &h.live, Some(&idem), &body.to_string()),
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.json);
    r.json
}

async fn verifactu(h: &Harness, invoice: &Value) -> Value {
    let r = send(
        &h.app,
        get(
            &format!("/api/v1/invoices/{}", invoice["id"]),
            Some(&h.live),
        ),
    )
    .await;
    r.json["verifactu"].clone()
}

#[tokio::test]
async fn live_records_wait_for_the_certificate_then_go_with_it() {
    let (h, live) = harness().await;
    let first = issue(&h).await;
    assert_eq!(first["verifactu"]["status_reason"], "certificate_missing");
    let outcomes = submit_pending(&h.ports).await.unwrap();
    assert_eq!(
        outcomes[0].1,
        Outcome::CertificateMissing(Unusable::Missing)
    );
    assert!(live.identities.lock().unwrap().is_empty(), "nothing sent");

    let fixture = Fixture::person();
    let info = certificates::import(&h.ports, &h.account, &fixture.pkcs12("pw"), "pw")
        .await
        .unwrap();
    assert_eq!(verifactu(&h, &first).await.get("status_reason"), None);
    let second = issue(&h).await;
    assert_eq!(second["verifactu"].get("status_reason"), None);

    let outcomes = submit_pending(&h.ports).await.unwrap();
    assert!(
        matches!(outcomes[0].1, Outcome::Sent { records: 2, .. }),
        "{outcomes:?}"
    );
    assert_eq!(
        *live.identities.lock().unwrap(),
        vec![Some(info.fingerprint.clone())]
    );
    for invoice in [&first, &second] {
        assert_eq!(verifactu(&h, invoice).await["status"], "accepted");
    }
}

#[tokio::test]
async fn an_expired_certificate_stops_live_records_and_says_so() {
    let (h, live) = harness().await;
    certificates::import(&h.ports, &h.account, &Fixture::person().pkcs12("pw"), "pw")
        .await
        .unwrap();
    h.clock.set("2028-01-02T09:00:00Z".parse().unwrap());
    let invoice = issue(&h).await;
    assert_eq!(invoice["verifactu"]["status_reason"], "certificate_expired");
    let outcomes = submit_pending(&h.ports).await.unwrap();
    assert_eq!(
        outcomes[0].1,
        Outcome::CertificateMissing(Unusable::Expired)
    );
    assert!(live.identities.lock().unwrap().is_empty());
    assert_eq!(
        verifactu(&h, &invoice).await["status_reason"],
        "certificate_expired"
    );
}

/// A TLS server that, like the AEAT, requires a client certificate from its
/// authority, answers each message as the simulator and notes the SHA-256 of
/// the certificate each connection presented. Its https URL.
async fn tls_aeat(fixture: &Fixture, seen: Arc<Mutex<Vec<String>>>) -> String {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from(fixture.authority.der.clone()))
        .unwrap();
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .unwrap();
    let (cert_pem, key_pem) = fixture.authority.server(&["127.0.0.1", "localhost"]);
    let chain: Vec<CertificateDer> = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("https://{}/aeat", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let Ok(mut tls) = acceptor.accept(tcp).await else {
                continue;
            };
            let presented = tls.get_ref().1.peer_certificates().unwrap()[0].clone();
            seen.lock()
                .unwrap()
                .push(hex::encode(Sha256::digest(presented.as_ref())));
            let request = read_request(&mut tls).await;
            let now = "2026-11-24T11:00:00+01:00".parse().unwrap();
            let answer = Simulator::default()
                .respond(&request, now)
                .unwrap_or_else(|fault| fault);
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/xml; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
            tls.write_all(response.as_bytes()).await.unwrap();
            tls.shutdown().await.ok();
        }
    });
    url
}

/// An HTTP/1.1 request's body (headers, then `content-length` bytes).
async fn read_request(stream: &mut (impl AsyncReadExt + Unpin)) -> String {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let n = stream.read(&mut buf).await.unwrap();
        bytes.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&bytes).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if body.len() >= length || n == 0 {
                return body.to_string();
            }
        }
    }
}

#[tokio::test]
async fn over_tls_the_message_goes_with_the_certificate_as_client_identity() {
    let fixture = Fixture::person();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let url = tls_aeat(&fixture, seen.clone()).await;
    let aeat = HttpAeat::new(&AeatEndpoint::Url(url), 5)
        .trusting(fixture.authority.pem.as_bytes())
        .unwrap();
    let certificate = shared::verifactu::certificate::Certificate::from_pkcs12(
        &fixture.pkcs12("pw"),
        "pw",
        chrono::Utc::now(),
    )
    .unwrap();
    let identity = ClientIdentity {
        fingerprint: certificate.info.fingerprint.clone(),
        pem: certificate.pem,
    };
    let envelope = aeat
        .send(
            support::aeat::message(&support::aeat::chain(1)),
            Some(&identity),
        )
        .await
        .unwrap();
    let soap::Body::Content(content) = soap::read(&envelope).unwrap() else {
        panic!("a fault: {envelope}");
    };
    assert_eq!(Answer::read(&content).unwrap().state, SendState::Correcto);
    assert_eq!(*seen.lock().unwrap(), vec![certificate.info.fingerprint]);

    let refused = aeat
        .send(support::aeat::message(&support::aeat::chain(1)), None)
        .await
        .unwrap_err();
    assert!(matches!(refused, AeatError::Transport(_)), "{refused:?}");
    assert_eq!(
        seen.lock().unwrap().len(),
        1,
        "no connection without a certificate"
    );
}

#[test]
fn the_production_and_test_addresses_are_the_wsdls() {
    let wsdl = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/standards/verifactu/SistemaFacturacion.wsdl"
    ))
    .unwrap();
    for endpoint in [AeatEndpoint::Production, AeatEndpoint::Test] {
        let address = format!("<soap:address location=\"{}\"/>", endpoint.url());
        assert!(wsdl.contains(&address), "{address} not in the WSDL");
    }
}
