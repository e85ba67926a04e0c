//! Service configuration, read once from the environment by each host.

use std::time::Duration;

use crate::domain::account::QuotaLimits;
use crate::secrets_key::SecretsKey;
use crate::verifactu::SystemInfo;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Requests per minute per key (`SVC_RATE_LIMIT_PER_MINUTE`, default 30).
    pub rate_limit_per_minute: u32,
    /// Daily units per plan (`SVC_QUOTA_MINI`, `SVC_QUOTA_PRO`, `SVC_QUOTA_MAX`).
    pub quotas: QuotaLimits,
    /// Largest accepted request body (`SVC_MAX_BODY_BYTES`): by default
    /// 6 MiB on `svc serve`, and `LAMBDA_MAX_BODY_BYTES` on Lambda, where
    /// the body must fit in the 6 MB invocation payload with its event.
    /// Larger files go through uploads (`POST /api/v1/uploads`).
    pub max_body_bytes: usize,
    /// The most bytes of uploads one request may read synchronously
    /// (`SVC_SYNC_MAX_BYTES`, default 6 MiB); above it the request runs in
    /// async mode, so that its function is not cut by its timeout.
    pub sync_max_bytes: u64,
    /// The public origin of the service (`SVC_PUBLIC_URL`, e.g.
    /// `https://svc.example.com`): the only source of the links the web
    /// application emails (confirmation, reset, invitation) and of the upload
    /// URLs `svc serve` makes, never a request's `Host`, which a client
    /// chooses. `svc serve` defaults it to its own `http://` address; on AWS,
    /// when it is empty, the API Gateway domain of each request's context.
    pub public_url: Option<String>,
    /// The header a proxy in front of `svc serve` writes the client's
    /// address into (`SVC_TRUSTED_PROXY_HEADER`, e.g. `X-Forwarded-For` or
    /// `X-Real-IP`; off by default): sign-in throttling then counts its
    /// right-most entry rather than the socket's peer (the proxy). Set it only
    /// behind such a proxy: otherwise any client writes the header itself.
    pub trusted_proxy_header: Option<axum::http::HeaderName>,
    /// The invoicing software named in every VERI*FACTU record (`SVC_VERIFACTU_*`).
    pub verifactu: SystemInfo,
    /// Webhooks may reach loopback and private addresses
    /// (`SVC_WEBHOOK_ALLOW_PRIVATE`, default false): for a developer's own machine.
    pub webhook_allow_private: bool,
    /// Ports webhook URLs may name besides 443, 8443 and 80 for http
    /// test-mode URLs (`SVC_WEBHOOK_PORTS`, comma-separated, e.g.
    /// `9000,9443`; default none). Every other port is refused at
    /// registration and at each send, so that the delivery worker cannot be
    /// used to probe ports; with `SVC_WEBHOOK_ALLOW_PRIVATE` every port is
    /// allowed (local receivers listen on ephemeral ports).
    pub webhook_ports: Vec<u16>,
    /// The host names (or `host:port`) the service is reached at besides
    /// loopback (`SVC_PUBLIC_HOSTS`, comma-separated, e.g. `api.example.com`):
    /// the agent-tool endpoint answers 403 to any other `Host`, and to a
    /// browser `Origin` other than `https://` one of them or a loopback one.
    /// `*.domain` allows every host under `domain` (not as an Origin).
    pub public_hosts: Vec<String>,
    /// Where live VERI*FACTU records are sent (`SVC_AEAT_ENDPOINT`):
    /// `production` (the default), `test` (the AEAT's pre-production
    /// service) or the URL of a service that speaks the same contract, such
    /// as `svc aeat-simulator`. Always with the issuer's certificate: without
    /// one, live records stay pending (`certificate_missing`).
    pub aeat_endpoint: AeatEndpoint,
    /// The key that seals the issuers' certificates and the webhooks'
    /// signing secrets on the embedded host (`SVC_SECRETS_KEY`, 64 hex
    /// digits).
    pub secrets_key: Option<SecretsKey>,
    /// The KMS key that seals certificates on AWS (`SVC_KMS_KEY_ID`); a KMS
    /// key wins over `secrets_key`.
    pub kms_key_id: Option<String>,
    /// The KMS key that seals webhook signing secrets on AWS
    /// (`SVC_KMS_WEBHOOK_KEY_ID`), apart from the certificates' key, whose
    /// policy lets only the roles that talk to the AEAT decrypt.
    pub kms_webhook_key_id: Option<String>,
    /// The AI model that proposes fields besides the parser; off by default.
    pub ai: AiModel,
    /// How long an extraction waits for the AI model
    /// (`SVC_AI_TIMEOUT_SECONDS`, default 20).
    pub ai_timeout: Duration,
    /// How invoices are emailed; off by default.
    pub email: EmailTransport,
}

