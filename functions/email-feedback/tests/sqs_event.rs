//! The sample SQS event (`events/email-feedback-sqs.json`, an SES bounce as
//! the stack's SNS subscription delivers it) through the email-feedback
//! function's handler, in-process on the embedded engine: the bounce lands
//! on the invoice whose email SES accepted under that message id, with the
//! `invoice.send_failed` event; a body that is not an SES notice is a batch
//! item failure; the same batch again records nothing twice.

use function_testing::{Scratch, body, failures, invoke, with_key};
use serde_json::Value;
use shared::app::events::{self, Filter};
use shared::app::invoices::send_feedback::{self, EVENT};
use shared::app::invoices::store;
use shared::app::keys::Caller;
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};
use shared::invoice::model::HistoryKind;

/// The message id SES gave the email in the sample event.
const MESSAGE_ID: &str = "0102019a8f1c2d3e-0a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d-000000";

async fn issue(scratch: &Scratch, key: &str) -> u64 {
    let router = group_router(
        Group::Invoices.routes(),
        AppState::new(scratch.ports.clone(), Config::default()),
    );
    let event = with_key(include_str!("../../../events/invoices-post.json"), key);
    let response = invoke(&router, &event).await;
    assert_eq!(response["statusCode"], 201, "{response}");
    body(&response)["id"].as_u64().unwrap()
}

async fn history(scratch: &Scratch, caller: &Caller, id: u64) -> Vec<(HistoryKind, String)> {
    let (invoice, _) = store::get(&scratch.ports, caller, id).await.unwrap();
    invoice
        .events
        .into_iter()
        .map(|e| (e.kind, e.detail.unwrap_or_default()))
        .collect()
}

async fn bounce_events(scratch: &Scratch) -> usize {
    let filter = Filter {
        kind: Some(EVENT),
        ..Filter::default()
    };
    let (found, _) = events::list(
        &scratch.ports,
        &scratch.account,
        Mode::Live,
        10,
        None,
        &filter,
    )
    .await
    .unwrap();
    found.len()
}

#[tokio::test]
async fn a_bounce_is_recorded_on_its_invoice_once() {
    let scratch = Scratch::new(Plan::Pro).await.with_issuer().await;
    let (caller, key) = scratch.key(Mode::Live).await;
    let id = issue(&scratch, &key).await;
    // What settling an SES send leaves: the message id's index item.
    let now = scratch.ports.clock.now();
    let index = send_feedback::message_index(
        MESSAGE_ID,
        &scratch.account,
        Mode::Live,
        id,
        "snd_000000000000000000000000",
        now,
    );
    scratch.ports.table.transact(vec![index]).await.unwrap();

    let mut sample: Value =
        serde_json::from_str(include_str!("../../../events/email-feedback-sqs.json")).unwrap();
    let mut bad = sample["Records"][0].clone();
    bad["messageId"] = "bad-message".into();
    bad["body"] = "not an SES notice".into();
    let mut stranger = sample["Records"][0].clone();
    stranger["messageId"] = "unknown-message".into();
    stranger["body"] = stranger["body"]
        .as_str()
        .unwrap()
        .replace(MESSAGE_ID, "sent-by-someone-else")
        .into();
    let records = sample["Records"].as_array_mut().unwrap();
    records.push(bad);
    records.push(stranger);
    let batch = serde_json::from_value(sample).unwrap();

    let response = function_email_feedback::handle(&scratch.ports, batch).await;
    assert_eq!(failures(&response), ["bad-message"]);
    let bounced = (
        HistoryKind::SendFailed,
        "bounced: facturas@tallerana.es (smtp; 550 5.1.1 user unknown)".to_string(),
    );
    let after = history(&scratch, &caller, id).await;
    assert_eq!(after.last(), Some(&bounced), "{after:?}");
    assert_eq!(bounce_events(&scratch).await, 1);

    // SQS delivers at least once: the same batch records nothing more.
    let again =
        serde_json::from_str(include_str!("../../../events/email-feedback-sqs.json")).unwrap();
    let response = function_email_feedback::handle(&scratch.ports, again).await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(history(&scratch, &caller, id).await, after);
    assert_eq!(bounce_events(&scratch).await, 1);
}
