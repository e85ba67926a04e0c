//! The agent-tool endpoint through the real pipeline: authentication (401
//! with a Bearer challenge, plan), no OAuth discovery, the rate limit on tool
//! calls, the transport rules (stateless, JSON, 405, Host), and tools that
//! are their REST operations (results, `isError`, idempotency, quota, test
//! mode, jobs, a VERI*FACTU record resubmitted).

use crate::support;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use shared::app::accounts;
use shared::config::Config;
use shared::domain::account::Plan;
use shared::domain::account::QuotaLimits;
use support::{Harness, Reply, assert_error_shape, get, send};

const LEGACY: &str = "2025-11-25";

fn rpc(key: Option<&str>, body: &Value) -> Request<Body> {
    let mut req = Request::post("/api/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", LEGACY)
        .header("host", "localhost");
    if let Some(key) = key {
        req = req.header("authorization", format!("Bearer {key}"));
    }
    req.body(Body::from(body.to_string())).unwrap()
}

async fn call(h: &Harness, key: &str, tool: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    let r = send(&h.app, rpc(Some(key), &body)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert!(r.json["error"].is_null(), "{}", r.json);
    r.json["result"].clone()
}

fn error_text(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

async fn harness(config: Config) -> Harness {
    let h = support::start(config, Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    h
}

fn invoice_args(key: &str) -> Value {
    json!({"idempotency_key": key,
        "customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
            "postal_code": "10003", "city": "Cáceres"},
        "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21}],
        "irpf_rate": 15})
}

#[tokio::test]
async fn keys_are_checked_like_rest_with_a_bearer_challenge_and_no_oauth() {
    let h = harness(support::relaxed()).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let r = send(&h.app, rpc(None, &list)).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_key_missing",
    );
    assert_eq!(r.header("www-authenticate"), "Bearer realm=\"svc\"");
    let last = if h.live.ends_with('a') { "b" } else { "a" };
    let unknown = format!("{}{last}", &h.live[..h.live.len() - 1]);
    let r = send(&h.app, rpc(Some(&unknown), &list)).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_key_unknown",
    );
    assert!(
        r.header("www-authenticate")
            .contains("error=\"invalid_token\"")
    );
    assert!(!r.header("www-authenticate").contains("resource_metadata"));

    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp",
        "/.well-known/oauth-authorization-server",
    ] {
        let r = send(&h.app, get(path, None)).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{path}");
    }

    accounts::set_plan(&h.ports, &h.account, Plan::Mini)
        .await
        .unwrap();
    let r = send(&h.app, rpc(Some(&h.live), &list)).await;
    assert_error_shape(
        &r,
        StatusCode::UNAUTHORIZED,
        "authentication_error",
        "api_plan_required",
    );
    let r = send(&h.app, rpc(Some(&h.test), &list)).await;
    assert_eq!(r.status, StatusCode::OK, "test keys work on Mini");
}

#[tokio::test]
async fn stateless_legacy_handshake_json_answers_and_405_for_get_and_delete() {
    let h = harness(support::relaxed()).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = send(&h.app, rpc(Some(&h.live), &init)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("content-type"), "application/json");
    assert!(
        r.header("mcp-session-id").is_empty(),
        "stateless: no session"
    );
    assert_eq!(r.json["result"]["protocolVersion"], LEGACY);
    assert_eq!(r.json["result"]["serverInfo"]["name"], "svc");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        send(&h.app, rpc(Some(&h.live), &note)).await.status,
        StatusCode::ACCEPTED
    );

    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let r = send(&h.app, rpc(Some(&h.live), &list)).await;
    let tools = r.json["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 27);
    assert!(tools.iter().any(|t| t["name"] == "get_job"));

    for method in ["GET", "DELETE"] {
        let req = Request::builder()
            .method(method)
            .uri("/api/mcp")
            .header("host", "localhost")
            .header("authorization", format!("Bearer {}", h.live))
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            send(&h.app, req).await.status,
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
    }
    let r = send(
        &h.app,
        rpc(
            Some(&h.live),
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "delete_everything", "arguments": {}}}),
        ),
    )
    .await;
    assert_eq!(
        r.json["error"]["code"], -32602,
        "unknown tool: a protocol error"
    );
}

