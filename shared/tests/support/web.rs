//! The web application's test client: the application beside the API on a
//! fresh embedded engine, an email port that keeps what it sends, and a
//! browser-like client that keeps cookies and sends forms with their token.
//! After every request the letters it posted are delivered from the feed,
//! as `svc serve`'s dispatcher does right after the response.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use shared::app::people::postbox;
use shared::config::Config;
use shared::embedded::feed::Feed;
use shared::embedded::{LocalSecrets, SqliteTable};
use shared::http::{AppState, service_router};
use shared::ports::Ports;
use shared::ports::clock::ManualClock;
use shared::ports::email::{Email, EmailError, Mailer, OutgoingEmail};
use shared::secrets_key::SecretsKey;

/// An email port that keeps every message.
#[derive(Default)]
pub struct Kept(Mutex<Vec<OutgoingEmail>>);

#[async_trait]
impl Email for Kept {
    async fn send(&self, message: &OutgoingEmail) -> Result<String, EmailError> {
        self.0.lock().unwrap().push(message.clone());
        Ok("<kept@test>".into())
    }
}

impl Kept {
    /// The link to `path` in the last message to `to`.
    pub fn link(&self, to: &str, path: &str) -> String {
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

    /// Every link to `path` sent to `to`, oldest first.
    pub fn links(&self, to: &str, path: &str) -> Vec<String> {
        let sent = self.0.lock().unwrap();
        sent.iter()
            .filter(|m| m.to == [to.to_string()])
            .filter_map(|m| {
                let rest = &m.text[m.text.find(path)?..];
                Some(rest[..rest.find(char::is_whitespace).unwrap_or(rest.len())].to_string())
            })
            .collect()
    }

    /// Every absolute link (`http://…`, `https://…`) of the messages to `to`.
    pub fn links_to(&self, to: &str) -> Vec<String> {
        let sent = self.0.lock().unwrap();
        sent.iter()
            .filter(|m| m.to == [to.to_string()])
            .flat_map(|m| {
                m.text
                    .split_whitespace()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|word| word.starts_with("http://") || word.starts_with("https://"))
            .collect()
    }

    pub fn count_to(&self, to: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.to == [to.to_string()])
            .count()
    }
}

pub struct App {
    pub router: Router,
    pub mail: Arc<Kept>,
    pub ports: Ports,
    pub clock: Arc<ManualClock>,
    feed: Feed,
    _dir: tempfile::TempDir,
}

impl App {
    /// Sends the letters posted since the last call (the feed's `mail` items).
    pub async fn deliver_letters(&self) {
        const READER: &str = "test-letters";
        let from = self.feed.checkpoint(READER).await.unwrap();
        let records = self.feed.after(from, 1000).await.unwrap();
        for record in &records {
            if record.item.s("entity") == Some(postbox::ENTITY) {
                postbox::deliver(&self.ports, &record.item).await.unwrap();
            }
        }
        if let Some(last) = records.last() {
            self.feed.save_checkpoint(READER, last.seq).await.unwrap();
        }
    }
}

pub fn app_with(config: Config) -> App {
    app_with_ports(config, |ports| ports)
}

/// The application on ports changed by `adjust` (another webhook sender, …).
pub fn app_with_ports(config: Config, adjust: impl FnOnce(Ports) -> Ports) -> App {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new("2026-11-21T10:00:00Z".parse().unwrap()));
    let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
    let feed = table.feed();
    let mail = Arc::new(Kept::default());
    let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
    let ports = adjust(
        shared::adapters::ports(Arc::new(table), clock.clone())
            .with_mailer(Mailer {
                email: mail.clone(),
                from: "svc <app@svc.test>".into(),
            })
            .with_secrets(Arc::new(LocalSecrets::new(key))),
    );
    let state = AppState::new(ports.clone(), config);
    App {
        router: shared::web::beside(service_router(state.clone()), state),
        mail,
        ports,
        clock,
        feed,
        _dir: dir,
    }
}

pub fn app() -> App {
    app_with(Config::default())
}

/// A browser: keeps cookies, sends the Host it was given.
pub struct Browser<'a> {
    pub app: &'a App,
    pub host: &'static str,
    pub cookies: HashMap<String, String>,
}

pub struct Page {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub html: String,
    /// The body as sent (a PDF's bytes).
    pub bytes: Vec<u8>,
}

impl Page {
    pub fn location(&self) -> &str {
        self.headers
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The value of the first hidden `_csrf` field.
    pub fn csrf(&self) -> String {
        let at = self
            .html
            .find("name=\"_csrf\" value=\"")
            .expect("a form with its token")
            + 20;
        self.html[at..at + 64].to_string()
    }
}

impl<'a> Browser<'a> {
    pub fn new(app: &'a App) -> Self {
        Browser {
            app,
            host: "127.0.0.1:8080",
            cookies: HashMap::new(),
        }
    }

    pub async fn send(&mut self, req: axum::http::request::Builder, body: Body) -> Page {
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
        self.app.deliver_letters().await;
        Page {
            status,
            headers,
            html: String::from_utf8_lossy(&bytes).into_owned(),
            bytes: bytes.to_vec(),
        }
    }

    pub async fn get(&mut self, path: &str) -> Page {
        self.send(Request::get(path), Body::empty()).await
    }

    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let body: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let req =
            Request::post(path).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        self.send(req, Body::from(body)).await
    }

