//! The edge of the application and the API, in-process (issue 44, findings
//! 1 and 5): a `Host` that is not a plain authority is 400 `host_invalid`
//! before any handler (a `/forgot` cannot mail a link built from it); the
//! links emailed point at the configured public origin whatever allowed
//! `Host` the request names; and every `back=` and `next=` that a browser
//! could read as another origin leads to `/`, always with a `Location`.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use shared::config::Config;
use tower::ServiceExt;

use crate::support::web::{Browser, app, app_with};

const POISONED: [&str; 5] = [
    "127.0.0.1:8080@evil.example",
    "127.0.0.1:8080:@evil.example",
    "localhost:@evil.example",
    "app.example.com:@evil.example",
    "127.0.0.1:8080/evil.example",
];

/// The open-redirect payloads, as the value a query or form carries.
const REDIRECTS: [&str; 13] = [
    "/%09/",
    "/\t/example.org",
    "/%0a/",
    "/\n/x",
    "/\\",
    "//",
    "//example.org",
    "/%2F%2F",
    "/%5C",
    "/%5Cexample.org",
    "http://evil",
    "https:evil",
    "\\\\evil",
];

fn encoded(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[tokio::test]
async fn a_poisoned_host_is_refused_on_forgot_and_on_the_api() {
    let app = app_with(Config {
        public_hosts: vec!["app.example.com".into()],
        ..Config::default()
    });
    for host in POISONED {
        let mut browser = Browser::new(&app);
        browser.host = host;
        let forgot = browser
            .post("/forgot", &[("email", "ana@example.com")])
            .await;
        assert_eq!(
            forgot.status,
            StatusCode::BAD_REQUEST,
            "{host}: {}",
            forgot.html
        );
        assert!(
            forgot.html.contains("\"host_invalid\""),
            "{host}: {}",
            forgot.html
        );
        let api = app
            .router
            .clone()
            .oneshot(
                Request::get("/api/v1/usage")
                    .header(header::HOST, host)
                    .body(Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(api.status(), StatusCode::BAD_REQUEST, "{host}");
        let body = api.into_body().collect().await.unwrap().to_bytes();
        let error: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(error["error"]["code"], "host_invalid", "{host}: {error}");
    }
    assert_eq!(app.mail.count_to("ana@example.com"), 0);
}

#[tokio::test]
async fn emailed_links_start_with_the_public_url_whatever_the_host() {
    let public_url = "https://app.example.com";
    let app = app_with(Config {
        public_url: Some(public_url.into()),
        public_hosts: vec!["app.example.com".into(), "other.example.com".into()],
        ..Config::default()
    });
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    for host in ["localhost:8080", "other.example.com"] {
        let mut elsewhere = Browser::new(&app);
        elsewhere.host = host;
        let page = elsewhere
            .submit("/forgot", "/forgot", &[("email", "ana@example.com")])
            .await;
        assert_eq!(page.status, StatusCode::OK, "{host}: {}", page.html);
    }
    let links = app.mail.links_to("ana@example.com");
    assert!(
        links.iter().filter(|l| l.contains("/reset?token=")).count() >= 2,
        "{links:?}"
    );
    for link in &links {
        assert!(link.starts_with(&format!("{public_url}/")), "{link}");
    }
}

#[tokio::test]
async fn language_switches_go_back_only_to_local_paths() {
    let app = app();
    let mut browser = Browser::new(&app);
    let raw = browser.get("/lang/en?back=/%09/example.org").await;
    assert_eq!(raw.status, StatusCode::SEE_OTHER);
    assert_eq!(raw.location(), "/");
    let line_break = browser.get("/lang/x?back=/%0a/x").await;
    assert_eq!(line_break.status, StatusCode::SEE_OTHER);
    assert_eq!(line_break.location(), "/", "{}", line_break.html);
    for payload in REDIRECTS {
        let page = browser
            .get(&format!("/lang/en?back={}", encoded(payload)))
            .await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{payload:?}");
        assert_eq!(page.location(), "/", "{payload:?}");
    }
    let good = browser.get("/lang/en?back=%2Finvoices%3Fpage%3D2").await;
    assert_eq!(good.location(), "/invoices?page=2");
}

#[tokio::test]
async fn signing_in_goes_on_only_to_local_paths() {
    let app = app();
    Browser::new(&app)
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    for payload in REDIRECTS {
        let mut browser = Browser::new(&app);
        let page = browser
            .submit(
                "/sign-in",
                "/sign-in",
                &[
                    ("email", "ana@example.com"),
                    ("password", "una frase larga"),
                    ("next", payload),
                ],
            )
            .await;
        assert_eq!(
            page.status,
            StatusCode::SEE_OTHER,
            "{payload:?}: {}",
            page.html
        );
        assert_eq!(page.location(), "/", "{payload:?}");
        let signed_in = browser
            .get(&format!("/sign-in?next={}", encoded(payload)))
            .await;
        assert_eq!(signed_in.location(), "/", "{payload:?}");
    }
    let page = Browser::new(&app)
        .submit(
            "/sign-in",
            "/sign-in",
            &[
                ("email", "ana@example.com"),
                ("password", "una frase larga"),
                ("next", "/developers/keys"),
            ],
        )
        .await;
    assert_eq!(page.location(), "/developers/keys");
}
