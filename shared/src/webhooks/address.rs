//! Which addresses a webhook may reach: public unicast ones only (reference
//! §5.5, Svix's rule set). Everything else could reach the service's own
//! network, the cloud metadata endpoint or the Lambda runtime API. An
//! IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is judged as the IPv4 address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

const V4_BLOCKS: [(Ipv4Addr, u32, &str); 17] = [
    (
        Ipv4Addr::new(0, 0, 0, 0),
        8,
        "in the \"this network\" block 0.0.0.0/8",
    ),
    (Ipv4Addr::new(10, 0, 0, 0), 8, "private (RFC 1918)"),
    (
        Ipv4Addr::new(100, 64, 0, 0),
        10,
        "carrier-grade NAT space (100.64.0.0/10)",
    ),
    (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
    (
        Ipv4Addr::new(169, 254, 169, 254),
        32,
        "the cloud metadata endpoint (link-local)",
    ),
    (Ipv4Addr::new(169, 254, 0, 0), 16, "link-local"),
    (Ipv4Addr::new(172, 16, 0, 0), 12, "private (RFC 1918)"),
    (
        Ipv4Addr::new(192, 0, 0, 0),
        24,
        "reserved for IETF protocol assignments (192.0.0.0/24)",
    ),
    (
        Ipv4Addr::new(192, 0, 2, 0),
        24,
        "reserved for documentation",
    ),
    (
        Ipv4Addr::new(192, 88, 99, 0),
        24,
        "the 6to4 relay anycast block",
    ),
    (Ipv4Addr::new(192, 168, 0, 0), 16, "private (RFC 1918)"),
    (
        Ipv4Addr::new(198, 18, 0, 0),
        15,
        "reserved for benchmarking",
    ),
    (
        Ipv4Addr::new(198, 51, 100, 0),
        24,
        "reserved for documentation",
    ),
    (
        Ipv4Addr::new(203, 0, 113, 0),
        24,
        "reserved for documentation",
    ),
    (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
    (
        Ipv4Addr::new(255, 255, 255, 255),
        32,
        "the broadcast address",
    ),
    (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved (240.0.0.0/4)"),
];

const V6_BLOCKS: [(Ipv6Addr, u32, &str); 15] = [
    (Ipv6Addr::UNSPECIFIED, 128, "the unspecified address"),
    (Ipv6Addr::LOCALHOST, 128, "loopback"),
    (
        Ipv6Addr::UNSPECIFIED,
        96,
        "a deprecated IPv4-compatible address",
    ),
    (
        Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0),
        96,
        "NAT64 (64:ff9b::/96)",
    ),
    (
        Ipv6Addr::new(0x64, 0xff9b, 1, 0, 0, 0, 0, 0),
        48,
        "NAT64 (64:ff9b:1::/48)",
    ),
    (
        Ipv6Addr::new(0x100, 0, 0, 0, 0, 0, 0, 0),
        64,
        "the discard prefix (100::/64)",
    ),
    (
        Ipv6Addr::new(0x2001, 0, 0, 0, 0, 0, 0, 0),
        23,
        "reserved for IETF protocol assignments (2001::/23, Teredo and benchmarking included)",
    ),
    (
        Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0),
        32,
        "reserved for documentation",
    ),
    (
        Ipv6Addr::new(0x3fff, 0, 0, 0, 0, 0, 0, 0),
        20,
        "reserved for documentation",
    ),
    (
        Ipv6Addr::new(0x2002, 0, 0, 0, 0, 0, 0, 0),
        16,
        "6to4 (2002::/16)",
    ),
    (
        Ipv6Addr::new(0x5f00, 0, 0, 0, 0, 0, 0, 0),
        16,
        "an SRv6 segment identifier (5f00::/16)",
    ),
    (
        Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0),
        7,
        "a unique local address (fc00::/7)",
    ),
    (Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "link-local"),
    (
        Ipv6Addr::new(0xfec0, 0, 0, 0, 0, 0, 0, 0),
        10,
        "site-local (deprecated)",
    ),
    (Ipv6Addr::new(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "multicast"),
];

/// Global unicast IPv6 (2000::/3); the blocks above carve out of it.
const V6_GLOBAL: (Ipv6Addr, u32) = (Ipv6Addr::new(0x2000, 0, 0, 0, 0, 0, 0, 0), 3);

fn in_v4(ip: Ipv4Addr, net: Ipv4Addr, len: u32) -> bool {
    (u32::from(ip) ^ u32::from(net)) >> (32 - len) == 0
}

fn in_v6(ip: Ipv6Addr, net: Ipv6Addr, len: u32) -> bool {
    (u128::from(ip) ^ u128::from(net)) >> (128 - len) == 0
}

/// Why `ip` is not a public unicast address; None when it is one.
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip.to_canonical() {
        IpAddr::V4(v4) => V4_BLOCKS
            .iter()
            .find(|(net, len, _)| in_v4(v4, *net, *len))
            .map(|(_, _, why)| *why),
        IpAddr::V6(v6) => match V6_BLOCKS.iter().find(|(net, len, _)| in_v6(v6, *net, *len)) {
            Some((_, _, why)) => Some(why),
            None if in_v6(v6, V6_GLOBAL.0, V6_GLOBAL.1) => None,
            None => Some("outside the global unicast range 2000::/3"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(ip: &str) -> Option<&'static str> {
        non_public(ip.parse().unwrap())
    }

    #[test]
    fn every_non_public_class_is_refused_with_its_name() {
        let cases = [
            ("0.1.2.3", "this network"),
            ("10.1.2.3", "private"),
            ("172.31.255.255", "private"),
            ("192.168.0.1", "private"),
            ("100.64.0.1", "carrier-grade NAT"),
            ("100.127.255.254", "carrier-grade NAT"),
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("169.254.169.254", "metadata"),
            ("169.254.1.1", "link-local"),
            ("192.0.0.8", "IETF"),
            ("192.0.2.10", "documentation"),
            ("198.51.100.1", "documentation"),
            ("203.0.113.7", "documentation"),
            ("192.88.99.1", "6to4 relay"),
            ("198.18.0.1", "benchmarking"),
            ("198.19.255.1", "benchmarking"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("240.0.0.1", "reserved"),
            ("::", "unspecified"),
            ("::1", "loopback"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "metadata"),
            ("::ffff:10.0.0.1", "private"),
            ("::7f00:1", "IPv4-compatible"),
            ("64:ff9b::a00:1", "NAT64"),
            ("64:ff9b:1::1", "NAT64"),
            ("100::1", "discard"),
            ("2001::1", "IETF"),
            ("2001:2::1", "IETF"),
            ("2001:db8::1", "documentation"),
            ("3fff::1", "documentation"),
            ("2002:a00:1::1", "6to4"),
            ("5f00::1", "SRv6"),
            ("fc00::1", "unique local"),
            ("fd00:ec2::254", "unique local"),
            ("fe80::1", "link-local"),
            ("fec0::1", "site-local"),
            ("ff02::1", "multicast"),
            ("4000::1", "global unicast range"),
        ];
        for (ip, expected) in cases {
            let reason = why(ip).unwrap_or_else(|| panic!("{ip} was allowed"));
            assert!(reason.contains(expected), "{ip}: {reason}");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.0.1",
            "172.32.0.1",
            "192.0.1.1",
            "198.17.0.1",
            "223.255.255.254",
            "::ffff:8.8.8.8",
            "2606:4700::1111",
            "2a00:1450:4003:80f::200e",
            "2001:4860:4860::8888",
        ] {
            assert_eq!(why(ip), None, "{ip}");
        }
    }
}
