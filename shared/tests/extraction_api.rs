//! `POST /api/v1/invoices/extract` over HTTP: e-invoices written by this
//! project read back exactly (free), its own PDF read through the text layer
//! (1 unit), texts, OCR through the port, every error code of an item, every
//! request-level limit, quota, idempotency and test keys.

use crate::support;

use std::sync::Arc;

use async_trait::async_trait;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use shared::app::accounts;
use shared::config::Config;
use shared::domain::account::{Issuer, Plan};
use shared::extraction::TextDocument;
use shared::ports::ocr::{ImageFormat, Ocr, OcrError};
use shared::tax::nif::Nif;
use support::{Harness, assert_error_shape, get, post_json, send};

const EXTRACT: &str = "/api/v1/invoices/extract";
/// A valid 1×1 PNG.
const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const TEXT_INVOICE: &str = "\
Reformas Ibéricas Martínez, S.L.
CIF: B12345674
Calle Alcalá 10, 28014 Madrid

FACTURA                                   Nº Factura: 2026/0147
                                          Fecha de expedición: 05/08/2026
Cliente: Ana García Pérez
NIF: 12345678Z

Concepto                      Cantidad   Precio     Importe
Azulejos porcelánicos         35         9,90       346,50
Mano de obra                  1          1.200,00   1.200,00

                              Base imponible        1.546,50 €
                              IVA 21%                 324,77 €
                              Retención IRPF 15%     -231,98 €
                              Total factura         1.639,29 €
";

async fn harness(config: Config) -> Harness {
    let h = support::start(config, Plan::Pro, Router::new()).await;
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
    h
}

