//! The SSRF guard: every non-public address class is refused when a webhook
//! is registered and when it is sent to; a name resolving to a private
//! address is refused; a resolver that changes its answer (DNS rebinding)
//! cannot make the sender connect to the private address it answers later.
//! Refusals say "not allowed" and never where a name resolves; ports other
//! than 443 and 8443 (80 for http) are refused unless the operator allows them.

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

/// An http URL to `ip` on the default port (80, allowed for http).
fn literal_url(ip: &str) -> String {
    match ip.parse::<IpAddr>().unwrap() {
        IpAddr::V4(_) => format!("http://{ip}/hooks"),
        IpAddr::V6(_) => format!("http://[{ip}]/hooks"),
    }
}

/// The URL to `ip` on `port`.
fn literal_url_on(ip: &str, port: u16) -> Url {
    let mut url = Url::parse(&literal_url(ip)).unwrap();
    url.set_port(Some(port)).unwrap();
    url
}

/// Whether `text` names none of the addresses of `REFUSED` or the test names.
fn names_no_address(text: &str) -> bool {
    let addresses = REFUSED.iter().map(|(ip, _)| *ip).chain([
        "10.20.30.40",
        "fd12:3456::1",
        "192.168.0.1",
        "93.184.215.14",
    ]);
    !addresses
        .filter(|ip| ip.len() > 4)
        .any(|ip| text.contains(ip))
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
    // Names: one answer for every reason, which says nothing of where they
    // resolve (or whether they resolve at all).
    let mut messages = Vec::new();
    for host in [
        "internal.example",
        "metadata.example",
        "v6.example",
        "nowhere.example",
    ] {
        let r = register(format!("http://{host}/hooks")).await;
        assert_eq!(r.code(), "url_not_allowed", "{host}");
        let message = r.json["error"]["message"].as_str().unwrap().to_string();
        assert!(message.contains("not allowed"), "{host}: {message}");
        assert!(names_no_address(&r.json.to_string()), "{host}: {}", r.json);
        messages.push(message);
    }
    messages.dedup();
    assert_eq!(messages.len(), 1, "{messages:?}");
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
    let sender =
        HttpWebhookSender::with_resolver(names(&pairs), false).with_extra_ports(vec![port]);
    let headers = [("content-type", "application/json".to_string())];
    for (n, (ip, why)) in REFUSED.iter().enumerate() {
        let literal = literal_url_on(ip, port);
        let outcome = sender.post(&literal, &headers, b"{}").await;
        assert_eq!(outcome.status, None, "{ip}");
        let error = outcome.error.unwrap();
        assert!(
            error.contains(why) && error.contains("not allowed"),
            "{ip}: {error}"
        );
        let named = Url::parse(&format!("http://class{n}.example:{port}/hooks")).unwrap();
        let outcome = sender.post(&named, &headers, b"{}").await;
        assert_eq!(outcome.status, None, "{ip} by name");
        let error = outcome.error.unwrap();
        assert!(error.contains("not allowed"), "{ip} by name: {error}");
        assert!(names_no_address(&error), "{ip} by name: {error}");
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
    )
    .with_extra_ports(vec![port]);
    assert_eq!(sender.vet(&url).await, Ok(()));
    let outcome = sender.post(&url, &headers, b"{}").await;
    assert_eq!(outcome.status, None);
    let error = outcome.error.unwrap();
    assert!(error.contains("not allowed"), "{error}");
    assert!(!error.contains("127.0.0.1"), "{error}");

    // One answer with both: only the public address is tried (and cannot
    // be reached from here), never the private one listed first.
    let sender = HttpWebhookSender::with_resolver(
        names(&[("rebind.example", &["127.0.0.1", "93.184.215.14"])]),
        false,
    )
    .with_extra_ports(vec![port]);
    assert_eq!(sender.post(&url, &headers, b"{}").await.status, None);
    assert!(receiver.received().is_empty());
}

