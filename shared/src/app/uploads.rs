//! Uploads: files too large for a request body. A client declares one
//! (`name`, `mime`, `size`) and gets a presigned PUT to the staging blobs;
//! extraction and analyze then take the upload's id instead of inline data,
//! and read it with exactly the checks of an inline body.
//!
//! The declaration is an item (pk `UPLOAD#<id>`, sk `UPLOAD`, `entity` =
//! "upload", `ttl` a day after its creation); the bytes are the blob
//! `uploads/<account>/<live|test>/<id>`, so an id is nothing to another
//! account or mode, and both the item and the blob are gone after a day
//! (the table's TTL; the bucket's lifecycle rule or `FileBlobs::expire`).
//! Creating an upload is free; each use is charged as the inline body would be.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::app::extraction::prepare::essence;
use crate::app::keys::Caller;
use crate::domain::account::Mode;
use crate::ids::new_id;
use crate::ports::Ports;
use crate::ports::blobs::BlobError;
use crate::ports::table::{Condition, Item, Key, TTL, TableError, Write};

/// The largest upload: 50 MiB.
pub const MAX_SIZE: u64 = 50 * 1024 * 1024;
/// How long the URL of a new upload takes a PUT.
pub const URL_LIFETIME: Duration = Duration::minutes(15);
/// How long an upload can be used (the staging bucket's lifecycle: a day).
pub const LIFETIME: Duration = Duration::hours(24);
/// What analyze reads from an upload: its `data` object as JSON.
pub const JSON: &str = "application/json";
/// The types an upload may have: the files extraction reads, and JSON for
/// analyze.
pub const MIMES: [&str; 7] = [
    "application/pdf",
    "image/jpeg",
    "image/png",
    "image/webp",
    "application/xml",
    "text/xml",
    JSON,
];

/// The body of `POST /api/v1/uploads`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "facturas-octubre.pdf", "mime": "application/pdf", "size": 18874368}))]
pub struct NewUpload {
    /// The file name, the default `name` of the file where it is used.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// `application/pdf`, `image/jpeg`, `image/png`, `image/webp`,
    /// `application/xml` or `text/xml` (for extraction), or
    /// `application/json` (the `data` of an analysis). The PUT must send it
    /// as its `Content-Type`.
    pub mime: String,
    /// The exact size in bytes, 1 to 52,428,800 (50 MiB). The PUT must send
    /// exactly this many bytes.
    #[schema(minimum = 1, maximum = 52428800)]
    pub size: u64,
}

/// A declared upload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upload {
    pub id: String,
    pub account_id: String,
    pub mode: Mode,
    pub name: String,
    pub mime: String,
    pub size: u64,
    pub created_at: DateTime<Utc>,
}

/// An upload as `POST /api/v1/uploads` answers it: where and how to send the file.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "upl_5c1e0a9d3f7b2e8a4d6c0b1f", "object": "upload",
    "name": "facturas-octubre.pdf", "mime": "application/pdf", "size": 18874368, "livemode": true,
    "upload_url": "https://svc-staging.s3.eu-west-1.amazonaws.com/uploads/acct_…/live/upl_5c1e0a9d3f7b2e8a4d6c0b1f?X-Amz-Algorithm=AWS4-HMAC-SHA256&…",
    "method": "PUT", "headers": {"content-type": "application/pdf", "content-length": "18874368"},
    "expires_at": "2026-11-21T10:15:00.000Z", "usable_until": "2026-11-22T10:00:00.000Z",
    "created_at": "2026-11-21T10:00:00.000Z"}))]
pub struct UploadResource {
    /// `upl_` and a token: give it as `upload_id`.
    pub id: String,
    /// Always `upload`.
    pub object: &'static str,
    pub name: String,
    pub mime: String,
    pub size: u64,
    /// False for an upload made with a test key (usable with test keys only).
    pub livemode: bool,
    /// Where to send the file, with no API key: the URL is the authorisation.
    pub upload_url: String,
    /// Always `PUT`.
    pub method: &'static str,
    /// The headers to send with the PUT, as they are (the type and the length
    /// are bound in the URL's signature).
    #[schema(value_type = Object)]
    pub headers: serde_json::Map<String, serde_json::Value>,
    /// The URL takes the PUT until then (15 minutes).
    pub expires_at: String,
    /// The upload can be used until then (24 hours); then it is deleted.
    pub usable_until: String,
    pub created_at: String,
}

/// Why an upload cannot be made or used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UploadError {
    /// A field of the declaration is wrong (400).
    #[error("{message}")]
    Invalid {
        code: &'static str,
        param: String,
        message: String,
    },
    /// Over `MAX_SIZE` (413).
    #[error("{0}")]
    TooLarge(String),
    /// A type no operation reads (415).
    #[error("{0}")]
    Unsupported(String),
    /// No usable upload with this id for the caller, or nothing was sent to
    /// its URL (400 `upload_missing`).
    #[error("{message}")]
    Missing { param: String, message: String },
    /// The storage cannot be reached (503).
    #[error("{0}")]
    Unavailable(String),
}

