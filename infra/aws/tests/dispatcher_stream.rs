//! The dispatcher function's handler fed from the real stream of a table on
//! the emulator: items written by the DynamoDB engine are read back from the
//! table's stream, passed through the template's filter, and handed to the
//! handler as Lambda would.

mod support;

use std::sync::Arc;

use aws_lambda_events::event::dynamodb::Event;
use aws_sdk_dynamodb::Client;
use infra_aws::DynamoTable;
use infra_aws::stream_dispatcher::handle;
use serde_json::{Value, json};
use shared::app::outbox;
use shared::app::people::postbox::{self, Letter};
use shared::domain::account::{AccountId, Mode};
use shared::domain::lang::Lang;
use shared::ids::random_token;
use shared::ports::clock::{Clock, SystemClock};
use shared::ports::recording_queue::RecordingQueue;
use shared::ports::table::{Condition, Item, Key, Table, UpdateOp};
use shared::webhooks::event_type::EventType;

fn endpoint() -> String {
    std::env::var("AWS_ENDPOINT_URL_DYNAMODB")
        .or_else(|_| std::env::var("AWS_ENDPOINT_URL"))
        .unwrap()
}

/// One call of the DynamoDB Streams API. The emulator routes it by the
/// credential scope and checks no signature.
async fn streams(action: &str, body: Value) -> Value {
    let response = reqwest::Client::new()
        .post(endpoint())
        .header("X-Amz-Target", format!("DynamoDBStreams_20120810.{action}"))
        .header("Content-Type", "application/x-amz-json-1.0")
        .header(
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=test/20260101/eu-west-1/dynamodb/aws4_request, \
             SignedHeaders=host, Signature=0",
        )
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert!(status.is_success(), "{action}: {status} {text}");
    serde_json::from_str(&text).unwrap()
}

/// Every record of the table's stream, oldest first.
async fn stream_records(table_name: &str) -> Vec<Value> {
    let config = infra_aws::sdk::config().await;
    let described = Client::new(&config)
        .describe_table()
        .table_name(table_name)
        .send()
        .await
        .unwrap();
    let arn = described
        .table()
        .unwrap()
        .latest_stream_arn()
        .unwrap()
        .to_string();
    let stream = streams("DescribeStream", json!({"StreamArn": arn})).await;
    let mut records = Vec::new();
    for shard in stream["StreamDescription"]["Shards"].as_array().unwrap() {
        let iterator = streams(
            "GetShardIterator",
            json!({"StreamArn": arn, "ShardId": shard["ShardId"], "ShardIteratorType": "TRIM_HORIZON"}),
        )
        .await;
        let page = streams(
            "GetRecords",
            json!({"ShardIterator": iterator["ShardIterator"]}),
        )
        .await;
        records.extend(page["Records"].as_array().unwrap().iter().cloned());
    }
    records
}

/// The filter of the dispatcher's event source in `template.yaml`.
fn template_filter() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
        .unwrap();
    let template: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let source =
        &template["Resources"]["DispatcherFunction"]["Properties"]["Events"]["TableStream"];
    let pattern = source["Properties"]["FilterCriteria"]["Filters"][0]["Pattern"]
        .as_str()
        .unwrap();
    serde_json::from_str(pattern).unwrap()
}

/// Event filtering as Lambda applies this pattern's kind: every member of the
/// pattern is matched, a list by equality with one of its values.
fn matches(pattern: &Value, record: &Value) -> bool {
    pattern
        .as_object()
        .unwrap()
        .iter()
        .all(|(name, want)| match want {
            Value::Array(values) => values.contains(&record[name]),
            nested => matches(nested, &record[name]),
        })
}

fn batch(records: &[Value]) -> Event {
    serde_json::from_value(json!({ "Records": records })).unwrap()
}

fn job(id: &str) -> Item {
    Item::new(Key::new(format!("JOB#{id}"), "JOB")).with("entity", "job")
}

#[tokio::test]
async fn stream_records_of_created_events_and_jobs_are_dispatched_in_order() {
    if !support::emulator("dispatcher on the DynamoDB stream") {
        return;
    }
    let clock = Arc::new(SystemClock);
    let name = format!("svc-stream-{}", random_token(6));
    let table = Arc::new(DynamoTable::from_env(&name, clock.clone()).await);
    table.create_table().await.expect("create the table");

    let account = AccountId::generate();
    let event = outbox::record(
        &account,
        Mode::Live,
        EventType::InvoicePaid,
        json!({}),
        clock.now(),
    );
    let event_key = event.key().clone();
    table.transact(vec![event]).await.unwrap();
    table
        .put(job("job_1"), Some(Condition::Absent))
        .await
        .unwrap();
    let counts = vec![UpdateOp::set("deliveries", 1)];
    table.update(&event_key, counts, None).await.unwrap();
    let customer = Item::new(Key::new("CUSTOMERS#x", "cus_1")).with("entity", "customer");
    table.put(customer, None).await.unwrap();
    table
        .put(job("job_2"), Some(Condition::Absent))
        .await
        .unwrap();
    let letter = postbox::post(
        &shared::adapters::ports(table.clone(), clock.clone()),
        &Letter::Reset {
            email: "nadie@example.com".parse().unwrap(),
        },
        "https://app.example.com",
        Lang::Es,
    );
    let letter_key = letter.key().clone();
    table.transact(vec![letter]).await.unwrap();
    let marker = |seq: i64| {
        Item::new(Key::new("VERIFACTU#PENDING", "CHAIN#live#B64717838"))
            .with("seq", seq)
            .with("entity", "verifactu_chain")
    };
    table.put(marker(1), None).await.unwrap();
    table.put(marker(2), None).await.unwrap();

    let records = stream_records(&name).await;
    let filter = template_filter();
    let passed: Vec<Value> = records
        .iter()
        .filter(|r| matches(&filter, r))
        .cloned()
        .collect();
    let kinds: Vec<_> = passed
        .iter()
        .map(|r| r["dynamodb"]["NewImage"]["entity"]["S"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["event", "job", "job", "mail", "verifactu_chain"],
        "the filter passes created events, jobs, letters and pending chains"
    );

    let jobs = Arc::new(RecordingQueue::default());
    let submissions = Arc::new(RecordingQueue::default());
    let ports = shared::adapters::ports(table.clone(), clock)
        .with_queues(jobs.clone(), Arc::new(RecordingQueue::default()))
        .with_submissions(submissions.clone());
    let response = handle(&ports, batch(&passed)).await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    let expected = [r#"{"job_id":"job_1"}"#, r#"{"job_id":"job_2"}"#];
    assert_eq!(jobs.sent(), expected);
    assert_eq!(submissions.sent(), [r#"{"chain":"CHAIN#live#B64717838"}"#]);
    assert!(
        table.get(&letter_key).await.unwrap().is_none(),
        "the letter was taken (an address without an account gets no reset)"
    );

    // Unfiltered, the handler still dispatches only what was created.
    let response = handle(&ports, batch(&records)).await;
    assert!(response.batch_item_failures.is_empty(), "{response:?}");
    assert_eq!(jobs.sent().len(), 4);

    jobs.refuse(1);
    let response = handle(&ports, batch(&passed)).await;
    let failed: Vec<_> = response
        .batch_item_failures
        .iter()
        .map(|f| f.item_identifier.clone())
        .collect();
    let first_job = passed[1]["dynamodb"]["SequenceNumber"]
        .as_str()
        .map(str::to_string);
    assert_eq!(
        failed,
        [first_job],
        "the stream retries from the failed record"
    );
    assert_eq!(jobs.sent().len(), 4, "and nothing after it ran");
}
