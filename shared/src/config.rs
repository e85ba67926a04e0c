//! Service configuration, read once from the environment by each host.

use crate::app::quota::QuotaLimits;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Requests per minute per key (`SVC_RATE_LIMIT_PER_MINUTE`, default 30).
    pub rate_limit_per_minute: u32,
    /// Daily units per plan (`SVC_QUOTA_MINI`, `SVC_QUOTA_PRO`, `SVC_QUOTA_MAX`).
    pub quotas: QuotaLimits,
    /// Largest accepted request body (`SVC_MAX_BODY_BYTES`, default 6 MiB, Lambda's payload limit).
    pub max_body_bytes: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            rate_limit_per_minute: 30,
            quotas: QuotaLimits::default(),
            max_body_bytes: 6 * 1024 * 1024,
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
            max_body_bytes: var(get, "SVC_MAX_BODY_BYTES", d.max_body_bytes)?,
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
    }
}
