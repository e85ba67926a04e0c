//! Analyses on DynamoDB (emulator): stored in one transaction with the quota
//! charge, read back, listed newest first with filters (a date range is a sort
//! key range) and pages, and invisible to another account and to test keys.

mod support;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::Duration;
use serde_json::{Value, json};

use infra_aws::DynamoTable;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use shared::http::{AppState, service_router};
use shared::ports::clock::ManualClock;
use support::call;

fn get(path: &str, key: &str) -> Request<Body> {
    Request::get(path)
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap()
}

fn analyze(key: &str, body: &Value) -> Request<Body> {
    Request::post("/api/v1/analyze")
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

fn ids(list: &Value) -> Vec<&str> {
    list["data"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn analyses_are_stored_listed_and_read_on_dynamodb() {
    if !support::emulator("Analyses on DynamoDB") {
        return;
    }
    let start = "2026-11-21T10:00:00Z".parse().unwrap();
    let clock = Arc::new(ManualClock::new(start));
    let table = DynamoTable::from_env(
        &format!("svc-analyses-{}", shared::ids::random_token(6)),
        clock.clone(),
    )
    .await;
    table.create_table().await.unwrap();
    let ports = shared::adapters::ports(Arc::new(table), clock.clone());
    let account = accounts::create(&ports, "Nube", Plan::Pro, None)
        .await
        .unwrap();
    let (_, live) = keys::create(&ports, &account.id, Mode::Live).await.unwrap();
    let (_, test) = keys::create(&ports, &account.id, Mode::Test).await.unwrap();
    let other = accounts::create(&ports, "Otra", Plan::Pro, None)
        .await
        .unwrap();
    let (_, other) = keys::create(&ports, &other.id, Mode::Live).await.unwrap();
    let (live, test, other) = (live.reveal(), test.reveal(), other.reveal());
    let config = Config {
        rate_limit_per_minute: 100_000,
        ..Config::default()
    };
    let app = service_router(AppState::new(ports, config));

    let rows: Vec<Value> = (0..30)
        .map(|i| json!({"Fecha": format!("2026-10-{:02}", 1 + i), "Cliente": format!("Cliente {}", i % 4), "Importe": 100 + i}))
        .collect();
    let ventas = json!({"type": "excel", "data": {"module": "ventas", "files": [{"name": "v.xlsx", "rows": rows}]}});
    let cuestionario =
        json!({"type": "cuestionario", "data": {"answers": {"FIN1": true, "FIN2": false}}});
    let mut made = Vec::new();
    for (day, body) in [&ventas, &cuestionario, &ventas].into_iter().enumerate() {
        clock.set(start + Duration::days(day as i64));
        let (status, a) = call(&app, analyze(&live, body)).await;
        assert_eq!(status, StatusCode::OK, "{a}");
        made.push(a);
    }
    let (status, sample) = call(&app, analyze(&test, &ventas)).await;
    assert_eq!(
        (status, &sample["livemode"]),
        (StatusCode::OK, &json!(false))
    );

    let id = |i: usize| made[i]["id"].as_str().unwrap();
    let (_, all) = call(&app, get("/api/v1/analyses", &live)).await;
    assert_eq!(ids(&all), [id(2), id(1), id(0)]);
    let (_, excel) = call(&app, get("/api/v1/analyses?type=excel", &live)).await;
    assert_eq!(ids(&excel), [id(2), id(0)]);
    let (_, day) = call(
        &app,
        get("/api/v1/analyses?from=2026-11-22&to=2026-11-22", &live),
    )
    .await;
    assert_eq!(ids(&day), [id(1)]);
    let (_, page) = call(&app, get("/api/v1/analyses?limit=1", &live)).await;
    assert_eq!((ids(&page), &page["has_more"]), (vec![id(2)], &json!(true)));
    let (_, rest) = call(
        &app,
        get(
            &format!("/api/v1/analyses?to=2026-11-22&starting_after={}", id(2)),
            &live,
        ),
    )
    .await;
    assert_eq!(
        (ids(&rest), &rest["has_more"]),
        (vec![id(1), id(0)], &json!(false))
    );

    let path = format!("/api/v1/analyses/{}", id(0));
    let (status, read) = call(&app, get(&path, &live)).await;
    assert_eq!((status, &read), (StatusCode::OK, &made[0]));
    for key in [&test, &other] {
        let (status, _) = call(&app, get(&path, key)).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (_, list) = call(&app, get("/api/v1/analyses", key)).await;
        assert!(ids(&list).is_empty());
    }
    let (_, usage) = call(&app, get("/api/v1/usage", &live)).await;
    assert_eq!(usage["used"], 1, "each day has its own units");
}
