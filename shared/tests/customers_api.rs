//! Customers under concurrent writes: updates of one customer racing each
//! other are read and applied again, never a server error.

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use serde_json::json;
use shared::domain::account::Plan;
use support::{get, post_json, send};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_updates_of_a_customer_all_apply() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let created = send(
        &h.app,
        post_json(
            "/api/v1/customers",
            &h.live,
            None,
            &json!({"name": "Taller Ana SL", "tax_id": "B64717838"}).to_string(),
        ),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let id = created.json["id"].as_str().unwrap().to_string();

    let mut racing = Vec::new();
    for n in 0..16 {
        let (app, key, id) = (h.app.clone(), h.live.clone(), id.clone());
        racing.push(tokio::spawn(async move {
            let patch = axum::http::Request::patch(format!("/api/v1/customers/{id}"))
                .header("authorization", format!("Bearer {key}"))
                .header("content-type", "application/json")
                .body(axum::body::Body::from(
                    json!({"name": format!("Taller {n}"), "city": format!("Ciudad {n}")})
                        .to_string(),
                ))
                .unwrap();
            send(&app, patch).await
        }));
    }
    let mut names = Vec::new();
    for task in racing {
        let reply = task.await.unwrap();
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.json);
        names.push(reply.json["name"].as_str().unwrap().to_string());
    }
    let last = send(
        &h.app,
        get(&format!("/api/v1/customers/{id}"), Some(&h.live)),
    )
    .await;
    let name = last.json["name"].as_str().unwrap();
    let n = name.strip_prefix("Taller ").unwrap();
    assert_eq!(
        last.json["city"],
        format!("Ciudad {n}"),
        "one update's fields, whole"
    );
    assert!(names.contains(&name.to_string()));
}