/// How invoices are emailed: over SMTP (`SVC_SMTP_URL`) or Amazon SES
/// (`SVC_EMAIL_SES=true`, in the AWS environment's region, optionally with
/// the configuration set `SVC_SES_CONFIGURATION_SET`), from the sender
/// `SVC_EMAIL_FROM` (`facturas@example.com` or `Facturas <facturas@example.com>`;
/// on SES a verified identity); at most one.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum EmailTransport {
    #[default]
    Off,
    Smtp {
        url: String,
        from: String,
    },
    Ses {
        from: String,
        configuration_set: Option<String>,
    },
}

/// Never prints the SMTP URL, which may hold a password.
impl std::fmt::Debug for EmailTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmailTransport::Off => f.write_str("Off"),
            EmailTransport::Smtp { from, .. } => f
                .debug_struct("Smtp")
                .field("url", &"…")
                .field("from", from)
                .finish(),
            EmailTransport::Ses {
                from,
                configuration_set,
            } => f
                .debug_struct("Ses")
                .field("from", from)
                .field("configuration_set", configuration_set)
                .finish(),
        }
    }
}

impl EmailTransport {
    fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, String> {
        let url = optional(get, "SVC_SMTP_URL");
        let ses = flag(get, "SVC_EMAIL_SES")?;
        let from = optional(get, "SVC_EMAIL_FROM");
        if url.is_none() && !ses {
            return Ok(EmailTransport::Off);
        }
        let from = from.ok_or(
            "email is configured: set the sender in SVC_EMAIL_FROM (e.g. facturas@example.com)",
        )?;
        from.parse::<lettre::message::Mailbox>()
            .map_err(|e| format!("SVC_EMAIL_FROM={from:?} is not an email address: {e}"))?;
        match url {
            Some(_) if ses => Err("set SVC_SMTP_URL or SVC_EMAIL_SES, not both".into()),
            Some(url) => {
                let scheme = url::Url::parse(&url).map(|u| u.scheme().to_string());
                if !matches!(scheme.as_deref(), Ok("smtp" | "smtps")) {
                    return Err(
                        "SVC_SMTP_URL must be smtp://host:port or smtps://user:password@host"
                            .into(),
                    );
                }
                Ok(EmailTransport::Smtp { url, from })
            }
            None => Ok(EmailTransport::Ses {
                from,
                configuration_set: optional(get, "SVC_SES_CONFIGURATION_SET"),
            }),
        }
    }
}

/// The AI source: an OpenAI-compatible server (`SVC_AI_URL`, `SVC_AI_MODEL`,
/// optional bearer key `SVC_AI_KEY`) or Amazon Bedrock
/// (`SVC_AI_BEDROCK_MODEL`, a model id or inference profile, in the AWS
/// environment's region); at most one.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum AiModel {
    #[default]
    Off,
    OpenAiCompatible {
        url: String,
        model: String,
        key: Option<String>,
    },
    Bedrock {
        model: String,
    },
}

