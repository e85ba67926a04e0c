//! The Developers section of the web application, in-process on the
//! embedded engine with the test client: webhooks created on the page (the
//! secret shown once, the event filter stored), a test send to a receiver on
//! 127.0.0.1 and its delivery log, a retry, the secret's rotation, pausing,
//! deletion with its confirmation; the events list with its filters and
//! pages, one event's JSON; another account's webhook; a member's use; the
//! API reference with its own CSP and its vendored Redoc; every form's CSRF
//! token.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use chrono::Duration;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use shared::adapters::webhook_http::HttpWebhookSender;
use shared::app::outbox;
use shared::config::Config;
use shared::domain::account::Mode;
use shared::ports::Clock;
use shared::webhooks::event_type::EventType;
use shared::webhooks::{DEFAULT_TOLERANCE, verify};

use crate::support::web::{App, Browser, Page, app, app_with_ports};
use crate::support::webhooks::Receiver;

const REFERENCE_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; \
form-action 'self'; worker-src 'self' blob:";

/// The application whose webhook sender may reach a receiver on loopback
/// (`SVC_WEBHOOK_ALLOW_PRIVATE=true`, as `svc serve` wires it).
fn app_reaching_loopback() -> App {
    app_with_ports(
        Config {
            webhook_allow_private: true,
            ..Config::default()
        },
        |ports| ports.with_sender(Arc::new(HttpWebhookSender::new(true))),
    )
}

/// The text after `marker` up to the first of `ends`.
fn after<'a>(html: &'a str, marker: &str, ends: &[char]) -> &'a str {
    let at = html
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in {html}"))
        + marker.len();
    let rest = &html[at..];
    &rest[..rest.find(|c| ends.contains(&c)).unwrap_or(rest.len())]
}

fn secret_of(page: &Page) -> String {
    after(
        &page.html,
        "id=\"webhook-secret\" class=\"secret\">",
        &['<'],
    )
    .to_string()
}

/// The first webhook of a list page.
fn webhook_id(page: &Page) -> String {
    after(&page.html, "href=\"/developers/webhooks/we_", &['?', '"']).to_string()
}

fn header<'p>(page: &'p Page, name: &str) -> &'p str {
    page.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

async fn create_webhook(browser: &mut Browser<'_>, url: &str, events: &[&str]) -> Page {
    let names: Vec<String> = events.iter().map(|e| format!("event.{e}")).collect();
    let mut fields = vec![("mode", "test"), ("url", url), ("description", "ERP")];
    fields.extend(names.iter().map(|n| (n.as_str(), "yes")));
    browser
        .submit("/developers/webhooks", "/developers/webhooks", &fields)
        .await
}

