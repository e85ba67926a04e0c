//! The application's business and invoice pages over HTTP, in-process:
//! issuer details with their errors beside the fields, the certificate
//! upload with the CLI's messages, issuing on the web (errors beside the
//! field the API names, a double submit issuing once), the list and its
//! filters, one invoice with its PDF and e-invoices, the actions, and
//! another account's invoice as a 404.

use axum::http::StatusCode;

use shared::verifactu::certificate_fixture::Fixture;

use crate::support::web::{Browser, ISSUER, LINE, app, on_pro, with_issuer};

#[tokio::test]
async fn issuer_details_are_checked_beside_their_fields_and_saved() {
    let app = app();
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let mut bad = ISSUER.to_vec();
    bad[1] = ("nif", "B64717839");
    bad[0] = ("name", "");
    let page = browser.submit("/business", "/business", &bad).await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.html.contains("id=\"nif-error\"") && page.html.contains("id=\"name-error\""),
        "{}",
        page.html
    );
    assert!(
        page.html.contains("value=\"B64717839\""),
        "typed values come back"
    );
    let saved = browser.submit("/business", "/business", &ISSUER).await;
    assert_eq!(saved.location(), "/business?saved=1");
    let page = browser.get("/business?saved=1").await;
    assert!(
        page.html.contains("Datos guardados") && page.html.contains("value=\"B64717838\""),
        "{}",
        page.html
    );

    let mut other = Browser::new(&app);
    other.sign_up_and_in("Otro", "eva@example.com").await;
    let taken = other.submit("/business", "/business", &ISSUER).await;
    assert_eq!(taken.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        taken.html.contains("Otra cuenta ya emite con este NIF"),
        "{}",
        taken.html
    );
}

#[tokio::test]
async fn the_certificate_upload_refuses_a_wrong_password_with_the_clis_message() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let p12 = Fixture::person().pkcs12("clave del certificado");
    let token = browser.get("/business").await.csrf();
    let wrong = browser
        .post_file(
            "/business/certificate",
            &[("_csrf", &token), ("password", "otra")],
            ("p12", "ana.p12", &p12),
        )
        .await;
    assert_eq!(wrong.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        wrong
            .html
            .contains("the password does not open this PKCS#12 file"),
        "{}",
        wrong.html
    );
    let no_token = browser
        .post_file(
            "/business/certificate",
            &[("password", "clave del certificado")],
            ("p12", "ana.p12", &p12),
        )
        .await;
    assert_eq!(no_token.status, StatusCode::FORBIDDEN);
    let stored = browser
        .post_file(
            "/business/certificate",
            &[("_csrf", &token), ("password", "clave del certificado")],
            ("p12", "ana.p12", &p12),
        )
        .await;
    assert_eq!(stored.status, StatusCode::OK, "{}", stored.html);
    assert!(
        stored.html.contains("Certificado guardado") && stored.html.contains("Válido hasta"),
        "{}",
        stored.html
    );
    assert!(browser.get("/").await.html.contains("caduca el"));
    let removed = browser
        .submit(
            "/business",
            "/business/certificate/remove",
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER);
    assert!(
        browser
            .get("/business")
            .await
            .html
            .contains("No hay certificado")
    );
}

