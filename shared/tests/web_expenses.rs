//! The expenses pages over HTTP, in-process: added by hand (an error comes
//! back beside its field), from an e-invoice (added at once), from a PDF
//! (through extraction, to confirm, the file kept with the expense),
//! filtered, corrected with their history, deleted; another account's
//! expense is a 404; test mode keeps nothing.

use std::sync::Arc;

use axum::http::StatusCode;
use shared::config::Config;
use shared::embedded::FileBlobs;

use crate::support::web::{App, Browser, ISSUER, LINE, app_with_ports, on_pro};

fn golden(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/golden/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The name and value of every input of the first form posting to
/// `action` (checkboxes only when checked), as a browser would send them.
fn form_inputs(html: &str, action: &str) -> Vec<(String, String)> {
    let start = html
        .find(&format!("action=\"{action}\""))
        .unwrap_or_else(|| panic!("no form to {action}: {html}"));
    let end = start + html[start..].find("</form>").unwrap();
    let mut fields = Vec::new();
    let mut rest = &html[start..end];
    while let Some(at) = rest.find("<input") {
        let tag_end = at + rest[at..].find('>').unwrap();
        let tag = &rest[at..tag_end];
        let attr = |name: &str| {
            let key = format!(" {name}=\"");
            tag.find(&key).map(|i| {
                let from = i + key.len();
                unescape(&tag[from..from + tag[from..].find('"').unwrap()])
            })
        };
        let checkbox = attr("type").as_deref() == Some("checkbox");
        if let Some(name) = attr("name")
            && (!checkbox || tag.contains(" checked"))
        {
            fields.push((name, attr("value").unwrap_or_default()));
        }
        rest = &rest[tag_end..];
    }
    fields
}

async fn signed_in_on_pro<'a>(app: &'a App, email: &str) -> Browser<'a> {
    let mut browser = Browser::new(app);
    browser.sign_up_and_in("Taller Ana", email).await;
    on_pro(app, email).await;
    browser
}

fn app(dir: &std::path::Path) -> App {
    let blobs = Arc::new(FileBlobs::new(dir));
    app_with_ports(Config::default(), move |ports| ports.with_blobs(blobs))
}

const TYPED: [(&str, &str); 9] = [
    ("mode", "live"),
    ("supplier_name", "Gestoría López SL"),
    ("supplier_tax_id", "B12345674"),
    ("number", "G-412"),
    ("issue_date", "2026-10-05"),
    ("category", "professional_services"),
    ("treatment", "domestic"),
    ("lines[0].base", "200,00"),
    ("lines[0].rate", "21"),
];