#[tokio::test]
async fn ports_outside_the_rule_are_refused_at_registration_and_at_send() {
    let resolver = names(&[("example.com", &["93.184.215.14"])]);
    let (h, _) = harness_with(Arc::new(HttpWebhookSender::with_resolver(
        resolver.clone(),
        false,
    )))
    .await;
    for (key, url) in [
        (&h.live, "https://example.com:22/x"),
        (&h.live, "https://example.com:6379/x"),
        (&h.live, "https://example.com:80/x"),
        (&h.test, "http://example.com:8080/x"),
    ] {
        let r = call(
            &h,
            Method::POST,
            "/api/v1/webhooks",
            key,
            Some(json!({"url": url, "events": ["*"]})),
        )
        .await;
        assert_eq!(
            (r.status, r.code(), r.param()),
            (StatusCode::BAD_REQUEST, "url_not_allowed", "url"),
            "{url}: {}",
            r.json
        );
        let message = r.json["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("not allowed") && message.contains("port") && message.contains("443"),
            "{url}: {message}"
        );
    }
    for url in ["https://example.com:8443/x", "https://example.com/x"] {
        let r = call(
            &h,
            Method::POST,
            "/api/v1/webhooks",
            &h.live,
            Some(json!({"url": url, "events": ["*"]})),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{url}: {}", r.json);
    }

    // The sender refuses the port before it resolves or connects.
    let sender = HttpWebhookSender::with_resolver(resolver.clone(), false);
    let url = Url::parse("https://example.com:22/x").unwrap();
    let outcome = sender.post(&url, &[], b"{}").await;
    assert!(outcome.error.unwrap().contains("port 22"));
    assert!(sender.vet(&url).await.is_err());
    // The operator's extra ports, and any port where private addresses are allowed.
    let extra =
        HttpWebhookSender::with_resolver(resolver.clone(), false).with_extra_ports(vec![22]);
    assert_eq!(extra.vet(&url).await, Ok(()));
    let open = HttpWebhookSender::with_resolver(resolver, true);
    assert_eq!(open.vet(&url).await, Ok(()));
}

#[tokio::test]
async fn a_name_resolving_to_loopback_is_not_allowed_and_its_address_is_not_said() {
    let resolver = Arc::new(Rebinding {
        calls: AtomicUsize::new(0),
        public: "93.184.215.14".parse().unwrap(),
        private: "127.0.0.1".parse().unwrap(),
    });
    let (h, _) = harness_with(Arc::new(HttpWebhookSender::with_resolver(resolver, false))).await;
    // Registered while the name answered a public address.
    let created = call(
        &h,
        Method::POST,
        "/api/v1/webhooks",
        &h.test,
        Some(json!({"url": "http://localhost.example/hooks", "events": ["*"]})),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let id = created.json["id"].as_str().unwrap();
    // Now the name answers loopback: a change of URL to it is refused ...
    let moved = call(
        &h,
        Method::PATCH,
        &format!("/api/v1/webhooks/{id}"),
        &h.test,
        Some(json!({"url": "http://localhost.example/other"})),
    )
    .await;
    assert_eq!(moved.code(), "url_not_allowed");
    let body = moved.json.to_string();
    assert!(
        body.contains("not allowed") && !body.contains("127.0.0.1"),
        "{body}"
    );
    // ... and a send fails, its attempt (shown to the account) saying no more.
    let sent = call(
        &h,
        Method::POST,
        &format!("/api/v1/webhooks/{id}/test"),
        &h.test,
        None,
    )
    .await;
    let body = sent.json.to_string();
    assert!(body.contains("not allowed"), "{body}");
    assert!(!body.contains("127.0.0.1"), "{body}");
    let log = call(
        &h,
        Method::GET,
        &format!("/api/v1/webhooks/{id}/deliveries"),
        &h.test,
        None,
    )
    .await;
    assert!(!log.json.to_string().contains("127.0.0.1"), "{}", log.json);
}
