//! The application's extraction, analyses and taxes pages over HTTP,
//! in-process: every page renders for a signed-in person; an extraction of
//! a real PDF and a Facturae file shows their fields and checks, a sixth
//! file and files over the body the API takes are refused beside the field;
//! the cuestionario gives its report (kept in live mode, sample data in
//! test mode), the list shows it and another account's is a 404; the tax
//! page shows the deadlines and the quarter; a bad Modelo 130 amount comes
//! back beside its field; a form without its token is a 403.

use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;

use crate::support::web::{App, Browser, ISSUER, LINE, app, on_pro};

/// A valid 1×1 PNG (the one `extraction_api` sends).
const PNG_1X1_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn png() -> Vec<u8> {
    B64.decode(PNG_1X1_B64).unwrap()
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
    for (path, heading) in [
        ("/extraction", "Extracción de facturas"),
        ("/analyses", "Análisis"),
        ("/analyses/cuestionario", "Cuestionario del negocio"),
        ("/taxes", "Impuestos"),
        ("/taxes/model-130", "Modelo 130: estimación"),
    ] {
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
    let questionnaire = browser.get("/analyses/cuestionario").await;
    assert_eq!(
        questionnaire.html.matches("type=\"radio\"").count(),
        90,
        "30 questions, three answers each"
    );
    assert!(
        questionnaire
            .html
            .contains("¿Separas las cuentas bancarias del negocio de las personales?")
    );
    let signed_out = Browser::new(&app).get("/taxes").await;
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

/// Every answer of the cuestionario form: yes to all but two critical ones.
fn answers(token: &str) -> Vec<(String, String)> {
    let mut fields = vec![
        ("_csrf".to_string(), token.to_string()),
        ("mode".into(), "live".into()),
    ];
    for area in ["FIN", "FIS", "VEN", "OPE", "DIG", "PER"] {
        for n in 1..=5 {
            let id = format!("{area}{n}");
            let answer = match id.as_str() {
                "FIN3" | "FIS2" => "no",
                "OPE2" => "na",
                _ => "yes",
            };
            fields.push((id, answer.into()));
        }
    }
    fields
}

#[tokio::test]
async fn the_cuestionario_gives_its_report_kept_in_the_list_and_hidden_from_others() {
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    on_pro(&app, "ana@example.com").await;
    let form = browser.get("/analyses/cuestionario").await;
    let owned = answers(&form.csrf());
    let fields: Vec<(&str, &str)> = owned
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let done = browser.post("/analyses/cuestionario", &fields).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.html);
    let location = done.location().to_string();
    assert!(location.starts_with("/analyses/an_"), "{location}");
    let report = browser.get(&location).await;
    assert_eq!(report.status, StatusCode::OK, "{}", report.html);
    assert!(report.html.contains("Análisis hecho y guardado."));
    assert!(report.html.contains("Puntuación global"), "{}", report.html);
    assert!(
        report
            .html
            .contains("¿Tienes una previsión de tesorería a 3 meses?"),
        "the priorities name the «No» answers: {}",
        report.html
    );
    assert!(
        report
            .html
            .contains("<h2 id=\"priorities\">Prioridades</h2>")
    );

    let list = browser.get("/analyses").await;
    assert!(
        list.html.contains("Cuestionario de salud del negocio"),
        "{}",
        list.html
    );
    let id = &location["/analyses/".len()..location.find('?').unwrap()];
    assert!(
        list.html
            .contains(&format!("href=\"/analyses/{id}?mode=live\""))
    );

    let mut other = signed_in(&app, "eva@example.com").await;
    on_pro(&app, "eva@example.com").await;
    let theirs = other.get(&format!("/analyses/{id}?mode=live")).await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND);
    assert!(!theirs.html.contains("Puntuación global"));
    assert!(
        !other
            .get("/analyses")
            .await
            .html
            .contains("Cuestionario de salud del negocio")
    );
    let malformed = browser.get("/analyses/an_..%2Fkeys").await;
    assert_eq!(malformed.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_cuestionario_in_test_mode_shows_sample_data_at_once() {
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let form = browser.get("/analyses/cuestionario").await;
    let mut owned = answers(&form.csrf());
    owned[1].1 = "test".into();
    let fields: Vec<(&str, &str)> = owned
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let page = browser.post("/analyses/cuestionario", &fields).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    assert!(page.html.contains("Resultado de muestra (modo de prueba)"));
    assert!(page.html.contains("<h2 id=\"summary\">Resumen</h2>"));
    let list = browser.get("/analyses").await;
    assert!(
        list.html
            .contains("En modo de prueba no se guarda ningún análisis")
    );
}

#[tokio::test]
async fn taxes_show_the_deadlines_and_the_chosen_quarter() {
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    on_pro(&app, "ana@example.com").await;
    let page = browser.get("/taxes").await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    let html = &page.html;
    assert!(html.contains("<h2 id=\"deadlines\">Próximos plazos</h2>"));
    assert!(
        html.contains("<th scope=\"row\">303</th><td>2026-4T</td>"),
        "the VAT return of the current quarter is due in January: {html}"
    );
    assert!(
        html.contains("<h3>4T 2026</h3>"),
        "the current quarter: {html}"
    );
    assert!(html.contains("Del 2026-10-01 al 2026-12-31"), "{html}");

    let chosen = browser.get("/taxes?mode=live&year=2026&quarter=2").await;
    assert!(chosen.html.contains("<h3>2T 2026</h3>"), "{}", chosen.html);
    let bad = browser.get("/taxes?mode=live&year=1999&quarter=1").await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        bad.html
            .contains("id=\"year-error\" class=\"error\">year 1999 is outside"),
        "{}",
        bad.html
    );
}

#[tokio::test]
async fn modelo_130_shows_its_boxes_and_a_bad_number_beside_its_field() {
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let fields = [
        ("mode", "test"),
        ("year", "2026"),
        ("quarter", "1"),
        ("income", "12.000,00"),
        ("expenses", "3000"),
        ("withholdings", "720"),
    ];
    let page = browser
        .submit("/taxes/model-130", "/taxes/model-130", &fields)
        .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.html);
    // Simplified estimation by default: 5 % × 9,000 = 450 more expenses
    // (RIRPF art. 30, rule 2.ª); 20 % × 8,550 − 720 = 990.
    assert!(
        page.html.contains("Casilla 19: <strong>990") && page.html.contains("A ingresar"),
        "{}",
        page.html
    );
    assert!(page.html.contains("Rendimiento neto"));
    let mut normal = fields.to_vec();
    normal.push(("normal_estimation", "yes"));
    let page = browser
        .submit("/taxes/model-130", "/taxes/model-130", &normal)
        .await;
    // Normal estimation: 20 % × 9,000 − 720 = 1,080.
    assert!(
        page.html.contains("Casilla 19: <strong>1080"),
        "{}",
        page.html
    );

    let mut bad = fields;
    bad[4] = ("expenses", "mucho");
    let page = browser
        .submit("/taxes/model-130", "/taxes/model-130", &bad)
        .await;
    assert_eq!(page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        page.html
            .contains("<small id=\"expenses-error\" class=\"error\">Escribe un importe en euros"),
        "{}",
        page.html
    );
    assert!(
        page.html.contains("value=\"mucho\""),
        "typed values come back"
    );
    assert!(!page.html.contains("income-error"));
}

#[tokio::test]
async fn forms_without_their_token_are_refused() {
    let png = png();
    let app = app();
    let mut browser = signed_in(&app, "ana@example.com").await;
    let page = browser
        .post(
            "/analyses/cuestionario",
            &[("mode", "test"), ("FIN1", "yes")],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    let page = browser
        .post(
            "/taxes/model-130",
            &[("mode", "test"), ("year", "2026"), ("quarter", "1")],
        )
        .await;
    assert_eq!(page.status, StatusCode::FORBIDDEN);
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