#[tokio::test]
async fn an_invoice_is_issued_on_the_web_once_listed_and_downloaded() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let form = browser.get("/invoices/new").await;
    assert_eq!(form.status, StatusCode::OK);
    let mut fields = vec![("_csrf", form.csrf()), ("_idem", "web-test-1".to_string())];
    fields.extend(LINE.iter().map(|(k, v)| (*k, v.to_string())));
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let issued = browser.post("/invoices/new", &fields).await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    let location = issued.location().to_string();
    assert!(location.starts_with("/invoices/1?mode=test"), "{location}");
    let again = browser.post("/invoices/new", &fields).await;
    assert_eq!(again.location(), location, "a double submit issues once");

    let page = browser.get(&location).await;
    assert!(
        page.html.contains("TEST-F2026-000001") && page.html.contains("121"),
        "{}",
        page.html
    );
    let list = browser.get("/invoices?mode=test").await;
    assert!(list.html.contains("TEST-F2026-000001") && list.html.contains("Bar Lola SL"));
    assert_eq!(
        list.html.matches("/invoices/1?mode=test").count(),
        1,
        "one invoice"
    );
    let filtered = browser.get("/invoices?mode=test&status=cancelled").await;
    assert!(!filtered.html.contains("TEST-F2026-000001"));

    let pdf = browser.get("/invoices/1/pdf?mode=test").await;
    assert_eq!(pdf.status, StatusCode::OK);
    assert_eq!(pdf.headers.get("content-type").unwrap(), "application/pdf");
    assert!(pdf.html.starts_with("%PDF"));
    let preview = browser.get("/invoices/1/pdf?mode=test&inline=1").await;
    assert!(
        preview
            .headers
            .get("content-security-policy")
            .unwrap()
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'self'")
    );
    let xml = browser
        .get("/invoices/1/xml?mode=test&format=facturae")
        .await;
    assert_eq!(xml.status, StatusCode::OK);
    assert!(
        xml.html.contains("Facturae"),
        "{}",
        &xml.html[..200.min(xml.html.len())]
    );

    let paid = browser
        .submit(
            &location,
            "/invoices/1/status",
            &[("mode", "test"), ("status", "paid")],
        )
        .await;
    assert_eq!(paid.status, StatusCode::SEE_OTHER);
    assert!(browser.get(&location).await.html.contains("pagada"));

    // D6, D13: the page's rectification credits what is left, shown before
    // it is issued; once credited in full it offers none.
    let page = browser.get(&location).await;
    assert!(
        page.html.contains("<strong>121,00 €</strong>"),
        "{}",
        page.html
    );
    let credited = browser
        .submit(
            &location,
            "/invoices/1/rectify",
            &[
                ("mode", "test"),
                ("reason_code", "R1"),
                ("method", "differences"),
                ("description", "Anulación"),
            ],
        )
        .await;
    assert_eq!(credited.status, StatusCode::SEE_OTHER, "{}", credited.html);
    let page = browser.get(&location).await;
    assert!(
        page.html.contains("Rectificada por completo"),
        "{}",
        page.html
    );
    assert!(page.html.contains("-121,00 €"), "{}", page.html);
    assert!(!page.html.contains("/invoices/1/rectify"));
    let unconfirmed = browser
        .submit(&location, "/invoices/1/cancel", &[("mode", "test")])
        .await;
    assert_eq!(unconfirmed.status, StatusCode::SEE_OTHER);
    assert!(!browser.get(&location).await.html.contains(">anulada<"));
}

#[tokio::test]
async fn the_apis_refusal_is_shown_beside_the_field_it_names() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let mut fields: Vec<(&str, &str)> = LINE.to_vec();
    fields[3] = ("customer.tax_id", "B10000025");
    let page = browser
        .submit("/invoices/new", "/invoices/new", &fields)
        .await;
    assert_eq!(
        page.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        page.html
    );
    assert!(
        page.html.contains("id=\"customer-tax_id-error\""),
        "{}",
        page.html
    );
    assert!(
        page.html.contains("value=\"Bar Lola SL\""),
        "typed values come back"
    );
    let more = browser
        .submit(
            "/invoices/new",
            "/invoices/new",
            &[("mode", "test"), ("lines", "1"), ("add_line", "1")],
        )
        .await;
    assert!(more.html.contains("lines[1].description"), "a second line");
}

