//! The document endpoints over HTTP: formats, content types, determinism,
//! unknown formats and other accounts' invoices.

use crate::support;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::json;
use tower::ServiceExt;

use shared::app::{accounts, keys};
use shared::domain::account::{Issuer, Mode, Plan};
use shared::tax::nif::Nif;
use support::{Harness, assert_error_shape, post_json, send};

async fn harness_with_invoice() -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let issuer = Issuer {
        name: Some("Ana García Pérez".into()),
        nif: Some(Nif::parse("12345678Z").unwrap()),
        address: Some("Calle Mayor 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: None,
        country: Some("ES".into()),
    };
    accounts::set_issuer(&h.ports, &h.account, &issuer)
        .await
        .unwrap();
    let body = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15,
        "lines": [{"description": "Diseño", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]});
    let r = send(
        &h.app,
        post_json(
            "/api/v1/invoices",
            &h.live,
            Some("doc-1"),
            &body.to_string(),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    h
}

async fn fetch(h: &Harness, path: &str, key: &str) -> (StatusCode, String, Vec<u8>) {
    let req = Request::get(path)
        .header("authorization", format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap();
    let response = h.app.clone().oneshot(req).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (
        status,
        content_type,
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    )
}

#[tokio::test]
async fn every_format_is_served_with_its_content_type_and_the_same_bytes_twice() {
    let h = harness_with_invoice().await;
    let (status, content_type, pdf) = fetch(&h, "/api/v1/invoices/1/pdf", &h.live).await;
    assert_eq!(
        (status, content_type.as_str()),
        (StatusCode::OK, "application/pdf")
    );
    assert!(pdf.starts_with(b"%PDF-"));
    assert_eq!(
        fetch(&h, "/api/v1/invoices/1/pdf", &h.live).await.2,
        pdf,
        "deterministic"
    );
    let (status, _, facturx) = fetch(&h, "/api/v1/invoices/1/pdf?format=facturx", &h.live).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        facturx.windows(12).any(|w| w == b"factur-x.xml"),
        "the CII XML is attached"
    );
    for (query, marker) in [
        (
            "",
            "http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml",
        ),
        ("?format=facturae", "Facturaev3_2_2"),
        (
            "?format=ubl",
            "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
        ),
        ("?format=cii", "urn:cen.eu:en16931:2017"),
    ] {
        let (status, content_type, xml) =
            fetch(&h, &format!("/api/v1/invoices/1/xml{query}"), &h.live).await;
        assert_eq!(
            (status, content_type.as_str()),
            (StatusCode::OK, "application/xml"),
            "{query}"
        );
        assert!(String::from_utf8(xml).unwrap().contains(marker), "{query}");
    }
}

#[tokio::test]
async fn unknown_formats_list_the_valid_ones_and_other_accounts_get_404() {
    let h = harness_with_invoice().await;
    let r = send(
        &h.app,
        support::get("/api/v1/invoices/1/xml?format=pdf", Some(&h.live)),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("facturae, ubl, cii")
    );
    assert_eq!(r.param(), "format");
    let r = send(
        &h.app,
        support::get("/api/v1/invoices/1/pdf?format=zugferd", Some(&h.live)),
    )
    .await;
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("pdf, facturx")
    );
    let other = accounts::create(&h.ports, "B", Plan::Pro, None)
        .await
        .unwrap();
    let (_, key) = keys::create(&h.ports, &other.id, Mode::Live).await.unwrap();
    for path in [
        "/api/v1/invoices/1/pdf",
        "/api/v1/invoices/1/xml?format=ubl",
        "/api/v1/invoices/x/pdf",
    ] {
        let who = if path.contains("/x/") {
            h.live.clone()
        } else {
            key.reveal()
        };
        let r = send(&h.app, support::get(path, Some(&who))).await;
        assert_error_shape(
            &r,
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "resource_missing",
        );
    }
}
