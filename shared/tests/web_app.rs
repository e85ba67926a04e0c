//! The web application over HTTP, in-process on the embedded engine, with a
//! small cookie-keeping client and an email port that keeps what it sends:
//! sign-up to a working API key, the CSRF token and Origin checks, sign-in
//! throttling, the owner-only pages, another account's key, the cookies and
//! headers on a public host. The same flows in a real browser:
//! `.ci/web_browser.py`.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use tower::ServiceExt;

use shared::app::people::throttle;
use shared::config::Config;

use crate::support::web::{Browser, api_status, app, app_with};

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
    let with_path_parameter = Request::get("/api/v1/customers/cus_0123")
        .header(header::AUTHORIZATION, format!("Bearer {key}"))
        .body(Body::empty())
        .unwrap();
    let response = app
        .router
        .clone()
        .oneshot(with_path_parameter)
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::NOT_FOUND,
        "the API's own answer beside the application"
    );
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
async fn the_keys_page_refuses_a_21st_active_key_beside_the_form() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    for _ in 0..20 {
        browser.create_key("test").await;
    }
    let refused = browser
        .submit("/developers/keys", "/developers/keys", &[("mode", "test")])
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT);
    assert!(
        refused.html.contains("role=\"alert\"") && refused.html.contains("20"),
        "{}",
        refused.html
    );
    assert!(!refused.html.contains("id=\"new-key\""));
    let key_id = refused.first_key_id();
    let revoked = browser
        .submit(
            "/developers/keys",
            &format!("/developers/keys/{key_id}/revoke"),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(revoked.status, StatusCode::SEE_OTHER);
    let key = browser.create_key("test").await;
    assert_eq!(api_status(&app, &key).await, StatusCode::OK);
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
    for _ in 0..throttle::SIGN_IN_ADDRESS.max {
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

    // The owner's own browser, where she signed in before, is not locked out.
    let out = browser.submit("/", "/sign-out", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    let again = browser.sign_in("ana@example.com", "una frase larga").await;
    assert_eq!(again.status, StatusCode::SEE_OTHER, "{}", again.html);
}

#[tokio::test]
async fn signing_in_again_replaces_the_session_and_a_reset_ends_every_session_and_link() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let first = browser.cookies["svc_session"].clone();
    let again = browser
        .submit(
            "/",
            "/sign-in",
            &[
                ("email", "ana@example.com"),
                ("password", "una frase larga"),
                ("next", "/"),
            ],
        )
        .await;
    assert_eq!(again.status, StatusCode::SEE_OTHER, "{}", again.html);
    let second = browser.cookies["svc_session"].clone();
    assert_ne!(first, second, "sign-in rotates the session id");
    let mut replay = Browser::new(&app);
    replay.cookies.insert("svc_session".into(), first);
    assert_eq!(
        replay.get("/developers/keys").await.status,
        StatusCode::SEE_OTHER,
        "the earlier session ended"
    );

    let mut stranger = Browser::new(&app);
    for _ in 0..2 {
        stranger
            .submit("/forgot", "/forgot", &[("email", "ana@example.com")])
            .await;
    }
    let second_link = app.mail.link("ana@example.com", "/reset?token=");
    let second_token = second_link.rsplit("token=").next().unwrap().to_string();
    let set = stranger
        .submit(
            &second_link[second_link.find("/reset").unwrap()..],
            "/reset",
            &[("token", &second_token), ("password", "frase nueva larga")],
        )
        .await;
    assert!(set.html.contains("Contraseña guardada"), "{}", set.html);
    assert_eq!(
        browser.get("/developers/keys").await.status,
        StatusCode::SEE_OTHER,
        "a reset ends every session"
    );
    let sent = app.mail.links("ana@example.com", "/reset?token=");
    assert_eq!(sent.len(), 2);
    let first_token = sent[0].rsplit("token=").next().unwrap();
    let old = stranger.get(&format!("/reset?token={first_token}")).await;
    assert_eq!(old.status, StatusCode::NOT_FOUND, "earlier reset links end");
}

#[tokio::test]
async fn invitations_reserve_nothing_and_are_taken_by_their_address_once_signed_in() {
    let app = app();
    let mut owner = Browser::new(&app);
    owner.sign_up_and_in("Taller Ana", "ana@example.com").await;
    Browser::new(&app)
        .sign_up_and_in("Otro", "luz@example.com")
        .await;
    let known = owner
        .submit("/members", "/members", &[("email", "luz@example.com")])
        .await;
    let unknown = owner
        .submit("/members", "/members", &[("email", "eva@example.com")])
        .await;
    assert_eq!(known.status, unknown.status);
    assert!(
        unknown.html.contains("Invitación enviada"),
        "{}",
        unknown.html
    );
    assert!(
        unknown.html.contains("eva@example.com"),
        "listed as pending"
    );

    // The address is free: Eva signs up on her own, then takes the offer.
    let link = app.mail.link("eva@example.com", "/invitation?token=");
    let path = link[link.find("/invitation").unwrap()..].to_string();
    let token = path.trim_start_matches("/invitation?token=").to_string();
    let mut member = Browser::new(&app);
    let offer = member.get(&path).await;
    assert!(offer.html.contains("Taller Ana"), "{}", offer.html);
    assert!(offer.html.contains("ana@example.com"), "the owner is named");
    assert!(
        !offer.html.contains("action=\"/invitation\""),
        "sign in first"
    );
    member.sign_up_and_in("Eva", "eva@example.com").await;
    let offer = member.get(&path).await;
    assert!(offer.html.contains("Unirme a Taller Ana"), "{}", offer.html);
    let joined = member
        .submit(&path, "/invitation", &[("token", &token)])
        .await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER, "{}", joined.html);
    assert!(member.get("/").await.html.contains("Taller Ana"));
    assert_eq!(
        member.get("/developers/keys").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(member.get("/members").await.status, StatusCode::NOT_FOUND);

    // A withdrawn invitation's link stops working.
    let listed = owner
        .submit("/members", "/members", &[("email", "zoe@example.com")])
        .await;
    let row = listed
        .html
        .find("<td>zoe@example.com")
        .expect("zoe's invitation listed");
    let at = row + listed.html[row..].find("/members/invitations/").unwrap();
    let action = &listed.html[at..at + listed.html[at..].find('"').unwrap()];
    let withdrawn = owner.submit("/members", action, &[]).await;
    assert_eq!(
        withdrawn.status,
        StatusCode::SEE_OTHER,
        "{}",
        withdrawn.html
    );
    let link = app.mail.link("zoe@example.com", "/invitation?token=");
    let gone = Browser::new(&app)
        .get(&link[link.find("/invitation").unwrap()..])
        .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);

    owner.create_key("test").await;
    let owners_keys = owner.get("/developers/keys").await;
    let key_id = owners_keys.first_key_id();
    assert!(key_id.starts_with("key_"), "{key_id}");
    let mut stranger = Browser::new(&app);
    stranger.sign_up_and_in("Otro", "sol@example.com").await;
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
