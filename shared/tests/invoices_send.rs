//! Sending invoices by email over HTTP, in-process on the embedded engine,
//! through the SMTP adapter to the local receiver (`support::smtp`): what
//! arrives, the history and event it leaves, idempotency, test mode,
//! refusals and bad requests.

use crate::support;

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use quick_xml::events::Event;
use serde_json::{Value, json};

use shared::adapters::smtp_email::SmtpEmail;
use shared::app::invoices::send_feedback::{self, Feedback, FeedbackKind, Recipient, Recorded};
use shared::app::invoices::send_record::{self, InvoiceSend, SendState};
use shared::app::keys::Caller;
use shared::domain::account::{Mode, Plan};
use shared::ids::random_token;
use shared::ports::Clock;
use shared::ports::email::Mailer;
use shared::ports::email_contract::{Received, received};
use support::smtp::Sink;
use support::{Harness, Reply, assert_error_shape, get, post_json, send};

const FROM: &str = "Facturas <facturas@svc.example.com>";

async fn harness(sink: Option<&Sink>) -> Harness {
    harness_at(sink.map(|s| s.url.clone())).await
}

/// A harness emailing through the SMTP server at `url`, or without email.
async fn harness_at(url: Option<String>) -> Harness {
    let h = support::start_wired(
        support::relaxed(),
        Plan::Pro,
        Router::new(),
        move |ports, _| match url {
            Some(url) => ports.with_mailer(Mailer {
                email: Arc::new(SmtpEmail::from_url(&url).unwrap()),
                from: FROM.into(),
            }),
            None => ports,
        },
    )
    .await;
    h.set_issuer().await;
    h
}

/// A fresh address at `domain`, so tests sharing the receiver do not mix.
fn address(name: &str) -> String {
    format!(
        "{name}-{}@example.com",
        random_token(8).to_ascii_lowercase()
    )
}

/// Issues an invoice of 100 € + 21 % VAT to a customer with `email`; its id.
async fn issue(h: &Harness, key: &str, email: Option<&str>) -> u64 {
    let mut customer = json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"});
    if let Some(email) = email {
        customer["email"] = json!(email);
    }
    let body = json!({"customer": customer, "due_date": "2026-12-21",
        "lines": [{"description": "Reparación", "quantity": 1, "unit_price": 100, "vat_rate": 21}]});
    let r = send(
        &h.app,
        post_json(
            "/api/v1/invoices",
            key,
            Some(&random_token(8)),
            &body.to_string(),
        ),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    r.json["id"].as_u64().unwrap()
}

async fn send_invoice(h: &Harness, key: &str, id: u64, idem: Option<&str>, body: Value) -> Reply {
    send(
        &h.app,
        post_json(
            &format!("/api/v1/invoices/{id}/send"),
            key,
            idem,
            &body.to_string(),
        ),
    )
    .await
}

async fn history(h: &Harness, key: &str, id: u64, kind: &str) -> Vec<Value> {
    let r = send(&h.app, get(&format!("/api/v1/invoices/{id}"), Some(key))).await;
    r.json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .cloned()
        .collect()
}

/// The data of the events of type `kind`.
async fn events_of(h: &Harness, kind: &str) -> Vec<Value> {
    support::events(h)
        .await
        .into_iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.envelope().data)
        .collect()
}

/// The root element's local name of an XML document read to its end.
fn xml_root(bytes: &[u8]) -> String {
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let mut buf = Vec::new();
    let mut root = None;
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) if root.is_none() => {
                root = Some(e.local_name().into_inner().to_string());
            }
            Event::Eof => return root.expect("a root element"),
            _ => {}
        }
        buf.clear();
    }
}

