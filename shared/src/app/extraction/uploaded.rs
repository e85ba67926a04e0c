//! The files of an extraction given as uploads (`upload_id`): read into the
//! request before `prepare`, which then checks them as inline files.

use super::request::ExtractRequest;
use crate::app::keys::Caller;
use crate::app::uploads::{self, UploadError, accepted_mime};
use crate::ports::Ports;

/// Reads every upload the request names into its file (with the upload's
/// type), checking that a `mime` given beside `upload_id` is the upload's.
/// The bytes read.
pub async fn read(
    ports: &Ports,
    caller: &Caller,
    request: &mut ExtractRequest,
) -> Result<u64, UploadError> {
    let mut total = 0;
    for (i, file) in request.files.iter_mut().enumerate() {
        let Some(id) = &file.upload_id else {
            continue;
        };
        let param = format!("files[{i}].upload_id");
        let upload = uploads::find(ports, caller, id, &param).await?;
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
        file.uploaded = Some(uploads::read(ports, &upload, &param).await?);
        file.mime = Some(upload.mime.clone());
        total += upload.size;
    }
    Ok(total)
}
