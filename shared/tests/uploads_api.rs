//! Uploads over HTTP on the embedded host, in-process: `POST /uploads`
//! answers a presigned PUT to `svc serve`'s own receiver; extraction and
//! analyze read the upload by id with the checks and the charge of an
//! inline body; uploads over the synchronous budget run as jobs; and every
//! way to misuse one gets its error.

use crate::support;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Mode, Plan};
use support::jobs::{ANALYZE, EXTRACT, Env, pdf_request, start, ventas};
use support::{Reply, assert_error_shape, relaxed, send};

const UPLOADS: &str = "/api/v1/uploads";

async fn declare(env: &Env, key: &str, name: &str, mime: &str, size: usize) -> Reply {
    env.post(
        UPLOADS,
        key,
        None,
        &json!({"name": name, "mime": mime, "size": size}),
    )
    .await
}

/// `PUT` to an upload's URL with its headers, `content_type` in place of
/// its `Content-Type` when given.
async fn put(
    receiver: &Router,
    upload: &Value,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> Reply {
    let mut req = Request::put(upload["upload_url"].as_str().unwrap());
    for (name, value) in upload["headers"].as_object().unwrap() {
        let value = match (name.as_str(), content_type) {
            ("content-type", Some(other)) => other,
            ("content-length", _) => continue,
            _ => value.as_str().unwrap(),
        };
        req = req.header(name, value);
    }
    let req = req
        .header("content-length", body.len())
        .body(Body::from(body))
        .unwrap();
    send(receiver, req).await
}

/// Declares and sends `bytes`: the upload.
async fn upload(env: &Env, key: &str, name: &str, mime: &str, bytes: Vec<u8>) -> Value {
    let created = declare(env, key, name, mime, bytes.len()).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let sent = put(&env.blob_receiver(), &created.json, None, bytes).await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.json);
    created.json
}

fn by_id(id: &Value) -> Value {
    json!({"files": [{"name": "subida.pdf", "upload_id": id}]})
}

#[tokio::test]
async fn an_uploaded_file_is_extracted_as_the_inline_one_and_charged_the_same() {
    let env = start(relaxed()).await;
    let pdf = env.invoice_pdf().await;
    let inline = env
        .post(EXTRACT, &env.h.live, None, &pdf_request(&pdf))
        .await;
    assert_eq!(inline.status, StatusCode::OK, "{}", inline.json);
    assert_eq!(env.used().await, 1);

    let created = declare(
        &env,
        &env.h.live,
        " factura.pdf ",
        "application/pdf",
        pdf.len(),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json);
    let u = &created.json;
    let id = u["id"].as_str().unwrap();
    assert!(id.starts_with("upl_"), "{u}");
    assert_eq!(
        (u["object"].as_str(), u["name"].as_str(), u["mime"].as_str()),
        (Some("upload"), Some("factura.pdf"), Some("application/pdf"))
    );
    assert_eq!(
        (u["size"].as_u64(), u["method"].as_str()),
        (Some(pdf.len() as u64), Some("PUT"))
    );
    assert_eq!(u["livemode"], true);
    assert_eq!(
        u["headers"],
        json!({"content-type": "application/pdf", "content-length": pdf.len().to_string()})
    );
    assert_eq!(u["expires_at"], "2026-11-21T10:15:00.000Z");
    assert_eq!(u["usable_until"], "2026-11-22T10:00:00.000Z");
    let url = u["upload_url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "/api/v1/blobs/uploads/{}/live/{id}?",
            env.h.account
        )),
        "{url}"
    );
    assert_eq!(env.used().await, 1, "an upload is free");

    let not_yet = env.post(EXTRACT, &env.h.live, None, &by_id(&u["id"])).await;
    assert_error_shape(
        &not_yet,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "upload_missing",
    );
    assert_eq!(not_yet.param(), "files[0].upload_id");

    let sent = put(&env.blob_receiver(), u, None, pdf.clone()).await;
    assert_eq!(sent.status, StatusCode::OK, "{}", sent.json);
    let extracted = env.post(EXTRACT, &env.h.live, None, &by_id(&u["id"])).await;
    assert_eq!(extracted.status, StatusCode::OK, "{}", extracted.json);
    let mut expected = inline.json.clone();
    expected["invoices"][0]["file_name"] = json!("subida.pdf");
    assert_eq!(extracted.json, expected, "the same reading as inline");
    assert_eq!(env.used().await, 2, "charged as the inline body");

    let again = env.post(EXTRACT, &env.h.live, None, &by_id(&u["id"])).await;
    assert_eq!(
        again.status,
        StatusCode::OK,
        "an upload is used as often as wanted"
    );
    let typed = json!({"files": [{"name": "x.png", "mime": "image/png", "upload_id": id}]});
    let r = env.post(EXTRACT, &env.h.live, None, &typed).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "upload_mismatch",
    );
    assert_eq!(r.param(), "files[0].mime");
    let same = json!({"files": [{"name": "x.pdf", "mime": "application/pdf", "upload_id": id}]});
    assert_eq!(
        env.post(EXTRACT, &env.h.live, None, &same).await.status,
        StatusCode::OK
    );

    env.advance(std::time::Duration::from_secs(24 * 3600 + 1));
    let expired = env.post(EXTRACT, &env.h.live, None, &by_id(&u["id"])).await;
    assert_error_shape(
        &expired,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "upload_missing",
    );
}

