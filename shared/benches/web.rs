//! Benchmark: the web application's pages on the router `svc serve` serves
//! (the API beside the application, embedded engine, in-process), for a
//! signed-in owner whose account holds 1,000 live invoices. For each page:
//! the p50 and p95 server time of `BENCH_RUNS` GETs (default 200, after 20
//! to warm up), and the compressed transfer (the page gzip-encoded, as the
//! router sends it to a browser that accepts gzip, plus the styles and
//! scripts it loads, also gzip-encoded, as a first visit fetches them). The
//! API reference (`/developers/api`, Redoc) is left out, as the issue allows.
//!
//! Run: `cargo bench -p shared --bench web` (`BENCH_INVOICES` sizes the account).

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Request, header};
use serde_json::json;
use tower::ServiceExt;

use shared::app::people::links::{self, Purpose};
use shared::app::people::sign_up::{SignUp, confirm, sign_up};
use shared::app::people::{sessions, store};
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Issuer, Mode, Plan};
use shared::domain::lang::Lang;
use shared::embedded::SqliteTable;
use shared::http::{AppState, service_router};
use shared::ports::clock::SystemClock;

const ASSETS: [&str; 4] = [
    "/static/pico-2.1.1.classless.min.css",
    "/static/htmx-2.0.11.min.js",
    "/static/app.css",
    "/static/app.js",
];

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn get(app: &Router, path: &str, cookie: &str) -> (u16, usize, f64) {
    let request = Request::get(path)
        .header(header::HOST, "127.0.0.1:8080")
        .header(header::COOKIE, cookie)
        .header(header::ACCEPT_ENCODING, "gzip")
        .body(Body::empty())
        .unwrap();
    let started = Instant::now();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (
        status,
        bytes.len(),
        started.elapsed().as_secs_f64() * 1000.0,
    )
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let runs = env("BENCH_RUNS", 200);
    let invoices = env("BENCH_INVOICES", 1000);
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(SystemClock);
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let ports = shared::adapters::ports(Arc::new(table), clock);
    let state = AppState::new(
        ports.clone(),
        Config {
            rate_limit_per_minute: u32::MAX,
            ..Config::default()
        },
    );
    let app = shared::web::beside(service_router(state.clone()), state);

    let email = "ana@example.com".parse().unwrap();
    let request = SignUp {
        business: "Taller Ana".into(),
        email: "ana@example.com".parse().unwrap(),
        password: shared::domain::person::Password::parse("una frase larga").unwrap(),
        lang: Lang::Es,
    };
    sign_up(&ports, request, "http://127.0.0.1:8080", "bench")
        .await
        .unwrap();
    let person = store::by_email(&ports, &email).await.unwrap().unwrap();
    let (secret, link) = links::create(
        &ports,
        Purpose::Verify,
        person.id.as_str(),
        // A new person's links are of the first generation.
        0,
    );
    ports.table.transact(vec![link]).await.unwrap();
    assert!(confirm(&ports, &secret).await.unwrap());
    let person = store::get(&ports, &person.id).await.unwrap().unwrap();
    accounts::set_plan(&ports, &person.account_id, Plan::Pro)
        .await
        .unwrap();
    accounts::set_issuer(&ports, &person.account_id, &Issuer::demo())
        .await
        .unwrap();
    let (_, key) = keys::create(&ports, &person.account_id, Mode::Live)
        .await
        .unwrap();
    let (session, _) = sessions::start(&ports, person).await.unwrap();
    let cookie = format!("svc_session={session}");

    let started = Instant::now();
    for n in 0..invoices {
        let body = json!({"customer": {"name": format!("Cliente {n}"), "tax_id": "B64717838", "address": "Calle Real 4",
            "postal_code": "10003", "city": "Cáceres"},
            "lines": [{"description": "Reparación", "quantity": 1, "unit_price": 100 + n, "vat_rate": 21}]});
        let request = Request::post("/api/v1/invoices")
            .header(header::AUTHORIZATION, format!("Bearer {}", key.reveal()))
            .header(header::CONTENT_TYPE, "application/json")
            .header("idempotency-key", format!("bench-{n}"))
            .body(Body::from(body.to_string()))
            .unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 201, "invoice {n}");
    }
    println!(
        "{invoices} live invoices issued in {:.1} s\n",
        started.elapsed().as_secs_f64()
    );

    let mut assets_gz = 0;
    for asset in ASSETS {
        let (status, size, _) = get(&app, asset, "").await;
        assert_eq!(status, 200, "{asset}");
        assets_gz += size;
    }
    let middle = invoices / 2;
    let pages = [
        "/".to_string(),
        "/invoices".into(),
        "/invoices?status=issued".into(),
        format!("/invoices/{middle}"),
        "/invoices/new".into(),
        "/customers".into(),
        "/business".into(),
        "/business/series".into(),
        "/developers".into(),
        "/developers/keys".into(),
        "/developers/webhooks".into(),
        "/developers/events".into(),
        "/extraction".into(),
        "/analyses".into(),
        "/analyses/cuestionario".into(),
        "/taxes".into(),
        "/taxes/model-130".into(),
        "/members".into(),
        "/sign-in".into(),
    ];
    println!(
        "{:<28} {:>6} {:>9} {:>9} {:>12} {:>14}",
        "page", "status", "p50 ms", "p95 ms", "page gz KB", "+ assets KB"
    );
    for page in &pages {
        let cookie = if page == "/sign-in" {
            ""
        } else {
            cookie.as_str()
        };
        for _ in 0..20 {
            get(&app, page, cookie).await;
        }
        let mut times = Vec::with_capacity(runs);
        let (mut status, mut size) = (0, 0);
        for _ in 0..runs {
            let (s, n, ms) = get(&app, page, cookie).await;
            (status, size) = (s, n);
            times.push(ms);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{page:<28} {status:>6} {:>9.2} {:>9.2} {:>12.1} {:>14.1}",
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            size as f64 / 1024.0,
            (size + assets_gz) as f64 / 1024.0
        );
    }
}