    /// Sends a multipart form (`fields`, then one file) to `action`.
    pub async fn post_file(
        &mut self,
        action: &str,
        fields: &[(&str, &str)],
        file: (&str, &str, &[u8]),
    ) -> Page {
        let boundary = "svc-test-boundary-7d2f";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes());
        }
        let (name, filename, bytes) = file;
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: application/x-pkcs12\r\n\r\n").as_bytes());
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let req = Request::post(action).header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={boundary}"),
        );
        self.send(req, Body::from(body)).await
    }

    /// Sends a multipart form (`fields`, then every file as `(field, file
    /// name, content type, bytes)`) to `action`.
    pub async fn post_files(
        &mut self,
        action: &str,
        fields: &[(&str, &str)],
        files: &[(&str, &str, &str, &[u8])],
    ) -> Page {
        let boundary = "svc-test-boundary-7d2f";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes());
        }
        for (name, filename, content_type, bytes) in files {
            body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n\r\n").as_bytes());
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let req = Request::post(action).header(
            header::CONTENT_TYPE,
            format!("multipart/form-data; boundary={boundary}"),
        );
        self.send(req, Body::from(body)).await
    }

    /// Opens the form at `form_path` and sends it with its token and `fields`.
    pub async fn submit(&mut self, form_path: &str, action: &str, fields: &[(&str, &str)]) -> Page {
        let token = self.get(form_path).await.csrf();
        let mut all = vec![("_csrf", token.as_str())];
        all.extend_from_slice(fields);
        self.post(action, &all).await
    }

    /// Signs up, follows the emailed link, and signs in.
    pub async fn sign_up_and_in(&mut self, business: &str, email: &str) {
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

    /// Takes the last invitation emailed to the signed-in person's `email`.
    pub async fn take_invitation(&mut self, email: &str) -> Page {
        let link = self.app.mail.link(email, "/invitation?token=");
        let path = link[link.find("/invitation").unwrap()..].to_string();
        let token = path.trim_start_matches("/invitation?token=").to_string();
        self.submit(&path, "/invitation", &[("token", &token)])
            .await
    }

    /// A new browser of `email`, signed up, invited by `owner` and joined to
    /// the owner's account.
    pub async fn member_of(&mut self, email: &str) -> Browser<'a> {
        let mut member = Browser::new(self.app);
        member.sign_up_and_in("Por unirse", email).await;
        let invited = self
            .submit("/members", "/members", &[("email", email)])
            .await;
        assert_eq!(invited.status, StatusCode::OK, "{}", invited.html);
        let joined = member.take_invitation(email).await;
        assert_eq!(joined.status, StatusCode::SEE_OTHER, "{}", joined.html);
        member
    }

    pub async fn sign_in(&mut self, email: &str, password: &str) -> Page {
        self.submit(
            "/sign-in",
            "/sign-in",
            &[("email", email), ("password", password), ("next", "/")],
        )
        .await
    }

    /// Creates a key of `mode` on the Keys page; the key shown once.
    pub async fn create_key(&mut self, mode: &str) -> String {
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

pub async fn api_status(app: &App, key: &str) -> StatusCode {
    let req = Request::get("/api/v1/usage")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap();
    app.router.clone().oneshot(req).await.unwrap().status()
}

impl Page {
    /// The id in the first revoke form of the Keys page.
    pub fn first_key_id(&self) -> String {
        let at = self
            .html
            .find("/developers/keys/key_")
            .expect("a key to revoke")
            + "/developers/keys/".len();
        self.html[at..at + self.html[at..].find('/').unwrap()].to_string()
    }

    pub fn csrf_or_empty(&self) -> String {
        if self.html.contains("name=\"_csrf\"") {
            self.csrf()
        } else {
            String::new()
        }
    }
}

/// Issuer details the business page accepts (a Cáceres SL).
pub const ISSUER: [(&str, &str); 6] = [
    ("name", "Taller Ana SL"),
    ("nif", "B64717838"),
    ("address", "Calle Real 4"),
    ("postal_code", "10003"),
    ("city", "Cáceres"),
    ("country", "ES"),
];

pub async fn with_issuer<'a>(app: &'a App, email: &str) -> Browser<'a> {
    let mut browser = Browser::new(app);
    browser.sign_up_and_in("Taller Ana", email).await;
    let saved = browser.submit("/business", "/business", &ISSUER).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.html);
    browser
}

pub const LINE: [(&str, &str); 11] = [
    ("mode", "test"),
    ("lines", "1"),
    ("customer.name", "Bar Lola SL"),
    ("customer.tax_id", "B10000024"),
    ("customer.address", "Plaza Mayor 1"),
    ("customer.postal_code", "10001"),
    ("customer.city", "Cáceres"),
    ("lines[0].description", "Reparación"),
    ("lines[0].quantity", "2"),
    ("lines[0].unit_price", "50,00"),
    ("lines[0].vat_rate", "21"),
];

/// Moves the account of `email` to the Pro plan (live keys, live pages).
pub async fn on_pro(app: &App, email: &str) {
    let person = shared::app::people::store::by_email(&app.ports, &email.parse().unwrap())
        .await
        .unwrap()
        .expect("signed up");
    shared::app::accounts::set_plan(
        &app.ports,
        &person.account_id,
        shared::domain::account::Plan::Pro,
    )
    .await
    .unwrap();
}
