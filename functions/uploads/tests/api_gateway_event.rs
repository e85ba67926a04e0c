//! The sample `POST /api/v1/uploads` event through the uploads function's
//! router and lambda_http's adapter, in-process, with a test key: a
//! presigned PUT of the declared type and size.

use std::sync::Arc;

use function_testing::{Scratch, body, invoke, with_key};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::embedded::FileBlobs;
use shared::http::{AppState, Group, group_router};

#[tokio::test]
async fn the_sample_upload_event_answers_a_presigned_put() {
    let scratch = Scratch::new(Plan::Pro).await;
    let (_, key) = scratch.key(Mode::Test).await;
    let ports = scratch
        .ports
        .clone()
        .with_blobs(Arc::new(FileBlobs::new(scratch.dir.path())));
    let router = group_router(
        Group::Uploads.routes(),
        AppState::new(ports, Config::default()),
    );
    let event = with_key(include_str!("../../../events/uploads-post.json"), &key);
    let response = invoke(&router, &event).await;
    assert_eq!(response["statusCode"], 201, "{response}");
    let body = body(&response);
    assert_eq!(body["livemode"], false);
    assert_eq!(
        (body["object"].as_str(), body["method"].as_str()),
        (Some("upload"), Some("PUT"))
    );
    assert_eq!(body["headers"]["content-type"], "application/pdf");
    assert_eq!(body["headers"]["content-length"], "18874368");
    let url = body["upload_url"].as_str().unwrap();
    assert!(
        url.contains("/test/upl_") && url.contains("size=18874368"),
        "{url}"
    );
}