/// Never prints the key.
impl std::fmt::Debug for AiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AiModel::Off => f.write_str("Off"),
            AiModel::OpenAiCompatible { url, model, key } => f
                .debug_struct("OpenAiCompatible")
                .field("url", url)
                .field("model", model)
                .field("key", &key.as_ref().map(|_| "…"))
                .finish(),
            AiModel::Bedrock { model } => f.debug_struct("Bedrock").field("model", model).finish(),
        }
    }
}

impl AiModel {
    fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, String> {
        let url = optional(get, "SVC_AI_URL");
        let model = optional(get, "SVC_AI_MODEL");
        let bedrock = optional(get, "SVC_AI_BEDROCK_MODEL");
        match (url, bedrock) {
            (Some(_), Some(_)) => Err("set SVC_AI_URL or SVC_AI_BEDROCK_MODEL, not both".into()),
            (None, Some(model)) => Ok(AiModel::Bedrock { model }),
            (Some(url), None) => {
                let parsed = url::Url::parse(&url)
                    .map_err(|e| format!("SVC_AI_URL={url:?} is not a URL: {e}"))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(format!("SVC_AI_URL={url:?} must be http:// or https://"));
                }
                let model = model.ok_or("SVC_AI_URL is set: name the model in SVC_AI_MODEL")?;
                Ok(AiModel::OpenAiCompatible {
                    url,
                    model,
                    key: optional(get, "SVC_AI_KEY"),
                })
            }
            (None, None) => Ok(AiModel::Off),
        }
    }
}

/// Where live VERI*FACTU records go (`SVC_AEAT_ENDPOINT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AeatEndpoint {
    /// The AEAT's production service.
    Production,
    /// The AEAT's pre-production (test) service.
    Test,
    /// Another service that speaks the same contract, such as `svc aeat-simulator`.
    Url(String),
}

impl AeatEndpoint {
    /// `production`, `test` or an https URL; plain http only to this
    /// machine (loopback: a local simulator in tests), as records and
    /// certificates must not cross a network in the clear.
    pub fn parse(raw: &str) -> Result<AeatEndpoint, String> {
        match raw.trim() {
            "production" => Ok(AeatEndpoint::Production),
            "test" => Ok(AeatEndpoint::Test),
            url => match url::Url::parse(url) {
                Ok(u) if u.scheme() == "https" && u.has_host() => {
                    Ok(AeatEndpoint::Url(url.to_string()))
                }
                Ok(u) if u.scheme() == "http" && loopback(&u) => {
                    Ok(AeatEndpoint::Url(url.to_string()))
                }
                Ok(u) if u.scheme() == "http" => Err(format!(
                    "SVC_AEAT_ENDPOINT={raw:?}: plain http is only allowed to loopback (127.0.0.1, ::1, localhost); give an https URL"
                )),
                _ => Err(format!(
                    "SVC_AEAT_ENDPOINT={raw:?}: give `production`, `test` (the AEAT's pre-production service) or an https URL"
                )),
            },
        }
    }

    /// The VERI*FACTU service's address (SistemaFacturacion.wsdl: the
    /// ports for personal and representative certificates).
    pub fn url(&self) -> &str {
        match self {
            AeatEndpoint::Production => {
                "https://www1.agenciatributaria.gob.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP"
            }
            AeatEndpoint::Test => {
                "https://prewww1.aeat.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP"
            }
            AeatEndpoint::Url(url) => url,
        }
    }
}

/// Whether `url`'s host is this machine.
fn loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The default body limit on Lambda: 4 MiB. A synchronous invocation carries
/// at most 6 MB (6,291,456 bytes) of event, and API Gateway puts the body in
/// the event base64-encoded when it is binary (4/3 of its size: 5.33 MiB for
/// 4 MiB), and JSON-escaped when it is text, beside the headers and the
/// request context. A body near 6 MiB would be refused by Lambda with a 413
/// of API Gateway's own, not the API's `body_too_large`.
pub const LAMBDA_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
// Base64-encoded, with half a MiB for the event, it fits the payload.
const _: () = assert!(LAMBDA_MAX_BODY_BYTES * 4 / 3 + 512 * 1024 < 6_291_456);