impl UploadError {
    fn invalid(code: &'static str, param: &str, message: impl Into<String>) -> Self {
        UploadError::Invalid {
            code,
            param: param.to_string(),
            message: message.into(),
        }
    }
}

impl From<TableError> for UploadError {
    fn from(e: TableError) -> Self {
        tracing::error!(error = %e, "upload item");
        UploadError::Unavailable("storage is temporarily unavailable; retry the request".into())
    }
}

impl From<BlobError> for UploadError {
    fn from(e: BlobError) -> Self {
        tracing::error!(error = %e, "upload blob");
        UploadError::Unavailable("the upload store is unavailable; retry the request".into())
    }
}

fn key(id: &str) -> Key {
    Key::new(format!("UPLOAD#{id}"), "UPLOAD")
}

fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Whether `s` has the shape of an upload id (`upl_` and 24 hex digits).
fn is_id(s: &str) -> bool {
    s.strip_prefix("upl_")
        .is_some_and(|t| t.len() == 24 && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl Upload {
    /// The blob of its bytes.
    pub fn blob_key(&self) -> String {
        format!(
            "uploads/{}/{}/{}",
            self.account_id,
            self.mode.as_str(),
            self.id
        )
    }

    pub fn expires_at(&self) -> DateTime<Utc> {
        self.created_at + LIFETIME
    }

    fn to_item(&self) -> Item {
        Item::new(key(&self.id))
            .with("entity", "upload")
            .with("id", self.id.as_str())
            .with("account_id", self.account_id.as_str())
            .with("mode", self.mode.as_str())
            .with("name", self.name.as_str())
            .with("mime", self.mime.as_str())
            .with("size", i64::try_from(self.size).unwrap_or(i64::MAX))
            .with("created_at", timestamp(self.created_at))
            .with(TTL, self.expires_at().timestamp())
    }

    fn from_item(item: &Item) -> Result<Upload, TableError> {
        let corrupt = |what: &str| TableError::Invalid(format!("upload item {}: {what}", item.key));
        let text = |name: &str| {
            item.s(name)
                .map(str::to_string)
                .ok_or_else(|| corrupt(name))
        };
        Ok(Upload {
            id: text("id")?,
            account_id: text("account_id")?,
            mode: text("mode")?.parse().map_err(|_| corrupt("mode"))?,
            name: text("name")?,
            mime: text("mime")?,
            size: item
                .n("size")
                .and_then(|n| u64::try_from(n).ok())
                .ok_or_else(|| corrupt("size"))?,
            created_at: text("created_at")?
                .parse()
                .map_err(|_| corrupt("created_at"))?,
        })
    }
}

/// The accepted type `mime` stands for (compared without case and
/// parameters), if any.
pub fn accepted_mime(mime: &str) -> Option<&'static str> {
    let essence = essence(mime);
    let canonical = match essence.as_str() {
        "image/jpg" => "image/jpeg",
        other => other,
    };
    MIMES.into_iter().find(|m| *m == canonical)
}

/// A new upload of the caller's with its presigned PUT, and the write that
/// declares it.
pub async fn create(
    ports: &Ports,
    caller: &Caller,
    new: NewUpload,
) -> Result<(UploadResource, Write), UploadError> {
    let name = new.name.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > 255 {
        return Err(UploadError::invalid(
            "parameter_invalid",
            "name",
            "a name has 1 to 255 characters",
        ));
    }
    let mime = accepted_mime(&new.mime).ok_or_else(|| {
        UploadError::Unsupported(format!(
            "mime {:?} is not accepted; send one of {}",
            new.mime,
            MIMES.join(", ")
        ))
    })?;
    if new.size == 0 {
        return Err(UploadError::invalid(
            "parameter_invalid",
            "size",
            "size is the file's size in bytes, at least 1",
        ));
    }
    if new.size > MAX_SIZE {
        return Err(UploadError::TooLarge(format!(
            "an upload may have {MAX_SIZE} bytes (50 MiB) at most; {} were declared",
            new.size
        )));
    }
    let upload = Upload {
        id: new_id("upl"),
        account_id: caller.account_id.to_string(),
        mode: caller.mode,
        name: name.to_string(),
        mime: mime.to_string(),
        size: new.size,
        created_at: ports.clock.now(),
    };
    let url_expires = upload.created_at + URL_LIFETIME;
    let presigned = ports
        .blobs
        .presign_put(&upload.blob_key(), mime, upload.size, url_expires)
        .await?;
    let resource = UploadResource {
        id: upload.id.clone(),
        object: "upload",
        name: upload.name.clone(),
        mime: upload.mime.clone(),
        size: upload.size,
        livemode: upload.mode.is_live(),
        upload_url: presigned.url,
        method: "PUT",
        headers: presigned
            .headers
            .into_iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), value.into()))
            .collect(),
        expires_at: timestamp(url_expires),
        usable_until: timestamp(upload.expires_at()),
        created_at: timestamp(upload.created_at),
    };
    let write = Write::Put {
        item: upload.to_item(),
        condition: Some(Condition::Absent),
    };
    Ok((resource, write))
}

