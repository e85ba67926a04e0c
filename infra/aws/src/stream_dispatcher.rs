//! What the `dispatcher` function does with a batch of the table's stream:
//! each created item (the event source mapping passes only INSERTs of event
//! and job items) goes to `app::dispatch`, in stream order. At the first
//! failure the batch stops and that record's sequence number is reported, so
//! Lambda retries from it and nothing after it runs out of order; after the
//! mapping's last retry the batch goes to its on-failure queue. The batch
//! reads the webhooks of each account and mode once (`Subscribers`).

use std::collections::HashMap;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use aws_sdk_dynamodb::types::AttributeValue;
use shared::app::dispatch::dispatch;
use shared::app::webhooks::Subscribers;
use shared::ports::Ports;

use crate::dynamodb_table::decode;

pub async fn handle(ports: &Ports, event: Event) -> DynamoDbEventResponse {
    let mut response = DynamoDbEventResponse::default();
    let mut subscribers = Subscribers::default();
    for record in event.records {
        if record.event_name != "INSERT" {
            continue;
        }
        let sequence = record.change.sequence_number.clone();
        if let Err(error) = dispatch_record(ports, record, &mut subscribers).await {
            tracing::error!(%error, sequence = ?sequence, "dispatch failed; the stream retries from this record");
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = sequence;
            response.batch_item_failures.push(failure);
            break;
        }
    }
    response
}

async fn dispatch_record(
    ports: &Ports,
    record: EventRecord,
    subscribers: &mut Subscribers,
) -> Result<(), String> {
    let attrs: HashMap<String, AttributeValue> = record.change.new_image.into();
    let item = decode(&attrs).map_err(|e| e.to_string())?;
    dispatch(ports, &item, subscribers)
        .await
        .map_err(|e| e.to_string())
}
