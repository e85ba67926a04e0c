//! The SSRF guard: every non-public address class is refused when a webhook
//! is registered and when it is sent to; a name resolving to a private
//! address is refused; a resolver that changes its answer (DNS rebinding)
//! cannot make the sender connect to the private address it answers later.

use crate::support;

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use axum::http::{Method, StatusCode};
use serde_json::json;
use shared::adapters::webhook_http::HttpWebhookSender;
use shared::ports::WebhookSender;
use shared::ports::webhook_sender::Resolver;
use support::webhooks::{Receiver, call, harness_with};
use url::Url;

/// One address of each refused class, with a word of the reason given.
const REFUSED: [(&str, &str); 24] = [
    ("127.0.0.1", "loopback"),
    ("10.0.0.1", "private"),
    ("172.16.5.4", "private"),
    ("192.168.1.1", "private"),
    ("100.64.0.1", "carrier-grade NAT"),
    ("169.254.169.254", "metadata"),
    ("169.254.10.1", "link-local"),
    ("224.0.0.251", "multicast"),
    ("255.255.255.255", "broadcast"),
    ("192.0.2.1", "documentation"),
    ("198.18.0.1", "benchmarking"),
    ("0.0.0.0", "this network"),
    ("240.0.0.1", "reserved"),
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("fd00::1", "unique local"),
    ("fe80::1", "link-local"),
    ("ff02::1", "multicast"),
    ("2001:db8::1", "documentation"),
    ("2002:a00:1::", "6to4"),
    ("64:ff9b::a9fe:a9fe", "NAT64"),
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:169.254.169.254", "metadata"),
    ("::ffff:10.1.1.1", "private"),
];

fn literal_url(ip: &str) -> String {
    match ip.parse::<IpAddr>().unwrap() {
        IpAddr::V4(_) => format!("http://{ip}:8080/hooks"),
        IpAddr::V6(_) => format!("http://[{ip}]:8080/hooks"),
    }
}

/// Answers from a fixed map; unknown names do not resolve.
struct Names(HashMap<String, Vec<IpAddr>>);

#[async_trait]
impl Resolver for Names {
    async fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.0
            .get(host)
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host"))
    }
}

fn names(pairs: &[(&str, &[&str])]) -> Arc<Names> {
    Arc::new(Names(
        pairs
            .iter()
            .map(|(n, ips)| {
                (
                    n.to_string(),
                    ips.iter().map(|ip| ip.parse().unwrap()).collect(),
                )
            })
            .collect(),
    ))
}

/// A public answer first, then the private one (a rebinding attacker's DNS).
struct Rebinding {
    calls: AtomicUsize,
    public: IpAddr,
    private: IpAddr,
}

#[async_trait]
impl Resolver for Rebinding {
    async fn resolve(&self, _: &str) -> io::Result<Vec<IpAddr>> {
        Ok(match self.calls.fetch_add(1, Ordering::SeqCst) {
            0 => vec![self.public],
            _ => vec![self.private],
        })
    }
}

#[tokio::test]
async fn every_non_public_class_is_refused_at_registration() {
    let resolver = names(&[
        ("internal.example", &["10.20.30.40"]),
        ("metadata.example", &["169.254.169.254"]),
        ("v6.example", &["fd12:3456::1", "::ffff:192.168.0.1"]),
        ("mixed.example", &["10.0.0.1", "93.184.215.14"]),
    ]);
    let (h, _) = harness_with(Arc::new(HttpWebhookSender::with_resolver(resolver, false))).await;
    let register = |url: String| {
        let h = &h;
        async move {
            call(
                h,
                Method::POST,
                "/api/v1/webhooks",
                &h.test,
                Some(json!({"url": url, "events": ["*"]})),
            )
            .await
        }
    };
    for (ip, why) in REFUSED {
        let r = register(literal_url(ip)).await;
        assert_eq!(
            (r.status, r.code(), r.param()),
            (StatusCode::BAD_REQUEST, "url_not_allowed", "url"),
            "{ip}: {}",
            r.json
        );
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{ip}: {message}");
    }
    for (host, why) in [
        ("internal.example", "10.20.30.40 is private"),
        ("metadata.example", "metadata"),
        ("v6.example", "unique local"),
        ("nowhere.example", "does not resolve"),
    ] {
        let r = register(format!("http://{host}/hooks")).await;
        assert_eq!(r.code(), "url_not_allowed", "{host}");
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{host}: {message}");
    }
    let ok = register("http://mixed.example/hooks".into()).await;
    assert_eq!(
        ok.status,
        StatusCode::CREATED,
        "a public address among private ones is used alone"
    );
    let moved = call(
        &h,
        Method::PATCH,
        &format!("/api/v1/webhooks/{}", ok.json["id"].as_str().unwrap()),
        &h.test,
        Some(json!({"url": "http://[::1]/x"})),
    )
    .await;
    assert_eq!(moved.code(), "url_not_allowed", "also when the URL changes");
}

