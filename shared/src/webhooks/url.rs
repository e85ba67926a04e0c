//! The rules a webhook URL meets at registration and at every send: an
//! absolute `https` URL (`http` is allowed for test-mode webhooks, whose
//! events are sample data), a host, no credentials, no fragment, at most 2,048
//! characters, and a port the operator's `PortRule` allows (see
//! `super::port`). Where the host may point is the sender's check (see
//! `super::address` and `crate::ports::webhook_sender`).

use url::Url;

use super::port::PortRule;
use crate::domain::account::Mode;

pub const MAX_LEN: usize = 2048;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The text is not a URL webhooks accept.
    #[error("{0}")]
    Invalid(String),
    /// A well-formed URL on a port webhooks may not use.
    #[error("{0}")]
    PortNotAllowed(String),
}

impl UrlError {
    pub fn message(&self) -> &str {
        match self {
            UrlError::Invalid(m) | UrlError::PortNotAllowed(m) => m,
        }
    }
}

pub fn parse(raw: &str, mode: Mode, ports: &PortRule) -> Result<Url, UrlError> {
    let fail = |why: String| Err(UrlError::Invalid(why));
    if raw.len() > MAX_LEN {
        return fail(format!("url is longer than {MAX_LEN} characters"));
    }
    let url = match Url::parse(raw) {
        Ok(url) => url,
        Err(e) => return fail(format!("url is not an absolute URL ({e})")),
    };
    match (url.scheme(), mode) {
        ("https", _) | ("http", Mode::Test) => {}
        ("http", Mode::Live) => {
            return fail(
                "live webhooks need an https URL (http is accepted in test mode only)".into(),
            );
        }
        (other, _) => return fail(format!("url scheme {other:?} is not supported; use https")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return fail("url must not contain credentials (user:password@)".into());
    }
    if url.host().is_none() {
        return fail("url has no host".into());
    }
    if url.fragment().is_some() {
        return fail("url must not have a fragment (#…): it is never sent".into());
    }
    ports.check(&url).map_err(UrlError::PortNotAllowed)?;
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_urls_pass_and_http_only_in_test_mode() {
        let url = parse(
            "https://hooks.example.com:8443/svc?x=1",
            Mode::Live,
            &PortRule::default(),
        )
        .unwrap();
        assert_eq!(url.as_str(), "https://hooks.example.com:8443/svc?x=1");
        assert!(
            parse(
                "http://hooks.example.com/svc",
                Mode::Test,
                &PortRule::default()
            )
            .is_ok()
        );
        let e = parse(
            "http://hooks.example.com/svc",
            Mode::Live,
            &PortRule::default(),
        )
        .unwrap_err();
        assert!(e.message().contains("https"), "{e}");
    }

    #[test]
    fn malformed_urls_say_why() {
        for (raw, why) in [
            ("hooks.example.com/svc", "absolute"),
            ("ftp://hooks.example.com/", "scheme"),
            ("https://user:pw@hooks.example.com/", "credentials"),
            ("https://user@hooks.example.com/", "credentials"),
            ("https://hooks.example.com/#frag", "fragment"),
            ("file:///etc/passwd", "scheme"),
        ] {
            let e = parse(raw, Mode::Test, &PortRule::default()).unwrap_err();
            assert!(e.message().contains(why), "{raw}: {e}");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_LEN));
        assert!(parse(&long, Mode::Live, &PortRule::default()).is_err());
    }

    #[test]
    fn numeric_hosts_are_read_as_ip_addresses() {
        // The WHATWG parser canonicalises every IPv4 spelling, so the sender's
        // address check sees the real address.
        for raw in ["https://2130706433/", "https://0x7f.1/", "https://127.1/"] {
            let url = parse(raw, Mode::Live, &PortRule::default()).unwrap();
            assert_eq!(url.host_str(), Some("127.0.0.1"), "{raw}");
        }
    }

    #[test]
    fn ports_are_checked_after_the_form() {
        let e = parse("https://example.com:22/x", Mode::Live, &PortRule::default()).unwrap_err();
        assert!(
            matches!(&e, UrlError::PortNotAllowed(m) if m.contains("port 22")),
            "{e}"
        );
        assert!(parse("https://example.com:22/x", Mode::Live, &PortRule::any()).is_ok());
        let e = parse("ftp://example.com:22/x", Mode::Live, &PortRule::default()).unwrap_err();
        assert!(matches!(e, UrlError::Invalid(_)));
    }
}
