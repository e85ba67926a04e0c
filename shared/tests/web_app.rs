//! The web application over HTTP, in-process on the embedded engine, with a
//! small cookie-keeping client and an email port that keeps what it sends:
//! sign-up to a working API key, the CSRF token and Origin checks, sign-in
//! throttling, the owner-only pages, another account's key, the cookies and
//! headers on a public host. The same flows in a real browser:
//! `.ci/web_browser.py`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use shared::app::people::throttle;
use shared::config::Config;
use shared::embedded::SqliteTable;
use shared::http::{AppState, service_router};
use shared::ports::clock::ManualClock;
use shared::ports::email::{Email, EmailError, Mailer, OutgoingEmail};

/// An email port that keeps every message.
#[derive(Default)]
struct Kept(Mutex<Vec<OutgoingEmail>>);

#[async_trait]
impl Email for Kept {
    async fn send(&self, message: &OutgoingEmail) -> Result<String, EmailError> {
        self.0.lock().unwrap().push(message.clone());
        Ok("<kept@test>".into())
    }
}

impl Kept {
    /// The link to `path` in the last message to `to`.
    fn link(&self, to: &str, path: &str) -> String {
        let sent = self.0.lock().unwrap();
        let message = sent
            .iter()
            .rev()
            .find(|m| m.to == [to.to_string()])
            .unwrap_or_else(|| panic!("no message to {to}"));
        let start = message
            .text
            .find(path)
            .unwrap_or_else(|| panic!("no {path} link: {}", message.text));
        let rest = &message.text[start..];
        rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())].to_string()
    }

    fn count_to(&self, to: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.to == [to.to_string()])
            .count()
    }
}

struct App {
    router: Router,
    mail: Arc<Kept>,
    _dir: tempfile::TempDir,
}

fn app_with(config: Config) -> App {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-11-21T10:00:00Z".parse().unwrap()));
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let mail = Arc::new(Kept::default());
    let ports = shared::adapters::ports(Arc::new(table), clock).with_mailer(Mailer {
        email: mail.clone(),
        from: "svc <app@svc.test>".into(),
    });
    let state = AppState::new(ports, config);
    App {
        router: shared::web::beside(service_router(state.clone()), state),
        mail,
        _dir: dir,
    }
}

fn app() -> App {
    app_with(Config::default())
}

/// A browser: keeps cookies, sends the Host it was given.
struct Browser<'a> {
    app: &'a App,
    host: &'static str,
    cookies: HashMap<String, String>,
}

struct Page {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    html: String,
}

impl Page {
    fn location(&self) -> &str {
        self.headers
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The value of the first hidden `_csrf` field.
    fn csrf(&self) -> String {
        let at = self
            .html
            .find("name=\"_csrf\" value=\"")
            .expect("a form with its token")
            + 20;
        self.html[at..at + 64].to_string()
    }
}

impl<'a> Browser<'a> {
    fn new(app: &'a App) -> Self {
        Browser {
            app,
            host: "127.0.0.1:8080",
            cookies: HashMap::new(),
        }
    }

    async fn send(&mut self, req: axum::http::request::Builder, body: Body) -> Page {
        let cookie = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ");
        let mut req = req.header(header::HOST, self.host);
        if !cookie.is_empty() {
            req = req.header(header::COOKIE, cookie);
        }
        let response = self
            .app
            .router
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        for set in response.headers().get_all(header::SET_COOKIE) {
            let parsed = cookie::Cookie::parse(set.to_str().unwrap().to_string()).unwrap();
            if parsed.max_age() == Some(cookie::time::Duration::ZERO) {
                self.cookies.remove(parsed.name());
            } else {
                self.cookies
                    .insert(parsed.name().to_string(), parsed.value().to_string());
            }
        }
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Page {
            status,
            headers,
            html: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    async fn get(&mut self, path: &str) -> Page {
        self.send(Request::get(path), Body::empty()).await
    }

    async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let body: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let req =
            Request::post(path).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        self.send(req, Body::from(body)).await
    }

    /// Opens the form at `form_path` and sends it with its token and `fields`.
    async fn submit(&mut self, form_path: &str, action: &str, fields: &[(&str, &str)]) -> Page {
        let token = self.get(form_path).await.csrf();
        let mut all = vec![("_csrf", token.as_str())];
        all.extend_from_slice(fields);
        self.post(action, &all).await
    }

    /// Signs up, follows the emailed link, and signs in.
    async fn sign_up_and_in(&mut self, business: &str, email: &str) {
        let page = self
            .submit(
                "/sign-up",
                "/sign-up",
                &[
                    ("business", business),
                    ("email", email),
                    ("password", "una frase larga"),
                ],
            )
            .await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.html);
        let link = self.app.mail.link(email, "/verify?token=");
        let path = &link[link.find("/verify").unwrap()..];
        let page = self.get(path).await;
        assert!(page.html.contains("Correo confirmado"), "{}", page.html);
        let page = self.sign_in(email, "una frase larga").await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.html);
    }

