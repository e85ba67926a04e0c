//! The application's extraction page over HTTP, in-process: it renders
//! for a signed-in person; an extraction of a real PDF and a Facturae file
//! shows their fields and checks, a sixth file and files over the body the
//! API takes are refused beside the field; a form without its token is a 403.

use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;

use shared::app::{accounts, people};
use shared::domain::account::Plan;

use crate::support::web::{App, Browser, app};

/// A valid 1×1 PNG (the one `extraction_api` sends).
const PNG_1X1_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn png() -> Vec<u8> {
    B64.decode(PNG_1X1_B64).unwrap()
}

const ISSUER: [(&str, &str); 6] = [
    ("name", "Taller Ana SL"),
    ("nif", "B64717838"),
    ("address", "Calle Real 4"),
    ("postal_code", "10003"),
    ("city", "Cáceres"),
    ("country", "ES"),
];

const LINE: [(&str, &str); 11] = [
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
async fn on_pro(app: &App, email: &str) {
    let person = people::store::by_email(&app.ports, &email.parse().unwrap())
        .await
        .unwrap()
        .expect("signed up");
    accounts::set_plan(&app.ports, &person.account_id, Plan::Pro)
        .await
        .unwrap();
}

async fn signed_in<'a>(app: &'a App, email: &str) -> Browser<'a> {
    let mut browser = Browser::new(app);
    browser.sign_up_and_in("Taller Ana", email).await;
    browser
}

fn golden(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/golden/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[tokio::test]
async fn every_page_renders_for_a_signed_in_person() {
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    for (path, heading) in [("/extraction", "Extracción de facturas")] {
        let page = browser.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}: {}", page.html);
        assert!(
            page.html.contains(&format!("<h1>{heading}</h1>")),
            "{path}: {}",
            page.html
        );
    }
    let form = browser.get("/extraction").await;
    assert!(
        form.html
            .contains("Hasta 5 archivos PDF, JPG, PNG o WebP (o facturas electrónicas XML)"),
        "the limits are beside the field: {}",
        form.html
    );
    assert!(form.html.contains("Modo de prueba"), "Mini is test mode");
    let signed_out = Browser::new(&app).get("/extraction").await;
    assert_eq!(signed_out.status, StatusCode::SEE_OTHER);
    assert!(signed_out.location().starts_with("/sign-in"));
}

#[tokio::test]
async fn a_real_pdf_and_a_facturae_file_show_their_fields_and_checks() {
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let saved = browser.submit("/business", "/business", &ISSUER).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.html);
    let issued = browser
        .submit("/invoices/new", "/invoices/new", &LINE)
        .await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    let pdf = browser.get("/invoices/1/pdf?mode=test").await;
    assert!(pdf.bytes.starts_with(b"%PDF"));
    on_pro(&app, "ana@example.com").await;

    let token = browser.get("/extraction").await.csrf();
    let facturae = golden("facturae/one_rate.xml");
    let page = browser
        .post_files(
            "/extraction",
            &[("_csrf", &token), ("mode", "live")],
            &[
                ("files", "factura.pdf", "application/pdf", &pdf.bytes),
                ("files", "one_rate.xml", "text/xml", &facturae),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    let html = &page.html;
    assert!(
        html.contains("Facturas leídas: 2. Archivos sin leer: 0."),
        "{html}"
    );
    assert!(
        html.contains("<h2 id=\"invoice-0\">factura.pdf</h2>"),
        "{html}"
    );
    assert!(
        html.contains("<h2 id=\"invoice-1\">one_rate.xml</h2>"),
        "{html}"
    );
    assert!(html.contains("Datos extraídos") && html.contains("Comprobaciones"));
    assert!(
        html.contains("texto del PDF") && html.contains("Facturae"),
        "{html}"
    );
    assert!(
        html.contains("B64717838") && html.contains("B10000024"),
        "the issuer and the customer read from the PDF: {html}"
    );
    assert!(html.contains("<td>121"), "the total: {html}");
    assert!(
        html.contains("<th scope=\"row\">Los importes cuadran</th><td><strong class=\"passed\">Correcta</strong>"),
        "{html}"
    );
    assert!(
        !html.contains("Datos de muestra"),
        "live mode reads the files"
    );
}

#[tokio::test]
async fn test_mode_checks_the_files_and_answers_sample_data() {
    let png = png();
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let token = browser.get("/extraction").await.csrf();
    let page = browser
        .post_files(
            "/extraction",
            &[("_csrf", &token), ("mode", "test")],
            &[
                ("files", "foto.png", "image/png", png.as_slice()),
                ("files", "notas.txt", "text/plain", b"nada que leer"),
            ],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.html
            .contains("«notas.txt» no es un PDF, JPG, PNG, WebP ni una factura electrónica XML."),
        "{}",
        page.html
    );
    let page = browser
        .post_files(
            "/extraction",
            &[("_csrf", &token), ("mode", "test")],
            &[("files", "foto.png", "image/png", png.as_slice())],
        )
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    assert!(page.html.contains("Datos de muestra (modo de prueba)."));
    assert!(page.html.contains("Datos extraídos") && page.html.contains("Comprobaciones"));
}

#[tokio::test]
async fn a_sixth_file_and_files_over_the_body_limit_are_refused_beside_the_field() {
    let png = png();
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let token = browser.get("/extraction").await.csrf();
    let six: Vec<(&str, &str, &str, &[u8])> = (0..6)
        .map(|_| ("files", "foto.png", "image/png", png.as_slice()))
        .collect();
    let page = browser
        .post_files("/extraction", &[("_csrf", &token), ("mode", "test")], &six)
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.html.contains(
            "<small id=\"files-error\" class=\"error\">Como mucho 5 archivos por envío; has elegido 6. Envía el resto en otro.</small>"
        ),
        "{}",
        page.html
    );
    assert!(page.html.contains("aria-invalid=\"true\""));

    let mut large = b"%PDF-1.7\n".to_vec();
    large.resize(5 * 1024 * 1024, b' ');
    let page = browser
        .post_files(
            "/extraction",
            &[("_csrf", &token), ("mode", "test")],
            &[("files", "grande.pdf", "application/pdf", &large)],
        )
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.html.contains("Los archivos suman 5,0 MB, más de los"),
        "{}",
        page.html
    );

    large.resize(7 * 1024 * 1024, b' ');
    let page = browser
        .post_files(
            "/extraction",
            &[("_csrf", &token), ("mode", "test")],
            &[("files", "enorme.pdf", "application/pdf", &large)],
        )
        .await;
    assert_eq!(page.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(page.html.contains("Los archivos pasan de"), "{}", page.html);
}

#[tokio::test]
async fn forms_without_their_token_are_refused() {
    let png = png();
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let page = browser
        .post_files(
            "/extraction",
            &[("mode", "test")],
            &[("files", "foto.png", "image/png", png.as_slice())],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    let page = browser
        .post_files(
            "/extraction",
            &[("_csrf", "not-the-token"), ("mode", "test")],
            &[("files", "foto.png", "image/png", png.as_slice())],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
}
