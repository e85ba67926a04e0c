//! The presigned PUTs of the embedded host, as S3 makes them on AWS: a URL
//! of `svc serve` itself (`PUT /api/v1/blobs/{key}?type=&size=&expires=&signature=`,
//! served by `http::blob_put`) whose signature, an HMAC-SHA256 with a secret
//! kept in the data directory (`presign.key`, made on first use, readable by
//! its owner only), binds the key, the content type, the size and the expiry.

use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use sha2::Sha256;

use crate::ids::random_token;

type HmacSha256 = Hmac<Sha256>;

/// The path under which `svc serve` receives presigned PUTs.
pub const PATH_PREFIX: &str = "/api/v1/blobs/";

/// What a presigned URL allows: one PUT of `size` bytes of `mime` under
/// `key`, until `expires`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub key: String,
    pub mime: String,
    pub size: u64,
    pub expires: DateTime<Utc>,
}

/// Why a URL grants nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GrantError {
    /// Missing, malformed or not made by this host's secret.
    #[error("the URL's signature does not match")]
    Signature,
    #[error("the URL expired at {0}")]
    Expired(DateTime<Utc>),
}

/// The signing secret of a data directory.
pub struct Signer {
    path: PathBuf,
    secret: OnceLock<Vec<u8>>,
}

impl Signer {
    pub fn new(data_dir: &Path) -> Signer {
        Signer {
            path: data_dir.join("presign.key"),
            secret: OnceLock::new(),
        }
    }

    /// The secret, read from its file or made there; processes sharing the
    /// data directory agree on it, since only the first creation wins.
    fn secret(&self) -> std::io::Result<&[u8]> {
        if let Some(secret) = self.secret.get() {
            return Ok(secret);
        }
        let secret = match std::fs::read_to_string(&self.path) {
            Ok(text) => hex::decode(text.trim())
                .map_err(|e| std::io::Error::new(ErrorKind::InvalidData, e))?,
            Err(e) if e.kind() == ErrorKind::NotFound => self.create()?,
            Err(e) => return Err(e),
        };
        Ok(self.secret.get_or_init(|| secret))
    }

    fn create(&self) -> std::io::Result<Vec<u8>> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let temp = self.path.with_extension(format!("key+{}", random_token(8)));
        let token = random_token(32);
        let mut file = options.open(&temp)?;
        let written = file
            .write_all(token.as_bytes())
            .and_then(|()| file.sync_all());
        // A hard link fails when the file exists: another process made it first.
        let linked = written.and_then(|()| std::fs::hard_link(&temp, &self.path));
        let _ = std::fs::remove_file(&temp);
        match linked {
            Ok(()) => {
                hex::decode(token).map_err(|e| std::io::Error::new(ErrorKind::InvalidData, e))
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(&self.path)?;
                hex::decode(text.trim()).map_err(|e| std::io::Error::new(ErrorKind::InvalidData, e))
            }
            Err(e) => Err(e),
        }
    }

    fn mac(&self, grant: &Grant) -> std::io::Result<HmacSha256> {
        let mut mac =
            HmacSha256::new_from_slice(self.secret()?).expect("HMAC takes keys of any length");
        let expires = grant.expires.timestamp();
        let message = format!(
            "PUT\n{}\n{}\n{}\n{expires}",
            grant.key, grant.mime, grant.size
        );
        mac.update(message.as_bytes());
        Ok(mac)
    }

    /// The URL (a path of this host) that grants `grant`.
    pub fn url(&self, grant: &Grant) -> std::io::Result<String> {
        let signature = hex::encode(self.mac(grant)?.finalize().into_bytes());
        Ok(format!(
            "{PATH_PREFIX}{}?type={}&size={}&expires={}&signature={signature}",
            grant.key,
            utf8_percent_encode(&grant.mime, NON_ALPHANUMERIC),
            grant.size,
            grant.expires.timestamp(),
        ))
    }

    /// What the URL of `key` with `query` grants at `now`.
    pub fn check(&self, key: &str, query: &str, now: DateTime<Utc>) -> Result<Grant, GrantError> {
        let (mut mime, mut size, mut expires, mut signature) = (None, None, None, None);
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            let slot = match name.as_ref() {
                "type" => &mut mime,
                "size" => &mut size,
                "expires" => &mut expires,
                "signature" => &mut signature,
                _ => continue,
            };
            if slot.replace(value.into_owned()).is_some() {
                return Err(GrantError::Signature);
            }
        }
        let (Some(mime), Some(size), Some(expires), Some(signature)) =
            (mime, size, expires, signature)
        else {
            return Err(GrantError::Signature);
        };
        let size = size.parse().map_err(|_| GrantError::Signature)?;
        let expires = expires
            .parse()
            .ok()
            .and_then(|t| DateTime::from_timestamp(t, 0))
            .ok_or(GrantError::Signature)?;
        let signature = hex::decode(signature).map_err(|_| GrantError::Signature)?;
        let grant = Grant {
            key: key.to_string(),
            mime,
            size,
            expires,
        };
        let mac = self.mac(&grant).map_err(|e| {
            tracing::error!(error = %e, "the presigning secret cannot be read");
            GrantError::Signature
        })?;
        mac.verify_slice(&signature)
            .map_err(|_| GrantError::Signature)?;
        if now > grant.expires {
            return Err(GrantError::Expired(grant.expires));
        }
        Ok(grant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant() -> Grant {
        Grant {
            key: "uploads/acct_1/live/upl_1".into(),
            mime: "application/pdf".into(),
            size: 1234,
            expires: "2026-11-21T10:15:00Z".parse().unwrap(),
        }
    }

    fn split(url: &str) -> (&str, &str) {
        let rest = url.strip_prefix(PATH_PREFIX).unwrap();
        rest.split_once('?').unwrap()
    }

    #[test]
    fn a_url_grants_what_it_was_made_for_until_it_expires() {
        let dir = tempfile::tempdir().unwrap();
        let signer = Signer::new(dir.path());
        let url = signer.url(&grant()).unwrap();
        assert!(
            url.contains("type=application%2Fpdf&size=1234&expires="),
            "{url}"
        );
        let (key, query) = split(&url);
        let before = "2026-11-21T10:14:59Z".parse().unwrap();
        assert_eq!(signer.check(key, query, before), Ok(grant()));
        let after = "2026-11-21T10:15:01Z".parse().unwrap();
        assert_eq!(
            signer.check(key, query, after),
            Err(GrantError::Expired(grant().expires))
        );
        let again = Signer::new(dir.path());
        assert_eq!(
            again.check(key, query, before),
            Ok(grant()),
            "the secret is kept"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("presign.key"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_changed_url_or_another_secret_grants_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let signer = Signer::new(dir.path());
        let url = signer.url(&grant()).unwrap();
        let (key, query) = split(&url);
        let now = "2026-11-21T10:00:00Z".parse().unwrap();
        let changed = [
            ("uploads/acct_2/live/upl_1", query.to_string()),
            (key, query.replace("size=1234", "size=1235")),
            (key, query.replace("application%2Fpdf", "image%2Fpng")),
            (key, query.replace("expires=", "expires=1")),
            (key, format!("{query}&size=1")),
            (key, query.split("&signature").next().unwrap().to_string()),
        ];
        for (key, query) in &changed {
            assert_eq!(
                signer.check(key, query, now),
                Err(GrantError::Signature),
                "{key}?{query}"
            );
        }
        let other = tempfile::tempdir().unwrap();
        assert_eq!(
            Signer::new(other.path()).check(key, query, now),
            Err(GrantError::Signature)
        );
    }
}