#[tokio::test]
async fn hosts_other_than_loopback_and_the_configured_ones_are_refused() {
    let with_host = |key: &str, host: &str| {
        let mut req = rpc(
            Some(key),
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        );
        req.headers_mut().insert("host", host.parse().unwrap());
        req
    };
    let h = harness(support::relaxed()).await;
    assert_eq!(
        send(&h.app, with_host(&h.live, "127.0.0.1:3000"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        send(&h.app, with_host(&h.live, "api.example.com"))
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let h = harness(Config {
        public_hosts: vec!["api.example.com".into()],
        ..support::relaxed()
    })
    .await;
    assert_eq!(
        send(&h.app, with_host(&h.live, "api.example.com"))
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_rate_limit_counts_tool_calls_only() {
    let h = harness(Config {
        rate_limit_per_minute: 2,
        ..Config::default()
    })
    .await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    for _ in 0..3 {
        assert_eq!(
            send(&h.app, rpc(Some(&h.live), &list)).await.status,
            StatusCode::OK
        );
    }
    let nif = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "validate_tax_id", "arguments": {"tax_id": "B64717838"}}});
    for remaining in ["1", "0"] {
        let r = send(&h.app, rpc(Some(&h.live), &nif)).await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.header("x-ratelimit-remaining"), remaining);
    }
    let r = send(&h.app, rpc(Some(&h.live), &nif)).await;
    assert_error_shape(
        &r,
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_error",
        "rate_limited",
    );
    assert!(!r.header("retry-after").is_empty());
}

#[tokio::test]
async fn tools_answer_with_structured_results_and_errors_the_model_can_act_on() {
    let h = harness(support::relaxed()).await;
    let valid = call(
        &h,
        &h.live,
        "validate_tax_id",
        json!({"tax_id": "b-64717838"}),
    )
    .await;
    assert_eq!(valid["structuredContent"]["valid"], true);
    assert_eq!(valid["structuredContent"]["normalized"], "B64717838");
    assert!(
        valid["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("B64717838")
    );
    let invalid = call(
        &h,
        &h.live,
        "validate_tax_id",
        json!({"tax_id": "12345678A"}),
    )
    .await;
    assert_eq!(
        invalid["structuredContent"]["valid"], false,
        "an invalid NIF is a result"
    );

    let vat = call(
        &h,
        &h.live,
        "calculate_vat",
        json!({"amount": 121, "vat_rate": 21, "includes_vat": true}),
    )
    .await;
    assert_eq!(vat["structuredContent"]["base"], 100.0);
    let wrong = error_text(
        &call(
            &h,
            &h.live,
            "calculate_vat",
            json!({"amount": 100, "vat_rate": 22}),
        )
        .await,
    );
    assert!(wrong.contains("[argument `vat_rate`]"), "{wrong}");
    let extra = error_text(
        &call(
            &h,
            &h.live,
            "calculate_vat",
            json!({"amount": 1, "vat_rate": 21, "vat": 1}),
        )
        .await,
    );
    assert!(extra.contains("`vat`"), "{extra}");

    let calendar = call(
        &h,
        &h.live,
        "fiscal_calendar",
        json!({"forms": ["303"], "from": "2027-01-01", "to": "2027-02-28"}),
    )
    .await;
    let deadlines = calendar["structuredContent"]["data"].as_array().unwrap();
    assert!(deadlines.iter().all(|d| d["form"] == "303") && !deadlines.is_empty());

    let missing = error_text(&call(&h, &h.live, "get_invoice", json!({"invoice_id": 999})).await);
    assert!(missing.contains("list_invoices"), "{missing}");
    let missing = error_text(&call(&h, &h.live, "get_job", json!({})).await);
    assert!(missing.contains("`job_id`"), "{missing}");
}

#[tokio::test]
async fn issue_invoice_twice_with_one_key_issues_once_and_test_keys_issue_test_invoices() {
    let h = harness(support::relaxed()).await;
    let first = call(&h, &h.live, "issue_invoice", invoice_args("inv-1")).await;
    let again = call(&h, &h.live, "issue_invoice", invoice_args("inv-1")).await;
    assert_eq!(first["structuredContent"], again["structuredContent"]);
    assert_eq!(first["structuredContent"]["number"], "F2026-000001");
    assert_eq!(first["structuredContent"]["total"], 1060.0);
    let page = call(&h, &h.live, "list_invoices", json!({})).await;
    assert_eq!(
        page["structuredContent"]["data"].as_array().unwrap().len(),
        1
    );

    let mut other = invoice_args("inv-1");
    other["irpf_rate"] = json!(7);
    let reused = error_text(&call(&h, &h.live, "issue_invoice", other).await);
    assert!(
        reused.contains("idempotency_key_reused") && reused.contains("`idempotency_key`"),
        "{reused}"
    );
    let mut keyless = invoice_args("x");
    keyless.as_object_mut().unwrap().remove("idempotency_key");
    let keyless = error_text(&call(&h, &h.live, "issue_invoice", keyless).await);
    assert!(
        keyless.contains("[argument `idempotency_key`]"),
        "{keyless}"
    );

    let test = call(&h, &h.test, "issue_invoice", invoice_args("inv-1")).await;
    assert_eq!(test["structuredContent"]["number"], "TEST-F2026-000001");
    assert_eq!(test["structuredContent"]["livemode"], false);

    let id = first["structuredContent"]["id"].clone();
    let paid = call(
        &h,
        &h.live,
        "set_invoice_status",
        json!({"invoice_id": id, "status": "paid"}),
    )
    .await;
    assert_eq!(paid["structuredContent"]["status"], "paid");
    let cancelled = call(
        &h,
        &h.live,
        "cancel_invoice",
        json!({"invoice_id": id, "reason": "duplicada"}),
    )
    .await;
    assert_eq!(cancelled["structuredContent"]["status"], "cancelled");
    let again = error_text(&call(&h, &h.live, "cancel_invoice", json!({"invoice_id": id})).await);
    assert!(
        again.contains("invalid_state") && again.contains("get_invoice"),
        "{again}"
    );
}

#[tokio::test]
async fn record_payment_records_once_per_key_through_the_payments_operation() {
    let h = harness(support::relaxed()).await;
    let issued = call(&h, &h.live, "issue_invoice", invoice_args("inv-pay")).await;
    let id = issued["structuredContent"]["id"].clone();
    let args = json!({"invoice_id": id, "idempotency_key": "pay-1", "amount": 60,
        "date": "2026-11-21", "method": "transfer", "reference": "TRF 1"});
    let first = call(&h, &h.live, "record_payment", args.clone()).await;
    let again = call(&h, &h.live, "record_payment", args).await;
    assert_eq!(first["structuredContent"], again["structuredContent"]);
    let invoice = &first["structuredContent"];
    assert_eq!(
        (
            invoice["payment_status"].clone(),
            invoice["amount_paid"].clone(),
            invoice["amount_due"].clone()
        ),
        (json!("partially_paid"), json!(60.0), json!(1000.0))
    );
    assert_eq!(invoice["payments"].as_array().unwrap().len(), 1);
    let text = first["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Recorded the payment on invoice F2026-000001"),
        "{text}"
    );

    let rest =
        json!({"invoice_id": id, "idempotency_key": "pay-2", "amount": 1000, "method": "cash"});
    let paid = call(&h, &h.live, "record_payment", rest).await;
    assert_eq!(paid["structuredContent"]["status"], "paid");
    assert_eq!(paid["structuredContent"]["payment_status"], "paid");

    let over = json!({"invoice_id": id, "idempotency_key": "pay-3", "amount": 1, "method": "cash"});
    let over = error_text(&call(&h, &h.live, "record_payment", over).await);
    assert!(
        over.contains("overpayment") && over.contains("`amount`"),
        "{over}"
    );
    let keyless = json!({"invoice_id": id, "amount": -1, "method": "cash"});
    let keyless = error_text(&call(&h, &h.live, "record_payment", keyless).await);
    assert!(
        keyless.contains("[argument `idempotency_key`]"),
        "{keyless}"
    );
}

#[tokio::test]
async fn send_invoice_runs_the_send_operation_simulated_for_test_keys() {
    let h = harness(support::relaxed()).await;
    let test = call(&h, &h.test, "issue_invoice", invoice_args("inv-t")).await;
    let args = |id: &Value, key: &str| json!({"invoice_id": id, "idempotency_key": key, "to": ["ana@example.com"], "attach": ["pdf", "ubl"]});
    let simulated = call(
        &h,
        &h.test,
        "send_invoice",
        args(&test["structuredContent"]["id"], "s1"),
    )
    .await;
    let sent = &simulated["structuredContent"];
    assert_eq!(sent["simulated"], true, "{simulated}");
    assert_eq!(sent["to"], json!(["ana@example.com"]));
    assert_eq!(
        sent["attachments"][1]["filename"],
        "TEST-F2026-000001-ubl.xml"
    );
    let summary = simulated["content"][0]["text"].as_str().unwrap();
    assert!(
        summary.contains("nothing sent") && summary.contains("TEST-F2026-000001.pdf"),
        "{summary}"
    );

    let live = call(&h, &h.live, "issue_invoice", invoice_args("inv-l")).await;
    let id = &live["structuredContent"]["id"];
    let unconfigured = error_text(&call(&h, &h.live, "send_invoice", args(id, "s2")).await);
    assert!(
        unconfigured.contains("email_not_configured"),
        "{unconfigured}"
    );
    let mut keyless = args(id, "x");
    keyless.as_object_mut().unwrap().remove("idempotency_key");
    let keyless = error_text(&call(&h, &h.live, "send_invoice", keyless).await);
    assert!(keyless.contains("`idempotency_key`"), "{keyless}");
    let mut bad = args(id, "s3");
    bad["to"] = json!(["ana"]);
    let bad = error_text(&call(&h, &h.live, "send_invoice", bad).await);
    assert!(bad.contains("to[0]"), "{bad}");
}

#[tokio::test]
async fn lists_page_with_an_opaque_cursor() {
    let h = harness(support::relaxed()).await;
    for n in 0..3 {
        call(&h, &h.live, "issue_invoice", invoice_args(&format!("k{n}"))).await;
    }
    let first = call(&h, &h.live, "list_invoices", json!({"limit": 2})).await;
    let cursor = first["structuredContent"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let second = call(
        &h,
        &h.live,
        "list_invoices",
        json!({"limit": 2, "cursor": cursor}),
    )
    .await;
    let numbers: Vec<&str> = second["structuredContent"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].as_str().unwrap())
        .collect();
    assert_eq!(numbers, ["F2026-000001"]);
    assert_eq!(second["structuredContent"]["next_cursor"], Value::Null);
    let bad = error_text(&call(&h, &h.live, "list_invoices", json!({"cursor": "zzz"})).await);
    assert!(bad.contains("`cursor`"), "{bad}");
}

#[tokio::test]
async fn analyze_charges_one_unit_and_an_exhausted_quota_is_a_tool_error() {
    let h = harness(Config {
        quotas: QuotaLimits {
            mini: 1,
            pro: 1,
            max: 1,
        },
        ..support::relaxed()
    })
    .await;
    let answers =
        json!({"type": "cuestionario", "data": {"answers": {"FIN1": true, "FIN2": false}}});
    let done = call(&h, &h.live, "analyze", answers.clone()).await;
    assert_eq!(done["isError"], false);
    let id = done["structuredContent"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let usage = call(&h, &h.live, "get_usage", json!({})).await;
    assert_eq!(usage["structuredContent"]["used"], 1);
    let refused = error_text(&call(&h, &h.live, "analyze", answers.clone()).await);
    assert!(
        refused.contains("quota_exceeded") && refused.contains("do not retry"),
        "{refused}"
    );
    let stored = call(&h, &h.live, "get_analysis", json!({"analysis_id": id})).await;
    assert_eq!(stored["structuredContent"]["id"], id.as_str());
    let listed = call(&h, &h.live, "list_analyses", json!({})).await;
    assert_eq!(listed["structuredContent"]["data"][0]["id"], id.as_str());
}

#[tokio::test]
async fn long_work_runs_as_a_job_that_get_job_polls() {
    let env = support::jobs::start(support::relaxed()).await;
    let h = &env.h;
    let args =
        json!({"type": "cuestionario", "data": {"answers": {"FIN1": true}}, "run_as_job": true});
    let job = call(h, &h.live, "analyze", args).await;
    let job = &job["structuredContent"];
    assert_eq!(
        (&job["object"], &job["status"]),
        (&json!("job"), &json!("queued"))
    );
    let id = job["id"].as_str().unwrap();
    env.work_until_finished(id, &h.live).await;
    let polled = call(h, &h.live, "get_job", json!({"job_id": id})).await;
    assert_eq!(polled["structuredContent"]["status"], "succeeded");
    assert_eq!(
        polled["structuredContent"]["result"]["type"],
        "cuestionario"
    );
    assert!(
        polled["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("succeeded")
    );
}

#[tokio::test]
async fn a_reply_is_what_the_rest_operation_answers() {
    let h = harness(support::relaxed()).await;
    let tool = call(&h, &h.live, "get_usage", json!({})).await;
    let rest: Reply = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(tool["structuredContent"], rest.json);
}

#[tokio::test]
async fn browser_clients_get_cors_on_preflights_and_401s_and_other_origins_are_refused() {
    let h = harness(support::relaxed()).await;
    let preflight = |origin: &str| {
        Request::builder()
            .method("OPTIONS")
            .uri("/api/mcp")
            .header("host", "localhost")
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, mcp-protocol-version",
            )
            .body(Body::empty())
            .unwrap()
    };
    let r = send(&h.app, preflight("http://localhost:6274")).await;
    assert!(r.status.is_success(), "{}", r.status);
    assert_eq!(
        r.header("access-control-allow-origin"),
        "http://localhost:6274"
    );
    assert!(
        r.header("access-control-allow-headers")
            .contains("authorization")
    );
    let r = send(&h.app, preflight("https://evil.example")).await;
    assert!(r.header("access-control-allow-origin").is_empty());

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let mut unauthenticated = rpc(None, &list);
    unauthenticated
        .headers_mut()
        .insert("origin", "http://localhost:6274".parse().unwrap());
    let r = send(&h.app, unauthenticated).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        r.header("access-control-allow-origin"),
        "http://localhost:6274"
    );
    assert!(
        r.header("access-control-expose-headers")
            .contains("www-authenticate")
    );

    let mut foreign = rpc(Some(&h.live), &list);
    foreign
        .headers_mut()
        .insert("origin", "https://evil.example".parse().unwrap());
    assert_eq!(send(&h.app, foreign).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_rejected_test_record_is_resubmitted_by_its_tool() {
    let h = harness(support::relaxed()).await;
    let tools = send(
        &h.app,
        rpc(
            Some(&h.test),
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ),
    )
    .await;
    let tool = tools.json["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "resubmit_verifactu_record")
        .unwrap()
        .clone();
    assert_eq!(
        tool["inputSchema"]["properties"],
        json!({"invoice_id": {"type": "integer", "minimum": 1,
            "description": "The invoice's numeric id (the `id` of issue_invoice or list_invoices, not its number like F2026-000001)."}})
    );
    assert_eq!(tool["inputSchema"]["required"], json!(["invoice_id"]));
    assert_eq!(tool["inputSchema"]["additionalProperties"], false);

    let mut args = invoice_args("rejected-1");
    args["test_options"] = json!({"verifactu_error": {"code": 1104}});
    let issued = call(&h, &h.test, "issue_invoice", args).await;
    let id = issued["structuredContent"]["id"].clone();
    let pending = error_text(
        &call(
            &h,
            &h.test,
            "resubmit_verifactu_record",
            json!({"invoice_id": id}),
        )
        .await,
    );
    assert!(
        pending.contains("invalid_state") && pending.contains("wait"),
        "{pending}"
    );
    shared::app::verifactu::submit_pending(&h.ports)
        .await
        .unwrap();
    let resubmitted = call(
        &h,
        &h.test,
        "resubmit_verifactu_record",
        json!({"invoice_id": id}),
    )
    .await;
    let verifactu = &resubmitted["structuredContent"]["verifactu"];
    assert_eq!(verifactu["status"], "pending", "{resubmitted}");
    assert_eq!(verifactu["record"]["RechazoPrevio"], "X");
    assert!(
        resubmitted["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Resubmitted the VERI*FACTU record of invoice TEST-F2026-000001"),
        "{resubmitted}"
    );
}

#[tokio::test]
async fn series_are_defined_changed_and_used_through_their_tools() {
    let h = harness(support::relaxed()).await;
    let created = call(
        &h,
        &h.live,
        "create_series",
        json!({"code": "FV", "purpose": "ordinary", "pattern": "{code}-{n:04}", "yearly_restart": false}),
    )
    .await;
    assert_eq!(
        created["structuredContent"]["next_number"], "FV-0001",
        "{created}"
    );
    let changed = call(
        &h,
        &h.live,
        "update_series",
        json!({"series_code": "FV", "default": true}),
    )
    .await;
    assert_eq!(changed["structuredContent"]["default"], true, "{changed}");
    let issued = call(&h, &h.live, "issue_invoice", invoice_args("fv-1")).await;
    assert_eq!(issued["structuredContent"]["number"], "FV-0001");
    let listed = call(&h, &h.live, "list_series", json!({})).await;
    let f = listed["structuredContent"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == "F")
        .unwrap()
        .clone();
    assert_eq!(f["default"], false);
    let refused =
        error_text(&call(&h, &h.live, "delete_series", json!({"series_code": "FV"})).await);
    assert!(refused.contains("series_default"), "{refused}");
    let spare = call(
        &h,
        &h.live,
        "create_series",
        json!({"code": "X", "purpose": "simplified"}),
    )
    .await;
    assert_eq!(spare["structuredContent"]["code"], "X", "{spare}");
    let deleted = call(&h, &h.live, "delete_series", json!({"series_code": "X"})).await;
    assert_eq!(deleted["structuredContent"]["deleted"], true, "{deleted}");
}

#[tokio::test]
async fn expenses_are_added_listed_and_counted_in_modelo_303_through_their_tools() {
    let h = harness(support::relaxed()).await;
    let extracted = json!({"issuer_name": "Gestoría López SL", "issuer_nif": "B12345674",
        "invoice_number": "2026/0412", "invoice_date": "2026-10-05",
        "vat_breakdown": [{"rate": 21, "base": 200, "vat_amount": 42}],
        "irpf_rate": 15, "irpf_amount": 30, "total": 212, "currency": "EUR"});
    let added = call(
        &h,
        &h.live,
        "add_expense",
        json!({"extracted": extracted, "category": "professional_services"}),
    )
    .await;
    let expense = &added["structuredContent"];
    assert_eq!(expense["source"], "extraction", "{added}");
    let summary = added["content"][0]["text"].as_str().unwrap();
    assert!(summary.starts_with("Added expense 2026/0412"), "{summary}");

    let again = error_text(
        &call(
            &h,
            &h.live,
            "add_expense",
            json!({"extracted": extracted, "category": "professional_services"}),
        )
        .await,
    );
    assert!(again.contains(expense["id"].as_str().unwrap()), "{again}");

    let listed = call(
        &h,
        &h.live,
        "list_expenses",
        json!({"year": 2026, "quarter": 4}),
    )
    .await;
    assert_eq!(listed["structuredContent"]["data"][0]["id"], expense["id"]);

    let m303 = call(
        &h,
        &h.live,
        "estimate_model_303",
        json!({"year": 2026, "quarter": 4}),
    )
    .await;
    let boxes = m303["structuredContent"]["boxes"].as_array().unwrap();
    let deducted = boxes.iter().find(|b| b["box"] == "45").unwrap();
    assert_eq!(deducted["value"], json!(42.0));
    assert_eq!(
        m303["structuredContent"]["expenses"][0]["id"],
        expense["id"]
    );
}
