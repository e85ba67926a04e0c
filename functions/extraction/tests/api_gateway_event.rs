//! The sample `POST /api/v1/invoices/extract` event through the extraction
//! function's router and lambda_http's adapter, in-process, with a test key:
//! the unsupported file is an error entry, the text a sample invoice.

use function_testing::{Scratch, body, invoke, with_key};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};

#[tokio::test]
async fn the_sample_extract_event_answers_with_one_invoice_and_one_error() {
    let scratch = Scratch::new(Plan::Pro).await;
    let (_, key) = scratch.key(Mode::Test).await;
    let router = group_router(
        Group::Extraction.routes(),
        AppState::new(scratch.ports.clone(), Config::default()),
    );
    let event = with_key(include_str!("../../../events/extraction-post.json"), &key);
    let response = invoke(&router, &event).await;
    assert_eq!(response["statusCode"], 200, "{response}");
    let body = body(&response);
    assert_eq!(body["livemode"], false);
    assert_eq!(body["invoices"][0]["file_name"], "obra.txt");
    assert_eq!(body["errors"][0]["code"], "mime_unsupported");
}
