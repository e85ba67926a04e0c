//! The sample `POST /api/v1/analyze` event through the analyses function's
//! router and lambda_http's adapter, in-process, with a live key: the analysis
//! is stored once, its unit charged once, and a replay with the same
//! Idempotency-Key returns the same analysis.

use function_testing::{Scratch, body, invoke, with_key};
use serde_json::Value;
use shared::app::{analyses, usage};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, Group, group_router};

#[tokio::test]
async fn the_sample_analyze_event_runs_and_stores_once() {
    let scratch = Scratch::new(Plan::Pro).await;
    let (caller, key) = scratch.key(Mode::Live).await;
    let event = with_key(include_str!("../../../events/analyses-post.json"), &key);
    let config = Config::default();
    let router = group_router(
        Group::Analyses.routes(),
        AppState::new(scratch.ports.clone(), config.clone()),
    );

    let mut bodies = Vec::new();
    for attempt in 0..2 {
        let response = invoke(&router, &event).await;
        assert_eq!(response["statusCode"], 200, "{response}");
        assert_eq!(
            response["headers"]["idempotent-replayed"].is_string(),
            attempt == 1
        );
        bodies.push(body(&response));
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

    let id = analysis["id"].as_str().unwrap();
    let stored = analyses::get(&scratch.ports, &caller, id).await.unwrap();
    assert_eq!(&serde_json::from_str::<Value>(&stored).unwrap(), analysis);
    let today = usage::today(&scratch.ports, &caller, &config.quotas)
        .await
        .unwrap();
    assert_eq!(today.used, 1, "charged once");
}