#[tokio::test]
async fn the_checks_of_an_inline_file_apply_to_an_uploaded_one() {
    let env = start(relaxed()).await;
    let png_declared_pdf = upload(
        &env,
        &env.h.live,
        "x.pdf",
        "application/pdf",
        b"\x89PNG\r\n\x1a\n0000".to_vec(),
    )
    .await;
    let r = env
        .post(EXTRACT, &env.h.live, None, &by_id(&png_declared_pdf["id"]))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["errors"][0]["code"], "mime_mismatch", "{}", r.json);
    let big_image = [b"\x89PNG\r\n\x1a\n".to_vec(), vec![0; 6 * 1024 * 1024]].concat();
    let big = upload(&env, &env.h.live, "big.png", "image/png", big_image).await;
    let r = env
        .post(EXTRACT, &env.h.live, None, &by_id(&big["id"]))
        .await;
    assert_eq!(
        r.status,
        StatusCode::ACCEPTED,
        "6 MiB is over the sync budget: {}",
        r.json
    );
    let job = r.json["id"].as_str().unwrap().to_string();
    env.work_until_finished(&job, &env.h.live).await;
    let done = env.job(&job, &env.h.live).await.json;
    assert_eq!(
        done["result"]["errors"][0]["code"], "file_too_large",
        "{done}"
    );
    assert_eq!(env.used().await, 0, "nothing read, nothing charged");

    let rows = json!({"module": "ventas", "files": [{"name": "vacía.xlsx", "rows": []}]});
    let inline = json!({"type": "excel", "data": rows});
    let inline_error = env.post(ANALYZE, &env.h.live, None, &inline).await;
    assert_eq!(inline_error.status, StatusCode::BAD_REQUEST);
    let json_upload = upload(
        &env,
        &env.h.live,
        "d.json",
        "application/json",
        rows.to_string().into_bytes(),
    )
    .await;
    let uploaded = json!({"type": "excel", "data": {"upload_id": json_upload["id"]}});
    let r = env.post(ANALYZE, &env.h.live, None, &uploaded).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        inline_error.code(),
    );
    assert_eq!(r.param(), inline_error.param(), "the same field as inline");
    assert_eq!(r.param(), "data.files[0].rows");

    let not_json = json!({"type": "excel", "data": {"upload_id": png_declared_pdf["id"]}});
    let r = env.post(ANALYZE, &env.h.live, None, &not_json).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(r.param(), "data.upload_id");
}