#[tokio::test]
async fn an_invoice_is_emailed_with_its_pdf_and_einvoice_and_recorded() {
    let Some(sink) = support::smtp::sink("invoice sending over SMTP") else {
        return;
    };
    let h = harness(Some(&sink)).await;
    let customer = address("cliente");
    let cc = address("copia");
    let id = issue(&h, &h.live, Some(&customer)).await;
    let r = send_invoice(
        &h,
        &h.live,
        id,
        Some("send-1"),
        json!({"cc": [cc], "message": "Gracias por su confianza.", "attach": ["pdf", "facturae"]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["object"], "invoice_send");
    assert_eq!(r.json["state"], "sent");
    assert_eq!(r.json["simulated"], false);
    assert_eq!(r.json["to"], json!([customer]));
    assert_eq!(r.json["from"], FROM);
    let message_id = r.json["message_id"].as_str().unwrap().to_string();
    assert!(message_id.starts_with('<'), "{message_id}");

    let got: Vec<Received> = received(&sink, &customer, 1).await;
    assert_eq!(got.len(), 1);
    let m = &got[0];
    assert_eq!(m.to, vec![customer.clone()]);
    assert_eq!(m.cc, vec![cc.clone()]);
    assert_eq!(m.from, "facturas@svc.example.com");
    assert_eq!(m.subject, "Factura F2026-000001 de Ana García Pérez");
    for part in [
        "Gracias por su confianza.",
        "F2026-000001",
        "121,00 €",
        "21/12/2026",
        "Ana García Pérez",
    ] {
        assert!(m.text.contains(part), "{part:?} in {}", m.text);
    }
    let names: Vec<&str> = m.attachments.iter().map(|a| a.filename.as_str()).collect();
    assert_eq!(names, ["F2026-000001.pdf", "F2026-000001-facturae.xml"]);
    assert!(m.attachments[0].bytes.starts_with(b"%PDF"));
    assert_eq!(m.attachments[0].content_type, "application/pdf");
    assert_eq!(xml_root(&m.attachments[1].bytes), "Facturae");
    assert_eq!(
        r.json["attachments"][0]["size"],
        m.attachments[0].bytes.len()
    );
    assert_eq!(
        received(&sink, &cc, 1).await.len(),
        1,
        "the copy arrives too"
    );

    let sent = history(&h, &h.live, id, "sent").await;
    assert_eq!(sent.len(), 1);
    let detail = sent[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&customer) && detail.contains(&cc),
        "{detail}"
    );
    let events = events_of(&h, "invoice.sent").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["object"]["id"], id);
    assert_eq!(events[0]["send"]["message_id"], message_id.as_str());
    assert_eq!(events[0]["send"]["to"], json!([customer]));
}

#[tokio::test]
async fn a_later_bounce_and_complaint_are_recorded_on_the_invoice_once() {
    let Some(sink) = support::smtp::sink("invoice sending over SMTP") else {
        return;
    };
    let h = harness(Some(&sink)).await;
    let to = address("cliente");
    let id = issue(&h, &h.live, Some(&to)).await;
    let r = send_invoice(&h, &h.live, id, Some("send-1"), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let message_id = r.json["message_id"].as_str().unwrap().to_string();
    let bounce = Feedback {
        id: "feedback-1".into(),
        message_id: message_id.clone(),
        kind: FeedbackKind::Bounce { permanent: true },
        recipients: vec![Recipient {
            address: to.clone(),
            diagnostic: Some("smtp; 550 5.1.1 user unknown".into()),
        }],
        at: h.clock.now(),
    };
    assert_eq!(
        send_feedback::record(&h.ports, &bounce).await.unwrap(),
        Recorded::Recorded
    );
    assert_eq!(
        send_feedback::record(&h.ports, &bounce).await.unwrap(),
        Recorded::Again,
        "a redelivered report"
    );
    let failed = history(&h, &h.live, id, "send_failed").await;
    assert_eq!(failed.len(), 1);
    assert_eq!(
        failed[0]["detail"],
        format!("bounced: {to} (smtp; 550 5.1.1 user unknown)")
    );
    let events = events_of(&h, send_feedback::EVENT.code()).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["object"]["id"], id);
    assert_eq!(events[0]["send"]["id"], r.json["id"]);
    assert_eq!(events[0]["send"]["message_id"], message_id.as_str());
    assert_eq!(events[0]["send"]["bounce"], "permanent");
    assert_eq!(events[0]["send"]["recipients"][0]["address"], to.as_str());

    let complaint = Feedback {
        id: "feedback-2".into(),
        kind: FeedbackKind::Complaint,
        ..bounce.clone()
    };
    send_feedback::record(&h.ports, &complaint).await.unwrap();
    let complained = history(&h, &h.live, id, "send_complaint").await;
    assert_eq!(complained.len(), 1);
    assert_eq!(
        complained[0]["detail"],
        format!("marked as spam by {to} (smtp; 550 5.1.1 user unknown)")
    );
    let stranger = Feedback {
        id: "feedback-3".into(),
        message_id: "<not-ours@example.com>".into(),
        ..bounce
    };
    assert_eq!(
        send_feedback::record(&h.ports, &stranger).await.unwrap(),
        Recorded::Unknown
    );
}

