//! The `Blobs` port: short-lived large inputs: those of jobs (extraction
//! files, analysis rows), written when a job is queued and deleted when it
//! ends, and the files clients upload themselves through a presigned PUT
//! (`presign_put`, see `app::uploads`); and, under `kept/`, the documents of
//! expenses, kept until their expense is deleted. Two adapters: the S3
//! staging bucket on AWS and files under the data directory; both drop what
//! is older than a day outside `kept/` (the bucket's lifecycle rules,
//! `FileBlobs::expire`). Keys are relative paths of `[A-Za-z0-9_.-]`
//! segments joined by `/`.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// The first segment of the keys that never expire.
pub const KEPT: &str = "kept";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BlobError {
    /// A key outside the allowed shape.
    #[error("invalid blob key {0:?}")]
    InvalidKey(String),
    /// The store cannot be reached or is not configured on this host.
    #[error("the blob store is unavailable: {0}")]
    Unavailable(String),
}

/// A request anyone may make once, until it expires, to store one object:
/// `PUT url` with exactly `headers` and a body of the size it was made for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresignedPut {
    /// Absolute (S3), or a path of the host that made it (`svc serve`),
    /// which the caller resolves against the host's public address.
    pub url: String,
    /// Headers bound in the signature, to send as they are.
    pub headers: Vec<(String, String)>,
}

/// Whether `key` is a relative path of `[A-Za-z0-9_.-]` segments joined by
/// `/`, none of them `.` or `..`, at most 512 bytes.
pub fn is_valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 512
        && key.split('/').all(|segment| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && segment
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        })
}

#[async_trait]
pub trait Blobs: Send + Sync {
    /// Stores `bytes` under `key`, replacing what was there.
    async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError>;
    /// The bytes under `key`, or `None` when there are none.
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError>;
    /// Removes `key`; removing an absent key is not an error.
    async fn delete(&self, key: &str) -> Result<(), BlobError>;
    /// A PUT that stores an object of exactly `size` bytes of type `mime`
    /// under `key` without the store's credentials, valid until `expires`.
    /// A PUT with another `Content-Type` or length is refused.
    async fn presign_put(
        &self,
        key: &str,
        mime: &str,
        size: u64,
        expires: DateTime<Utc>,
    ) -> Result<PresignedPut, BlobError>;
}

/// The adapter of a host without a blob store: every call is `Unavailable`.
pub struct NoBlobs;

#[async_trait]
impl Blobs for NoBlobs {
    async fn put(&self, _: &str, _: Vec<u8>) -> Result<(), BlobError> {
        Err(unconfigured())
    }
    async fn get(&self, _: &str) -> Result<Option<Vec<u8>>, BlobError> {
        Err(unconfigured())
    }
    async fn delete(&self, _: &str) -> Result<(), BlobError> {
        Err(unconfigured())
    }
    async fn presign_put(
        &self,
        _: &str,
        _: &str,
        _: u64,
        _: DateTime<Utc>,
    ) -> Result<PresignedPut, BlobError> {
        Err(unconfigured())
    }
}

fn unconfigured() -> BlobError {
    BlobError::Unavailable("this host has no blob store configured".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_plain_relative_paths() {
        for ok in ["jobs/job_1f0c/input", "a", "a.b-c_d/e"] {
            assert!(is_valid_key(ok), "{ok}");
        }
        for bad in [
            "", "/abs", "a//b", "../x", "a/./b", "a/..", "a b", "a\\b", "ñ",
        ] {
            assert!(!is_valid_key(bad), "{bad}");
        }
        assert!(!is_valid_key(&"a".repeat(513)));
    }
}