#[tokio::test]
async fn another_accounts_invoice_is_not_found() {
    let app = app();
    let mut owner = with_issuer(&app, "ana@example.com").await;
    let issued = owner.submit("/invoices/new", "/invoices/new", &LINE).await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    let mut stranger = Browser::new(&app);
    stranger.sign_up_and_in("Otro", "eva@example.com").await;
    assert_eq!(
        stranger.get("/invoices/1?mode=test").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        stranger.get("/invoices/1/pdf?mode=test").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        stranger.get("/invoices/nope").await.status,
        StatusCode::NOT_FOUND
    );
    let cancel = stranger
        .submit(
            "/invoices",
            "/invoices/1/cancel",
            &[("mode", "test"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(cancel.status, StatusCode::NOT_FOUND);
    assert!(
        owner
            .get("/invoices/1?mode=test")
            .await
            .html
            .contains("TEST-F2026-000001")
    );
}

#[tokio::test]
async fn customers_are_created_searched_edited_and_deleted_on_the_web() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let customer = [
        ("mode", "test"),
        ("name", "Bar Lola SL"),
        ("tax_id", "B10000024"),
        ("city", "Cáceres"),
        ("country", "ES"),
    ];
    let mut bad = customer.to_vec();
    bad[2] = ("tax_id", "B10000025");
    let refused = browser
        .submit("/customers/new?mode=test", "/customers/new", &bad)
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused.html.contains("id=\"tax_id-error\""),
        "{}",
        refused.html
    );
    let created = browser
        .submit("/customers/new?mode=test", "/customers/new", &customer)
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.html);
    let other = [("mode", "test"), ("name", "Taller Eva"), ("country", "ES")];
    browser
        .submit("/customers/new?mode=test", "/customers/new", &other)
        .await;
    let found = browser.get("/customers?mode=test&q=lola").await;
    assert!(
        found.html.contains("Bar Lola SL") && !found.html.contains("Taller Eva"),
        "{}",
        found.html
    );
    let at = found.html.find("/customers/cus_").expect("a customer link") + "/customers/".len();
    let id = found.html[at..at + found.html[at..].find('?').unwrap()].to_string();
    let path = format!("/customers/{id}?mode=test");
    let edited = browser
        .submit(
            &path,
            &format!("/customers/{id}"),
            &[
                ("mode", "test"),
                ("name", "Bar Lola e Hijos SL"),
                ("tax_id", "B10000024"),
                ("country", "ES"),
            ],
        )
        .await;
    assert_eq!(edited.status, StatusCode::SEE_OTHER, "{}", edited.html);
    assert!(
        browser
            .get(&path)
            .await
            .html
            .contains("Bar Lola e Hijos SL")
    );
    assert!(
        browser
            .get("/invoices/new?mode=test")
            .await
            .html
            .contains("Bar Lola e Hijos SL"),
        "the issue form offers the book"
    );
    let mut stranger = Browser::new(&app);
    stranger.sign_up_and_in("Otro", "eva@example.com").await;
    assert_eq!(stranger.get(&path).await.status, StatusCode::NOT_FOUND);
    let deleted = browser
        .submit(
            &path,
            &format!("/customers/{id}/delete"),
            &[("mode", "test"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert!(
        !browser
            .get("/customers?mode=test")
            .await
            .html
            .contains("Bar Lola")
    );
}

#[tokio::test]
async fn on_pro_the_overview_counts_the_live_records_by_their_aeat_status() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    assert!(
        !browser.get("/").await.html.contains("Registros VERI*FACTU"),
        "Mini has no live records"
    );
    on_pro(&app, "ana@example.com").await;
    let mut live = LINE.to_vec();
    live[0] = ("mode", "live");
    let issued = browser
        .submit("/invoices/new?mode=live", "/invoices/new", &live)
        .await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    assert!(issued.location().starts_with("/invoices/1?mode=live"));
    let overview = browser.get("/").await.html;
    let row = overview
        .find("Pendientes de envío</th><td>")
        .expect("the summary")
        + "Pendientes de envío</th><td>".len();
    assert_eq!(&overview[row..row + 1], "1", "{overview}");
}

#[tokio::test]
async fn series_are_managed_on_the_web_and_chosen_when_issuing() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let page = browser.get("/business/series?mode=test").await;
    assert!(
        page.html.contains("TEST-F2026-000001"),
        "the builtin series and its next number: {}",
        page.html
    );
    let bad = browser
        .submit(
            "/business/series?mode=test",
            "/business/series",
            &[("mode", "test"), ("code", "t1"), ("purpose", "ordinary")],
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.html.contains("id=\"code-error\""), "{}", bad.html);
    let created = browser
        .submit(
            "/business/series?mode=test",
            "/business/series",
            &[
                ("mode", "test"),
                ("code", "TA"),
                ("purpose", "ordinary"),
                ("yearly_restart", "yes"),
            ],
        )
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", created.html);
    let spare = browser
        .submit(
            "/business/series?mode=test",
            "/business/series",
            &[
                ("mode", "test"),
                ("code", "TB"),
                ("purpose", "ordinary"),
                ("yearly_restart", "yes"),
            ],
        )
        .await;
    assert_eq!(spare.status, StatusCode::SEE_OTHER);

    let mut fields = LINE.to_vec();
    fields.push(("series", "TA"));
    let issued = browser
        .submit("/invoices/new?mode=test", "/invoices/new", &fields)
        .await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    assert!(
        browser
            .get(issued.location())
            .await
            .html
            .contains("TEST-TA2026-000001")
    );
    let page = browser.get("/business/series?mode=test").await;
    assert!(
        !page.html.contains("/business/series/TA/delete"),
        "a series with invoices cannot be deleted"
    );
    assert!(page.html.contains("/business/series/TB/delete"));
    let deleted = browser
        .submit(
            "/business/series?mode=test",
            "/business/series/TB/delete",
            &[("mode", "test"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER, "{}", deleted.html);
    assert!(
        !browser
            .get("/business/series?mode=test")
            .await
            .html
            .contains(">TB<")
    );
}

#[tokio::test]
async fn an_invoice_is_emailed_from_its_page_and_a_test_invoice_only_says_what_would_go() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let mut fields = LINE.to_vec();
    fields.push(("customer.email", "lola@example.com"));
    let issued = browser
        .submit("/invoices/new?mode=test", "/invoices/new", &fields)
        .await;
    let path = issued.location().to_string();
    let simulated = browser
        .submit(
            &path,
            "/invoices/1/send",
            &[("mode", "test"), ("format", "facturae")],
        )
        .await;
    assert_eq!(simulated.status, StatusCode::OK, "{}", simulated.html);
    assert!(
        simulated.html.contains("no se ha enviado nada")
            && simulated.html.contains("lola@example.com"),
        "{}",
        simulated.html
    );
    assert_eq!(app.mail.count_to("lola@example.com"), 0);

    on_pro(&app, "ana@example.com").await;
    let mut live = fields.clone();
    live[0] = ("mode", "live");
    let issued = browser
        .submit("/invoices/new?mode=live", "/invoices/new", &live)
        .await;
    let path = issued.location().to_string();
    let sent = browser
        .submit(
            &path,
            "/invoices/1/send",
            &[("mode", "live"), ("format", "ubl")],
        )
        .await;
    assert!(
        sent.html.contains("Enviada a lola@example.com"),
        "{}",
        sent.html
    );
    assert_eq!(app.mail.count_to("lola@example.com"), 1);
    assert!(
        browser.get(&path).await.html.contains("sent"),
        "the send is in the history"
    );
}

#[tokio::test]
async fn a_payment_term_over_60_days_is_issued_with_a_warning_in_spanish() {
    let app = app();
    let mut browser = with_issuer(&app, "ana@example.com").await;
    let form = browser.get("/invoices/new").await;
    let today = chrono::Utc::now().date_naive();
    let due = (today + chrono::Days::new(90)).to_string();
    let mut fields = vec![
        ("_csrf", form.csrf()),
        ("_idem", "web-warning-1".to_string()),
        ("due_date", due),
    ];
    fields.extend(LINE.iter().map(|(k, v)| (*k, v.to_string())));
    let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let issued = browser.post("/invoices/new", &fields).await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    let page = browser.get(issued.location()).await;
    assert!(
        page.html.contains("Avisos")
            && page
                .html
                .contains("no puede superar 60 días naturales (art. 4.3 Ley 3/2004)"),
        "{}",
        page.html
    );
}
