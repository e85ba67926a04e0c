//! A webhook's health after each attempt: any 2xx clears the failure streak;
//! `410 Gone` disables the webhook at once (Standard Webhooks); an endpoint
//! whose every attempt failed for `DISABLE_AFTER` is disabled. The streak
//! starts at the first failure after a success, so intermittent failures
//! never disable.

use chrono::{DateTime, SecondsFormat, Utc};

use super::schedule::DISABLE_AFTER;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Health {
    pub enabled: bool,
    /// Why the service disabled the webhook (None when a user did, or it is enabled).
    pub disabled_reason: Option<String>,
    /// The first failed attempt since the last success.
    pub failing_since: Option<DateTime<Utc>>,
}

/// What an attempt's HTTP status (None: no response) means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Delivered,
    Failed,
    Gone,
}

impl Verdict {
    pub fn of(status: Option<u16>) -> Self {
        match status {
            Some(200..=299) => Verdict::Delivered,
            Some(410) => Verdict::Gone,
            _ => Verdict::Failed,
        }
    }
}

fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl Health {
    pub fn after(&self, verdict: Verdict, at: DateTime<Utc>) -> Health {
        match verdict {
            Verdict::Delivered => Health {
                failing_since: None,
                ..self.clone()
            },
            Verdict::Gone => Health {
                enabled: false,
                disabled_reason: Some(format!("the endpoint answered 410 Gone at {}", stamp(at))),
                failing_since: self.failing_since.or(Some(at)),
            },
            Verdict::Failed => {
                let since = self.failing_since.unwrap_or(at);
                let window = chrono::Duration::from_std(DISABLE_AFTER).expect("3 days fit");
                if self.enabled && at - since >= window {
                    Health {
                        enabled: false,
                        disabled_reason: Some(format!(
                            "every delivery attempt failed for 3 days (since {})",
                            stamp(since)
                        )),
                        failing_since: Some(since),
                    }
                } else {
                    Health {
                        failing_since: Some(since),
                        ..self.clone()
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    const HEALTHY: Health = Health {
        enabled: true,
        disabled_reason: None,
        failing_since: None,
    };

    #[test]
    fn statuses_decide_the_verdict() {
        assert_eq!(Verdict::of(Some(200)), Verdict::Delivered);
        assert_eq!(Verdict::of(Some(204)), Verdict::Delivered);
        for failed in [None, Some(301), Some(400), Some(429), Some(500)] {
            assert_eq!(Verdict::of(failed), Verdict::Failed);
        }
        assert_eq!(Verdict::of(Some(410)), Verdict::Gone);
    }

    #[test]
    fn three_days_of_failures_disable_and_a_success_resets_the_streak() {
        let t0 = at("2026-11-01T00:00:00Z");
        let h = HEALTHY.after(Verdict::Failed, t0);
        assert_eq!((h.enabled, h.failing_since), (true, Some(t0)));
        let h = h.after(Verdict::Failed, at("2026-11-03T23:59:59Z"));
        assert!(h.enabled);
        let ok = h.after(Verdict::Delivered, at("2026-11-04T00:00:00Z"));
        assert_eq!(ok, HEALTHY);
        let off = h.after(Verdict::Failed, at("2026-11-04T00:00:00Z"));
        assert!(!off.enabled);
        assert_eq!(
            off.disabled_reason.as_deref(),
            Some("every delivery attempt failed for 3 days (since 2026-11-01T00:00:00Z)")
        );
    }

    #[test]
    fn gone_disables_at_once() {
        let h = HEALTHY.after(Verdict::Gone, at("2026-11-01T10:00:00Z"));
        assert!(!h.enabled);
        assert_eq!(
            h.disabled_reason.as_deref(),
            Some("the endpoint answered 410 Gone at 2026-11-01T10:00:00Z")
        );
    }
}