#[tokio::test]
async fn uploads_over_the_sync_budget_run_as_jobs_that_read_them() {
    let env = start(Config {
        sync_max_bytes: 1024,
        ..relaxed()
    })
    .await;
    let sheet = ventas();
    let inline = env.post(ANALYZE, &env.h.live, None, &sheet).await;
    assert_eq!(inline.status, StatusCode::OK, "{}", inline.json);

    let data = serde_json::to_vec(&sheet["data"]).unwrap();
    assert!(data.len() > 1024);
    let u = upload(&env, &env.h.live, "ventas.json", "application/json", data).await;
    let body = json!({"type": "excel", "title": "Ventas 2026", "data": {"upload_id": u["id"]}});
    let accepted = env.post(ANALYZE, &env.h.live, Some("big-1"), &body).await;
    assert_eq!(accepted.status, StatusCode::ACCEPTED, "{}", accepted.json);
    assert_eq!(
        accepted.header("preference-applied"),
        "",
        "async mode was not asked for"
    );
    assert_eq!(env.used().await, 2, "charged when queued");
    let id = accepted.json["id"].as_str().unwrap().to_string();
    env.work_until_finished(&id, &env.h.live).await;
    let done = env.job(&id, &env.h.live).await.json;
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(
        done["result"]["report"], inline.json["report"],
        "the same analysis as inline"
    );

    let small = upload(
        &env,
        &env.h.live,
        "t.json",
        "application/json",
        b"{}".to_vec(),
    )
    .await;
    let sync = json!({"type": "excel", "data": {"upload_id": small["id"]}});
    let r = env.post(ANALYZE, &env.h.live, None, &sync).await;
    assert_eq!(
        r.status,
        StatusCode::BAD_REQUEST,
        "under the budget, answered at once: {}",
        r.json
    );
}

#[tokio::test]
async fn declarations_and_puts_out_of_bounds_are_refused() {
    let env = start(relaxed()).await;
    let r = declare(&env, &env.h.live, "huge.pdf", "application/pdf", 52_428_801).await;
    assert_error_shape(
        &r,
        StatusCode::PAYLOAD_TOO_LARGE,
        "invalid_request_error",
        "upload_too_large",
    );
    assert_eq!(r.param(), "size");
    assert_eq!(
        declare(&env, &env.h.live, "max.pdf", "application/pdf", 52_428_800)
            .await
            .status,
        StatusCode::CREATED
    );
    let r = declare(&env, &env.h.live, "a.gif", "image/gif", 10).await;
    assert_error_shape(
        &r,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "invalid_request_error",
        "mime_unsupported",
    );
    assert_eq!(r.param(), "mime");
    for (body, param) in [
        (
            json!({"name": " ", "mime": "application/pdf", "size": 1}),
            "name",
        ),
        (
            json!({"name": "a", "mime": "application/pdf", "size": 0}),
            "size",
        ),
        (
            json!({"name": "a", "mime": "application/pdf", "size": -1}),
            "size",
        ),
        (json!({"name": "a", "mime": "application/pdf"}), "size"),
    ] {
        let r = env.post(UPLOADS, &env.h.live, None, &body).await;
        assert_eq!(
            (r.status, r.param()),
            (StatusCode::BAD_REQUEST, param),
            "{body}: {}",
            r.json
        );
    }

    let receiver = env.blob_receiver();
    let created = declare(&env, &env.h.live, "f.pdf", "application/pdf", 8)
        .await
        .json;
    let refused = |r: &Reply, code: &str| {
        assert_error_shape(r, StatusCode::FORBIDDEN, "invalid_request_error", code);
    };
    let r = put(&receiver, &created, Some("image/png"), b"%PDF-1.7".to_vec()).await;
    refused(&r, "content_type_mismatch");
    assert_eq!(r.param(), "Content-Type");
    refused(
        &put(&receiver, &created, None, b"%PDF-1.".to_vec()).await,
        "content_length_mismatch",
    );
    refused(
        &put(&receiver, &created, None, b"%PDF-1.7\n".to_vec()).await,
        "content_length_mismatch",
    );
    let mut forged = created.clone();
    forged["upload_url"] = json!(
        created["upload_url"]
            .as_str()
            .unwrap()
            .replace("size=8", "size=9")
    );
    refused(
        &put(&receiver, &forged, None, b"%PDF-1.7".to_vec()).await,
        "signature_invalid",
    );
    let mut unsigned = created.clone();
    unsigned["upload_url"] = json!(
        created["upload_url"]
            .as_str()
            .unwrap()
            .split('?')
            .next()
            .unwrap()
    );
    refused(
        &put(&receiver, &unsigned, None, b"%PDF-1.7".to_vec()).await,
        "signature_invalid",
    );
    let r = env
        .post(EXTRACT, &env.h.live, None, &by_id(&created["id"]))
        .await;
    assert_eq!(r.code(), "upload_missing", "nothing refused was stored");

    env.advance(std::time::Duration::from_secs(15 * 60 + 1));
    refused(
        &put(&receiver, &created, None, b"%PDF-1.7".to_vec()).await,
        "upload_url_expired",
    );
}