fn default_system() -> SystemInfo {
    SystemInfo {
        producer_name: "Svc Facturación".into(),
        producer_nif: "B64717838".into(),
        system_name: "svc".into(),
        system_id: "SV".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        installation_number: "1".into(),
        only_verifactu: true,
        multi_ot: true,
        multiple_ot: true,
    }
}

fn text(
    get: &dyn Fn(&str) -> Option<String>,
    name: &str,
    default: String,
    max: usize,
) -> Result<String, String> {
    let value = get(name).map(|v| v.trim().to_string()).unwrap_or(default);
    if value.is_empty() || value.chars().count() > max {
        return Err(format!("{name} must have 1 to {max} characters"));
    }
    Ok(value)
}

impl Default for Config {
    fn default() -> Self {
        Config {
            rate_limit_per_minute: 30,
            quotas: QuotaLimits::default(),
            max_body_bytes: 6 * 1024 * 1024,
            sync_max_bytes: 6 * 1024 * 1024,
            public_url: None,
            trusted_proxy_header: None,
            verifactu: default_system(),
            webhook_allow_private: false,
            webhook_ports: Vec::new(),
            public_hosts: Vec::new(),
            aeat_endpoint: AeatEndpoint::Production,
            secrets_key: None,
            kms_key_id: None,
            kms_webhook_key_id: None,
            ai: AiModel::Off,
            ai_timeout: Duration::from_secs(20),
            email: EmailTransport::Off,
        }
    }
}

fn var<T: std::str::FromStr>(
    get: &dyn Fn(&str) -> Option<String>,
    name: &str,
    default: T,
) -> Result<T, String> {
    match get(name) {
        None => Ok(default),
        Some(raw) => raw
            .trim()
            .parse()
            .map_err(|_| format!("{name}={raw:?} is not a valid number")),
    }
}

fn flag(get: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<bool, String> {
    match get(name).as_deref().map(str::trim) {
        None | Some("" | "false" | "0") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some(other) => Err(format!("{name}={other:?} must be true or false")),
    }
}

/// A comma-separated list of host names, each optionally with `:port`.
fn hosts(get: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<Vec<String>, String> {
    let raw = get(name).unwrap_or_default();
    raw.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|host| {
            let valid = host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '*'));
            if valid {
                Ok(host.to_ascii_lowercase())
            } else {
                Err(format!(
                    "{name}: {host:?} is not a host name (give `api.example.com` or `api.example.com:8443`, without scheme or path)"
                ))
            }
        })
        .collect()
}

/// A comma-separated list of TCP ports (1 to 65535), blanks ignored.
fn ports(get: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<Vec<u16>, String> {
    let raw = get(name).unwrap_or_default();
    raw.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|port| match port.parse::<u16>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "{name}: {port:?} is not a port (give numbers from 1 to 65535, e.g. `9000,9443`)"
            )),
        })
        .collect()
}

/// The default body limit: Lambda's when the Lambda runtime runs the
/// process (it sets `AWS_LAMBDA_FUNCTION_NAME`), else `svc serve`'s.
fn on_lambda_body_limit(get: &dyn Fn(&str) -> Option<String>) -> usize {
    if optional(get, "AWS_LAMBDA_FUNCTION_NAME").is_some() {
        LAMBDA_MAX_BODY_BYTES
    } else {
        Config::default().max_body_bytes
    }
}