#[tokio::test]
async fn every_non_public_class_is_refused_at_send() {
    let receiver = Receiver::start(&[]).await;
    let port = Url::parse(&receiver.url).unwrap().port().unwrap();
    let mut table = vec![("localhost.example".to_string(), vec!["127.0.0.1"])];
    for (n, (ip, _)) in REFUSED.iter().enumerate() {
        table.push((format!("class{n}.example"), vec![*ip]));
    }
    let pairs: Vec<(&str, &[&str])> = table
        .iter()
        .map(|(n, ips)| (n.as_str(), ips.as_slice()))
        .collect();
    let sender = HttpWebhookSender::with_resolver(names(&pairs), false);
    let headers = [("content-type", "application/json".to_string())];
    for (n, (ip, why)) in REFUSED.iter().enumerate() {
        let literal = Url::parse(&literal_url(ip).replace("8080", &port.to_string())).unwrap();
        let outcome = sender.post(&literal, &headers, b"{}").await;
        assert_eq!(outcome.status, None, "{ip}");
        assert!(
            outcome.error.as_deref().unwrap().contains(why),
            "{ip}: {outcome:?}"
        );
        let named = Url::parse(&format!("http://class{n}.example:{port}/hooks")).unwrap();
        let outcome = sender.post(&named, &headers, b"{}").await;
        assert_eq!(outcome.status, None, "{ip} by name");
        assert!(
            outcome.error.as_deref().unwrap().contains(why),
            "{ip} by name: {outcome:?}"
        );
    }
    let local = Url::parse(&format!("http://localhost.example:{port}/hooks")).unwrap();
    assert!(sender.vet(&local).await.is_err());
    assert_eq!(sender.post(&local, &headers, b"{}").await.status, None);
    assert!(
        receiver.received().is_empty(),
        "nothing reached the private receiver"
    );

    // The same sender with private addresses allowed does reach it.
    let open = HttpWebhookSender::with_resolver(names(&pairs), true);
    assert_eq!(open.post(&local, &headers, b"{}").await.status, Some(200));
    assert_eq!(receiver.received().len(), 1);
}

#[tokio::test]
async fn a_rebinding_name_cannot_make_the_sender_connect_to_its_private_answer() {
    let receiver = Receiver::start(&[]).await;
    let port = Url::parse(&receiver.url).unwrap().port().unwrap();
    let url = Url::parse(&format!("http://rebind.example:{port}/hooks")).unwrap();
    let headers = [("content-type", "application/json".to_string())];

    // Checked public at registration, private when sending.
    let sender = HttpWebhookSender::with_resolver(
        Arc::new(Rebinding {
            calls: AtomicUsize::new(0),
            public: "93.184.215.14".parse().unwrap(),
            private: "127.0.0.1".parse().unwrap(),
        }),
        false,
    );
    assert_eq!(sender.vet(&url).await, Ok(()));
    let outcome = sender.post(&url, &headers, b"{}").await;
    assert_eq!(outcome.status, None);
    assert!(outcome.error.unwrap().contains("127.0.0.1 is loopback"));

    // One answer with both: only the public address is tried (and cannot
    // be reached from here), never the private one listed first.
    let sender = HttpWebhookSender::with_resolver(
        names(&[("rebind.example", &["127.0.0.1", "93.184.215.14"])]),
        false,
    );
    assert_eq!(sender.post(&url, &headers, b"{}").await.status, None);
    assert!(receiver.received().is_empty());
}