/// The caller's upload `id`, named by the request field `param`: none when
/// it does not exist, has expired, or is another account's or mode's.
pub async fn find(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    param: &str,
) -> Result<Upload, UploadError> {
    let missing = || UploadError::Missing {
        param: param.to_string(),
        message: format!(
            "no upload {id:?}: create one with POST /api/v1/uploads (uploads can be used for 24 hours, with keys of the account and mode that made them)"
        ),
    };
    if !is_id(id) {
        return Err(missing());
    }
    let Some(item) = ports.table.get(&key(id)).await? else {
        return Err(missing());
    };
    let upload = Upload::from_item(&item)?;
    if upload.account_id != caller.account_id.to_string() || upload.mode != caller.mode {
        return Err(missing());
    }
    Ok(upload)
}

/// The bytes sent to the upload's URL: exactly its declared size.
pub async fn read(ports: &Ports, upload: &Upload, param: &str) -> Result<Vec<u8>, UploadError> {
    let Some(bytes) = ports.blobs.get(&upload.blob_key()).await? else {
        return Err(UploadError::Missing {
            param: param.to_string(),
            message: format!(
                "nothing was sent to the URL of upload {} yet: PUT the file to its upload_url first",
                upload.id
            ),
        });
    };
    if bytes.len() as u64 != upload.size {
        return Err(UploadError::invalid(
            "upload_size_mismatch",
            param,
            format!(
                "upload {} holds {} bytes, not the {} it declared; create a new upload",
                upload.id,
                bytes.len(),
                upload.size
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;
    use crate::domain::account::Plan;
    use crate::embedded::FileBlobs;
    use std::sync::Arc;

    fn caller(account: &str, mode: Mode) -> Caller {
        Caller {
            account_id: account.parse().unwrap(),
            plan: Plan::Pro,
            mode,
            key_id: "key_1".into(),
        }
    }

    fn new(mime: &str, size: u64) -> NewUpload {
        NewUpload {
            name: " f.pdf ".into(),
            mime: mime.into(),
            size,
        }
    }

    #[tokio::test]
    async fn an_upload_is_the_callers_for_a_day() {
        let (ports, dir) = test_ports();
        let ports = ports.with_blobs(Arc::new(FileBlobs::new(dir.path())));
        let owner = caller("acct_0123456789abcdef01234567", Mode::Live);
        let (resource, write) = create(&ports, &owner, new("Application/PDF", 3))
            .await
            .unwrap();
        assert_eq!(
            (resource.name.as_str(), resource.mime.as_str()),
            ("f.pdf", "application/pdf")
        );
        assert_eq!(resource.expires_at, "2026-11-21T10:15:00.000Z");
        assert_eq!(resource.usable_until, "2026-11-22T10:00:00.000Z");
        assert!(
            resource
                .upload_url
                .starts_with("/api/v1/blobs/uploads/acct_0123456789abcdef01234567/live/upl_")
        );
        ports.table.transact(vec![write]).await.unwrap();

        let param = "files[0].upload_id";
        let upload = find(&ports, &owner, &resource.id, param).await.unwrap();
        assert!(matches!(
            read(&ports, &upload, param).await,
            Err(UploadError::Missing { .. })
        ));
        ports
            .blobs
            .put(&upload.blob_key(), b"ab".to_vec())
            .await
            .unwrap();
        assert!(matches!(
            read(&ports, &upload, param).await,
            Err(UploadError::Invalid {
                code: "upload_size_mismatch",
                ..
            })
        ));
        ports
            .blobs
            .put(&upload.blob_key(), b"abc".to_vec())
            .await
            .unwrap();
        assert_eq!(read(&ports, &upload, param).await.unwrap(), b"abc");

        let others = [
            caller("acct_0123456789abcdef01234567", Mode::Test),
            caller("acct_76543210fedcba9876543210", Mode::Live),
        ];
        for other in &others {
            assert!(matches!(
                find(&ports, other, &resource.id, param).await,
                Err(UploadError::Missing { .. })
            ));
        }
        assert!(matches!(
            find(&ports, &owner, "upl_x", param).await,
            Err(UploadError::Missing { .. })
        ));
    }

    #[tokio::test]
    async fn declarations_are_checked() {
        let (ports, _dir) = test_ports();
        let c = caller("acct_0123456789abcdef01234567", Mode::Live);
        let err = |r: Result<(UploadResource, Write), UploadError>| r.map(|_| ()).unwrap_err();
        assert!(matches!(
            err(create(&ports, &c, new("image/gif", 1)).await),
            UploadError::Unsupported(_)
        ));
        assert!(matches!(
            err(create(&ports, &c, new("application/pdf", MAX_SIZE + 1)).await),
            UploadError::TooLarge(_)
        ));
        assert!(matches!(
            err(create(&ports, &c, new("application/pdf", 0)).await),
            UploadError::Invalid {
                code: "parameter_invalid",
                ..
            }
        ));
        assert_eq!(accepted_mime("image/jpg"), Some("image/jpeg"));
        assert_eq!(accepted_mime("application/json; charset=utf-8"), Some(JSON));
    }
}