/// An `http(s)://` origin, with an optional path prefix, without a slash at the end.
fn public_url(raw: &str) -> Result<String, String> {
    let parsed =
        url::Url::parse(raw).map_err(|e| format!("SVC_PUBLIC_URL={raw:?} is not a URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https")
        || parsed.query().is_some()
        || parsed.fragment().is_some()
    {
        return Err(format!(
            "SVC_PUBLIC_URL={raw:?} must be an http:// or https:// address without query, e.g. https://svc.example.com"
        ));
    }
    Ok(raw.trim_end_matches('/').to_string())
}

/// A header name a proxy sets (`X-Forwarded-For`), lowercased. The headers
/// a browser itself controls or that carry something else are refused, as
/// naming one would be a mistake that lets clients choose their address.
fn proxy_header(raw: &str) -> Result<axum::http::HeaderName, String> {
    let name =
        axum::http::HeaderName::from_bytes(raw.to_ascii_lowercase().as_bytes()).map_err(|_| {
            format!("SVC_TRUSTED_PROXY_HEADER={raw:?} is not a header name (e.g. X-Forwarded-For)")
        })?;
    const NOT_ADDRESSES: [&str; 6] = [
        "host",
        "cookie",
        "authorization",
        "origin",
        "referer",
        "user-agent",
    ];
    if NOT_ADDRESSES.contains(&name.as_str()) {
        return Err(format!(
            "SVC_TRUSTED_PROXY_HEADER={raw:?} does not carry a client address; name the header your proxy sets (X-Forwarded-For, X-Real-IP)"
        ));
    }
    Ok(name)
}

/// An optional value, trimmed; empty counts as unset.
fn optional(get: &dyn Fn(&str) -> Option<String>, name: &str) -> Option<String> {
    get(name)
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(&|name| std::env::var(name).ok())
    }

    pub fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, String> {
        let d = Config::default();
        let rate_limit_per_minute = var(get, "SVC_RATE_LIMIT_PER_MINUTE", d.rate_limit_per_minute)?;
        if rate_limit_per_minute == 0 {
            return Err("SVC_RATE_LIMIT_PER_MINUTE must be at least 1".into());
        }
        Ok(Config {
            rate_limit_per_minute,
            quotas: QuotaLimits {
                mini: var(get, "SVC_QUOTA_MINI", d.quotas.mini)?,
                pro: var(get, "SVC_QUOTA_PRO", d.quotas.pro)?,
                max: var(get, "SVC_QUOTA_MAX", d.quotas.max)?,
            },
            max_body_bytes: var(get, "SVC_MAX_BODY_BYTES", on_lambda_body_limit(get))?,
            sync_max_bytes: var(get, "SVC_SYNC_MAX_BYTES", d.sync_max_bytes)?,
            public_url: optional(get, "SVC_PUBLIC_URL")
                .map(|raw| public_url(&raw))
                .transpose()?,
            trusted_proxy_header: optional(get, "SVC_TRUSTED_PROXY_HEADER")
                .map(|raw| proxy_header(&raw))
                .transpose()?,
            verifactu: SystemInfo {
                producer_name: text(
                    get,
                    "SVC_VERIFACTU_PRODUCER_NAME",
                    d.verifactu.producer_name,
                    120,
                )?,
                producer_nif: {
                    let nif = text(
                        get,
                        "SVC_VERIFACTU_PRODUCER_NIF",
                        d.verifactu.producer_nif,
                        20,
                    )?;
                    crate::tax::nif::Nif::parse(&nif)
                        .map_err(|e| format!("SVC_VERIFACTU_PRODUCER_NIF={nif:?}: {e}"))?
                        .to_string()
                },
                system_name: text(
                    get,
                    "SVC_VERIFACTU_SYSTEM_NAME",
                    d.verifactu.system_name,
                    30,
                )?,
                system_id: text(get, "SVC_VERIFACTU_SYSTEM_ID", d.verifactu.system_id, 2)?,
                version: text(get, "SVC_VERIFACTU_VERSION", d.verifactu.version, 50)?,
                installation_number: text(
                    get,
                    "SVC_VERIFACTU_INSTALLATION",
                    d.verifactu.installation_number,
                    100,
                )?,
                ..d.verifactu
            },
            webhook_allow_private: flag(get, "SVC_WEBHOOK_ALLOW_PRIVATE")?,
            webhook_ports: ports(get, "SVC_WEBHOOK_PORTS")?,
            public_hosts: hosts(get, "SVC_PUBLIC_HOSTS")?,
            aeat_endpoint: match optional(get, "SVC_AEAT_ENDPOINT") {
                Some(raw) => AeatEndpoint::parse(&raw)?,
                None => d.aeat_endpoint,
            },
            secrets_key: optional(get, "SVC_SECRETS_KEY")
                .map(|raw| SecretsKey::parse(&raw))
                .transpose()?,
            kms_key_id: optional(get, "SVC_KMS_KEY_ID"),
            kms_webhook_key_id: optional(get, "SVC_KMS_WEBHOOK_KEY_ID"),
            ai: AiModel::from_lookup(get)?,
            ai_timeout: match var(get, "SVC_AI_TIMEOUT_SECONDS", d.ai_timeout.as_secs())? {
                0 => return Err("SVC_AI_TIMEOUT_SECONDS must be at least 1".into()),
                seconds => Duration::from_secs(seconds),
            },
            email: EmailTransport::from_lookup(get)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_and_overrides_parse() {
        assert_eq!(Config::from_lookup(&|_| None).unwrap(), Config::default());
        let c = Config::from_lookup(&|n| match n {
            "SVC_RATE_LIMIT_PER_MINUTE" => Some("1000".into()),
            "SVC_QUOTA_PRO" => Some("7".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.rate_limit_per_minute, 1000);
        assert_eq!(c.quotas.pro, 7);
        assert!(Config::from_lookup(&|_| Some("lots".into())).is_err());
        assert!(
            Config::from_lookup(&|n| (n == "SVC_RATE_LIMIT_PER_MINUTE").then(|| "0".into()))
                .is_err()
        );
        let private = |v: &str| {
            let v = v.to_string();
            Config::from_lookup(&move |n| (n == "SVC_WEBHOOK_ALLOW_PRIVATE").then(|| v.clone()))
                .map(|c| c.webhook_allow_private)
        };
        assert_eq!((private("true"), private("0")), (Ok(true), Ok(false)));
        assert!(private("yes").is_err());
        let hosts = |v: &str| {
            let v = v.to_string();
            Config::from_lookup(&move |n| (n == "SVC_PUBLIC_HOSTS").then(|| v.clone()))
                .map(|c| c.public_hosts)
        };
        assert_eq!(
            hosts(" API.example.com, abc.execute-api.eu-west-1.amazonaws.com:443 ,"),
            Ok(vec![
                "api.example.com".to_string(),
                "abc.execute-api.eu-west-1.amazonaws.com:443".to_string()
            ])
        );
        assert!(hosts("https://api.example.com/").is_err());
        let aeat = |v: &str| {
            let v = v.to_string();
            Config::from_lookup(&move |n| (n == "SVC_AEAT_ENDPOINT").then(|| v.clone()))
                .map(|c| c.aeat_endpoint)
        };
        assert_eq!(
            aeat("http://127.0.0.1:8089/x"),
            Ok(AeatEndpoint::Url("http://127.0.0.1:8089/x".to_string()))
        );
        assert_eq!(aeat(" production "), Ok(AeatEndpoint::Production));
        assert_eq!(aeat("test"), Ok(AeatEndpoint::Test));
        assert!(aeat("prod").unwrap_err().contains("`production`, `test`"));
        assert!(aeat("ftp://x").is_err());
        let key = |v: &str| {
            let v = v.to_string();
            Config::from_lookup(&move |n| (n == "SVC_SECRETS_KEY").then(|| v.clone()))
                .map(|c| c.secrets_key.is_some())
        };
        assert_eq!(key(&"0f".repeat(32)), Ok(true));
        assert_eq!(key(""), Ok(false));
        assert!(key("secret").unwrap_err().contains("64 hexadecimal digits"));
    }

    #[test]
    fn extra_webhook_ports_are_a_checked_list() {
        let ports = |v: &str| {
            let v = v.to_string();
            Config::from_lookup(&move |n| (n == "SVC_WEBHOOK_PORTS").then(|| v.clone()))
                .map(|c| c.webhook_ports)
        };
        assert_eq!(ports(" 9000, 9443 ,"), Ok(vec![9000, 9443]));
        assert_eq!(ports(""), Ok(vec![]));
        for bad in ["0", "65536", "http", "9000;9443", "-1"] {
            let e = ports(bad).unwrap_err();
            assert!(e.contains("SVC_WEBHOOK_PORTS"), "{bad}: {e}");
        }
    }

    #[test]
    fn lambda_gets_a_body_limit_below_its_payload_limit() {
        let config = |vars: &'static [(&'static str, &'static str)]| {
            Config::from_lookup(&|n| {
                vars.iter()
                    .find(|(k, _)| *k == n)
                    .map(|(_, v)| v.to_string())
            })
        };
        assert_eq!(config(&[]).unwrap().max_body_bytes, 6 * 1024 * 1024);
        let lambda = config(&[("AWS_LAMBDA_FUNCTION_NAME", "svc-ExtractionFunction")]).unwrap();
        assert_eq!(lambda.max_body_bytes, LAMBDA_MAX_BODY_BYTES);
        let set = config(&[
            ("AWS_LAMBDA_FUNCTION_NAME", "f"),
            ("SVC_MAX_BODY_BYTES", "1000"),
            ("SVC_SYNC_MAX_BYTES", "2000"),
            ("SVC_PUBLIC_URL", "https://svc.example.com/"),
        ])
        .unwrap();
        assert_eq!(
            (
                set.max_body_bytes,
                set.sync_max_bytes,
                set.public_url.as_deref()
            ),
            (1000, 2000, Some("https://svc.example.com"))
        );
        assert!(config(&[("SVC_PUBLIC_URL", "svc.example.com")]).is_err());
        assert!(config(&[("SVC_PUBLIC_URL", "ftp://svc.example.com")]).is_err());
    }

    #[test]
    fn a_trusted_proxy_header_is_off_unless_named_and_must_be_a_header_name() {
        let header = |v: &str| {
            let v = v.to_string();
            Config::from_lookup(&move |n| (n == "SVC_TRUSTED_PROXY_HEADER").then(|| v.clone()))
                .map(|c| c.trusted_proxy_header.map(|h| h.to_string()))
        };
        assert_eq!(Config::default().trusted_proxy_header, None);
        assert_eq!(header(""), Ok(None));
        assert_eq!(
            header(" X-Forwarded-For "),
            Ok(Some("x-forwarded-for".into()))
        );
        assert_eq!(header("X-Real-IP"), Ok(Some("x-real-ip".into())));
        for bad in ["X Forwarded For", "x-forwarded-for:", "Host", "Cookie", "é"] {
            assert!(header(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn email_is_off_unless_a_transport_and_a_sender_are_named() {
        let email = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Config::from_lookup(&move |n| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()))
                .map(|c| c.email)
        };
        assert_eq!(
            email(&[("SVC_EMAIL_FROM", "a@example.com")]),
            Ok(EmailTransport::Off)
        );
        let smtp = email(&[
            ("SVC_SMTP_URL", "smtps://user:secret@smtp.example.com"),
            ("SVC_EMAIL_FROM", "Facturas <facturas@example.com>"),
        ])
        .unwrap();
        assert!(
            matches!(&smtp, EmailTransport::Smtp { from, .. } if from == "Facturas <facturas@example.com>")
        );
        assert!(!format!("{smtp:?}").contains("secret"));
        assert_eq!(
            email(&[
                ("SVC_EMAIL_SES", "true"),
                ("SVC_EMAIL_FROM", "facturas@example.com"),
                ("SVC_SES_CONFIGURATION_SET", "svc"),
            ]),
            Ok(EmailTransport::Ses {
                from: "facturas@example.com".into(),
                configuration_set: Some("svc".into())
            })
        );
        let refused = [
            vec![("SVC_SMTP_URL", "smtp://127.0.0.1:2525")],
            vec![
                ("SVC_SMTP_URL", "http://x"),
                ("SVC_EMAIL_FROM", "a@example.com"),
            ],
            vec![
                ("SVC_SMTP_URL", "smtp://x"),
                ("SVC_EMAIL_FROM", "not an address"),
            ],
            vec![
                ("SVC_SMTP_URL", "smtp://x"),
                ("SVC_EMAIL_SES", "true"),
                ("SVC_EMAIL_FROM", "a@example.com"),
            ],
        ];
        for vars in refused {
            assert!(email(&vars).is_err(), "{vars:?}");
        }
    }

    #[test]
    fn the_ai_source_is_off_unless_a_model_is_named() {
        let ai = |vars: &[(&str, &str)]| {
            let vars: Vec<(String, String)> = vars
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Config::from_lookup(&move |n| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()))
                .map(|c| (c.ai, c.ai_timeout.as_secs()))
        };
        assert_eq!(ai(&[]), Ok((AiModel::Off, 20)));
        let local = ai(&[
            ("SVC_AI_URL", "http://127.0.0.1:8080"),
            ("SVC_AI_MODEL", "qwen2.5-7b-instruct"),
            ("SVC_AI_KEY", "sk-secret"),
            ("SVC_AI_TIMEOUT_SECONDS", "60"),
        ])
        .unwrap();
        assert_eq!(
            local,
            (
                AiModel::OpenAiCompatible {
                    url: "http://127.0.0.1:8080".into(),
                    model: "qwen2.5-7b-instruct".into(),
                    key: Some("sk-secret".into()),
                },
                60
            )
        );
        assert!(!format!("{:?}", local.0).contains("sk-secret"));
        assert_eq!(
            ai(&[("SVC_AI_BEDROCK_MODEL", "eu.amazon.nova-lite-v1:0")]).map(|(m, _)| m),
            Ok(AiModel::Bedrock {
                model: "eu.amazon.nova-lite-v1:0".into()
            })
        );
        let refused = [
            vec![("SVC_AI_URL", "http://127.0.0.1:8080")],
            vec![("SVC_AI_URL", "ftp://x"), ("SVC_AI_MODEL", "m")],
            vec![
                ("SVC_AI_URL", "http://x"),
                ("SVC_AI_MODEL", "m"),
                ("SVC_AI_BEDROCK_MODEL", "b"),
            ],
            vec![
                ("SVC_AI_BEDROCK_MODEL", "b"),
                ("SVC_AI_TIMEOUT_SECONDS", "0"),
            ],
        ];
        for vars in refused {
            assert!(ai(&vars).is_err(), "{vars:?}");
        }
    }

    #[test]
    fn an_endpoint_is_named_or_https_and_plain_http_only_to_loopback() {
        assert_eq!(
            AeatEndpoint::parse(" production "),
            Ok(AeatEndpoint::Production)
        );
        assert_eq!(AeatEndpoint::parse("test"), Ok(AeatEndpoint::Test));
        for url in [
            "https://aeat.example.com/ws",
            "http://127.0.0.1:8089/x",
            "http://127.8.0.1/x",
            "http://[::1]:8089/x",
            "http://localhost:8089/x",
        ] {
            assert_eq!(
                AeatEndpoint::parse(url),
                Ok(AeatEndpoint::Url(url.to_string())),
                "{url}"
            );
        }
        for url in [
            "http://aeat.example.com/ws",
            "http://10.0.0.7/ws",
            "http://[fe80::1]/ws",
            "http://localhost.example.com/ws",
        ] {
            let error = AeatEndpoint::parse(url).unwrap_err();
            assert!(error.contains("only allowed to loopback"), "{url}: {error}");
        }
        for raw in ["prod", "ftp://x", "https://", ""] {
            let error = AeatEndpoint::parse(raw).unwrap_err();
            assert!(error.contains("an https URL"), "{raw}: {error}");
        }
    }
}
