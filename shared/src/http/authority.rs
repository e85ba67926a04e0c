//! The one reader of a request's authority (`Host`, or the authority of an
//! absolute request URI, or the authority of an `Origin`): RFC 3986's
//! `host [ ":" port ]` and nothing else. A lenient reader let
//! `Host: 127.0.0.1:8080@evil.example` pass the allow-list as `127.0.0.1`
//! while a browser would read it as `evil.example`; so userinfo, paths,
//! empty or oversized ports, spaces and control characters are refused here,
//! before any allow-list or link sees the value.

use std::fmt;
use std::net::Ipv6Addr;

/// A host name (lowercase; an IPv6 address without its brackets) and an
/// optional port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authority {
    name: String,
    port: Option<u16>,
}

/// The longest host name DNS allows (RFC 1035, in text form).
const MAX_NAME: usize = 253;

impl Authority {
    /// `reg-name / IPv4address / "[" IPv6address "]"`, then optionally `:`
    /// and 1 to 5 digits up to 65535. The reg-name is the subset of RFC
    /// 3986's that host names use (letters, digits, `-`, `.`, `_`, `~`; no
    /// percent-encodings or sub-delimiters), and IPv4 addresses are among it.
    pub fn parse(raw: &str) -> Option<Authority> {
        let (name, port) = match raw.strip_prefix('[') {
            Some(rest) => {
                let (inside, after) = rest.split_once(']')?;
                (ipv6(inside)?, port_after(after)?)
            }
            None => match raw.split_once(':') {
                Some((name, port)) => (reg_name(name)?, Some(port_digits(port)?)),
                None => (reg_name(raw)?, None),
            },
        };
        Some(Authority { name, port })
    }

    /// The host name, lowercase; an IPv6 address without brackets (`::1`).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn port(&self) -> Option<u16> {
        self.port
    }
}

/// `host[:port]`, with an IPv6 address in brackets: the form it was parsed from.
impl fmt::Display for Authority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.contains(':') {
            write!(f, "[{}]", self.name)?;
        } else {
            f.write_str(&self.name)?;
        }
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

/// A host name of letters, digits, `-`, `.`, `_` and `~`, lowercased.
fn reg_name(raw: &str) -> Option<String> {
    let valid = !raw.is_empty()
        && raw.len() <= MAX_NAME
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    valid.then(|| raw.to_ascii_lowercase())
}

/// The text between brackets, when it is an IPv6 address (no zone, no
/// IPvFuture), in its canonical form.
fn ipv6(raw: &str) -> Option<String> {
    let plain = raw
        .bytes()
        .all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.'));
    if !plain {
        return None;
    }
    raw.parse::<Ipv6Addr>().ok().map(|ip| ip.to_string())
}

/// What may follow `]`: nothing, or `:` and a port.
fn port_after(after: &str) -> Option<Option<u16>> {
    match after {
        "" => Some(None),
        _ => after.strip_prefix(':').and_then(port_digits).map(Some),
    }
}

/// 1 to 5 ASCII digits, at most 65535 (`u16::from_str` alone would take a `+`).
fn port_digits(raw: &str) -> Option<u16> {
    let digits = (1..=5).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_digit());
    if digits { raw.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    use super::Authority;

    fn parsed(raw: &str) -> Option<(String, Option<u16>)> {
        Authority::parse(raw).map(|a| (a.name().to_string(), a.port()))
    }

    #[test]
    fn host_names_addresses_and_ports_are_read() {
        let cases: [(&str, &str, Option<u16>); 9] = [
            ("127.0.0.1:8080", "127.0.0.1", Some(8080)),
            ("localhost", "localhost", None),
            ("App.Example.COM", "app.example.com", None),
            ("app.example.com:443", "app.example.com", Some(443)),
            ("[::1]:8080", "::1", Some(8080)),
            ("[::1]", "::1", None),
            ("[2001:DB8::1]:65535", "2001:db8::1", Some(65535)),
            (
                "abc123.execute-api.eu-west-1.amazonaws.com",
                "abc123.execute-api.eu-west-1.amazonaws.com",
                None,
            ),
            ("a.com:0", "a.com", Some(0)),
        ];
        for (raw, name, port) in cases {
            assert_eq!(parsed(raw), Some((name.to_string(), port)), "{raw}");
        }
    }

    #[test]
    fn userinfo_paths_bad_ports_and_odd_characters_are_refused() {
        for raw in [
            "127.0.0.1:8080@evil.example",
            "app.example.com:@evil.example",
            "user@app.example.com",
            "a.com:",
            "a.com:99999",
            "a.com:65536",
            "a.com:123456",
            "a.com:80:81",
            "a.com:+80",
            "a.com/x",
            "a.com?x",
            "a.com#x",
            "a b",
            " a.com",
            "a.com\t",
            "a.com\r\nX: y",
            "a%2ecom",
            "a,b.com",
            "[::1",
            "[::1]x",
            "[::1]:",
            "[::1]:99999",
            "[v1.fe]",
            "[fe80::1%25eth0]",
            "[127.0.0.1]",
            "::1",
            "",
            ":80",
            "ex\u{e1}mple.com",
        ] {
            assert_eq!(parsed(raw), None, "{raw:?}");
        }
        assert_eq!(parsed(&"a".repeat(254)), None, "longer than DNS allows");
    }

    #[test]
    fn an_authority_is_written_back_as_it_was_read() {
        for raw in ["127.0.0.1:8080", "[::1]:3000", "app.example.com"] {
            assert_eq!(Authority::parse(raw).unwrap().to_string(), raw);
        }
    }
}
