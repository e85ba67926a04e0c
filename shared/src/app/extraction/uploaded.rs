//! The files of an extraction given as uploads (`upload_id`). Every upload
//! the request names is found and its type checked first, without its
//! bytes (`find`); then `prepare` reads them one at a time, each just
//! before it is checked as an inline file would be, so that a request holds
//! the bytes of one upload at most (an upload may have 50 MiB, and a
//! request names up to five).

use super::request::ExtractRequest;
use crate::app::keys::Caller;
use crate::app::uploads::{self, Upload, UploadError, accepted_mime};
use crate::ports::Ports;

/// The uploads a request names, found and not yet read: one entry per file
/// of the request, in its order (`None` for a file given as `data`).
#[derive(Clone, Debug, Default)]
pub struct Uploads {
    found: Vec<Option<Upload>>,
}

impl Uploads {
    /// The bytes the uploads declared (and will hold when read: `read`
    /// refuses any other size).
    pub fn total(&self) -> u64 {
        self.found.iter().flatten().map(|u| u.size).sum()
    }

    /// The upload of the request's file `index`, if it is given by one.
    pub fn of(&self, index: usize) -> Option<&Upload> {
        self.found.get(index).and_then(Option::as_ref)
    }
}

/// Finds every upload the request names, checking that a `mime` given
/// beside `upload_id` is the upload's, and gives its file the upload's type.
/// Reads no bytes: `read` does, one upload at a time.
pub async fn find(
    ports: &Ports,
    caller: &Caller,
    request: &mut ExtractRequest,
) -> Result<Uploads, UploadError> {
    let mut found = Vec::with_capacity(request.files.len());
    for (i, file) in request.files.iter_mut().enumerate() {
        let Some(id) = &file.upload_id else {
            found.push(None);
            continue;
        };
        let upload = uploads::find(ports, caller, id, &param(i)).await?;
        if let Some(mime) = &file.mime
            && accepted_mime(mime) != Some(upload.mime.as_str())
        {
            return Err(UploadError::Invalid {
                code: "upload_mismatch",
                param: format!("files[{i}].mime"),
                message: format!(
                    "upload {id} was declared as {}, not {mime}; leave `mime` out to use the upload's",
                    upload.mime
                ),
            });
        }
        file.mime = Some(upload.mime.clone());
        found.push(Some(upload));
    }
    Ok(Uploads { found })
}

/// The bytes of the upload of the request's file `index`: exactly its
/// declared size, or `upload_missing` / `upload_size_mismatch` on
/// `files[index].upload_id`.
pub async fn read(ports: &Ports, upload: &Upload, index: usize) -> Result<Vec<u8>, UploadError> {
    uploads::read(ports, upload, &param(index)).await
}

fn param(index: usize) -> String {
    format!("files[{index}].upload_id")
}