    async fn sign_in(&mut self, email: &str, password: &str) -> Page {
        self.submit(
            "/sign-in",
            "/sign-in",
            &[("email", email), ("password", password), ("next", "/")],
        )
        .await
    }

    /// Creates a key of `mode` on the Keys page; the key shown once.
    async fn create_key(&mut self, mode: &str) -> String {
        let page = self
            .submit("/developers/keys", "/developers/keys", &[("mode", mode)])
            .await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.html);
        let marker = "id=\"new-key\" class=\"secret\">";
        let at = page.html.find(marker).expect("the new key") + marker.len();
        let rest = &page.html[at..];
        rest[..rest.find('<').unwrap()].to_string()
    }
}

async fn api_status(app: &App, key: &str) -> StatusCode {
    let req = Request::get("/api/v1/usage")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap();
    app.router.clone().oneshot(req).await.unwrap().status()
}

#[tokio::test]
async fn a_person_signs_up_confirms_signs_in_and_gets_a_working_test_key() {
    let app = app();
    let mut browser = Browser::new(&app);
    assert_eq!(browser.get("/").await.location(), "/sign-in?next=%2F");
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let overview = browser.get("/").await;
    assert_eq!(overview.status, StatusCode::OK);
    assert!(
        overview.html.contains("Taller Ana") && overview.html.contains("mini"),
        "{}",
        overview.html
    );

    let key = browser.create_key("test").await;
    assert!(key.starts_with("svc_test_"), "{key}");
    assert_eq!(api_status(&app, &key).await, StatusCode::OK);
    let keys = browser.get("/developers/keys").await;
    assert!(keys.html.contains(&key[..17]), "the list shows the prefix");
    assert!(
        !keys.html.contains(&key),
        "the key itself is shown only once"
    );

    let live = browser
        .submit("/developers/keys", "/developers/keys", &[("mode", "live")])
        .await;
    assert_eq!(live.status, StatusCode::FORBIDDEN, "Mini has no live keys");

    let key_id = keys.first_key_id();
    let unconfirmed = browser
        .submit(
            "/developers/keys",
            &format!("/developers/keys/{key_id}/revoke"),
            &[],
        )
        .await;
    assert_eq!(unconfirmed.status, StatusCode::UNPROCESSABLE_ENTITY);
    let revoked = browser
        .submit(
            "/developers/keys",
            &format!("/developers/keys/{key_id}/revoke"),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    assert_eq!(api_status(&app, &key).await, StatusCode::UNAUTHORIZED);

    let out = browser.submit("/", "/sign-out", &[]).await;
    assert_eq!(out.location(), "/sign-in");
    assert_eq!(
        browser.get("/developers/keys").await.status,
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn sign_up_shows_errors_beside_fields_and_never_tells_whether_an_address_is_known() {
    let app = app();
    let mut browser = Browser::new(&app);
    let page = browser
        .submit(
            "/sign-up",
            "/sign-up",
            &[("business", ""), ("email", "ana"), ("password", "corta")],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    for field in ["business", "email", "password"] {
        assert!(
            page.html.contains(&format!("id=\"{field}-error\"")),
            "{field}: {}",
            page.html
        );
    }
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;

    let mut stranger = Browser::new(&app);
    let again = stranger
        .submit(
            "/sign-up",
            "/sign-up",
            &[
                ("business", "Otro"),
                ("email", "ana@example.com"),
                ("password", "otra frase larga"),
            ],
        )
        .await;
    let fresh = stranger
        .submit(
            "/sign-up",
            "/sign-up",
            &[
                ("business", "Otro"),
                ("email", "eva@example.com"),
                ("password", "otra frase larga"),
            ],
        )
        .await;
    assert_eq!(again.status, fresh.status);
    assert_eq!(
        again.html.replace(&again.csrf_or_empty(), ""),
        fresh.html.replace(&fresh.csrf_or_empty(), "")
    );
    assert_eq!(
        app.mail.count_to("ana@example.com"),
        2,
        "the owner hears of the attempt"
    );

    let forgot_known = stranger
        .submit("/forgot", "/forgot", &[("email", "ana@example.com")])
        .await;
    let forgot_unknown = stranger
        .submit("/forgot", "/forgot", &[("email", "nadie@example.com")])
        .await;
    assert_eq!(forgot_known.html, forgot_unknown.html);
    let link = app.mail.link("ana@example.com", "/reset?token=");
    let path = link[link.find("/reset").unwrap()..].to_string();
    let token = path.trim_start_matches("/reset?token=").to_string();
    let set = stranger
        .submit(
            &path,
            "/reset",
            &[("token", &token), ("password", "frase nueva larga")],
        )
        .await;
    assert!(set.html.contains("Contraseña guardada"), "{}", set.html);
    let reused = stranger
        .submit(
            "/sign-in",
            "/reset",
            &[("token", &token), ("password", "otra más larga")],
        )
        .await;
    assert_eq!(
        reused.status,
        StatusCode::NOT_FOUND,
        "a reset link works once"
    );
    assert_eq!(
        stranger
            .sign_in("ana@example.com", "frase nueva larga")
            .await
            .status,
        StatusCode::SEE_OTHER
    );
}

impl Page {
    /// The id in the first revoke form of the Keys page.
    fn first_key_id(&self) -> String {
        let at = self
            .html
            .find("/developers/keys/key_")
            .expect("a key to revoke")
            + "/developers/keys/".len();
        self.html[at..at + self.html[at..].find('/').unwrap()].to_string()
    }

    fn csrf_or_empty(&self) -> String {
        if self.html.contains("name=\"_csrf\"") {
            self.csrf()
        } else {
            String::new()
        }
    }
}

#[tokio::test]
async fn forms_without_their_token_or_from_another_origin_are_refused() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let page = browser.post("/developers/keys", &[("mode", "test")]).await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    let page = browser
        .post(
            "/developers/keys",
            &[("_csrf", &"0".repeat(64)), ("mode", "test")],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    let mut anonymous = Browser::new(&app);
    assert_eq!(
        anonymous
            .post("/sign-in", &[("email", "a@b.es"), ("password", "x")])
            .await
            .status,
        StatusCode::FORBIDDEN
    );

    let token = browser.get("/developers/keys").await.csrf();
    let body = format!("_csrf={token}&mode=test");
    let cross = Request::post("/developers/keys")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::ORIGIN, "https://evil.example")
        .header("sec-fetch-site", "cross-site");
    assert_eq!(
        browser.send(cross, Body::from(body)).await.status,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn wrong_passwords_are_throttled_with_the_same_answer_for_unknown_addresses() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let mut attacker = Browser::new(&app);
    for _ in 0..throttle::PER_EMAIL {
        let known = attacker.sign_in("ana@example.com", "no es esta").await;
        assert_eq!(known.status, StatusCode::UNPROCESSABLE_ENTITY);
        let unknown = attacker.sign_in("nadie@example.com", "no es esta").await;
        assert_eq!(unknown.status, known.status);
        assert!(known.html.contains("no son correctos"));
    }
    let right = attacker.sign_in("ana@example.com", "una frase larga").await;
    assert_eq!(
        right.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        right.html
    );
    let unknown = attacker
        .sign_in("nadie@example.com", "una frase larga")
        .await;
    assert_eq!(unknown.status, StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn members_are_invited_by_the_owner_and_cannot_manage_keys_or_other_accounts() {
    let app = app();
    let mut owner = Browser::new(&app);
    owner.sign_up_and_in("Taller Ana", "ana@example.com").await;
    let invited = owner
        .submit("/members", "/members", &[("email", "eva@example.com")])
        .await;
    assert!(invited.html.contains("eva@example.com"), "{}", invited.html);
    let link = app.mail.link("eva@example.com", "/invitation?token=");
    let path = link[link.find("/invitation").unwrap()..].to_string();
    let token = path.trim_start_matches("/invitation?token=").to_string();
    let mut member = Browser::new(&app);
    let set = member
        .submit(
            &path,
            "/invitation",
            &[("token", &token), ("password", "la de eva larga")],
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", set.html);
    assert_eq!(
        member
            .sign_in("eva@example.com", "la de eva larga")
            .await
            .status,
        StatusCode::SEE_OTHER
    );
    assert!(member.get("/").await.html.contains("Taller Ana"));
    assert_eq!(
        member.get("/developers/keys").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(member.get("/members").await.status, StatusCode::NOT_FOUND);

    owner.create_key("test").await;
    let owners_keys = owner.get("/developers/keys").await;
    let key_id = owners_keys.first_key_id();
    assert!(key_id.starts_with("key_"), "{key_id}");
    let mut stranger = Browser::new(&app);
    stranger.sign_up_and_in("Otro", "luz@example.com").await;
    let other = stranger
        .submit(
            "/developers/keys",
            &format!("/developers/keys/{key_id}/revoke"),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND, "another account's key");
    assert_eq!(stranger.get("/nowhere").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn on_a_public_host_cookies_are_secure_and_pages_carry_the_security_headers() {
    let app = app_with(Config {
        public_hosts: vec!["app.example.com".into()],
        ..Config::default()
    });
    let mut browser = Browser::new(&app);
    browser.host = "app.example.com";
    let page = browser.get("/sign-in").await;
    assert_eq!(page.status, StatusCode::OK);
    let set_cookie = page
        .headers
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        set_cookie.starts_with("__Host-svc_csrf=")
            && set_cookie.contains("Secure")
            && set_cookie.contains("HttpOnly"),
        "{set_cookie}"
    );
    let h = |name: &str| {
        page.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    assert!(h("content-security-policy").contains("frame-ancestors 'none'"));
    assert!(!h("content-security-policy").contains("unsafe-inline"));
    assert_eq!(h("x-content-type-options"), "nosniff");
    assert_eq!(h("referrer-policy"), "same-origin");
    assert!(h("strict-transport-security").starts_with("max-age="));

    let mut elsewhere = Browser::new(&app);
    elsewhere.host = "evil.example";
    assert_eq!(
        elsewhere.get("/sign-in").await.status,
        StatusCode::FORBIDDEN
    );
}
