//! Which ports a webhook URL may name. Without a rule any port of a public
//! address would do, and the delivery worker, with the attempts log showing
//! how each connection ended, would scan ports for whoever registers URLs.
//! Allowed: 443 and 8443, 80 for `http` URLs (which only test-mode webhooks
//! may have), and the operator's extra ports (`SVC_WEBHOOK_PORTS`). Where the
//! operator lets webhooks reach private addresses (`SVC_WEBHOOK_ALLOW_PRIVATE`,
//! a developer's own machine), any port is allowed: local receivers listen on
//! ephemeral ports.

use url::Url;

/// The ports every webhook may use.
pub const STANDARD: [u16; 2] = [443, 8443];
/// The port `http` URLs may use besides the standard ones.
pub const PLAIN_HTTP: u16 = 80;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortRule {
    extra: Vec<u16>,
    any: bool,
}

impl PortRule {
    /// The standard ports and `extra`.
    pub fn with_extra(extra: Vec<u16>) -> Self {
        PortRule { extra, any: false }
    }

    /// Every port.
    pub fn any() -> Self {
        PortRule {
            extra: Vec::new(),
            any: true,
        }
    }

    /// Whether `url` names (or defaults to) an allowed port; Err says the rule.
    pub fn check(&self, url: &Url) -> Result<(), String> {
        let Some(port) = url.port_or_known_default() else {
            return Err("url is not allowed: it has no port".into());
        };
        let plain = url.scheme() == "http" && port == PLAIN_HTTP;
        if self.any || plain || STANDARD.contains(&port) || self.extra.contains(&port) {
            return Ok(());
        }
        Err(format!(
            "url is not allowed: port {port} is not a webhook port (443 or 8443, 80 for http test-mode URLs{})",
            self.listed()
        ))
    }

    fn listed(&self) -> String {
        if self.extra.is_empty() {
            return String::new();
        }
        let ports: Vec<String> = self.extra.iter().map(u16::to_string).collect();
        format!(", or {} as the operator allows", ports.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(rule: &PortRule, raw: &str) -> Result<(), String> {
        rule.check(&Url::parse(raw).unwrap())
    }

    #[test]
    fn standard_ports_pass_and_others_are_named_in_the_refusal() {
        let rule = PortRule::default();
        for raw in [
            "https://example.com/x",
            "https://example.com:8443/x",
            "http://example.com/x",
            "http://example.com:443/x",
        ] {
            assert_eq!(check(&rule, raw), Ok(()), "{raw}");
        }
        for raw in [
            "https://example.com:22/x",
            "https://example.com:80/x",
            "http://example.com:6379/x",
            "https://example.com:9000/x",
        ] {
            let e = check(&rule, raw).unwrap_err();
            assert!(
                e.contains("not allowed") && e.contains("port"),
                "{raw}: {e}"
            );
            assert!(e.contains("443 or 8443"), "{raw}: {e}");
        }
    }

    #[test]
    fn the_operator_adds_ports_or_allows_every_one() {
        let extra = PortRule::with_extra(vec![9000, 9443]);
        assert_eq!(check(&extra, "https://example.com:9443/x"), Ok(()));
        let e = check(&extra, "https://example.com:22/x").unwrap_err();
        assert!(e.contains("9000, 9443"), "{e}");
        assert_eq!(check(&PortRule::any(), "https://example.com:22/x"), Ok(()));
    }
}
