//! The `Table` contract suite against DynamoDB, run when an emulator (or a real
//! endpoint) is configured through the SDK's standard endpoint variables.

mod support;

use std::sync::Arc;

use chrono::Duration;
use infra_aws::DynamoTable;
use shared::ids::random_token;
use shared::ports::clock::{Clock, ManualClock};
use shared::ports::table::{Condition, Item, Key, Table, UpdateOp, Write};
use shared::ports::table_contract;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dynamodb_engine_passes_the_table_contract() {
    if !support::emulator("DynamoDB contract suite") {
        return;
    }
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let name = format!("svc-contract-{}", random_token(6));
    let table = Arc::new(DynamoTable::from_env(&name, clock.clone()).await);
    table.create_table().await.expect("create the table");
    table
        .create_table()
        .await
        .expect("create_table again is a no-op");
    table_contract::run(table.clone(), clock.clone()).await;
    expired_items_do_not_leak_into_transactional_updates(&*table, &clock).await;
}

/// The contract checks this for single updates; a transaction takes another path here.
async fn expired_items_do_not_leak_into_transactional_updates(
    table: &dyn Table,
    clock: &ManualClock,
) {
    let key = Key::new(format!("dynamodb#{}", random_token(6)), "session");
    let expiring = Item::new(key.clone())
        .with("ttl", clock.now().timestamp() + 1)
        .with("n", 5);
    table.put(expiring, None).await.unwrap();
    clock.advance(Duration::seconds(1));
    table
        .transact(vec![Write::Update {
            key: key.clone(),
            ops: vec![UpdateOp::add("n", 1)],
            condition: Some(Condition::Absent),
        }])
        .await
        .unwrap();
    let fresh = table.get(&key).await.unwrap().unwrap();
    assert_eq!(fresh.n("n"), Some(1));
    assert_eq!(fresh.ttl(), None);
}