/// Issues the invoice every test reads back: 1,000 € at 21 % with 15 % IRPF.
async fn issue(h: &Harness) -> Value {
    let body = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15,
        "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21},
                  {"description": "Impresión", "quantity": 2, "unit_price": 50, "vat_rate": 10}]});
    let r = send(
        &h.app,
        post_json(
            "/api/v1/invoices",
            &h.live,
            Some("issue-1"),
            &body.to_string(),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json
}

async fn download(h: &Harness, path: &str) -> Vec<u8> {
    let req = Request::get(path)
        .header("authorization", format!("Bearer {}", h.live))
        .body(Body::empty())
        .unwrap();
    let response = h.app.clone().oneshot(req).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    response
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec()
}

fn file(name: &str, mime: &str, bytes: &[u8]) -> Value {
    json!({"name": name, "mime": mime, "data": B64.encode(bytes)})
}

async fn extract(h: &Harness, key: &str, idempotency: Option<&str>, body: Value) -> support::Reply {
    send(
        &h.app,
        post_json(EXTRACT, key, idempotency, &body.to_string()),
    )
    .await
}

async fn used(h: &Harness) -> u64 {
    send(&h.app, get("/api/v1/usage", Some(&h.live))).await.json["used"]
        .as_u64()
        .unwrap()
}

fn assert_figures(found: &Value, issued: &Value) {
    for field in ["base", "vat_amount", "irpf_amount", "total"] {
        assert_eq!(found[field], issued[field], "{field} in {found}");
    }
    assert_eq!(found["invoice_number"], issued["number"], "{found}");
    assert_eq!(found["issuer_nif"], "12345678Z", "{found}");
    assert_eq!(found["recipient_nif"], "B64717838", "{found}");
    assert_eq!(found["invoice_date"], issued["issue_date"], "{found}");
    assert_eq!(found["irpf_rate"], 15.0, "{found}");
    assert_eq!(
        found["vat_rate"], 21.0,
        "the rate of the largest base: {found}"
    );
    let rates: Vec<f64> = found["vat_breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["rate"].as_f64().unwrap())
        .collect();
    assert_eq!(rates.len(), 2, "{found}");
    assert!(rates.contains(&21.0) && rates.contains(&10.0), "{found}");
    for check in [
        "totals_ok",
        "nif_valid",
        "recipient_nif_valid",
        "date_valid",
        "vat_rate_valid",
    ] {
        assert_eq!(found["checks"][check], true, "{check} in {found}");
    }
}

#[tokio::test]
async fn every_e_invoice_this_project_writes_reads_back_exactly_and_free() {
    let h = harness(support::relaxed()).await;
    let issued = issue(&h).await;
    let files = json!([
        file(
            "f.xml",
            "application/xml",
            &download(&h, "/api/v1/invoices/1/xml?format=facturae").await
        ),
        file(
            "u.xml",
            "application/xml",
            &download(&h, "/api/v1/invoices/1/xml?format=ubl").await
        ),
        file(
            "c.xml",
            "text/xml",
            &download(&h, "/api/v1/invoices/1/xml?format=cii").await
        ),
        file(
            "x.pdf",
            "application/pdf",
            &download(&h, "/api/v1/invoices/1/pdf?format=facturx").await
        ),
    ]);
    let r = extract(&h, &h.live, None, json!({"files": files})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["object"], "extraction");
    assert_eq!(r.json["livemode"], true);
    assert_eq!(r.json["errors"], json!([]), "{}", r.json);
    let invoices = r.json["invoices"].as_array().unwrap();
    let sources: Vec<&str> = invoices
        .iter()
        .map(|i| i["source"].as_str().unwrap())
        .collect();
    assert_eq!(
        sources,
        [
            "einvoice:facturae",
            "einvoice:ubl",
            "einvoice:cii",
            "einvoice:facturx"
        ]
    );
    let names: Vec<&str> = invoices
        .iter()
        .map(|i| i["file_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["f.xml", "u.xml", "c.xml", "x.pdf"]);
    for found in invoices {
        assert_figures(found, &issued);
        assert_eq!(found["confidence"]["total"], 1.0, "{found}");
    }
    assert_eq!(used(&h).await, 0, "e-invoices read natively use no quota");
}

/// Issues an invoice and extracts its PDF: the issued invoice and the 200.
async fn own_pdf_extracted(h: &Harness) -> (Value, support::Reply) {
    let issued = issue(h).await;
    let pdf = download(h, "/api/v1/invoices/1/pdf").await;
    let r = extract(
        h,
        &h.live,
        None,
        json!({"files": [file("factura.pdf", "application/pdf", &pdf)]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    (issued, r)
}

#[tokio::test]
async fn this_projects_pdf_is_read_through_its_text_layer_for_one_unit() {
    let h = harness(support::relaxed()).await;
    let (issued, r) = own_pdf_extracted(&h).await;
    let found = &r.json["invoices"][0];
    assert_eq!(found["source"], "pdf_text", "{}", r.json);
    assert_figures(found, &issued);
    assert_eq!(used(&h).await, 1);
}

#[tokio::test]
async fn the_verifactu_qr_of_this_projects_pdf_gives_its_exact_data() {
    let h = harness(support::relaxed()).await;
    let (issued, r) = own_pdf_extracted(&h).await;
    let found = &r.json["invoices"][0];
    let qr = &found["qr"];
    assert_eq!(qr["kind"], "verifactu", "{found}");
    assert_eq!(qr["number"], issued["number"], "{qr}");
    assert_eq!(qr["nif"], "12345678Z", "{qr}");
    assert_eq!(qr["date"], issued["issue_date"], "{qr}");
    assert_eq!(qr["total"], 1320.0, "before the IRPF withholding: {qr}");
    assert!(
        qr["url"]
            .as_str()
            .is_some_and(|u| u.contains("/wlpl/TIKE-CONT/ValidarQR?nif=12345678Z&numserie=")),
        "{qr}"
    );
    assert_figures(found, &issued);
    for field in ["issuer_nif", "invoice_number", "invoice_date", "total"] {
        assert_eq!(found["confidence"][field], 1.0, "{field} in {found}");
    }
    assert!(
        found["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["code"] != "qr_mismatch"),
        "{found}"
    );
}

/// A JPEG photo-sized sheet whose only mark is `url`'s QR code.
fn photo_of_qr(url: &str) -> Vec<u8> {
    let code = qrcode::QrCode::with_error_correction_level(url, qrcode::EcLevel::M).unwrap();
    let (size, colors) = (code.width() as u32, code.to_colors());
    let module = 8;
    let sheet = image::GrayImage::from_fn(1200, 1600, |x, y| {
        let (cx, cy) = ((x / module).wrapping_sub(10), (y / module).wrapping_sub(10));
        let dark =
            cx < size && cy < size && colors[(cy * size + cx) as usize] == qrcode::Color::Dark;
        image::Luma([if dark { 30 } else { 225 }])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageLuma8(sheet)
        .to_rgb8()
        .write_to(&mut out, image::ImageFormat::Jpeg)
        .unwrap();
    out.into_inner()
}

#[tokio::test]
async fn a_printed_value_that_differs_from_the_qr_is_replaced_and_warned() {
    let mut h = harness(support::relaxed()).await;
    let state = shared::http::AppState::new(
        h.ports.clone().with_ocr(Arc::new(TextOcr)),
        support::relaxed(),
    );
    h.app = shared::http::service_router(state);
    let url = "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=2026%2F0148&fecha=05-08-2026&importe=1871.27";
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"files": [file("foto.jpg", "image/jpeg", &photo_of_qr(url))]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let found = &r.json["invoices"][0];
    assert_eq!(found["qr"]["kind"], "verifactu", "{found}");
    assert_eq!(found["qr"]["url"], url);
    assert_eq!(found["invoice_number"], "2026/0148", "{found}");
    assert_eq!(
        found["total"], 1639.29,
        "the printed net total agrees: {found}"
    );
    let mismatches: Vec<&Value> = found["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "qr_mismatch")
        .collect();
    assert_eq!(mismatches.len(), 1, "{found}");
    let message = mismatches[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("El número de factura impreso (2026/0147)")
            && message.contains("(2026/0148)"),
        "{message}"
    );
}

#[tokio::test]
async fn a_text_is_parsed_and_checked() {
    let h = harness(support::relaxed()).await;
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"texts": [{"name": "obra.txt", "text": TEXT_INVOICE}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let found = &r.json["invoices"][0];
    assert_eq!(found["source"], "text");
    assert_eq!(found["file_name"], "obra.txt");
    assert_eq!(found["issuer_nif"], "B12345674", "{found}");
    assert_eq!(found["recipient_nif"], "12345678Z", "{found}");
    assert_eq!(found["invoice_number"], "2026/0147");
    assert_eq!(found["invoice_date"], "2026-08-05");
    assert_eq!(found["base"], 1546.5);
    assert_eq!(found["vat_rate"], 21.0);
    assert_eq!(found["vat_amount"], 324.77);
    assert_eq!(found["irpf_amount"], 231.98);
    assert_eq!(found["total"], 1639.29);
    assert_eq!(found["checks"]["totals_ok"], true, "{found}");
    assert_eq!(found["currency"], "EUR");
    assert_eq!(used(&h).await, 1);
}

#[tokio::test]
async fn figures_that_do_not_add_up_are_warnings_not_errors() {
    let h = harness(support::relaxed()).await;
    let text = TEXT_INVOICE.replace("1.639,29 €", "1.700,00 €");
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"texts": [{"name": "t", "text": text}]}),
    )
    .await;
    let found = &r.json["invoices"][0];
    assert_eq!(found["checks"]["totals_ok"], false, "{found}");
    let warnings = found["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty());
    for w in warnings {
        assert!(w["code"].as_str().is_some_and(|c| !c.is_empty()), "{w}");
        assert!(w["message"].as_str().is_some_and(|m| !m.is_empty()), "{w}");
    }
}

/// An OCR engine that "reads" every image as the reference invoice text.
struct TextOcr;

#[async_trait]
impl Ocr for TextOcr {
    async fn read(&self, _: &[u8], _: ImageFormat) -> Result<TextDocument, OcrError> {
        let mut document = TextDocument::from_plain_text(TEXT_INVOICE);
        for word in &mut document.words {
            word.confidence = 0.9;
        }
        Ok(document)
    }
}

#[tokio::test]
async fn images_go_through_the_ocr_port_and_the_same_parser() {
    let mut h = harness(support::relaxed()).await;
    let state = shared::http::AppState::new(
        h.ports.clone().with_ocr(Arc::new(TextOcr)),
        support::relaxed(),
    );
    h.app = shared::http::service_router(state);
    let png = B64.decode(PNG_1X1).unwrap();
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"files": [file("foto.png", "image/png", &png)]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let found = &r.json["invoices"][0];
    assert_eq!(found["source"], "ocr");
    assert_eq!(found["total"], 1639.29);
    assert_eq!(found["issuer_nif"], "B12345674");
    assert!(found["confidence"]["total"].as_f64().unwrap() < 1.0);
}

#[tokio::test]
async fn a_host_without_ocr_answers_ocr_unavailable_for_images_only() {
    let h = harness(support::relaxed()).await;
    let png = B64.decode(PNG_1X1).unwrap();
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"files": [file("foto.png", "image/png", &png)], "texts": [{"name": "t", "text": TEXT_INVOICE}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["errors"][0]["code"], "ocr_unavailable", "{}", r.json);
    assert_eq!(r.json["errors"][0]["file_name"], "foto.png");
    assert_eq!(r.json["invoices"][0]["file_name"], "t");
}

/// A one-page PDF with nothing on its page; with `encrypted`, its trailer
/// names an encryption dictionary.
fn minimal_pdf(encrypted: bool) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
    ];
    if encrypted {
        objects.push("<< /Filter /Standard /V 2 /R 3 /Length 128 /P -4 /O <0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef> /U <0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef> >>");
    }
    let mut pdf = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1).as_bytes(),
    );
    for offset in offsets {
        pdf.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    let encrypt = if encrypted { " /Encrypt 4 0 R" } else { "" };
    pdf.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R{encrypt} /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1)
            .as_bytes(),
    );
    pdf
}

#[tokio::test]
async fn every_bad_item_gets_its_error_and_the_others_are_read() {
    let h = harness(Config {
        max_body_bytes: 16 * 1024 * 1024,
        ..support::relaxed()
    })
    .await;
    issue(&h).await;
    let pdf = download(&h, "/api/v1/invoices/1/pdf").await;
    let cases = [
        (
            json!({"name": "b64", "mime": "application/pdf", "data": "%%% not base64 %%%"}),
            "file_unreadable",
        ),
        (
            file(
                "corrupt.pdf",
                "application/pdf",
                b"%PDF-1.7\n1 0 obj << /Type /Catalog",
            ),
            "file_unreadable",
        ),
        (
            file("zip.pdf", "application/pdf", b"PK\x03\x04 not a pdf at all"),
            "file_unreadable",
        ),
        (file("mismatch.png", "image/png", &pdf), "mime_mismatch"),
        (file("anim.gif", "image/gif", b"GIF89a"), "mime_unsupported"),
        (
            file(
                "big.png",
                "image/png",
                &[&b"\x89PNG\r\n\x1a\n"[..], &vec![0; 5 * 1024 * 1024]].concat(),
            ),
            "file_too_large",
        ),
        (
            file("locked.pdf", "application/pdf", &minimal_pdf(true)),
            "pdf_encrypted",
        ),
        (
            file("scan.pdf", "application/pdf", &minimal_pdf(false)),
            "pdf_scanned",
        ),
        (
            file(
                "note.xml",
                "application/xml",
                b"<?xml version=\"1.0\"?><note>hola</note>",
            ),
            "no_invoice_found",
        ),
    ];
    for (item, code) in cases {
        let name = item["name"].clone();
        let r = extract(
            &h,
            &h.live,
            None,
            json!({"files": [item], "texts": [{"name": "ok.txt", "text": TEXT_INVOICE}]}),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{code}: {}", r.json);
        assert_eq!(
            r.json["errors"].as_array().unwrap().len(),
            1,
            "{code}: {}",
            r.json
        );
        let error = &r.json["errors"][0];
        assert_eq!(error["code"], code, "{}", r.json);
        assert_eq!(error["file_name"], name);
        assert!(error["message"].as_str().is_some_and(|m| m.len() > 10));
        assert_eq!(r.json["invoices"][0]["file_name"], "ok.txt", "{code}");
    }
    let scan = extract(
        &h,
        &h.live,
        None,
        json!({"files": [file("scan.pdf", "application/pdf", &minimal_pdf(false))]}),
    )
    .await;
    assert!(
        scan.json["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("image")
    );
    let chatter = extract(&h, &h.live, None, json!({"texts": [{"name": "t", "text": "Hola, ¿qué tal estás? Nos vemos mañana en la oficina."}]})).await;
    assert_eq!(
        chatter.json["errors"][0]["code"], "no_invoice_found",
        "{}",
        chatter.json
    );
}

#[tokio::test]
async fn request_level_problems_are_400_or_413_and_cost_nothing() {
    let h = harness(support::relaxed()).await;
    let text = json!({"name": "t", "text": TEXT_INVOICE});
    let r = extract(&h, &h.live, None, json!({})).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_missing",
    );
    assert_eq!(r.param(), "files");
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"files": [], "texts": vec![text.clone(); 6]}),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_invalid",
    );
    assert_eq!(r.param(), "texts");
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"files": [{"name": "a.pdf", "mime": "application/pdf"}]}),
    )
    .await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_missing",
    );
    assert_eq!(r.param(), "files[0]", "neither `data` nor `upload_id`");
    let r = extract(&h, &h.live, None, json!({"files": [], "pages": 1})).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "parameter_unknown",
    );
    let r = send(&h.app, post_json(EXTRACT, &h.live, None, "{\"files\": [")).await;
    assert_error_shape(
        &r,
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        "json_invalid",
    );
    let big = "A".repeat(7 * 1024 * 1024);
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"files": [{"name": "a.pdf", "mime": "application/pdf", "data": big}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.json);
    assert_eq!(r.code(), "body_too_large");
    assert_eq!(used(&h).await, 0);
}

