//! The uploads group: `POST /api/v1/uploads`, a presigned PUT for a file too
//! large for a request body.

use axum::Json;
use axum::extract::State;
use axum::http::{Extensions, StatusCode};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::edge::public_origin;
use super::error::ApiError;
use super::json::{self, JsonBody};
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::keys::Caller;
use crate::app::uploads::{self, NewUpload, UploadError, UploadResource};

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_upload))
}

impl From<UploadError> for ApiError {
    fn from(e: UploadError) -> Self {
        match e {
            UploadError::Invalid {
                code,
                param,
                message,
            } => ApiError::invalid(code, message).param(param),
            UploadError::TooLarge(message) => {
                ApiError::status(StatusCode::PAYLOAD_TOO_LARGE, "upload_too_large", message)
                    .param("size")
            }
            UploadError::Unsupported(message) => ApiError::status(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "mime_unsupported",
                message,
            )
            .param("mime"),
            UploadError::Missing { param, message } => {
                ApiError::invalid("upload_missing", message).param(param)
            }
            UploadError::Unavailable(message) => ApiError::unavailable(message),
        }
    }
}

/// Where a path URL of this host is reached: at the public origin
/// (`http::edge::public_origin`: `SVC_PUBLIC_URL`, which `svc serve`
/// defaults to its own address), never at the request's `Host`, which the
/// client chooses; a path where no origin is known.
fn absolute(url: String, origin: Option<&str>) -> String {
    match origin {
        Some(base) if url.starts_with('/') => format!("{}{url}", base.trim_end_matches('/')),
        _ => url,
    }
}

/// Upload a file
///
/// Declares a file too large to send inline (`name`, `mime`, exact `size` in
/// bytes, up to 50 MiB) and answers where to send it: `PUT upload_url` with
/// the `headers` given, no API key, within 15 minutes (`expires_at`); the
/// type and the length are bound in the URL's signature, so another
/// `Content-Type` or size is refused (403). Then give the upload's `id`:
/// as `upload_id` of an item of `files` in `POST /api/v1/invoices/extract`
/// (instead of `data`), or as `data: {"upload_id": …}` in `POST
/// /api/v1/analyze` (the upload, `application/json`, holds the `data`
/// object). The upload is read with exactly the checks of an inline body
/// (type sniffed from the bytes, size and page limits) and charged as the
/// inline body would be; creating it is free. An upload can be used, by keys
/// of the same account and mode only, for 24 hours (`usable_until`); then it
/// is deleted. A request whose uploads hold more than the synchronous budget
/// (`SVC_SYNC_MAX_BYTES`, 6 MiB by default) runs in async mode (202 with a
/// job) whether or not async mode was asked for.
///
/// On AWS the URL is a presigned S3 URL of the staging bucket. On `svc
/// serve` it is the server's own `PUT /api/v1/blobs/…` (at `SVC_PUBLIC_URL`,
/// by default the address it listens on), whose refusals come in the API's error shape:
/// 403 `signature_invalid`, `upload_url_expired`, `content_type_mismatch` or
/// `content_length_mismatch`.
///
/// Errors: 413 `upload_too_large` (`param: size`), 415 `mime_unsupported`
/// (`param: mime`), 400 `parameter_invalid` for an empty name or size 0.
/// Where an upload is used: 400 `upload_missing` (unknown, expired, another
/// account's or mode's, or nothing PUT yet) and 400 `upload_size_mismatch`,
/// with `param` naming the field.
#[utoipa::path(post, path = "/api/v1/uploads", tag = "uploads", operation_id = "create_upload",
    request_body = NewUpload,
    responses((status = 201, description = "The upload and its presigned PUT", body = UploadResource)))]
async fn create_upload(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    extensions: Extensions,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let new: NewUpload = json::parse(&body)?;
    let (mut resource, write) = uploads::create(&state.ports, &caller, new).await?;
    let origin = public_origin(&state.config, &extensions);
    resource.upload_url = absolute(resource.upload_url, origin.as_deref());
    uow.add(write);
    Ok((StatusCode::CREATED, Json(resource)).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_made_absolute_with_the_public_origin_only() {
        let path = || "/api/v1/blobs/k?x=1".to_string();
        assert_eq!(absolute(path(), None), "/api/v1/blobs/k?x=1");
        assert_eq!(
            absolute(path(), Some("https://api.example.com/")),
            "https://api.example.com/api/v1/blobs/k?x=1"
        );
        let s3 = "https://b.s3.amazonaws.com/k?X-Amz-Signature=1".to_string();
        assert_eq!(absolute(s3.clone(), Some("https://x")), s3);
    }
}
