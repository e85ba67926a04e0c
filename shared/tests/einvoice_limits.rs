//! Issue 44, finding 4: e-invoice XML is read within `xml_tree::LIMITS`. A
//! flood of empty elements in an e-invoice root is refused over HTTP with a
//! clear `file_too_large` that names the limit (413 for an expense's
//! document; an entry in `errors` for extraction, which never fails a
//! request for one item), and a signed Facturae larger than any real one
//! (1,020 lines, attachments) is still read whole.

use crate::support;

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use shared::domain::account::Plan;
use shared::embedded::FileBlobs;
use shared::extraction::einvoice::{Format, read};
use shared::xml_tree::LIMITS;
use support::{post_json, send};

const UBL_INVOICE: &str = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/golden/facturae/sixty_lines.xml"
);

/// A UBL invoice of `count` empty elements: 4 bytes each in the file.
fn flood(count: usize) -> String {
    format!(
        r#"<?xml version="1.0"?><Invoice xmlns="{UBL_INVOICE}">{}</Invoice>"#,
        "<a/>".repeat(count)
    )
}

#[tokio::test]
async fn an_element_flood_is_refused_with_a_clear_error() {
    let h = support::start_wired(support::relaxed(), Plan::Pro, Router::new(), |ports, w| {
        ports.with_blobs(Arc::new(FileBlobs::new(w.data_dir)))
    })
    .await;
    // 4 MB of markup, 5.3 MB of base64: within the default body limit.
    let data = STANDARD.encode(flood(1_000_000));
    let limit = format!("more than {} elements", LIMITS.elements);

    let files = json!({"files": [{"name": "flood.xml", "mime": "application/xml", "data": data}]});
    let r = send(
        &h.app,
        post_json(
            "/api/v1/invoices/extract",
            &h.test,
            None,
            &files.to_string(),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let error = &r.json["errors"][0];
    assert_eq!(error["code"], "file_too_large", "{}", r.json);
    assert!(
        error["message"].as_str().unwrap().contains(&limit),
        "{error}"
    );

    let expense =
        json!({"document": {"data": data, "file_name": "flood.xml"}, "category": "other"});
    let r = send(
        &h.app,
        post_json(
            "/api/v1/expenses",
            &h.test,
            Some("flood-1"),
            &expense.to_string(),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", r.json);
    assert_eq!((r.code(), r.param()), ("file_too_large", "document"));
    let message = r.json["error"]["message"].as_str().unwrap();
    assert!(message.contains(&limit), "{message}");
}

/// The 60-line golden Facturae grown past any real one: its lines repeated
/// to 1,020, three attachments of 2 MB of base64 each, and an XAdES-like
/// signature with its certificate.
fn large_facturae(golden: &str) -> String {
    let (head, rest) = golden.split_once("<InvoiceLine>").unwrap();
    let (lines, tail) = rest.rsplit_once("</Items>").unwrap();
    let lines = format!("<InvoiceLine>{lines}").repeat(17);
    let attachments: String = (1..=3u8)
        .map(|i| {
            format!(
                "<Attachment><AttachmentCompressionAlgorithm>NONE</AttachmentCompressionAlgorithm>\
                 <AttachmentFormat>pdf</AttachmentFormat><AttachmentEncoding>BASE64</AttachmentEncoding>\
                 <AttachmentDescription>Albarán {i}</AttachmentDescription>\
                 <AttachmentData>{}</AttachmentData></Attachment>",
                STANDARD.encode(vec![i; 1_500_000])
            )
        })
        .collect();
    let reference = |uri: &str| {
        format!(
            "<ds:Reference URI=\"{uri}\"><ds:Transforms><ds:Transform \
             Algorithm=\"http://www.w3.org/2000/09/xmldsig#enveloped-signature\"/></ds:Transforms>\
             <ds:DigestMethod Algorithm=\"http://www.w3.org/2001/04/xmlenc#sha256\"/>\
             <ds:DigestValue>{}</ds:DigestValue></ds:Reference>",
            STANDARD.encode([7u8; 32])
        )
    };
    let signature = format!(
        "<ds:Signature xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\" Id=\"Signature-1\">\
         <ds:SignedInfo><ds:CanonicalizationMethod Algorithm=\"http://www.w3.org/TR/2001/REC-xml-c14n-20010315\"/>\
         <ds:SignatureMethod Algorithm=\"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256\"/>{}{}{}</ds:SignedInfo>\
         <ds:SignatureValue>{}</ds:SignatureValue><ds:KeyInfo><ds:X509Data><ds:X509Certificate>{}\
         </ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature>",
        reference(""),
        reference("#KeyInfo"),
        reference("#SignedProperties"),
        STANDARD.encode([9u8; 256]),
        STANDARD.encode([5u8; 1_800])
    );
    let tail = tail
        .replace(
            "</Invoice>",
            &format!("<AdditionalData><RelatedDocuments>{attachments}</RelatedDocuments></AdditionalData></Invoice>"),
        )
        .replace("</fe:Facturae>", &format!("{signature}</fe:Facturae>"));
    format!("{head}{lines}</Items>{tail}")
}

#[test]
fn a_facturae_larger_than_any_real_one_is_still_read() {
    let golden = std::fs::read_to_string(GOLDEN).unwrap();
    let xml = large_facturae(&golden);
    assert!(xml.len() > 6_000_000, "{} bytes", xml.len());
    assert_eq!(xml.matches("<InvoiceLine>").count(), 1_020);
    let elements = xml.matches('<').count() - xml.matches("</").count() - 1;
    assert!(
        elements * 10 < LIMITS.elements,
        "{elements} elements, less than a tenth of the limit"
    );
    let (format, invoices) = read(xml.as_bytes()).unwrap();
    let (_, expected) = read(golden.as_bytes()).unwrap();
    assert_eq!(format, Format::Facturae);
    assert_eq!(invoices.len(), 1);
    assert_eq!(invoices[0].invoice_number, expected[0].invoice_number);
    assert_eq!(invoices[0].issuer_nif, expected[0].issuer_nif);
}