#[tokio::test]
async fn quota_is_charged_once_per_request_and_replays_are_free() {
    let h = harness(Config {
        quotas: shared::domain::account::QuotaLimits {
            mini: 1,
            pro: 1,
            max: 1,
        },
        ..support::relaxed()
    })
    .await;
    issue(&h).await;
    let body = json!({"texts": [{"name": "a", "text": TEXT_INVOICE}, {"name": "b", "text": TEXT_INVOICE}]});
    let first = extract(&h, &h.live, Some("ext-1"), body.clone()).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json);
    assert_eq!(used(&h).await, 1, "two texts in one request are one unit");
    let replay = extract(&h, &h.live, Some("ext-1"), body.clone()).await;
    assert_eq!(replay.status, StatusCode::OK);
    assert_eq!(replay.header("idempotent-replayed"), "true");
    assert_eq!(replay.json, first.json);
    assert_eq!(used(&h).await, 1);
    let over = extract(&h, &h.live, Some("ext-2"), body).await;
    assert_error_shape(
        &over,
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_error",
        "quota_exceeded",
    );
    let xml = download(&h, "/api/v1/invoices/1/xml?format=ubl").await;
    let free = extract(
        &h,
        &h.live,
        None,
        json!({"files": [file("u.xml", "application/xml", &xml)]}),
    )
    .await;
    assert_eq!(
        free.status,
        StatusCode::OK,
        "e-invoices stay free when the quota is used up: {}",
        free.json
    );
    assert_eq!(free.json["invoices"][0]["source"], "einvoice:ubl");
}

