//! The book of expenses over HTTP, in-process on the embedded engine: add
//! (typed, from extraction's fields, from an e-invoice), the checks,
//! duplicates, corrections with their history, the kept document, deletion,
//! test keys, and the events.

use crate::support;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use shared::domain::account::Plan;
use shared::embedded::FileBlobs;
use support::{Harness, Reply, get, post_json, send};

async fn harness() -> Harness {
    support::start_wired(support::relaxed(), Plan::Pro, Router::new(), |ports, w| {
        ports.with_blobs(Arc::new(FileBlobs::new(w.data_dir)))
    })
    .await
}

async fn add(h: &Harness, key: &str, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    send(
        &h.app,
        post_json("/api/v1/expenses", key, Some(&idem), &body.to_string()),
    )
    .await
}

async fn call(h: &Harness, method: &str, path: &str, body: Option<Value>) -> Reply {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {}", h.live))
        .header("content-type", "application/json")
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .unwrap();
    send(&h.app, req).await
}

fn gestoria() -> Value {
    json!({"supplier_name": "Gestoría López SL", "supplier_tax_id": "B12345674",
        "number": "2026/0412", "issue_date": "2026-10-05", "category": "professional_services",
        "lines": [{"rate": 21, "base": 200}], "irpf_rate": 15})
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[tokio::test]
async fn a_typed_expense_is_checked_kept_corrected_and_deleted_with_its_history() {
    let h = harness().await;
    let r = add(&h, &h.live, gestoria()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let e = &r.json;
    let id = e["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("exp_"));
    assert_eq!(
        (
            e["object"].clone(),
            e["status"].clone(),
            e["source"].clone(),
            e["livemode"].clone()
        ),
        (
            json!("expense"),
            json!("confirmed"),
            json!("typed"),
            json!(true)
        )
    );
    // 200 × 21 % = 42; IRPF 200 × 15 % = 30; total 200 + 42 − 30 = 212.
    assert_eq!(num(&e["lines"][0]["vat_amount"]), 42.0);
    assert_eq!(num(&e["irpf_amount"]), 30.0);
    assert_eq!(num(&e["total"]), 212.0);
    assert_eq!(
        e["deductible"],
        json!({"base": 200.0, "vat": 42.0, "expense": 200.0})
    );

    let again = add(&h, &h.live, gestoria()).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "{}", again.json);
    assert_eq!(again.code(), "expense_exists");
    assert!(
        again.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&id)
    );
    assert_eq!(again.header("location"), format!("/api/v1/expenses/{id}"));
    let spaced = add(
        &h,
        &h.live,
        json!({"number": "2026 / 0412", "supplier_tax_id": "b12345674"})
            .as_object()
            .unwrap()
            .iter()
            .fold(gestoria(), |mut body, (k, v)| {
                body[k] = v.clone();
                body
            }),
    )
    .await;
    assert_eq!(spaced.code(), "expense_exists", "{}", spaced.json);

    let read = send(
        &h.app,
        get(&format!("/api/v1/expenses/{id}"), Some(&h.live)),
    )
    .await;
    assert_eq!(read.json, r.json);

    // A correction: the base changes, IRPF and the total follow.
    let fixed = call(
        &h,
        "PATCH",
        &format!("/api/v1/expenses/{id}"),
        Some(json!({"lines": [{"rate": 21, "base": 250}], "description": "Asesoría Q3"})),
    )
    .await;
    assert_eq!(fixed.status, StatusCode::OK, "{}", fixed.json);
    // 250 × 21 % = 52.50; IRPF 37.50; total 250 + 52.50 − 37.50 = 265.
    assert_eq!(num(&fixed.json["irpf_amount"]), 37.5);
    assert_eq!(num(&fixed.json["total"]), 265.0);
    assert_eq!(fixed.json["created_at"], r.json["created_at"]);

    let wrong = call(
        &h,
        "PATCH",
        &format!("/api/v1/expenses/{id}"),
        Some(json!({"total": 300})),
    )
    .await;
    assert_eq!(
        (wrong.status, wrong.code(), wrong.param()),
        (StatusCode::BAD_REQUEST, "parameter_invalid", "total"),
        "{}",
        wrong.json
    );

    let deleted = call(&h, "DELETE", &format!("/api/v1/expenses/{id}"), None).await;
    assert_eq!(deleted.status, StatusCode::OK, "{}", deleted.json);
    let gone = send(
        &h.app,
        get(&format!("/api/v1/expenses/{id}"), Some(&h.live)),
    )
    .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    let history = send(
        &h.app,
        get(&format!("/api/v1/expenses/{id}/history"), Some(&h.live)),
    )
    .await;
    assert_eq!(history.status, StatusCode::OK, "{}", history.json);
    let actions: Vec<&str> = history.json["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["created", "updated", "deleted"]);
    assert_eq!(num(&history.json["data"][0]["expense"]["total"]), 212.0);
    assert_eq!(num(&history.json["data"][1]["expense"]["total"]), 265.0);

    // Once deleted, the same invoice can be added again.
    assert_eq!(
        add(&h, &h.live, gestoria()).await.status,
        StatusCode::CREATED
    );

    let mut types: Vec<String> = support::events(&h)
        .await
        .iter()
        .filter(|e| e.livemode)
        .map(|e| e.kind.code().to_string())
        .collect();
    types.sort();
    assert_eq!(
        types,
        [
            "expense.created",
            "expense.created",
            "expense.deleted",
            "expense.updated"
        ]
    );
    let updated = support::events(&h)
        .await
        .into_iter()
        .find(|e| e.kind == "expense.updated")
        .unwrap();
    assert_eq!(num(&updated.data["previous_attributes"]["total"]), 212.0);
    assert_eq!(num(&updated.data["object"]["total"]), 265.0);
}

#[tokio::test]
async fn bad_fields_are_refused_naming_them() {
    let h = harness().await;
    let with = |field: &str, value: Value| {
        let mut body = gestoria();
        body[field] = value;
        body
    };
    for (body, param) in [
        (
            with("supplier_tax_id", json!("B12345670")),
            "supplier_tax_id",
        ),
        (with("issue_date", json!("2026-12-01")), "issue_date"),
        (with("total", json!(500)), "total"),
        (with("lines", json!([])), "lines"),
        (
            with(
                "lines",
                json!([{"rate": 21, "base": 200, "vat_amount": 40}]),
            ),
            "lines[0].vat_amount",
        ),
        (
            with("vat_deductible_percent", json!(120)),
            "vat_deductible_percent",
        ),
        (with("supplier_country", json!("FR")), "treatment"),
    ] {
        let r = add(&h, &h.live, body).await;
        assert_eq!(
            (r.status, r.code(), r.param()),
            (StatusCode::BAD_REQUEST, "parameter_invalid", param),
            "{}",
            r.json
        );
    }
    let unknown = add(&h, &h.live, with("category", json!("food"))).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST, "{}", unknown.json);
    assert!(unknown.param().contains("category"), "{}", unknown.json);
    let missing = add(&h, &h.live, json!({"supplier_name": "X"})).await;
    assert_eq!(missing.param(), "supplier_tax_id", "{}", missing.json);
    let list = send(&h.app, get("/api/v1/expenses", Some(&h.live))).await;
    assert_eq!(list.json["data"], json!([]));
}

#[tokio::test]
async fn test_keys_check_everything_and_store_nothing() {
    let h = harness().await;
    let r = add(&h, &h.test, gestoria()).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert_eq!(r.json["livemode"], false);
    let id = r.json["id"].as_str().unwrap();
    let read = send(
        &h.app,
        get(&format!("/api/v1/expenses/{id}"), Some(&h.test)),
    )
    .await;
    assert_eq!(read.status, StatusCode::NOT_FOUND);
    let list = send(&h.app, get("/api/v1/expenses", Some(&h.test))).await;
    assert_eq!(list.json["data"], json!([]));
    // Nothing kept, so the same invoice goes through again.
    assert_eq!(
        add(&h, &h.test, gestoria()).await.status,
        StatusCode::CREATED
    );
    let bad = add(
        &h,
        &h.test,
        json!({"supplier_name": "X", "supplier_tax_id": "B1"}),
    )
    .await;
    assert_eq!(bad.param(), "supplier_tax_id");
    let usage = send(&h.app, get("/api/v1/usage", Some(&h.live))).await;
    assert_eq!(usage.json["used"], json!(0), "{}", usage.json);
}

#[tokio::test]
async fn extracted_fields_go_under_the_typed_ones() {
    let h = harness().await;
    // As `POST /api/v1/invoices/extract` returns it (extra members ignored).
    let extracted = json!({
        "file_name": "ticket.jpg", "issuer_name": "Gasolinera Sol SL", "issuer_nif": "B12345674",
        "recipient_name": null, "recipient_nif": null, "invoice_number": "T-88812",
        "invoice_date": "2026-10-20", "base": 60.5, "vat_rate": 21.0, "vat_amount": 12.71,
        "vat_breakdown": [], "irpf_rate": null, "irpf_amount": 0.0, "total": 73.21,
        "currency": "EUR", "source": "ocr", "lines": [], "due_date": null, "iban": null,
        "confidence": {"total": 0.9}, "checks": {"totals_ok": true}, "warnings": [], "qr": null
    });
    let r = add(
        &h,
        &h.live,
        json!({"extracted": extracted, "category": "vehicle", "invoice_number_typo": 1}),
    )
    .await;
    assert_eq!(
        r.status,
        StatusCode::BAD_REQUEST,
        "unknown top-level fields are refused"
    );
    let r = add(
        &h,
        &h.live,
        json!({"extracted": extracted, "category": "vehicle", "number": "T-88812-B"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let e = &r.json;
    assert_eq!(e["source"], "extraction");
    assert_eq!(e["number"], "T-88812-B", "the typed number wins");
    assert_eq!(e["supplier"]["name"], "Gasolinera Sol SL");
    // Vehicle: 50 % of 12.71 = 6.355 → 6.36 (LIVA art. 95.Tres); no IRPF cost
    // without exclusive use stated (LIRPF art. 29.2, RIRPF art. 22.4).
    assert_eq!(
        e["deductible"],
        json!({"base": 30.25, "vat": 6.36, "expense": 0.0})
    );
    let foreign = add(
        &h,
        &h.live,
        json!({"extracted": {"issuer_name": "X", "currency": "USD"}}),
    )
    .await;
    assert_eq!(foreign.param(), "extracted.currency", "{}", foreign.json);
}

#[tokio::test]
async fn an_einvoice_document_is_read_exactly_kept_and_deleted_with_the_expense() {
    let h = harness().await;
    h.set_issuer().await;
    let issued = send(
        &h.app,
        post_json(
            "/api/v1/invoices",
            &h.live,
            Some("inv-1"),
            &json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
                    "postal_code": "10003", "city": "Cáceres"},
                "irpf_rate": 15,
                "lines": [{"description": "Servicio", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]})
            .to_string(),
        ),
    )
    .await;
    assert_eq!(issued.status, StatusCode::CREATED, "{}", issued.json);
    let id = &issued.json["id"];
    let xml = h
        .app
        .clone()
        .oneshot(get(
            &format!("/api/v1/invoices/{id}/xml?format=ubl"),
            Some(&h.live),
        ))
        .await
        .unwrap()
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes();
    let data = base64::engine::general_purpose::STANDARD.encode(&xml);
    let r = add(
        &h,
        &h.live,
        json!({"document": {"data": data, "file_name": "F2026-000001.xml"}, "category": "other"}),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let e = &r.json;
    assert_eq!(e["source"], "einvoice");
    assert_eq!(
        (
            e["supplier"]["tax_id"].clone(),
            e["number"].clone(),
            e["issue_date"].clone()
        ),
        (
            json!("12345678Z"),
            json!("F2026-000001"),
            json!("2026-11-21")
        )
    );
    assert_eq!(num(&e["lines"][0]["base"]), 1000.0);
    assert_eq!(num(&e["irpf_amount"]), 150.0);
    assert_eq!(num(&e["total"]), 1060.0);
    assert_eq!(e["document"]["mime"], "application/xml");
    let expense = e["id"].as_str().unwrap();

    let doc = h
        .app
        .clone()
        .oneshot(get(
            &format!("/api/v1/expenses/{expense}/document"),
            Some(&h.live),
        ))
        .await
        .unwrap();
    assert_eq!(doc.status(), StatusCode::OK);
    assert_eq!(doc.headers()["content-type"], "application/xml");
    assert_eq!(doc.into_body().collect().await.unwrap().to_bytes(), xml);

    let photo = add(
        &h,
        &h.live,
        json!({"document": {"data": "iVBORw0KGgoAAAANSUhEUg==", "mime": "image/jpeg"}}),
    )
    .await;
    assert_eq!(photo.code(), "mime_mismatch", "{}", photo.json);

    call(&h, "DELETE", &format!("/api/v1/expenses/{expense}"), None).await;
    let after = send(
        &h.app,
        get(
            &format!("/api/v1/expenses/{expense}/document"),
            Some(&h.live),
        ),
    )
    .await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    let key = format!("kept/expenses/{}/{expense}", h.account);
    assert_eq!(h.ports.blobs.get(&key).await.unwrap(), None);
}

#[tokio::test]
async fn the_list_filters_by_dates_quarter_supplier_and_category() {
    let h = harness().await;
    for (number, date, category, nif) in [
        ("A-1", "2026-07-10", "software", "B12345674"),
        ("A-2", "2026-10-02", "software", "B12345674"),
        ("B-1", "2026-11-03", "telecom", "B64717838"),
    ] {
        let mut body = gestoria();
        body["number"] = json!(number);
        body["issue_date"] = json!(date);
        body["category"] = json!(category);
        body["supplier_tax_id"] = json!(nif);
        assert_eq!(add(&h, &h.live, body).await.status, StatusCode::CREATED);
    }
    let numbers = |r: &Reply| -> Vec<String> {
        r.json["data"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", r.json))
            .iter()
            .map(|e| e["number"].as_str().unwrap().to_string())
            .collect()
    };
    let list = |q: &str| send(&h.app, get(&format!("/api/v1/expenses{q}"), Some(&h.live)));
    assert_eq!(numbers(&list("").await), ["B-1", "A-2", "A-1"]);
    assert_eq!(numbers(&list("?year=2026&quarter=4").await), ["B-1", "A-2"]);
    assert_eq!(numbers(&list("?category=software").await), ["A-2", "A-1"]);
    assert_eq!(numbers(&list("?supplier=B64717838").await), ["B-1"]);
    assert_eq!(
        numbers(&list("?supplier=gestoría").await),
        ["B-1", "A-2", "A-1"]
    );
    assert_eq!(
        numbers(&list("?from=2026-10-01&to=2026-10-31").await),
        ["A-2"]
    );
    let page = list("?limit=2").await;
    assert_eq!(
        (numbers(&page), page.json["has_more"].clone()),
        (vec!["B-1".to_string(), "A-2".into()], json!(true))
    );
    let last = page.json["data"][1]["id"].as_str().unwrap().to_string();
    assert_eq!(
        numbers(&list(&format!("?limit=2&starting_after={last}")).await),
        ["A-1"]
    );
    let bad = list("?quarter=4").await;
    assert_eq!((bad.code(), bad.param()), ("parameter_invalid", "year"));
    let bad = list("?year=2026&quarter=5").await;
    assert_eq!(bad.param(), "quarter");
}
