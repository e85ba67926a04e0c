//! The `Table` contract suite against DynamoDB, run when an emulator (or a real
//! endpoint) is configured through the SDK's standard endpoint variables.

use std::io::Write as _;
use std::sync::Arc;

use chrono::Duration;
use infra_aws::DynamoTable;
use shared::ids::random_token;
use shared::ports::clock::{Clock, ManualClock};
use shared::ports::table::{Condition, Item, Key, Table, UpdateOp, Write};
use shared::ports::table_contract;

const NOT_RUN: &str = "DynamoDB contract suite NOT RUN: set AWS_ENDPOINT_URL_DYNAMODB to a DynamoDB emulator (bash .ci/run starts moto)";

fn is_set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

/// Emulators accept any credentials; a developer's real ones are left alone.
fn default_emulator_settings() {
    for (var, value) in [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "eu-west-1"),
    ] {
        if !is_set(var) {
            // SAFETY: this file holds a single test, and it runs this before the
            // SDK or any task reads the environment, so nothing reads it concurrently.
            unsafe { std::env::set_var(var, value) };
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dynamodb_engine_passes_the_table_contract() {
    if !is_set("AWS_ENDPOINT_URL_DYNAMODB") && !is_set("AWS_ENDPOINT_URL") {
        assert!(
            std::env::var("SVC_REQUIRE_DYNAMODB").as_deref() != Ok("1"),
            "SVC_REQUIRE_DYNAMODB=1 but {NOT_RUN}"
        );
        // Written to the real stderr, past the test harness's capture, so a
        // plain `cargo test` shows that this suite was skipped.
        let _ = writeln!(std::io::stderr(), "\n{NOT_RUN}\n");
        return;
    }
    default_emulator_settings();
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
