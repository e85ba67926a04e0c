//! The one contract suite of the `Blobs` port. Every adapter runs it: files
//! under a data directory in this crate's tests, S3 in `infra-aws` against
//! moto. Each run writes under a fresh key prefix, so a store may be reused.

use std::sync::Arc;

use super::blobs::{BlobError, Blobs};
use crate::ids::random_token;

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
