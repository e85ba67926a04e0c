//! Uploads on the AWS engines (emulator): `POST /uploads` (the uploads
//! function's group) answers a presigned S3 PUT of the staging bucket; a
//! client PUTs the file there with the headers given, without credentials;
//! extraction reads the uploaded PDF by id at once, and an analysis of a
//! 7 MiB sheet (over the synchronous budget) becomes a job that the worker
//! function's handler runs from its SQS event, reading the upload from S3.

mod support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use infra_aws::sqs_worker;
use shared::app::dispatch::dispatch;
use shared::app::webhooks::Subscribers;
use shared::app::{accounts, keys};
use shared::config::Config;
use shared::domain::account::{Issuer, Mode, Plan};
use shared::http::{AppState, Group, group_router};
use shared::ids::random_token;
use shared::ports::table::Key;

async fn call(app: &axum::Router, req: Request<Body>) -> (StatusCode, Value, Vec<u8>) {
    let response = app.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, json, bytes.to_vec())
}

fn request(method: &str, path: &str, key: &str, body: Option<&Value>) -> Request<Body> {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {key}"))
        .header("content-type", "application/json")
        .header("idempotency-key", random_token(8));
    req.body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap()
}

/// Declares the upload through the uploads function's group and PUTs
/// `bytes` to S3 as a client would; the upload.
async fn upload(app: &axum::Router, key: &str, name: &str, mime: &str, bytes: Vec<u8>) -> Value {
    let declared = json!({"name": name, "mime": mime, "size": bytes.len()});
    let (status, upload, _) = call(
        app,
        request("POST", "/api/v1/uploads", key, Some(&declared)),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{upload}");
    let url = upload["upload_url"].as_str().unwrap();
    assert!(url.contains("X-Amz-Signature="), "{url}");
    let mut put = reqwest::Client::new().put(url).body(bytes);
    for (name, value) in upload["headers"].as_object().unwrap() {
        if name != "content-length" {
            put = put.header(name, value.as_str().unwrap());
        }
    }
    let sent = put.send().await.unwrap();
    assert!(sent.status().is_success(), "{}", sent.status());
    upload
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_uploaded_to_s3_are_extracted_and_analysed_by_id() {
    let Some((ports, sqs, url)) = support::jobs_on_aws("Uploads on DynamoDB, SQS and S3").await
    else {
        return;
    };
    let account = accounts::create(&ports, "Nube", Plan::Pro, None)
        .await
        .unwrap();
    accounts::set_issuer(&ports, &account.id, &Issuer::demo())
        .await
        .unwrap();
    let (_, live) = keys::create(&ports, &account.id, Mode::Live).await.unwrap();
    let live = live.reveal();
    let state = AppState::new(ports.clone(), Config::default());
    let function = |group: Group| group_router(group.routes(), state.clone());
    let (uploads, extraction, analyses, invoices, jobs) = (
        function(Group::Uploads),
        function(Group::Extraction),
        function(Group::Analyses),
        function(Group::Invoices),
        function(Group::Jobs),
    );

    let invoice = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15,
        "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]});
    let (status, issued, _) = call(
        &invoices,
        request("POST", "/api/v1/invoices", &live, Some(&invoice)),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{issued}");
    let pdf_path = format!("/api/v1/invoices/{}/pdf", issued["id"]);
    let (status, _, pdf) = call(&invoices, request("GET", &pdf_path, &live, None)).await;
    assert_eq!(status, StatusCode::OK);

    let pdf_upload = upload(
        &uploads,
        &live,
        "factura.pdf",
        "application/pdf",
        pdf.clone(),
    )
    .await;
    let object = format!(
        "uploads/{}/live/{}",
        account.id,
        pdf_upload["id"].as_str().unwrap()
    );
    assert_eq!(
        ports.blobs.get(&object).await.unwrap(),
        Some(pdf),
        "stored in S3"
    );
    let by_id = json!({"files": [{"name": "factura.pdf", "upload_id": pdf_upload["id"]}]});
    let (status, extracted, _) = call(
        &extraction,
        request("POST", "/api/v1/invoices/extract", &live, Some(&by_id)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{extracted}");
    assert_eq!(extracted["invoices"][0]["total"], 1060.0, "{extracted}");

    let note = "Pedido servido en dos entregas; ".repeat(25);
    let rows: Vec<Value> = (0..8_000)
        .map(|i| json!({"Fecha": format!("2026-10-{:02}", 1 + i % 28), "Cliente": format!("Cliente {}", i % 4),
            "Importe": 100 + i % 50, "Notas": note}))
        .collect();
    let sheet = serde_json::to_vec(
        &json!({"module": "ventas", "files": [{"name": "v.xlsx", "rows": rows}]}),
    )
    .unwrap();
    assert!(sheet.len() > 6 * 1024 * 1024);
    let sheet_upload = upload(&uploads, &live, "ventas.json", "application/json", sheet).await;
    let body = json!({"type": "excel", "data": {"upload_id": sheet_upload["id"]}});
    let (status, job, _) = call(
        &analyses,
        request("POST", "/api/v1/analyze", &live, Some(&body)),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "over the sync budget: {job}");
    let id = job["id"].as_str().unwrap();
    let item = ports
        .table
        .get(&Key::new(format!("JOB#{id}"), "JOB"))
        .await
        .unwrap()
        .expect("the job item");
    dispatch(&ports, &item, &mut Subscribers::default())
        .await
        .unwrap();
    let handled =
        sqs_worker::handle_jobs(&ports, support::receive_batch(&sqs, &url, 1).await.0).await;
    assert!(handled.batch_item_failures.is_empty());
    let (status, done, _) = call(
        &jobs,
        request("GET", &format!("/api/v1/jobs/{id}"), &live, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["result"]["object"], "analysis", "{done}");
}
