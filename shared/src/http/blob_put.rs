//! `PUT /api/v1/blobs/{key}`: where the presigned URLs of the embedded host
//! point (`embedded::presigned_put`), so that `svc serve` takes uploads as
//! the staging bucket does on AWS. No API key: the URL's signature is the
//! authorisation. The `Content-Type` must be the signed one and the body
//! exactly the signed size; anything else is a 403 in the API's error shape,
//! and stores nothing. Not in the OpenAPI document: clients get the URL from
//! `POST /api/v1/uploads` and, on AWS, it is S3's.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::from_fn;
use axum::routing::put;
use http_body_util::BodyExt;
use tower_http::catch_panic::CatchPanicLayer;

use super::error::ApiError;
use super::observe;
use crate::embedded::FileBlobs;
use crate::embedded::presigned_put::GrantError;
use crate::ports::blobs::BlobError;
use crate::ports::clock::Clock;

#[derive(Clone)]
struct Receiver {
    blobs: Arc<FileBlobs>,
    clock: Arc<dyn Clock>,
}

/// The route, with request ids and the panic guard of the API's pipeline.
pub fn router(blobs: Arc<FileBlobs>, clock: Arc<dyn Clock>) -> Router {
    Router::new()
        .route("/api/v1/blobs/{*key}", put(put_blob))
        .layer(CatchPanicLayer::custom(observe::panic_response))
        .layer(from_fn(observe::observe))
        .with_state(Receiver { blobs, clock })
}

fn forbidden(code: &str, message: impl Into<String>) -> ApiError {
    ApiError::status(StatusCode::FORBIDDEN, code, message)
}

async fn put_blob(
    State(receiver): State<Receiver>,
    Path(key): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<StatusCode, ApiError> {
    let now = receiver.clock.now();
    let signer = receiver.blobs.signer();
    let grant = signer
        .check(&key, query.as_deref().unwrap_or(""), now)
        .map_err(|e| match e {
            GrantError::Signature => forbidden(
                "signature_invalid",
                "the URL's signature does not match: send the upload_url exactly as POST /api/v1/uploads returned it",
            ),
            GrantError::Expired(at) => forbidden(
                "upload_url_expired",
                format!(
                    "the upload URL expired at {}; create a new upload with POST /api/v1/uploads",
                    at.to_rfc3339()
                ),
            ),
        })?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    if content_type != Some(grant.mime.as_str()) {
        return Err(forbidden(
            "content_type_mismatch",
            format!(
                "this URL takes `Content-Type: {}`, the type the upload declared",
                grant.mime
            ),
        )
        .param("Content-Type"));
    }
    let wrong_size = || {
        forbidden(
            "content_length_mismatch",
            format!(
                "this URL takes a body of exactly {} bytes, the size the upload declared",
                grant.size
            ),
        )
        .param("Content-Length")
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().parse::<u64>());
    if matches!(declared, Some(Ok(length)) if length != grant.size) {
        return Err(wrong_size());
    }
    let size = usize::try_from(grant.size).map_err(|_| wrong_size())?;
    // The body goes to the blob frame by frame as it arrives, so an upload
    // of 50 MB is never whole in this process (collected, it was held three
    // times over: the frames, the joined copy, the copy stored).
    let mut writer = receiver
        .blobs
        .writer(&grant.key)
        .await
        .map_err(not_stored)?;
    let mut received = 0;
    let mut body = body;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            ApiError::invalid(
                "body_unreadable",
                format!("the request body could not be read: {e}"),
            )
        })?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if data.len() > size - received {
            return Err(wrong_size());
        }
        received += data.len();
        writer.write(&data).await.map_err(not_stored)?;
    }
    if received != size {
        return Err(wrong_size());
    }
    writer.finish().await.map_err(not_stored)?;
    Ok(StatusCode::OK)
}

/// A blob store failure, logged; the client may retry.
fn not_stored(e: BlobError) -> ApiError {
    tracing::error!(error = %e, "an upload was not stored");
    ApiError::unavailable("the upload could not be stored; retry the PUT")
}