#[tokio::test]
async fn test_keys_validate_like_live_keys_and_return_sample_data() {
    let h = harness(support::relaxed()).await;
    let r = extract(
        &h,
        &h.test,
        None,
        json!({"files": [file("anim.gif", "image/gif", b"GIF89a")], "texts": [{"name": "t", "text": TEXT_INVOICE}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["livemode"], false);
    assert_eq!(r.json["errors"][0]["code"], "mime_unsupported");
    let sample = &r.json["invoices"][0];
    assert_eq!(sample["file_name"], "t");
    assert_eq!(sample["source"], "text");
    for field in [
        "issuer_name",
        "issuer_nif",
        "invoice_number",
        "invoice_date",
        "base",
        "vat_rate",
        "vat_amount",
        "irpf_amount",
        "total",
        "checks",
        "warnings",
        "confidence",
        "vat_breakdown",
    ] {
        assert!(!sample[field].is_null(), "{field} in {sample}");
    }
    let r = extract(&h, &h.test, None, json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(used(&h).await, 0);
}

#[tokio::test]
async fn a_text_gives_its_lines_due_date_and_iban_and_a_bad_iban_is_kept_with_a_warning() {
    let h = harness(support::relaxed()).await;
    let payment =
        "\nFecha de vencimiento: 04/09/2026\nTransferencia a IBAN ES91 2100 0418 4502 0005 1332\n";
    let bad = payment.replace("1332", "1333");
    let r = extract(
        &h,
        &h.live,
        None,
        json!({"texts": [{"name": "obra.txt", "text": format!("{TEXT_INVOICE}{payment}")},
                         {"name": "mal.txt", "text": format!("{TEXT_INVOICE}{bad}")}]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let found = &r.json["invoices"][0];
    assert_eq!(found["invoice_date"], "2026-08-05", "{found}");
    assert_eq!(found["due_date"], "2026-09-04", "{found}");
    assert_eq!(found["iban"], "ES9121000418450200051332", "{found}");
    let lines = found["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 2, "{found}");
    assert_eq!(lines[0]["description"], "Azulejos porcelánicos");
    assert_eq!(
        (
            &lines[0]["quantity"],
            &lines[0]["unit_price"],
            &lines[0]["amount"]
        ),
        (&json!(35.0), &json!(9.9), &json!(346.5))
    );
    assert_eq!(lines[1]["amount"], 1200.0);
    assert!(lines[0]["confidence"].as_f64().unwrap() > 0.9, "{found}");
    assert!(
        found["confidence"]["due_date"].as_f64().unwrap() > 0.8,
        "{found}"
    );
    assert!(
        found["confidence"]["iban"].as_f64().unwrap() > 0.8,
        "{found}"
    );
    let codes = |v: &Value| -> Vec<String> {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        !codes(found).contains(&"iban_invalid".to_string()),
        "{found}"
    );
    let wrong = &r.json["invoices"][1];
    assert_eq!(wrong["iban"], "ES9121000418450200051333", "{wrong}");
    assert!(
        codes(wrong).contains(&"iban_invalid".to_string()),
        "{wrong}"
    );
}