#[tokio::test]
async fn one_idempotency_key_sends_one_email() {
    let Some(sink) = support::smtp::sink("invoice sending over SMTP") else {
        return;
    };
    let h = harness(Some(&sink)).await;
    let to = address("cliente");
    let id = issue(&h, &h.live, None).await;
    let body = json!({"to": [to], "attach": ["pdf", "ubl"]});
    let first = send_invoice(&h, &h.live, id, Some("k1"), body.clone()).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json);
    let again = send_invoice(&h, &h.live, id, Some("k1"), body.clone()).await;
    assert_eq!(again.status, StatusCode::OK);
    assert_eq!(again.header("idempotent-replayed"), "true");
    assert_eq!(again.json, first.json);
    let got = received(&sink, &to, 1).await;
    assert_eq!(got.len(), 1, "a replay sends nothing");
    assert_eq!(xml_root(&got[0].attachments[1].bytes), "Invoice");
    let other = send_invoice(&h, &h.live, id, Some("k2"), body).await;
    assert_eq!(other.status, StatusCode::OK);
    assert_ne!(other.json["id"], first.json["id"]);
    assert_eq!(
        received(&sink, &to, 2).await.len(),
        2,
        "a new key sends again"
    );
    assert_eq!(history(&h, &h.live, id, "sent").await.len(), 2);
    assert_eq!(events_of(&h, "invoice.sent").await.len(), 2);
}

