//! The `Svc-Signature` header, made as Stripe makes `Stripe-Signature` so that
//! Stripe's libraries verify it: `t=<unix seconds>,v1=<hex>` where the hex is
//! the lower-case HMAC-SHA256 of `"<t>.<raw body>"` keyed with the whole
//! secret text (`whsec_…` included, as bytes). While a rotated secret is still
//! valid, there is one `v1=` per secret.

use std::time::Duration;

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// What a receiver should accept as the age of a signature: the default of
/// Stripe's libraries.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);

fn mac(secret: &str, t: i64, payload: &[u8]) -> HmacSha256 {
    let mut mac =
        HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    mac
}

/// The header value for `payload` signed at `t` with each secret.
pub fn header(payload: &[u8], secrets: &[&str], t: i64) -> String {
    let mut out = format!("t={t}");
    for secret in secrets {
        out.push_str(",v1=");
        out.push_str(&hex::encode(
            mac(secret, t, payload).finalize().into_bytes(),
        ));
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the signature header has no valid `t=` timestamp")]
    NoTimestamp,
    #[error("the signature header has no `v1=` signature")]
    NoSignature,
    #[error("no `v1=` signature matches the payload with the given secrets")]
    Mismatch,
    #[error("the signature was made {age_seconds} s from now, beyond the tolerance")]
    OutsideTolerance { age_seconds: i64 },
}

/// Checks a delivery: `payload` is the raw request body (exact bytes), `header`
/// the `Svc-Signature` value, `secrets` the webhook's secret(s). Accepted when
/// any `v1=` matches any secret (compared in constant time) and the timestamp
/// is within `tolerance` of `now` (use `DEFAULT_TOLERANCE`).
///
/// ```
/// use shared::webhooks::{DEFAULT_TOLERANCE, verify};
/// let (body, secret) = (br#"{"id":"evt_1"}"#, "whsec_0123");
/// let now = chrono::Utc::now();
/// let header = shared::webhooks::signature::header(body, &[secret], now.timestamp());
/// assert_eq!(verify(body, &header, &[secret], DEFAULT_TOLERANCE, now), Ok(()));
/// ```
pub fn verify(
    payload: &[u8],
    header: &str,
    secrets: &[&str],
    tolerance: Duration,
    now: DateTime<Utc>,
) -> Result<(), VerifyError> {
    let mut t = None;
    let mut signatures = Vec::new();
    for (name, value) in header.split(',').filter_map(|part| part.split_once('=')) {
        match name.trim() {
            "t" if t.is_none() => t = value.trim().parse::<i64>().ok(),
            "v1" => signatures.extend(hex::decode(value.trim()).ok()),
            _ => {}
        }
    }
    let t = t.ok_or(VerifyError::NoTimestamp)?;
    if signatures.is_empty() {
        return Err(VerifyError::NoSignature);
    }
    let matches = secrets.iter().any(|secret| {
        signatures
            .iter()
            .any(|sig| mac(secret, t, payload).verify_slice(sig).is_ok())
    });
    if !matches {
        return Err(VerifyError::Mismatch);
    }
    let age = now.timestamp() - t;
    if age.unsigned_abs() > tolerance.as_secs() {
        return Err(VerifyError::OutsideTolerance { age_seconds: age });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = br#"{"id":"evt_1","type":"invoice.paid"}"#;

    fn at(t: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(t, 0).unwrap()
    }

    #[test]
    fn the_digest_is_hmac_sha256_of_t_dot_body_keyed_with_the_whole_secret() {
        // Python: hmac.new(b"whsec_test", b"1700000000." + BODY, sha256).hexdigest()
        let h = header(BODY, &["whsec_test"], 1_700_000_000);
        assert_eq!(
            h,
            "t=1700000000,v1=4aa90aa69730f112c87accbf54203d1076675eae3b18a5cb82b5ab9e7f5cd5bc"
        );
    }

    #[test]
    fn any_secret_matching_any_signature_verifies() {
        let h = header(BODY, &["whsec_new", "whsec_old"], 1_700_000_000);
        assert_eq!(h.matches(",v1=").count(), 2);
        let now = at(1_700_000_100);
        for secret in ["whsec_new", "whsec_old"] {
            assert_eq!(verify(BODY, &h, &[secret], DEFAULT_TOLERANCE, now), Ok(()));
        }
        assert_eq!(
            verify(BODY, &h, &["whsec_other"], DEFAULT_TOLERANCE, now),
            Err(VerifyError::Mismatch)
        );
        assert_eq!(
            verify(b"{}", &h, &["whsec_new"], DEFAULT_TOLERANCE, now),
            Err(VerifyError::Mismatch)
        );
    }

    #[test]
    fn stale_future_and_malformed_headers_fail() {
        let h = header(BODY, &["whsec_a"], 1_700_000_000);
        assert_eq!(
            verify(BODY, &h, &["whsec_a"], DEFAULT_TOLERANCE, at(1_700_000_301)),
            Err(VerifyError::OutsideTolerance { age_seconds: 301 })
        );
        assert!(verify(BODY, &h, &["whsec_a"], DEFAULT_TOLERANCE, at(1_699_999_000)).is_err());
        let sig = h.split_once(",v1=").unwrap().1;
        let now = at(1_700_000_000);
        assert_eq!(
            verify(
                BODY,
                &format!("v1={sig}"),
                &["whsec_a"],
                DEFAULT_TOLERANCE,
                now
            ),
            Err(VerifyError::NoTimestamp)
        );
        assert_eq!(
            verify(
                BODY,
                "t=1700000000,v0=abc",
                &["whsec_a"],
                DEFAULT_TOLERANCE,
                now
            ),
            Err(VerifyError::NoSignature)
        );
        let unknown_schemes = format!("t=1700000000,v0=00,v1=zz,v1={sig}");
        assert_eq!(
            verify(BODY, &unknown_schemes, &["whsec_a"], DEFAULT_TOLERANCE, now),
            Ok(())
        );
    }
}
