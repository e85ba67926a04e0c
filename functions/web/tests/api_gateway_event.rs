//! The sample web events through the web function's router and lambda_http's
//! adapter, in-process, from the API Gateway domain the template allows: the
//! sign-up page is HTML with its CSP and sets the pre-sign-in CSRF cookie (in
//! the response's `cookies`); a sign-in form without its token is refused,
//! and with it and that cookie (in the event's `cookies`, as HTTP APIs send
//! them) it reaches the sign-in, which gives an unknown address its one
//! generic answer. Another Host is refused. Through the Lambda adapter, the
//! link a sign-up emails points at the API Gateway domain of the request
//! context, whatever Host the request carries.

use function_testing::{Scratch, invoke};
use serde_json::Value;
use shared::app::people::postbox;
use shared::config::Config;
use shared::domain::account::Plan;
use shared::http::AppState;

/// The CSRF token written in the sample sign-in event (cookie and form).
const PLACEHOLDER_TOKEN: &str = "0000000000000000000000000000000000000000000000000000000000000000";

const CSRF_COOKIE: &str = "__Host-svc_csrf=";

fn router(scratch: &Scratch, host: &str) -> axum::Router {
    let config = Config {
        public_hosts: vec![host.to_string()],
        ..Config::default()
    };
    shared::web::router(AppState::new(scratch.ports.clone(), config))
}

/// The value of the cookie the response sets under `prefix` (`name=`).
fn set_cookie<'a>(response: &'a Value, prefix: &str) -> &'a str {
    let cookies = response["cookies"]
        .as_array()
        .expect("the response's cookies");
    let cookie = cookies
        .iter()
        .filter_map(Value::as_str)
        .find(|c| c.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix} cookie: {response}"));
    assert!(
        cookie.contains("Secure") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    cookie[prefix.len()..].split(';').next().unwrap()
}

#[tokio::test]
async fn the_sample_events_get_the_sign_up_page_and_reach_the_sign_in() {
    let scratch = Scratch::new(Plan::Mini).await;
    let router = router(&scratch, "*.execute-api.eu-west-1.amazonaws.com");

    let page = invoke(&router, include_str!("../../../events/web-get.json")).await;
    assert_eq!(page["statusCode"], 200, "{page}");
    let headers = &page["headers"];
    assert!(
        headers["content-type"]
            .as_str()
            .unwrap()
            .starts_with("text/html"),
        "{headers}"
    );
    let csp = headers["content-security-policy"].as_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(
        headers["strict-transport-security"].is_string(),
        "{headers}"
    );
    let html = page["body"].as_str().unwrap();
    assert!(html.contains("name=\"_csrf\""), "{html}");
    let token = set_cookie(&page, CSRF_COOKIE);
    assert_eq!(token.len(), 64);
    assert!(html.contains(token), "the form carries the cookie's token");

    let sign_in = include_str!("../../../events/web-post.json");
    let without_token = sign_in
        .replacen(&format!("_csrf={PLACEHOLDER_TOKEN}&"), "", 1)
        .replace(PLACEHOLDER_TOKEN, token);
    let refused = invoke(&router, &without_token).await;
    assert_eq!(refused["statusCode"], 403, "{refused}");

    let with_token = sign_in.replace(PLACEHOLDER_TOKEN, token);
    let answered = invoke(&router, &with_token).await;
    assert_eq!(answered["statusCode"], 422, "{answered}");
    let html = answered["body"].as_str().unwrap();
    assert!(
        html.contains("El correo o la contraseña no son correctos."),
        "{html}"
    );
}

#[tokio::test]
async fn another_host_is_refused() {
    let scratch = Scratch::new(Plan::Mini).await;
    let router = router(&scratch, "app.example.com");
    let page = invoke(&router, include_str!("../../../events/web-get.json")).await;
    assert_eq!(page["statusCode"], 403, "{page}");
}

/// An email port that keeps the text of every message.
#[derive(Default)]
struct Kept(std::sync::Mutex<Vec<String>>);

#[async_trait::async_trait]
impl shared::ports::email::Email for Kept {
    async fn send(
        &self,
        message: &shared::ports::email::OutgoingEmail,
    ) -> Result<String, shared::ports::email::EmailError> {
        self.0.lock().unwrap().push(message.text.clone());
        Ok("<kept@test>".into())
    }
}

#[tokio::test]
async fn emailed_links_use_the_gateway_domain_not_the_host_header() {
    let scratch = Scratch::new(Plan::Mini).await;
    let kept = std::sync::Arc::new(Kept::default());
    let ports = scratch
        .ports
        .clone()
        .with_mailer(shared::ports::email::Mailer {
            email: kept.clone(),
            from: "svc <app@svc.test>".into(),
        });
    let config = Config {
        public_hosts: vec!["*.execute-api.eu-west-1.amazonaws.com".to_string()],
        ..Config::default()
    };
    let router = infra_aws::http_function::adapted(shared::web::router(AppState::new(
        ports.clone(),
        config,
    )));
    let page = invoke(&router, include_str!("../../../events/web-get.json")).await;
    let token = set_cookie(&page, CSRF_COOKIE).to_string();
    let other_host = "other.execute-api.eu-west-1.amazonaws.com";
    let sign_up = include_str!("../../../events/web-post.json")
        .replace(PLACEHOLDER_TOKEN, &token)
        .replace("/sign-in", "/sign-up")
        .replace("&next=%2F", "&business=Taller+Ana")
        .replace(
            "\"host\": \"abcdef1234.execute-api.eu-west-1.amazonaws.com\"",
            &format!("\"host\": \"{other_host}\""),
        );
    assert!(
        sign_up.contains(other_host),
        "the event's Host was replaced"
    );
    let answered = invoke(&router, &sign_up).await;
    assert_eq!(answered["statusCode"], 200, "{answered}");
    // The letter leaves through the outbox, as the dispatcher sends it.
    for record in scratch.feed.after(0, 100).await.unwrap() {
        if record.item.s("entity") == Some(postbox::ENTITY) {
            postbox::deliver(&ports, &record.item).await.unwrap();
        }
    }
    let sent = kept.0.lock().unwrap();
    let text = sent.last().expect("the confirmation email");
    assert!(
        text.contains("https://abcdef1234.execute-api.eu-west-1.amazonaws.com/verify?token="),
        "{text}"
    );
    assert!(!text.contains(other_host), "{text}");
}