#[tokio::test]
async fn test_keys_send_nothing_and_show_what_would_be_sent() {
    let Some(sink) = support::smtp::sink("invoice sending over SMTP") else {
        return;
    };
    let h = harness(Some(&sink)).await;
    let to = address("cliente");
    let id = issue(&h, &h.test, Some(&to)).await;
    let r = send_invoice(
        &h,
        &h.test,
        id,
        Some("t1"),
        json!({"attach": ["pdf", "cii"]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["simulated"], true);
    assert_eq!(r.json["state"], "simulated");
    assert_eq!(r.json["livemode"], false);
    assert_eq!(r.json["to"], json!([to]));
    assert_eq!(
        r.json["subject"],
        "Factura TEST-F2026-000001 de Ana García Pérez"
    );
    let attachments = r.json["attachments"].as_array().unwrap();
    assert_eq!(attachments[0]["filename"], "TEST-F2026-000001.pdf");
    assert_eq!(attachments[1]["filename"], "TEST-F2026-000001-cii.xml");
    assert!(
        attachments
            .iter()
            .all(|a| a["size"].as_u64().unwrap() > 500)
    );
    assert!(r.json.get("message_id").is_none());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(received(&sink, &to, 0).await.is_empty(), "nothing is sent");
    assert!(history(&h, &h.test, id, "sent").await.is_empty());
    assert!(events_of(&h, "invoice.sent").await.is_empty());
}

#[tokio::test]
async fn a_refused_recipient_is_422_and_recorded_once() {
    let Some(sink) = support::smtp::sink("invoice sending over SMTP") else {
        return;
    };
    let h = harness(Some(&sink)).await;
    let id = issue(&h, &h.live, None).await;
    let refused = address("refused");
    let body = json!({"to": [refused]});
    let r = send_invoice(&h, &h.live, id, Some("r1"), body.clone()).await;
    assert_error_shape(
        &r,
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_request_error",
        "email_rejected",
    );
    assert_eq!(r.param(), "to");
    assert!(
        r.json["error"]["message"].as_str().unwrap().contains("550"),
        "{}",
        r.json
    );
    let failed = history(&h, &h.live, id, "send_failed").await;
    assert_eq!(failed.len(), 1);
    let detail = failed[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(&refused) && detail.contains("550"),
        "{detail}"
    );
    let again = send_invoice(&h, &h.live, id, Some("r1"), body).await;
    assert_eq!(
        again.code(),
        "email_rejected",
        "the same key answers the same"
    );
    assert_eq!(history(&h, &h.live, id, "send_failed").await.len(), 1);
    assert!(history(&h, &h.live, id, "sent").await.is_empty());
    assert!(events_of(&h, "invoice.sent").await.is_empty());
}

#[tokio::test]
async fn bad_requests_are_400_with_the_field() {
    let h = harness(None).await;
    let id = issue(&h, &h.live, None).await;
    let cases = [
        (json!({}), "to"),
        (json!({"to": []}), "to"),
        (json!({"to": ["ana@example.com", "ana"]}), "to[1]"),
        (
            json!({"to": ["ana@example.com"], "cc": ["Ana <x@example.com>"]}),
            "cc[0]",
        ),
        (
            json!({"to": ["ana@example.com"], "attach": ["ubl", "cii"]}),
            "attach[1]",
        ),
        (
            json!({"to": ["ana@example.com"], "attach": ["pdf", "pdf"]}),
            "attach[1]",
        ),
        (
            json!({"to": ["ana@example.com"], "message": "x".repeat(2001)}),
            "message",
        ),
    ];
    for (body, param) in cases {
        let r = send_invoice(&h, &h.live, id, Some(&random_token(8)), body.clone()).await;
        assert_error_shape(
            &r,
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "parameter_invalid",
        );
        assert_eq!(r.param(), param, "{body}: {}", r.json);
    }
    let r = send_invoice(
        &h,
        &h.live,
        id,
        Some("k"),
        json!({"to": ["a@example.com"], "attach": ["docx"]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.json);
    let r = send_invoice(&h, &h.live, id, None, json!({"to": ["a@example.com"]})).await;
    assert_eq!(r.code(), "idempotency_key_required");
    let r = send_invoice(
        &h,
        &h.live,
        999,
        Some("k"),
        json!({"to": ["a@example.com"]}),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let cancel = format!("/api/v1/invoices/{id}/cancel");
    let r = send(&h.app, post_json(&cancel, &h.live, None, "{}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    let r = send_invoice(&h, &h.live, id, Some("k"), json!({"to": ["a@example.com"]})).await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "invalid_state",
    );
}

#[tokio::test]
async fn an_unreachable_server_is_503_and_the_same_key_may_retry() {
    let closed = format!("smtp://127.0.0.1:{}", support::smtp::closed_port());
    let h = harness_at(Some(closed)).await;
    let id = issue(&h, &h.live, Some("ana@example.com")).await;
    for _ in 0..2 {
        let r = send_invoice(&h, &h.live, id, Some("u1"), json!({})).await;
        assert_error_shape(
            &r,
            StatusCode::SERVICE_UNAVAILABLE,
            "api_error",
            "email_unavailable",
        );
        assert_eq!(r.header("retry-after"), "30");
    }
    assert!(history(&h, &h.live, id, "sent").await.is_empty());
    assert!(history(&h, &h.live, id, "send_failed").await.is_empty());
}

#[tokio::test]
async fn a_send_cut_while_sending_is_409_for_its_key_and_never_sent_twice() {
    let closed = format!("smtp://127.0.0.1:{}", support::smtp::closed_port());
    let h = harness_at(Some(closed)).await;
    let id = issue(&h, &h.live, Some("ana@example.com")).await;
    let caller = Caller {
        account_id: h.account.clone(),
        plan: Plan::Pro,
        mode: Mode::Live,
        key_id: h.live_key_id.clone(),
    };
    // What a request cut by a crash after its claim leaves.
    let pending = InvoiceSend {
        id: send_record::send_id(id, "cut"),
        object: "invoice_send".into(),
        invoice_id: id,
        number: "F2026-000001".into(),
        state: SendState::Pending,
        simulated: false,
        livemode: true,
        message_id: None,
        from: Some(FROM.into()),
        to: vec!["ana@example.com".into()],
        cc: vec![],
        subject: "Factura F2026-000001 de Ana García Pérez".into(),
        attachments: vec![],
        reason: None,
        created_at: h.clock.now(),
        sent_at: None,
    };
    assert!(matches!(
        send_record::claim(&h.ports, &caller, &pending)
            .await
            .unwrap(),
        send_record::Claim::Claimed
    ));
    let r = send_invoice(&h, &h.live, id, Some("cut"), json!({})).await;
    assert_error_shape(
        &r,
        StatusCode::CONFLICT,
        "invalid_request_error",
        "send_outcome_unknown",
    );
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&pending.id)
    );
    let other = send_invoice(&h, &h.live, id, Some("new"), json!({})).await;
    assert_eq!(other.code(), "email_unavailable", "a new key tries to send");
}

#[tokio::test]
async fn without_email_configured_live_sends_are_503_and_test_ones_simulated() {
    let h = harness(None).await;
    let id = issue(&h, &h.live, Some("ana@example.com")).await;
    let r = send_invoice(&h, &h.live, id, Some("k"), json!({})).await;
    assert_error_shape(
        &r,
        StatusCode::SERVICE_UNAVAILABLE,
        "api_error",
        "email_not_configured",
    );
    assert!(history(&h, &h.live, id, "sent").await.is_empty());
    let test = issue(&h, &h.test, Some("ana@example.com")).await;
    let r = send_invoice(&h, &h.test, test, Some("k"), json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(r.json["simulated"], true);
    assert!(r.json.get("from").is_none());
}
