//! The sample `POST /api/v1/analyze` event through the analyses function's
//! router and lambda_http's adapter, in-process, with a live key: the analysis
//! is stored once, its unit charged once, and a replay with the same
//! Idempotency-Key returns the same analysis.

use std::sync::Arc;

use lambda_http::request::LambdaRequest;
use lambda_http::tower::{Service, ServiceExt};
use lambda_http::{Adapter, Context, LambdaEvent};
use serde_json::Value;
use shared::app::keys::Caller;
use shared::app::{accounts, analyses, keys, usage};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::embedded::SqliteTable;
use shared::http::{AppState, Group, group_router};
use shared::ports::Ports;
use shared::ports::clock::SystemClock;

const PLACEHOLDER_KEY: &str = "svc_test_000000000000000000000000000000000000000000000000";

#[tokio::test]
async fn the_sample_analyze_event_runs_and_stores_once() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = Ports::new(Arc::new(table), clock);
    let account = accounts::create(&ports, "Lambda", Plan::Pro, None)
        .await
        .unwrap();
    let (key_id, key) = keys::create(&ports, &account.id, Mode::Live).await.unwrap();
    let event =
        include_str!("../../../events/analyses-post.json").replace(PLACEHOLDER_KEY, &key.reveal());
    let config = Config::default();
    let mut adapter = Adapter::from(group_router(
        Group::Analyses,
        AppState::new(ports.clone(), config.clone()),
    ));

    let mut bodies = Vec::new();
    for attempt in 0..2 {
        let payload: LambdaRequest = serde_json::from_str(&event).unwrap();
        let response = adapter
            .ready()
            .await
            .unwrap()
            .call(LambdaEvent::new(payload, Context::default()))
            .await
            .unwrap();
        let response = serde_json::to_value(&response).unwrap();
        assert_eq!(response["statusCode"], 200, "{response}");
        assert_eq!(
            response["headers"]["idempotent-replayed"].is_string(),
            attempt == 1
        );
        bodies.push(serde_json::from_str::<Value>(response["body"].as_str().unwrap()).unwrap());
    }
    assert_eq!(bodies[0], bodies[1]);
    let analysis = &bodies[0];
    assert_eq!(
        (
            &analysis["type"],
            &analysis["module"],
            &analysis["livemode"]
        ),
        (&"excel".into(), &"ventas".into(), &true.into())
    );

    let caller = Caller {
        account_id: account.id.clone(),
        plan: Plan::Pro,
        mode: Mode::Live,
        key_id,
    };
    let id = analysis["id"].as_str().unwrap();
    let stored = analyses::get(&ports, &caller, id).await.unwrap();
    assert_eq!(&serde_json::from_str::<Value>(&stored).unwrap(), analysis);
    let today = usage::today(&ports, &caller, &config.quotas).await.unwrap();
    assert_eq!(today.used, 1, "charged once");
}
