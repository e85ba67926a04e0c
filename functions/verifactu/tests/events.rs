//! The sample events through the `verifactu` function's handler, in-process
//! on the embedded engine: a submission-queue message (`events/verifactu-sqs.json`)
//! submits its chain at once; the schedule's event sweeps every chain.

use function_testing::{Scratch, body, invoke, with_key};
use serde_json::Value;
use shared::app::invoices::store;
use shared::app::keys::Caller;
use shared::config::Config;
use shared::domain::account::{Issuer, Mode, Plan};
use shared::http::{AppState, Group, group_router};

const PLACEHOLDER_CHAIN: &str = "CHAIN#test#acct_00000000000000000000#12345678Z";

async fn issue(scratch: &Scratch, key: &str, idempotency_key: &str) -> Value {
    let router = group_router(
        Group::Invoices.routes(),
        AppState::new(scratch.ports.clone(), Config::default()),
    );
    let event = with_key(include_str!("../../../events/invoices-post.json"), key)
        .replace("7f6c2a9e-1b3d-4c5e-8f90-a1b2c3d4e5f6", idempotency_key);
    let response = invoke(&router, &event).await;
    assert_eq!(response["statusCode"], 201, "{response}");
    body(&response)
}

async fn status(scratch: &Scratch, caller: &Caller, id: &Value) -> String {
    let (invoice, _) = store::get(&scratch.ports, caller, id.as_u64().unwrap())
        .await
        .unwrap();
    invoice.verifactu.status.code().to_string()
}

#[tokio::test]
async fn a_queue_message_submits_its_chain_and_the_schedule_sweeps() {
    let scratch = Scratch::new(Plan::Pro).await.with_issuer().await;
    let (caller, key) = scratch.key(Mode::Test).await;
    let first = issue(&scratch, &key, "a").await;
    assert_eq!(status(&scratch, &caller, &first["id"]).await, "pending");

    let nif = Issuer::demo().nif.unwrap().to_string();
    let chain = format!("CHAIN#test#{}#{nif}", scratch.account);
    let message =
        include_str!("../../../events/verifactu-sqs.json").replace(PLACEHOLDER_CHAIN, &chain);
    let answer =
        function_verifactu::handle(&scratch.ports, serde_json::from_str(&message).unwrap())
            .await
            .unwrap();
    assert_eq!(
        answer["batchItemFailures"],
        serde_json::json!([]),
        "{answer}"
    );
    assert_eq!(status(&scratch, &caller, &first["id"]).await, "accepted");

    let second = issue(&scratch, &key, "b").await;
    let schedule = serde_json::from_str(include_str!("../../../events/scheduler.json")).unwrap();
    let answer = function_verifactu::handle(&scratch.ports, schedule)
        .await
        .unwrap();
    assert_eq!(answer["chains"], 1, "{answer}");
    assert_eq!(
        status(&scratch, &caller, &second["id"]).await,
        "pending",
        "the flow control's wait"
    );
}
