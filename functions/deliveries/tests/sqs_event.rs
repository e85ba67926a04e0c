//! The sample SQS event through the deliveries function's handler: a real
//! delivery message is delivered to a local receiver and acked; a malformed
//! one is reported as a batch item failure; the same message again (SQS
//! delivers at least once) sends nothing twice.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_lambda_events::event::sqs::SqsEvent;
use function_testing::{Scratch, failures};
use serde_json::{Value, json};
use shared::adapters::webhook_http::HttpWebhookSender;
use shared::app::outbox::Event;
use shared::app::webhooks::{self, WebhookInput};
use shared::domain::account::{Mode, Plan};
use shared::embedded::{QueueSettings, SqliteQueue};
use shared::ports::queue::{NoQueue, Queue};
use shared::webhooks::event_type::EventType;

async fn receiver() -> (String, Arc<Mutex<usize>>) {
    let hits = Arc::new(Mutex::new(0));
    let counted = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let counted = counted.clone();
        async move {
            *counted.lock().unwrap() += 1;
            "thanks"
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, hits)
}

#[tokio::test]
async fn the_sample_sqs_event_delivers_and_reports_failures() {
    let scratch = Scratch::new(Plan::Pro).await;
    let settings = QueueSettings {
        visibility_timeout: Duration::from_secs(180),
        max_receives: 5,
    };
    let queue = SqliteQueue::open(
        &scratch.dir.path().join("svc.db"),
        "deliveries",
        settings,
        scratch.ports.clock.clone(),
    );
    let queue = Arc::new(queue.unwrap());
    let ports = scratch
        .ports
        .clone()
        .with_queues(Arc::new(NoQueue), queue.clone())
        .with_sender(Arc::new(HttpWebhookSender::new(true)));
    let (caller, _) = scratch.key(Mode::Test).await;
    let (url, hits) = receiver().await;
    let input = WebhookInput {
        url,
        events: vec!["invoice.paid".into()],
        description: None,
    };
    let (webhook, writes) = webhooks::create(&ports, &caller, input).await.unwrap();
    ports.table.transact(writes).await.unwrap();
    let now = ports.clock.now();
    let event = Event {
        id: shared::ids::new_ordered_id("evt", now),
        account_id: scratch.account.to_string(),
        kind: EventType::InvoicePaid,
        created_at: now.to_rfc3339(),
        livemode: false,
        data: json!({"object": {"id": "inv_1"}}),
    };
    webhooks::fan_out(&ports, &event, &mut webhooks::Subscribers::default())
        .await
        .unwrap();
    // What the SQS event source would receive and hand to the function.
    let received = queue.receive(10, Duration::ZERO).await.unwrap();
    assert_eq!(received.len(), 1);
    let message = received[0].body.clone();
    assert!(message.contains(&webhook.id));

    let mut sample: Value =
        serde_json::from_str(include_str!("../../../events/deliveries-sqs.json")).unwrap();
    let mut bad = sample["Records"][0].clone();
    sample["Records"][0]["body"] = message.into();
    bad["messageId"] = "bad-message".into();
    bad["body"] = "not json".into();
    sample["Records"].as_array_mut().unwrap().push(bad);
    let batch: SqsEvent = serde_json::from_value(sample).unwrap();

    let response = function_deliveries::handle(&ports, batch.clone()).await;
    assert_eq!(failures(&response), ["bad-message"]);
    assert_eq!(*hits.lock().unwrap(), 1);

    let again = function_deliveries::handle(&ports, batch).await;
    assert_eq!(again.batch_item_failures.len(), 1);
    assert_eq!(
        *hits.lock().unwrap(),
        1,
        "a finished delivery is acked without a send"
    );
    let later = queue.receive(10, Duration::ZERO).await.unwrap();
    assert!(later.is_empty(), "nothing scheduled");
}