#[tokio::test]
async fn an_upload_is_nothing_to_another_account_or_mode() {
    let env = start(relaxed()).await;
    let pdf = env.invoice_pdf().await;
    let u = upload(&env, &env.h.live, "f.pdf", "application/pdf", pdf.clone()).await;
    let other = accounts::create(&env.h.ports, "Other", Plan::Pro, None)
        .await
        .unwrap();
    let (_, other_key) = keys::create(&env.h.ports, &other.id, Mode::Live)
        .await
        .unwrap();
    for key in [other_key.reveal(), env.h.test.clone()] {
        let r = env.post(EXTRACT, &key, None, &by_id(&u["id"])).await;
        assert_error_shape(
            &r,
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "upload_missing",
        );
        assert_eq!(r.param(), "files[0].upload_id");
        let r = env
            .post(
                ANALYZE,
                &key,
                None,
                &json!({"type": "excel", "data": {"upload_id": u["id"]}}),
            )
            .await;
        assert_eq!((r.code(), r.param()), ("upload_missing", "data.upload_id"));
    }
    let test_upload = upload(&env, &env.h.test, "f.pdf", "application/pdf", pdf.clone()).await;
    assert_eq!(test_upload["livemode"], false);
    let r = env
        .post(EXTRACT, &env.h.test, None, &by_id(&test_upload["id"]))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["livemode"], false);

    let both = json!({"files": [{"name": "f.pdf", "mime": "application/pdf", "data": "JVBE", "upload_id": u["id"]}]});
    let r = env.post(EXTRACT, &env.h.live, None, &both).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(r.param(), "files[0]");
    let neither = json!({"files": [{"name": "f.pdf", "mime": "application/pdf"}]});
    let r = env.post(EXTRACT, &env.h.live, None, &neither).await;
    assert_eq!((r.code(), r.param()), ("parameter_missing", "files[0]"));
    let unknown = by_id(&json!("upl_000000000000000000000000"));
    let r = env.post(EXTRACT, &env.h.live, None, &unknown).await;
    assert_eq!(
        (r.code(), r.param()),
        ("upload_missing", "files[0].upload_id")
    );
    assert_eq!(env.used().await, 0, "no failed request is charged");
}

#[tokio::test]
async fn the_agent_tools_take_upload_ids_too() {
    let env = start(relaxed()).await;
    let pdf = env.invoice_pdf().await;
    let u = upload(&env, &env.h.live, "f.pdf", "application/pdf", pdf).await;
    let call = |tool: &str, arguments: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        Request::post("/api/mcp")
            .header("authorization", format!("Bearer {}", env.h.live))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("host", "localhost")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let r = send(&env.h.app, call("extract_invoices", by_id(&u["id"]))).await;
    let result = &r.json["result"];
    assert_eq!(result["isError"], false, "{}", r.json);
    assert_eq!(
        result["structuredContent"]["invoices"][0]["total"], 1060.0,
        "{result}"
    );

    let sheet = upload(
        &env,
        &env.h.live,
        "v.json",
        "application/json",
        serde_json::to_vec(&ventas()["data"]).unwrap(),
    )
    .await;
    let r = send(
        &env.h.app,
        call(
            "analyze",
            json!({"type": "excel", "data": {"upload_id": sheet["id"]}}),
        ),
    )
    .await;
    let result = &r.json["result"];
    assert_eq!(result["isError"], false, "{}", r.json);
    assert_eq!(
        result["structuredContent"]["object"], "analysis",
        "{result}"
    );
}
