//! The embedded engine of the `Blobs` port: one file per key under
//! `<data dir>/blobs/`. A put writes a temporary file beside the target and
//! renames it over it, so a reader sees the old bytes or the new, never a
//! part. A key cannot be both a blob and the folder of others (`a` and `a/b`);
//! the service's keys (`jobs/<job_id>/input`, `uploads/<account>/<mode>/<id>`,
//! `kept/expenses/<account>/<id>`) never are. Presigned PUTs are URLs of
//! `svc serve` itself (`embedded::presigned_put`); `expire` is the bucket's
//! lifecycle rule, which spares what is kept (`KEPT`).

use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::io::AsyncWriteExt as _;

use super::presigned_put::{Grant, Signer};
use crate::ids::random_token;
use crate::ports::blobs::{BlobError, Blobs, KEPT, PresignedPut, is_valid_key};

/// How long a blob is kept, as the staging bucket's lifecycle rule keeps it.
pub const LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

pub struct FileBlobs {
    root: PathBuf,
    signer: Signer,
}

fn unavailable(e: impl std::fmt::Display) -> BlobError {
    BlobError::Unavailable(e.to_string())
}

impl FileBlobs {
    /// The blobs under `<data_dir>/blobs/` (created when first written).
    pub fn new(data_dir: &Path) -> FileBlobs {
        FileBlobs {
            root: data_dir.join("blobs"),
            signer: Signer::new(data_dir),
        }
    }

    /// A writer of the blob `key`, for bytes that arrive in parts.
    pub async fn writer(&self, key: &str) -> Result<BlobWriter, BlobError> {
        let path = self.path(key)?;
        let temp = temp_path(&path);
        let created = temp.clone();
        let file = blocking(move || create_temp(&created)).await?;
        Ok(BlobWriter {
            file: tokio::fs::File::from_std(file),
            temp,
            path,
            finished: false,
        })
    }

    /// The signer of this directory's presigned PUTs.
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// Removes the blobs last written more than `age` ago (and the folders
    /// that leaves empty): what a put left behind that no delete removed.
    /// Blobs under `kept/` stay.
    /// The number removed.
    pub async fn expire(&self, age: Duration) -> Result<usize, BlobError> {
        let root = self.root.clone();
        blocking(move || {
            let Some(cutoff) = SystemTime::now().checked_sub(age) else {
                return Ok(0);
            };
            let mut removed = 0;
            remove_older(&root, &root, cutoff, &mut removed)?;
            Ok(removed)
        })
        .await
    }

    fn path(&self, key: &str) -> Result<PathBuf, BlobError> {
        if !is_valid_key(key) {
            return Err(BlobError::InvalidKey(key.to_string()));
        }
        Ok(self.root.join(key))
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> Result<T, BlobError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(unavailable)?
        .map_err(unavailable)
}

/// The temporary file a blob is written to before it is renamed over its
/// path: its name has a `+`, which no key has, so it never shadows a blob.
fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().expect("a blob path names a file");
    path.with_file_name(format!("{}+{}", name.to_string_lossy(), random_token(8)))
}

fn create_temp(temp: &Path) -> std::io::Result<std::fs::File> {
    let dir = temp.parent().expect("a blob path is under the root");
    // A delete of the folder's last blob may remove the folder between
    // creating it and creating the file: then create it again.
    let create = || std::fs::create_dir_all(dir).and_then(|()| std::fs::File::create(temp));
    match create() {
        Err(e) if e.kind() == ErrorKind::NotFound => create(),
        other => other,
    }
}

/// Renames a written temporary file over the blob's path, durably.
fn publish(temp: &Path, path: &Path) -> std::io::Result<()> {
    let dir = path.parent().expect("a blob path is under the root");
    std::fs::rename(temp, path).and_then(|()| std::fs::File::open(dir)?.sync_all())
}

/// Writes `bytes` durably to `path` through a temporary file.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = temp_path(path);
    let mut file = create_temp(&temp)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| publish(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// A blob written as it arrives (an upload's PUT, frame by frame), so that
/// it is never whole in memory. It appears under its key only when
/// `finish`ed; a writer dropped before (a body cut short, too long, or
/// unreadable) leaves nothing behind.
pub struct BlobWriter {
    file: tokio::fs::File,
    temp: PathBuf,
    path: PathBuf,
    finished: bool,
}

impl BlobWriter {
    pub async fn write(&mut self, bytes: &[u8]) -> Result<(), BlobError> {
        self.file.write_all(bytes).await.map_err(unavailable)
    }

    /// Makes the blob durable and visible under its key.
    pub async fn finish(mut self) -> Result<(), BlobError> {
        self.file.flush().await.map_err(unavailable)?;
        self.file.sync_all().await.map_err(unavailable)?;
        let (temp, path) = (self.temp.clone(), self.path.clone());
        blocking(move || publish(&temp, &path)).await?;
        self.finished = true;
        Ok(())
    }
}

impl Drop for BlobWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

fn remove_older(
    root: &Path,
    dir: &Path,
    cutoff: SystemTime,
    removed: &mut usize,
) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let meta = entry.metadata()?;
        let path = entry.path();
        if meta.is_dir() {
            if path == root.join(KEPT) {
                continue;
            }
            remove_older(root, &path, cutoff, removed)?;
        } else if meta.modified()? < cutoff && std::fs::remove_file(&path).is_ok() {
            *removed += 1;
            remove_empty_folders(root, &path);
        }
    }
    Ok(())
}

