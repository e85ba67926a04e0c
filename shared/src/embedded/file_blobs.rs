//! The embedded engine of the `Blobs` port: one file per key under
//! `<data dir>/blobs/`. A put writes a temporary file beside the target and
//! renames it over it, so a reader sees the old bytes or the new, never a
//! part. A key cannot be both a blob and the folder of others (`a` and `a/b`);
//! the service's keys (`jobs/<job_id>/input`) never are.

use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};

use async_trait::async_trait;

use crate::ids::random_token;
use crate::ports::blobs::{BlobError, Blobs, is_valid_key};

pub struct FileBlobs {
    root: PathBuf,
}

fn unavailable(e: impl std::fmt::Display) -> BlobError {
    BlobError::Unavailable(e.to_string())
}

impl FileBlobs {
    /// The blobs under `<data_dir>/blobs/` (created when first written).
    pub fn new(data_dir: &Path) -> FileBlobs {
        FileBlobs {
            root: data_dir.join("blobs"),
        }
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

/// Writes `bytes` durably to `path` through a temporary file: its name has a
/// `+`, which no key has, so it never shadows a blob.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("a blob path is under the root");
    let name = path.file_name().expect("a blob path names a file");
    let temp = dir.join(format!("{}+{}", name.to_string_lossy(), random_token(8)));
    // A delete of the folder's last blob may remove the folder between
    // creating it and creating the file: then create it again.
    let create = || std::fs::create_dir_all(dir).and_then(|()| std::fs::File::create(&temp));
    let mut file = match create() {
        Err(e) if e.kind() == ErrorKind::NotFound => create()?,
        other => other?,
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, path))
        .and_then(|()| std::fs::File::open(dir)?.sync_all());
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
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
}