#[tokio::test]
async fn an_expense_is_added_by_hand_corrected_with_its_history_and_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let mut browser = signed_in_on_pro(&app, "ana@example.com").await;
    let list = browser.get("/expenses").await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.html);
    assert!(list.html.contains("<h1>Gastos</h1>"), "{}", list.html);
    assert!(list.html.contains("No hay gastos."));

    let mut wrong = TYPED.to_vec();
    wrong[2] = ("supplier_tax_id", "B12345670");
    let refused = browser
        .submit("/expenses/new", "/expenses/new", &wrong)
        .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        refused.html.contains("id=\"supplier_tax_id\"")
            && refused
                .html
                .contains("aria-describedby=\"supplier_tax_id-error\""),
        "the error is beside its field: {}",
        refused.html
    );
    assert!(
        refused.html.contains("value=\"Gestoría López SL\""),
        "typed values stay"
    );

    let saved = browser
        .submit(
            "/expenses/new",
            "/expenses/new",
            &[
                TYPED.as_slice(),
                &[("irpf_rate", "15"), ("paid_date", "2026-10-20")],
            ]
            .concat(),
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.html);
    let at = saved.location().to_string();
    assert!(
        at.starts_with("/expenses/exp_") && at.contains("notice=saved"),
        "{at}"
    );
    let path = at.split('?').next().unwrap().to_string();
    let shown = browser.get(&at).await;
    assert!(shown.html.contains("Guardado."), "{}", shown.html);
    // 200 + 42 − 30 = 212; 42 deductible.
    assert!(shown.html.contains("212,00"), "{}", shown.html);
    assert!(shown.html.contains("42,00"), "{}", shown.html);

    let edited = browser
        .submit(
            &path,
            &path,
            &[
                TYPED.as_slice(),
                &[
                    ("irpf_rate", "15"),
                    ("paid_date", "2026-10-20"),
                    ("description", "Asesoría del tercer trimestre"),
                ],
            ]
            .concat(),
        )
        .await;
    assert_eq!(edited.status, StatusCode::SEE_OTHER, "{}", edited.html);
    let page = browser.get(&path).await;
    assert!(page.html.contains("Asesoría del tercer trimestre"));
    assert_eq!(
        page.html.matches("<li>2026-").count(),
        2,
        "two versions: {}",
        page.html
    );

    let taxes = browser.get("/taxes?mode=live&year=2026&quarter=4").await;
    assert!(
        taxes.html.contains("Total a deducir")
            && taxes
                .html
                .contains("Actividades económicas: importe de las retenciones"),
        "the quarter counts the expense in 303 and, paid on 20-10, in 111: {}",
        taxes.html
    );
    let filtered = browser.get("/expenses?mode=live&category=software").await;
    assert!(
        filtered.html.contains("No hay gastos."),
        "{}",
        filtered.html
    );
    let filtered = browser
        .get("/expenses?mode=live&category=professional_services&year=2026&quarter=4")
        .await;
    assert!(filtered.html.contains("G-412"), "{}", filtered.html);

    let mut other = Browser::new(&app);
    other.sign_up_and_in("Bar Lola", "lola@example.com").await;
    on_pro(&app, "lola@example.com").await;
    assert_eq!(other.get(&path).await.status, StatusCode::NOT_FOUND);

    let deleted = browser
        .submit(
            &path,
            &format!("{path}/delete"),
            &[("mode", "live"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert_eq!(browser.get(&path).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn files_are_read_an_einvoice_at_once_a_pdf_through_extraction_to_confirm() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let mut browser = signed_in_on_pro(&app, "ana@example.com").await;
    assert_eq!(
        browser
            .submit("/business", "/business", &ISSUER)
            .await
            .status,
        StatusCode::SEE_OTHER
    );
    let issued = browser
        .submit("/invoices/new", "/invoices/new", &LINE)
        .await;
    assert_eq!(issued.status, StatusCode::SEE_OTHER, "{}", issued.html);
    let pdf = browser.get("/invoices/1/pdf?mode=test").await.bytes;

    let token = browser.get("/expenses/from-file").await.csrf();
    let facturae = golden("facturae/one_rate.xml");
    let added = browser
        .post_files(
            "/expenses/from-file",
            &[("_csrf", &token), ("mode", "live")],
            &[("file", "one_rate.xml", "text/xml", &facturae)],
        )
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER, "{}", added.html);
    let einvoice = browser.get(added.location()).await;
    assert!(
        einvoice.html.contains("Descargar el documento"),
        "{}",
        einvoice.html
    );

    let again = browser
        .post_files(
            "/expenses/from-file",
            &[("_csrf", &token), ("mode", "live")],
            &[("file", "one_rate.xml", "text/xml", &facturae)],
        )
        .await;
    assert_eq!(again.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        again.html.contains("exp_"),
        "the duplicate names the expense: {}",
        again.html
    );

    let read = browser
        .post_files(
            "/expenses/from-file",
            &[("_csrf", &token), ("mode", "live")],
            &[("file", "factura.pdf", "application/pdf", &pdf)],
        )
        .await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.html);
    assert!(
        read.html.contains("Revisa lo que se ha leído"),
        "{}",
        read.html
    );
    assert!(
        read.html.contains("value=\"B64717838\""),
        "the issuer read: {}",
        read.html
    );
    let mut fields = form_inputs(&read.html, "/expenses/new");
    fields.retain(|(name, _)| name != "category");
    fields.push(("category".into(), "supplies".into()));
    fields.push(("treatment".into(), "domestic".into()));
    let pairs: Vec<(&str, &str)> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let confirmed = browser.post("/expenses/new", &pairs).await;
    assert_eq!(
        confirmed.status,
        StatusCode::SEE_OTHER,
        "{}",
        confirmed.html
    );
    let path = confirmed.location().split('?').next().unwrap().to_string();
    let document = browser.get(&format!("{path}/document?mode=live")).await;
    assert_eq!(document.status, StatusCode::OK);
    assert_eq!(document.bytes, pdf, "the PDF is kept with the expense");

    let list = browser.get("/expenses?mode=live").await;
    assert_eq!(
        list.html.matches("href=\"/expenses/exp_").count(),
        2,
        "{}",
        list.html
    );
}

#[tokio::test]
async fn test_mode_checks_and_keeps_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let mut browser = Browser::new(&app);
    browser
        .sign_up_and_in("Taller Ana", "ana@example.com")
        .await;
    let page = browser.get("/expenses").await;
    assert!(page.html.contains("Modo de prueba"), "{}", page.html);
    let mut typed = TYPED.to_vec();
    typed[0] = ("mode", "test");
    let saved = browser
        .submit("/expenses/new", "/expenses/new", &typed)
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.html);
    assert_eq!(saved.location(), "/expenses?mode=test");
    assert!(
        browser
            .get("/expenses?mode=test")
            .await
            .html
            .contains("No hay gastos.")
    );

    let import = [
        ("mode", "test"),
        ("import_year", "2026"),
        ("import_month", "11"),
    ];
    let refused = browser
        .submit("/expenses", "/expenses/import-from-aeat", &import)
        .await;
    assert_eq!(refused.status, StatusCode::SEE_OTHER);
    let shown = browser.get(refused.location()).await;
    assert!(
        shown.html.contains("role=\"alert\""),
        "no issuer NIF to ask for: {}",
        shown.html
    );
    assert_eq!(
        browser
            .submit("/business", "/business", &ISSUER)
            .await
            .status,
        StatusCode::SEE_OTHER
    );
    let done = browser
        .submit("/expenses", "/expenses/import-from-aeat", &import)
        .await;
    assert!(
        done.location().contains("imported=0"),
        "{}",
        done.location()
    );
    let shown = browser.get(done.location()).await;
    assert!(
        shown
            .html
            .contains("Importadas de la AEAT como borrador: 0."),
        "{}",
        shown.html
    );
}
