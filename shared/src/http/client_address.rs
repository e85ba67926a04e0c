//! Who sent a request, for sign-in throttling: API Gateway's `sourceIp` on
//! AWS; on `svc serve` the socket's peer, or, when the operator runs it
//! behind a proxy and names the header that proxy sets
//! (`SVC_TRUSTED_PROXY_HEADER`), that header's right-most entry, the one
//! the proxy itself wrote. Without that setting a forwarded header is a
//! client's word and is never read: any client could otherwise pick a new
//! address for every guess, or lock out another's.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName};

use super::edge::Edge;

/// The client's address as text, or `unknown`.
pub fn client_address(parts: &Parts, trusted_header: Option<&HeaderName>) -> String {
    let gateway = parts.extensions.get::<Edge>().and_then(|edge| edge.client);
    let proxied = || trusted_header.and_then(|name| forwarded(&parts.headers, name));
    let peer = || {
        parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| peer.ip())
    };
    gateway
        .or_else(proxied)
        .or_else(peer)
        .map_or_else(|| "unknown".into(), |ip| ip.to_string())
}

/// The right-most entry of the last `name` header (`X-Forwarded-For:
/// client, proxy1` gives `proxy1`, the one the trusted proxy appended), as
/// an address, with or without a port.
fn forwarded(headers: &HeaderMap, name: &HeaderName) -> Option<IpAddr> {
    let value = headers.get_all(name).iter().next_back()?.to_str().ok()?;
    let entry = value.rsplit(',').next()?.trim();
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    fn parts(headers: &[(&str, &str)], peer: Option<&str>, gateway: Option<&str>) -> Parts {
        let mut builder = Request::get("/sign-in");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let (mut parts, ()) = builder.body(()).unwrap().into_parts();
        if let Some(peer) = peer {
            parts
                .extensions
                .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
        }
        if let Some(ip) = gateway {
            parts.extensions.insert(Edge {
                origin: "https://abc.execute-api.eu-west-1.amazonaws.com".into(),
                client: Some(ip.parse().unwrap()),
            });
        }
        parts
    }

    const XFF: &str = "x-forwarded-for";

    #[test]
    fn forwarded_headers_are_ignored_unless_the_operator_trusts_one() {
        let spoofed = [(XFF, "198.51.100.9")];
        let p = parts(&spoofed, Some("10.0.0.2:5555"), None);
        assert_eq!(client_address(&p, None), "10.0.0.2");
        assert_eq!(
            client_address(&parts(&spoofed, None, None), None),
            "unknown"
        );
    }

    #[test]
    fn a_trusted_header_gives_its_right_most_entry() {
        let xff = HeaderName::from_static(XFF);
        let p = parts(
            &[(XFF, "198.51.100.9, 203.0.113.7")],
            Some("10.0.0.2:5555"),
            None,
        );
        assert_eq!(client_address(&p, Some(&xff)), "203.0.113.7");
        let p = parts(&[(XFF, "1.1.1.1"), (XFF, "[2001:db8::1]:443")], None, None);
        assert_eq!(client_address(&p, Some(&xff)), "2001:db8::1");
        let real_ip = HeaderName::from_static("x-real-ip");
        let p = parts(&[("x-real-ip", "203.0.113.8")], Some("10.0.0.2:1"), None);
        assert_eq!(client_address(&p, Some(&real_ip)), "203.0.113.8");
        let garbage = parts(&[(XFF, "not an address")], Some("10.0.0.2:1"), None);
        assert_eq!(
            client_address(&garbage, Some(&xff)),
            "10.0.0.2",
            "the proxy's own"
        );
    }

    #[test]
    fn on_aws_the_gateway_source_ip_wins() {
        let xff = HeaderName::from_static(XFF);
        let p = parts(&[(XFF, "198.51.100.9")], None, Some("203.0.113.7"));
        assert_eq!(client_address(&p, None), "203.0.113.7");
        assert_eq!(client_address(&p, Some(&xff)), "203.0.113.7");
    }
}