/// Removes the folders of `path` that its removal left empty, up to `root`.
fn remove_empty_folders(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if std::fs::remove_dir(d).is_err() {
            return;
        }
        dir = d.parent();
    }
}

#[async_trait]
impl Blobs for FileBlobs {
    async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError> {
        let path = self.path(key)?;
        blocking(move || write_atomically(&path, &bytes)).await
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        let path = self.path(key)?;
        blocking(move || match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::IsADirectory) => Ok(None),
            Err(e) => Err(e),
        })
        .await
    }

    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        let path = self.path(key)?;
        let root = self.root.clone();
        blocking(move || match std::fs::remove_file(&path) {
            Ok(()) => {
                remove_empty_folders(&root, &path);
                Ok(())
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        })
        .await
    }

    async fn presign_put(
        &self,
        key: &str,
        mime: &str,
        size: u64,
        expires: DateTime<Utc>,
    ) -> Result<PresignedPut, BlobError> {
        self.path(key)?;
        let grant = Grant {
            key: key.to_string(),
            mime: mime.to_string(),
            size,
            expires,
        };
        Ok(PresignedPut {
            url: self.signer.url(&grant).map_err(unavailable)?,
            headers: vec![
                ("Content-Type".to_string(), mime.to_string()),
                ("Content-Length".to_string(), size.to_string()),
            ],
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::ports::blobs_contract;

    #[tokio::test]
    async fn file_blobs_pass_the_blobs_contract() {
        let dir = tempfile::tempdir().unwrap();
        blobs_contract::run(Arc::new(FileBlobs::new(dir.path()))).await;
    }

    /// The URLs' receiver of `svc serve`, in-process.
    struct Receiver(axum::Router);

    #[async_trait]
    impl blobs_contract::PutSender for Receiver {
        async fn put(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> u16 {
            use tower::ServiceExt;
            let mut request = axum::http::Request::put(url);
            for (name, value) in headers {
                if !name.eq_ignore_ascii_case("content-length") {
                    request = request.header(name, value);
                }
            }
            let request = request
                .header("content-length", body.len())
                .body(axum::body::Body::from(body))
                .unwrap();
            let response = self.0.clone().oneshot(request).await.unwrap();
            response.status().as_u16()
        }
    }

    #[tokio::test]
    async fn file_blobs_pass_the_presigned_put_contract() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = Arc::new(FileBlobs::new(dir.path()));
        let clock = Arc::new(crate::ports::clock::SystemClock);
        let receiver = Receiver(crate::http::blob_put::router(blobs.clone(), clock));
        blobs_contract::run_presigned(blobs, &receiver, true).await;
    }

    #[tokio::test]
    async fn blobs_live_under_the_data_dir_and_leave_no_folders_behind() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = FileBlobs::new(dir.path());
        blobs
            .put("jobs/job_1/input", b"rows".to_vec())
            .await
            .unwrap();
        let file = dir.path().join("blobs/jobs/job_1/input");
        assert_eq!(std::fs::read(&file).unwrap(), b"rows");
        assert_eq!(
            std::fs::read_dir(file.parent().unwrap()).unwrap().count(),
            1
        );
        blobs.delete("jobs/job_1/input").await.unwrap();
        assert!(!dir.path().join("blobs/jobs").exists());
        assert!(dir.path().join("blobs").exists());
    }

    #[tokio::test]
    async fn expiring_removes_only_the_blobs_older_than_the_age() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = FileBlobs::new(dir.path());
        blobs.put("uploads/a/live/old", vec![1]).await.unwrap();
        blobs.put("jobs/job_1/input", vec![2]).await.unwrap();
        blobs.put("kept/expenses/a/exp_1", vec![3]).await.unwrap();
        let two_days_ago = SystemTime::now() - 2 * LIFETIME;
        for old in ["blobs/uploads/a/live/old", "blobs/kept/expenses/a/exp_1"] {
            std::fs::File::options()
                .write(true)
                .open(dir.path().join(old))
                .unwrap()
                .set_modified(two_days_ago)
                .unwrap();
        }
        assert_eq!(blobs.expire(LIFETIME).await.unwrap(), 1);
        assert_eq!(
            blobs.get("kept/expenses/a/exp_1").await.unwrap(),
            Some(vec![3]),
            "kept blobs never expire"
        );
        assert!(!dir.path().join("blobs/uploads").exists());
        assert_eq!(blobs.get("jobs/job_1/input").await.unwrap(), Some(vec![2]));
        assert_eq!(blobs.expire(LIFETIME).await.unwrap(), 0);
        assert_eq!(
            FileBlobs::new(&dir.path().join("none"))
                .expire(LIFETIME)
                .await,
            Ok(0)
        );
    }
}
