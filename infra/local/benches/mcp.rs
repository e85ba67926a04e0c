//! Benchmark: the agent-tool endpoint beside REST, through the release
//! `svc serve` (rate limit raised), 16 connections each: `tools/call
//! validate_tax_id` against `GET /api/v1/tax/nif`, and `tools/call
//! get_invoice` against `GET /api/v1/invoices/{id}`, in the same run. Goal:
//! MCP adds at most 20 % to REST.
//!
//! Run: `cargo bench -p svc --bench mcp` (env BENCH_SECONDS per target, default 5).

mod support;

use std::time::Duration;

use support::{Target, load, serve};

const MCP: &[(&str, &str)] = &[
    ("accept", "application/json, text/event-stream"),
    ("mcp-protocol-version", "2025-11-25"),
];

fn target(
    name: &str,
    path: &str,
    body: Option<fn(u64) -> String>,
    headers: &'static [(&'static str, &'static str)],
) -> Target {
    Target {
        name: name.into(),
        path: path.into(),
        body,
        idempotent: false,
        connections: 16,
        headers,
    }
}

#[tokio::main]
async fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&["--data".into(), dir.path().display().to_string()]);
    let issued: serde_json::Value = reqwest::Client::new()
        .post(format!("{}/api/v1/invoices", server.base))
        .bearer_auth(&server.key)
        .header("idempotency-key", "bench-invoice")
        .json(&serde_json::json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838",
            "address": "Calle Real 4", "postal_code": "10003", "city": "Cáceres"},
            "lines": [{"description": "Diseño", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(issued["id"], 1, "{issued}");
    let targets = [
        target(
            "REST GET /api/v1/tax/nif",
            "/api/v1/tax/nif?value=B64717838",
            None,
            &[],
        ),
        target(
            "MCP  validate_tax_id",
            "/api/mcp",
            Some(|n| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"validate_tax_id","arguments":{{"tax_id":"B64717838"}}}}}}"#
                )
            }),
            MCP,
        ),
        target(
            "REST GET /api/v1/invoices/1",
            "/api/v1/invoices/1",
            None,
            &[],
        ),
        target(
            "MCP  get_invoice",
            "/api/mcp",
            Some(|n| {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"get_invoice","arguments":{{"invoice_id":1}}}}}}"#
                )
            }),
            MCP,
        ),
    ];
    for target in &targets {
        load(&server, target, Duration::from_secs(1), None).await;
    }
    println!("--- measured ({seconds} s each) ---");
    for target in &targets {
        load(&server, target, Duration::from_secs(seconds), None).await;
    }
}