/// The webhooks of the account, through the API with a new test key.
async fn api_webhooks(app: &App, browser: &mut Browser<'_>) -> Value {
    let key = browser.create_key("test").await;
    let response = app
        .router
        .clone()
        .oneshot(
            Request::get("/api/v1/webhooks")
                .header(header::AUTHORIZATION, format!("Bearer {key}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn a_webhook_is_created_tested_retried_rotated_paused_and_deleted_on_its_pages() {
    let app = app_reaching_loopback();
    let receiver = Receiver::start(&[]).await;
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;

    let landing = browser.get("/developers").await;
    assert_eq!(landing.status, StatusCode::OK);
    for link in [
        "/developers/keys",
        "/developers/webhooks",
        "/developers/events",
        "/developers/api",
    ] {
        assert!(landing.html.contains(&format!("href=\"{link}\"")), "{link}");
    }

    let list = browser.get("/developers/webhooks").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(
        list.html
            .contains("Modo de prueba: el plan Mini no tiene modo real")
    );
    assert!(list.html.contains("Aún no hay webhooks"));

    let created = create_webhook(
        &mut browser,
        &receiver.url,
        &["invoice.paid", "job.completed"],
    )
    .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.html);
    let secret = secret_of(&created);
    assert!(secret.starts_with("whsec_"), "{secret}");
    assert!(created.html.contains("data-copy=\"webhook-secret\""));

    let list = browser.get("/developers/webhooks?mode=test").await;
    assert!(list.html.contains(&receiver.url), "{}", list.html);
    assert!(
        list.html.contains("job.completed, invoice.paid"),
        "in the API's order"
    );
    assert!(
        !list.html.contains(&secret),
        "the secret is shown only once"
    );
    let id = format!("we_{}", webhook_id(&list));
    let stored = api_webhooks(&app, &mut browser).await;
    assert_eq!(stored["data"][0]["id"], json!(id));
    assert_eq!(
        stored["data"][0]["events"],
        json!(["job.completed", "invoice.paid"])
    );
    assert_eq!(stored["data"][0]["description"], json!("ERP"));

    let path = format!("/developers/webhooks/{id}?mode=test");
    let detail = browser.get(&path).await;
    assert_eq!(detail.status, StatusCode::OK, "{}", detail.html);
    assert!(detail.html.contains("Sin entregas en los últimos 30 días"));
    assert!(!detail.html.contains(&secret));

    let tested = browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/test"),
            &[("mode", "test")],
        )
        .await;
    assert_eq!(tested.status, StatusCode::SEE_OTHER, "{}", tested.html);
    assert_eq!(
        tested.location(),
        format!("/developers/webhooks/{id}?mode=test&done=test-ok")
    );
    let got = receiver.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header("svc-event"), "webhook.test");
    verify(
        &got[0].body,
        got[0].header("svc-signature"),
        &[&secret],
        DEFAULT_TOLERANCE,
        app.clock.now(),
    )
    .expect("signed with the secret shown");

    let log = browser.get(tested.location()).await;
    assert!(log.html.contains("Prueba entregada"), "{}", log.html);
    assert!(log.html.contains("<code>webhook.test</code>"));
    assert!(log.html.contains("HTTP 200"));
    assert!(log.html.contains("answer 1"), "the response's excerpt");
    assert!(log.html.contains("entregada"));

    let delivery = format!(
        "dlv_{}",
        after(
            &log.html,
            &format!("/developers/webhooks/{id}/deliveries/dlv_"),
            &['/']
        )
    );
    let retried = browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/deliveries/{delivery}/retry"),
            &[("mode", "test")],
        )
        .await;
    assert_eq!(retried.status, StatusCode::SEE_OTHER, "{}", retried.html);
    assert!(retried.location().ends_with("done=retry-ok"));
    assert_eq!(receiver.received().len(), 2);
    let log = browser.get(&path).await;
    assert!(log.html.contains("reintento"), "the retry is in the log");
    assert!(log.html.contains("answer 2"));

    let rotated = browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/rotate"),
            &[("mode", "test")],
        )
        .await;
    assert_eq!(rotated.status, StatusCode::OK, "{}", rotated.html);
    let new_secret = secret_of(&rotated);
    assert!(new_secret.starts_with("whsec_") && new_secret != secret);
    assert!(rotated.html.contains("El secreto anterior sigue firmando"));
    assert!(!browser.get(&path).await.html.contains(&new_secret));
    browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/test"),
            &[("mode", "test")],
        )
        .await;
    let third = &receiver.received()[2];
    for each in [&secret, &new_secret] {
        verify(
            &third.body,
            third.header("svc-signature"),
            &[each],
            DEFAULT_TOLERANCE,
            app.clock.now(),
        )
        .expect("both secrets sign for 24 hours");
    }

    let paused = browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/enabled"),
            &[("mode", "test"), ("enabled", "false")],
        )
        .await;
    assert!(paused.location().ends_with("done=disabled"));
    assert!(browser.get(&path).await.html.contains("en pausa"));
    browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/enabled"),
            &[("mode", "test"), ("enabled", "true")],
        )
        .await;
    assert!(browser.get(&path).await.html.contains("activo"));

    let unconfirmed = browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/delete"),
            &[("mode", "test")],
        )
        .await;
    assert_eq!(unconfirmed.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        unconfirmed.html.contains("id=\"confirm-error\""),
        "{}",
        unconfirmed.html
    );
    assert_eq!(browser.get(&path).await.status, StatusCode::OK);
    let deleted = browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/delete"),
            &[("mode", "test"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert_eq!(
        deleted.location(),
        "/developers/webhooks?mode=test&done=deleted"
    );
    assert!(
        browser
            .get(deleted.location())
            .await
            .html
            .contains("Webhook eliminado")
    );
    assert_eq!(browser.get(&path).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_new_webhook_form_shows_the_apis_errors_beside_their_fields() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;

    let no_events = create_webhook(&mut browser, "https://example.com/hooks", &[]).await;
    assert_eq!(no_events.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        no_events.html.contains("id=\"events-error\""),
        "{}",
        no_events.html
    );
    assert!(
        no_events
            .html
            .contains("value=\"https://example.com/hooks\""),
        "the URL stays"
    );

    let bad_url = create_webhook(&mut browser, "ftp://example.com/hooks", &["invoice.paid"]).await;
    assert_eq!(bad_url.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        bad_url.html.contains("id=\"url-error\""),
        "{}",
        bad_url.html
    );
    assert!(bad_url.html.contains("aria-invalid=\"true\""));
    assert!(
        bad_url.html.contains("checked"),
        "the chosen events stay ticked"
    );

    let private = create_webhook(&mut browser, "http://127.0.0.1:9/hooks", &["invoice.paid"]).await;
    assert_eq!(private.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        private.html.contains("url is not allowed"),
        "{}",
        private.html
    );
}

/// Records `count` events of `kind` for the account of `email`, a second apart.
async fn record_events(app: &App, email: &str, kind: EventType, count: usize) {
    let person = shared::app::people::store::by_email(&app.ports, &email.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    let start = app.clock.now() - Duration::hours(1);
    let writes = (0..count)
        .map(|i| {
            outbox::record(
                &person.account_id,
                Mode::Test,
                kind,
                json!({"object": {"id": format!("inv_{i}")}}),
                start + Duration::seconds(i as i64),
            )
        })
        .collect();
    app.ports.table.transact(writes).await.unwrap();
}

#[tokio::test]
async fn events_are_listed_filtered_paged_and_shown_as_json() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let empty = browser.get("/developers/events").await;
    assert_eq!(empty.status, StatusCode::OK);
    assert!(empty.html.contains("No hay eventos que mostrar"));

    record_events(&app, "ana@example.com", EventType::InvoicePaid, 22).await;
    record_events(&app, "ana@example.com", EventType::JobCompleted, 3).await;

    let first = browser.get("/developers/events").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(
        first.html.matches("href=\"/developers/events/evt_").count(),
        20
    );
    let next = after(
        &first.html,
        "href=\"/developers/events?mode=test&amp;starting_after=",
        &['"'],
    );
    let second = browser
        .get(&format!(
            "/developers/events?mode=test&starting_after={next}"
        ))
        .await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.html);
    assert_eq!(
        second
            .html
            .matches("href=\"/developers/events/evt_")
            .count(),
        5
    );
    assert!(!second.html.contains("Eventos anteriores"));
    assert!(second.html.contains("Los más recientes"));

    let jobs = browser.get("/developers/events?type=job.completed").await;
    assert_eq!(
        jobs.html.matches("href=\"/developers/events/evt_").count(),
        3
    );
    assert!(
        jobs.html
            .contains("<option value=\"job.completed\" selected>")
    );
    let undelivered = browser
        .get("/developers/events?delivery_success=false")
        .await;
    assert!(
        undelivered.html.contains("No hay eventos que mostrar"),
        "no webhook missed any"
    );
    let delivered = browser
        .get("/developers/events?delivery_success=true")
        .await;
    assert_eq!(
        delivered
            .html
            .matches("href=\"/developers/events/evt_")
            .count(),
        20
    );

    let unknown = browser.get("/developers/events?type=nope").await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert!(
        unknown.html.contains("id=\"type-error\""),
        "{}",
        unknown.html
    );

    let id = format!(
        "evt_{}",
        after(&jobs.html, "href=\"/developers/events/evt_", &['?'])
    );
    let event = browser
        .get(&format!("/developers/events/{id}?mode=test"))
        .await;
    assert_eq!(event.status, StatusCode::OK, "{}", event.html);
    assert!(event.html.contains("<pre"), "{}", event.html);
    assert!(
        event
            .html
            .contains(&format!("  &quot;id&quot;: &quot;{id}&quot;")),
        "pretty-printed"
    );
    assert!(
        event
            .html
            .contains("&quot;type&quot;: &quot;job.completed&quot;")
    );
    assert_eq!(
        browser.get("/developers/events/evt_nothing").await.status,
        StatusCode::NOT_FOUND
    );

    let mut stranger = Browser::new(&app);
    stranger.sign_up_and_in("Otro", "luz@example.com").await;
    assert_eq!(
        stranger
            .get(&format!("/developers/events/{id}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert!(
        stranger
            .get("/developers/events")
            .await
            .html
            .contains("No hay eventos")
    );
}

#[tokio::test]
async fn another_accounts_webhook_is_not_found_and_members_use_the_webhooks_pages() {
    let app = app_reaching_loopback();
    let receiver = Receiver::start(&[]).await;
    let mut owner = Browser::new(&app);
    owner.sign_up_and_in("Taller Ana", "ana@example.com").await;
    create_webhook(&mut owner, &receiver.url, &["invoice.paid"]).await;
    let id = format!(
        "we_{}",
        webhook_id(&owner.get("/developers/webhooks").await)
    );
    let path = format!("/developers/webhooks/{id}?mode=test");

    let mut stranger = Browser::new(&app);
    stranger.sign_up_and_in("Otro", "luz@example.com").await;
    assert_eq!(stranger.get(&path).await.status, StatusCode::NOT_FOUND);
    for (action, fields) in [
        ("test", vec![("mode", "test")]),
        ("rotate", vec![("mode", "test")]),
        ("enabled", vec![("mode", "test"), ("enabled", "false")]),
        ("delete", vec![("mode", "test"), ("confirm", "yes")]),
        ("deliveries/dlv_x/retry", vec![("mode", "test")]),
    ] {
        let page = stranger
            .submit(
                "/developers/webhooks",
                &format!("/developers/webhooks/{id}/{action}"),
                &fields,
            )
            .await;
        assert_eq!(
            page.status,
            StatusCode::NOT_FOUND,
            "{action}: {}",
            page.html
        );
    }
    assert!(receiver.received().is_empty(), "nothing was sent");
    assert_eq!(owner.get(&path).await.status, StatusCode::OK, "still there");
    assert_eq!(
        owner.get("/developers/webhooks/we%2F..%2Fx").await.status,
        StatusCode::NOT_FOUND
    );

    let mut member = owner.member_of("eva@example.com").await;
    let landing = member.get("/developers").await;
    assert_eq!(landing.status, StatusCode::OK);
    assert!(
        !landing.html.contains("/developers/keys"),
        "keys are the owner's"
    );
    assert!(
        owner
            .get("/developers")
            .await
            .html
            .contains("/developers/keys")
    );

    let list = member.get("/developers/webhooks").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.html.contains(&receiver.url), "the account's webhooks");
    assert_eq!(member.get(&path).await.status, StatusCode::OK);
    let tested = member
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/test"),
            &[("mode", "test")],
        )
        .await;
    assert_eq!(tested.status, StatusCode::SEE_OTHER, "{}", tested.html);
    assert_eq!(receiver.received().len(), 1);
    let created = member
        .submit(
            "/developers/webhooks",
            "/developers/webhooks",
            &[
                ("url", &format!("{}/eva", receiver.url)),
                ("all_events", "yes"),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.html);
    assert!(secret_of(&created).starts_with("whsec_"));
    let list = owner.get("/developers/webhooks").await;
    assert!(
        list.html.contains("todos, también los futuros"),
        "{}",
        list.html
    );
    assert_eq!(
        member.get("/developers/events").await.status,
        StatusCode::OK
    );
    assert_eq!(member.get("/developers/api").await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_api_reference_has_its_own_csp_and_loads_redoc_and_the_document_from_this_host() {
    let app = app();
    let mut browser = Browser::new(&app);
    assert_eq!(
        browser.get("/developers/api").await.status,
        StatusCode::SEE_OTHER,
        "signed-in people only"
    );
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;

    let page = browser.get("/developers/api").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(header(&page, "content-security-policy"), REFERENCE_CSP);
    assert_eq!(header(&page, "x-frame-options"), "DENY");
    assert!(
        page.html
            .contains("<script type=\"module\" src=\"/static/redoc-3.0.1.standalone.js\">"),
        "{}",
        page.html
    );
    assert!(
        page.html.contains(
            "<redoc spec-url=\"/developers/api/openapi.json\" disable-telemetry=\"true\">"
        )
    );
    assert!(!page.html.contains("src=\"http") && !page.html.contains("href=\"http"));
    assert_eq!(page.html.matches("<h1").count(), 1);

    let others = browser.get("/developers").await;
    assert!(header(&others, "content-security-policy").starts_with("default-src 'self'"));
    assert!(!header(&others, "content-security-policy").contains("unsafe-inline"));

    let script = browser.get("/static/redoc-3.0.1.standalone.js").await;
    assert_eq!(script.status, StatusCode::OK);
    assert!(header(&script, "content-type").starts_with("text/javascript"));
    assert!(header(&script, "cache-control").contains("immutable"));
    assert!(script.html.contains("Version: 3.0.1") && script.html.len() > 1_000_000);

    let document = browser.get("/developers/api/openapi.json").await;
    assert_eq!(document.status, StatusCode::OK);
    assert!(header(&document, "content-type").starts_with("application/json"));
    let doc: Value = serde_json::from_str(&document.html).unwrap();
    assert_eq!(&doc, shared::http::openapi::served());
    assert!(doc["paths"]["/api/v1/webhooks"].is_object());
}

#[tokio::test]
async fn every_form_of_the_section_without_its_token_is_refused() {
    let app = app_reaching_loopback();
    let receiver = Receiver::start(&[]).await;
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    create_webhook(&mut browser, &receiver.url, &["invoice.paid"]).await;
    let id = format!(
        "we_{}",
        webhook_id(&browser.get("/developers/webhooks").await)
    );
    let path = format!("/developers/webhooks/{id}?mode=test");
    browser
        .submit(
            &path,
            &format!("/developers/webhooks/{id}/test"),
            &[("mode", "test")],
        )
        .await;
    let log = browser.get(&path).await;
    let delivery = format!(
        "dlv_{}",
        after(
            &log.html,
            &format!("/developers/webhooks/{id}/deliveries/dlv_"),
            &['/']
        )
    );
    let sent = receiver.received().len();

    let forms = [
        "/developers/webhooks".to_string(),
        format!("/developers/webhooks/{id}/test"),
        format!("/developers/webhooks/{id}/rotate"),
        format!("/developers/webhooks/{id}/enabled"),
        format!("/developers/webhooks/{id}/delete"),
        format!("/developers/webhooks/{id}/deliveries/{delivery}/retry"),
    ];
    let list = browser.get("/developers/webhooks").await;
    let zeros = "0".repeat(64);
    for action in &forms {
        let form = format!("action=\"{action}\"");
        assert!(
            log.html.contains(&form) || list.html.contains(&form),
            "{action} is a form of the pages"
        );
        let refused = browser
            .post(
                action,
                &[
                    ("mode", "test"),
                    ("url", "https://example.com/x"),
                    ("event.invoice.paid", "yes"),
                    ("enabled", "false"),
                    ("confirm", "yes"),
                ],
            )
            .await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{action}");
        let wrong = browser
            .post(
                action,
                &[
                    ("_csrf", zeros.as_str()),
                    ("mode", "test"),
                    ("confirm", "yes"),
                ],
            )
            .await;
        assert_eq!(wrong.status, StatusCode::FORBIDDEN, "{action}");
    }
    assert_eq!(receiver.received().len(), sent, "nothing was sent");
    let still = browser.get(&path).await;
    assert_eq!(still.status, StatusCode::OK);
    assert!(still.html.contains("activo"));
    let list = browser.get("/developers/webhooks").await;
    assert_eq!(
        list.html.matches("href=\"/developers/webhooks/we_").count(),
        1
    );
}
