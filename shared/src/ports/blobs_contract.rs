//! The one contract suite of the `Blobs` port. Every adapter runs it: files
//! under a data directory in this crate's tests, S3 in `infra-aws` against
//! moto. Each run writes under a fresh key prefix, so a store may be reused.
//! `run_presigned` checks presigned PUTs, sent the way a client sends them.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::Utc;

use super::blobs::{BlobError, Blobs, PresignedPut};
use crate::ids::random_token;

/// How a test reaches the URLs of an adapter's presigned PUTs.
#[async_trait]
pub trait PutSender: Send + Sync {
    /// `PUT url` with `headers` (but the `Content-Length`, which is the
    /// body's) and `body`: the response's status.
    async fn put(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> u16;
}

/// What a PUT to a presigned URL must send: its headers, with `Content-Type`
/// replaced by `content_type` when given.
fn headers_with(presigned: &PresignedPut, content_type: Option<&str>) -> Vec<(String, String)> {
    presigned
        .headers
        .iter()
        .map(|(name, value)| match content_type {
            Some(other) if name.eq_ignore_ascii_case("content-type") => {
                (name.clone(), other.to_string())
            }
            _ => (name.clone(), value.clone()),
        })
        .collect()
}

fn header<'a>(presigned: &'a PresignedPut, name: &str) -> Option<&'a str> {
    presigned
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Checks presigned PUTs: a PUT as the URL says stores the object. When the
/// store `enforces` signatures (S3, the embedded host; not moto, which
/// checks none), a PUT of another type, of another size, to a changed URL or
/// after the expiry is refused and stores nothing.
pub async fn run_presigned(blobs: Arc<dyn Blobs>, sender: &dyn PutSender, enforces: bool) {
    let prefix = format!("contract/{}", random_token(6));
    let b = &*blobs;
    let soon = Utc::now() + chrono::Duration::minutes(15);
    let body = b"%PDF-1.7 contract".to_vec();
    let size = body.len() as u64;

    let key = format!("{prefix}/stored");
    let presigned = b
        .presign_put(&key, "application/pdf", size, soon)
        .await
        .unwrap();
    assert_eq!(header(&presigned, "content-type"), Some("application/pdf"));
    assert_eq!(
        header(&presigned, "content-length"),
        Some(&*size.to_string())
    );
    let status = sender
        .put(&presigned.url, &presigned.headers, body.clone())
        .await;
    assert!((200..300).contains(&status), "PUT as presigned: {status}");
    assert_eq!(b.get(&key).await.unwrap(), Some(body.clone()));
    b.delete(&key).await.unwrap();

    assert_eq!(
        b.presign_put("../escape", "application/pdf", 1, soon).await,
        Err(BlobError::InvalidKey("../escape".into()))
    );
    if !enforces {
        return;
    }
    let refused = |what: &str, status: u16| {
        assert!((400..500).contains(&status), "{what}: {status}");
    };
    let key = format!("{prefix}/refused");
    let presigned = b
        .presign_put(&key, "application/pdf", size, soon)
        .await
        .unwrap();
    let wrong_type = headers_with(&presigned, Some("image/png"));
    refused(
        "another type",
        sender.put(&presigned.url, &wrong_type, body.clone()).await,
    );
    let shorter = body[..body.len() - 1].to_vec();
    refused(
        "another size",
        sender
            .put(&presigned.url, &presigned.headers, shorter)
            .await,
    );
    let mut changed = presigned.url.clone();
    let last = changed.pop().expect("a URL ends with its signature");
    changed.push(if last == '0' { '1' } else { '0' });
    refused(
        "a changed signature",
        sender.put(&changed, &presigned.headers, body.clone()).await,
    );
    let expiring = Utc::now() + chrono::Duration::seconds(1);
    let short_lived = b
        .presign_put(&key, "application/pdf", size, expiring)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    refused(
        "after the expiry",
        sender
            .put(&short_lived.url, &short_lived.headers, body.clone())
            .await,
    );
    assert_eq!(
        b.get(&key).await.unwrap(),
        None,
        "nothing refused was stored"
    );
}

/// Runs every contract check.
pub async fn run(blobs: Arc<dyn Blobs>) {
    let prefix = format!("contract/{}", random_token(6));
    let b = &*blobs;
    round_trip(b, &format!("{prefix}/round")).await;
    large_values(b, &format!("{prefix}/large")).await;
    invalid_keys(b).await;
}

async fn round_trip(b: &dyn Blobs, prefix: &str) {
    let key = format!("{prefix}/input");
    assert_eq!(b.get(&key).await.unwrap(), None);
    b.put(&key, b"first".to_vec()).await.unwrap();
    assert_eq!(b.get(&key).await.unwrap().as_deref(), Some(&b"first"[..]));
    b.put(&key, b"second, longer".to_vec()).await.unwrap();
    let replaced = b.get(&key).await.unwrap();
    assert_eq!(replaced.as_deref(), Some(&b"second, longer"[..]));
    let empty = format!("{prefix}/empty");
    b.put(&empty, Vec::new()).await.unwrap();
    assert_eq!(b.get(&empty).await.unwrap(), Some(Vec::new()));

    b.delete(&key).await.unwrap();
    assert_eq!(b.get(&key).await.unwrap(), None);
    b.delete(&key).await.unwrap();
    b.delete(&format!("{prefix}/never-written")).await.unwrap();
    assert_eq!(
        b.get(&empty).await.unwrap(),
        Some(Vec::new()),
        "others stay"
    );
    b.delete(&empty).await.unwrap();
}

async fn large_values(b: &dyn Blobs, prefix: &str) {
    let key = format!("{prefix}/input");
    let bytes: Vec<u8> = (0..6 * 1024 * 1024 + 1)
        .map(|i: u32| (i.wrapping_mul(31) % 251) as u8)
        .collect();
    b.put(&key, bytes.clone()).await.unwrap();
    let read = b.get(&key).await.unwrap().expect("stored");
    assert!(read == bytes, "{} bytes read back differ", read.len());
    b.delete(&key).await.unwrap();
}

async fn invalid_keys(b: &dyn Blobs) {
    for key in ["", "/abs", "a//b", "../escape", "a/../b", "a b", "ñ"] {
        let invalid = |r: Result<(), BlobError>| {
            assert_eq!(r, Err(BlobError::InvalidKey(key.to_string())), "{key:?}")
        };
        invalid(b.put(key, b"x".to_vec()).await);
        invalid(b.get(key).await.map(|_| ()));
        invalid(b.delete(key).await);
    }
}
