//! The PDF invoice and the Factur-X PDF/A-3 of every fixture invoice.
//!
//! Without external tools: the bytes depend only on the invoice. With
//! poppler (`pdftotext -layout`, `pdffonts`, `pdftoppm`) and zbar
//! (`zbarimg`): the text carries the number, the dates and every figure and
//! matches `tests/golden/pdf/<name>.txt` (rewritten with `UPDATE_GOLDEN=1`),
//! the fonts are embedded with ToUnicode, the 60-line invoice runs over
//! numbered pages with the table header repeated, and the QR reads back as
//! the cotejo URL. With Python `factur-x` and `pypdf` (interpreter in
//! `SVC_PYTHON`): the library finds and XSD-checks the embedded
//! `factur-x.xml`, and the XMP declares PDF/A-3B and the Factur-X level.
//! A missing tool is reported as NOT RUN, or fails the test when
//! `SVC_REQUIRE_PYTHON=1`.

use crate::support;

use std::collections::HashSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use axum::Router;
use axum::http::StatusCode;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde_json::json;
use shared::documents::cii::cii;
use shared::documents::facturx::facturx_pdf;
use shared::documents::pdf::pdf;
use shared::domain::account::Plan;
use shared::invoice::line::Treatment;
use shared::invoice::model::Invoice;
use shared::invoice::status::Status;
use support::{post_json, send};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/pdf");

/// Checks each Factur-X PDF, given as pairs (the CII file it must carry, the
/// PDF); prints every problem and exits 1 if there was one.
const CHECK_FACTURX: &str = r#"
import sys
from facturx import get_facturx_xml_from_pdf
from pypdf import PdfReader

problems = []
args = sys.argv[1:]
for cii, path in zip(args[0::2], args[1::2]):
    expected = open(cii, "rb").read()
    name, xml = get_facturx_xml_from_pdf(open(path, "rb").read(), check_xsd=True)
    if name != "factur-x.xml" or xml != expected:
        problems.append(f"{path}: no XSD-valid factur-x.xml equal to the CII given (found {name!r})")
    root = PdfReader(path).trailer["/Root"]
    xmp = root["/Metadata"].get_object().get_data().decode("utf-8")
    for needle in ("<pdfaid:part>3</pdfaid:part>", "<pdfaid:conformance>B</pdfaid:conformance>",
                   "<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>",
                   "<fx:DocumentType>INVOICE</fx:DocumentType>",
                   "<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>",
                   "<fx:Version>1.0</fx:Version>", "pdfaExtension:schemas"):
        if needle not in xmp:
            problems.append(f"{path}: the XMP lacks {needle}")
    spec = root["/AF"][0].get_object()
    if spec["/AFRelationship"] not in ("/Data", "/Alternative"):
        problems.append(f"{path}: AFRelationship is {spec['/AFRelationship']}")
    stream = spec["/EF"]["/F"].get_object()
    if stream["/Subtype"] != "/text/xml" or "/ModDate" not in stream["/Params"]:
        problems.append(f"{path}: the embedded file lacks /Subtype /text#2Fxml or /Params /ModDate")
    intent = root["/OutputIntents"][0].get_object()
    if intent["/S"] != "/GTS_PDFA1" or intent["/DestinationOutputProfile"].get_object()["/N"] != 3:
        problems.append(f"{path}: no sRGB GTS_PDFA1 output intent")
print("\n".join(problems))
sys.exit(1 if problems else 0)
"#;

fn require_all() -> bool {
    std::env::var("SVC_REQUIRE_PYTHON").as_deref() == Ok("1")
}

fn not_run(what: &str, why: &str) {
    assert!(!require_all(), "SVC_REQUIRE_PYTHON=1 but {why}");
    let _ = writeln!(std::io::stderr(), "\nPDF {what} NOT RUN: {why}\n");
}

/// Whether every tool can be started; says which could not otherwise.
fn tools(what: &str, names: &[&str]) -> bool {
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|tool| Command::new(tool).arg("-v").output().is_err())
        .collect();
    if missing.is_empty() {
        return true;
    }
    not_run(
        what,
        &format!(
            "{} not installed (apt-get install poppler-utils zbar-tools)",
            missing.join(", ")
        ),
    );
    false
}

fn run(command: &mut Command) -> String {
    let out = command.output().expect("the tool starts");
    assert!(
        out.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the tool prints UTF-8")
}

/// Writes `bytes` as `<name>.pdf` in `dir`.
fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(format!("{name}.pdf"));
    std::fs::write(&path, bytes).expect("the PDF is written");
    path
}

/// The text as `pdftotext -layout` lays it out, without the diagonal watermark.
fn text(path: &Path) -> String {
    run(Command::new("pdftotext")
        .args(["-layout", "-nodiag", "-enc", "UTF-8"])
        .arg(path)
        .arg("-"))
}

/// `x` written the Spanish way with at least `decimals` decimals: `-1.234,5`.
fn es(x: Decimal, decimals: u32) -> String {
    let x = x.normalize();
    let digits = format!("{:.*}", x.scale().max(decimals) as usize, x.abs());
    let (integer, fraction) = match digits.split_once('.') {
        Some((i, f)) => (i, format!(",{f}")),
        None => (digits.as_str(), String::new()),
    };
    let groups: Vec<&str> = integer
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|g| std::str::from_utf8(g).unwrap())
        .collect();
    let sign = if x.is_sign_negative() && !x.is_zero() {
        "-"
    } else {
        ""
    };
    format!("{sign}{}{fraction}", groups.join("."))
}

fn euros(x: Decimal) -> String {
    format!("{} €", es(x.round_dp(2), 2))
}

fn day(d: NaiveDate) -> String {
    d.format("%d/%m/%Y").to_string()
}

/// What the printed invoice must show: identification, dates, parties,
/// every line and tax figure, the legal wording and the marks.
fn must_show(invoice: &Invoice) -> Vec<String> {
    let mut shown = vec![
        invoice.number.clone(),
        day(invoice.issue_date),
        invoice.issuer.name.clone(),
        invoice.issuer.tax_id.clone(),
        euros(invoice.base.value()),
        euros(invoice.vat_amount.value()),
        euros(invoice.total.value()),
        "VERI*FACTU".to_string(),
        "Factura verificable en la sede".to_string(),
    ];
    shown.extend(invoice.operation_date.map(day));
    shown.extend(invoice.due_date.map(day));
    if let Some(customer) = &invoice.customer {
        shown.push(customer.name.clone());
        shown.extend(customer.tax_id.clone());
    }
    for line in &invoice.lines {
        shown.extend([
            line.description.clone(),
            es(line.quantity, 0),
            format!("{} €", es(line.unit_price.value(), 2)),
            format!("{} %", es(line.vat_rate.value(), 0)),
            euros(line.base.value()),
        ]);
        if !line.discount_percent.is_zero() {
            shown.push(format!("{} %", es(line.discount_percent.value(), 0)));
        }
        shown.extend(
            line.exemption
                .as_deref()
                .and_then(Treatment::parse_exemption)
                .and_then(Treatment::wording)
                .map(str::to_string),
        );
    }
    for group in &invoice.breakdown {
        shown.extend([euros(group.base.value()), euros(group.vat_amount.value())]);
        if !group.surcharge_rate.is_zero() {
            shown.push(format!("{} %", es(group.surcharge_rate.value(), 0)));
            shown.push(euros(group.surcharge_amount.value()));
        }
    }
    if !invoice.surcharge_amount.is_zero() {
        shown.push(euros(invoice.surcharge_amount.value()));
    }
    if !invoice.irpf_amount.is_zero() {
        shown.push(format!("IRPF ({} %)", es(invoice.irpf_rate.value(), 0)));
        // Shown as what it takes off the total.
        shown.push(euros((-invoice.irpf_amount).value()));
    }
    if let Some(r) = &invoice.rectifies {
        shown.extend([r.number.clone(), day(r.issue_date), r.description.clone()]);
        // D27: a substitution states the amount of the rectification too
        // (art. 15.5 RD 1619/2012), the new base less the rectified one.
        if r.method == "substitution" {
            let gross = invoice.base + invoice.vat_amount + invoice.surcharge_amount;
            let rectified = r.rectified_base + r.rectified_vat + r.rectified_surcharge;
            let change = (gross - rectified).value();
            let way = if change.is_sign_negative() {
                "menos"
            } else {
                "más"
            };
            shown.push(format!(
                "Importe de la rectificación: {} {way}",
                euros(change.abs())
            ));
        }
    }
    if let Some(payment) = &invoice.payment {
        shown.extend(payment.iban.iter().map(|iban| {
            let groups: Vec<String> = iban
                .as_bytes()
                .chunks(4)
                .map(|g| String::from_utf8(g.to_vec()).unwrap())
                .collect();
            groups.join(" ")
        }));
    }
    if invoice.status == Status::Cancelled {
        shown.push("ANULADA".to_string());
    }
    if !invoice.livemode {
        shown.push("TEST".to_string());
    }
    shown
}

/// Compares with the golden file, or rewrites it under `UPDATE_GOLDEN=1`.
fn golden(name: &str, text: &str) {
    let path = Path::new(GOLDEN).join(format!("{name}.txt"));
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(GOLDEN).expect("the golden folder is created");
        std::fs::write(&path, text).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        text,
        expected,
        "{name}: the PDF text differs from {} (UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

/// Without whitespace: the layout decides how many spaces end up between
/// words, and pdftotext keeps a narrow one (as in "4 %") only sometimes.
fn squash(text: &str) -> String {
    text.split_whitespace().collect()
}

fn pages(text: &str) -> Vec<&str> {
    text.split('\u{c}')
        .filter(|page| !page.trim().is_empty())
        .collect()
}

#[tokio::test]
async fn the_same_invoice_gives_the_same_bytes() {
    let cii = "<rsm:CrossIndustryInvoice/>";
    for (name, invoice) in support::invoice_fixtures::all().await {
        let copy: Invoice =
            serde_json::from_value(serde_json::to_value(&invoice).unwrap()).unwrap();
        let bytes = pdf(&invoice);
        assert!(
            bytes.starts_with(b"%PDF-1.7") && bytes.ends_with(b"%%EOF"),
            "{name}"
        );
        assert!(bytes == pdf(&copy), "{name}: two renders differ");
        assert!(
            facturx_pdf(&invoice, cii) == facturx_pdf(&copy, cii),
            "{name}: two Factur-X renders differ"
        );
    }
}

#[tokio::test]
async fn the_text_shows_every_figure_and_matches_the_golden_file() {
    if !tools("text", &["pdftotext", "pdffonts"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, invoice) in support::invoice_fixtures::all().await {
        let path = write(dir.path(), name, &pdf(&invoice));
        let text = text(&path);
        let squashed = squash(&text);
        for shown in must_show(&invoice) {
            assert!(
                squashed.contains(&squash(&shown)),
                "{name}: {shown:?} is not in\n{text}"
            );
        }
        let fonts = run(Command::new("pdffonts").arg(&path));
        for font in fonts.lines().skip(2) {
            let columns: Vec<&str> = font.split_whitespace().collect();
            assert_eq!(
                columns[columns.len() - 5..columns.len() - 2],
                ["yes", "yes", "yes"],
                "{name}: a font is not embedded, subset and mapped to Unicode:\n{fonts}"
            );
        }
        golden(name, &text);
    }
}

#[tokio::test]
async fn a_long_invoice_runs_over_numbered_pages_with_the_header_repeated() {
    if !tools("pages", &["pdftotext"]) {
        return;
    }
    let all = support::invoice_fixtures::all().await;
    let (_, invoice) = all.iter().find(|(n, _)| *n == "sixty_lines").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = text(&write(dir.path(), "sixty_lines", &pdf(invoice)));
    let pages = pages(&text);
    assert!(pages.len() >= 2, "{text}");
    for (i, page) in pages.iter().enumerate() {
        let numbering = format!("Página {} de {}", i + 1, pages.len());
        assert!(
            page.contains(&numbering),
            "page {}: no {numbering:?}",
            i + 1
        );
        if page.contains("Artículo nº") {
            assert!(page.contains("Descripción") && page.contains("Importe"));
        }
    }
    // The totals close the lines; the mentions (the due date) may run onto a page of their own.
    let summary = pages
        .iter()
        .rposition(|p| p.contains("TOTAL FACTURA"))
        .unwrap();
    assert!(pages[summary].contains(&euros(invoice.total.value())));
    assert!(
        pages[summary + 1..]
            .iter()
            .all(|p| !p.contains("Artículo nº"))
    );
}

#[tokio::test]
async fn long_text_wraps_onto_further_pages_without_losing_a_word() {
    if !tools("wrapping", &["pdftotext"]) {
        return;
    }
    let all = support::invoice_fixtures::all().await;
    let (_, one_rate) = all.iter().find(|(n, _)| *n == "one_rate").unwrap();
    let mut invoice = one_rate.clone();
    let long_word = "Superextraordinariamenteinconstitucional".repeat(3);
    invoice.lines[0].description = format!(
        "Diseño de logotipo, manual de identidad corporativa y {long_word} para la campaña"
    );
    let notes: Vec<String> = (1..=600).map(|i| format!("nota{i}")).collect();
    invoice.notes = Some(notes.join(" "));
    let dir = tempfile::tempdir().unwrap();
    let text = text(&write(dir.path(), "long_text", &pdf(&invoice)));
    let words: HashSet<&str> = text.split_whitespace().collect();
    let description = invoice.lines[0].description.split_whitespace();
    for word in description
        .filter(|w| *w != long_word)
        .chain(notes.iter().map(String::as_str))
    {
        assert!(words.contains(word), "{word:?} is not in\n{text}");
    }
    // Cut into pieces on consecutive lines that carry nothing else.
    assert!(squash(&text).contains(&long_word), "{text}");
    let pages = pages(&text);
    assert!(pages.len() >= 2, "{text}");
    for (i, page) in pages.iter().enumerate() {
        assert!(page.contains(&format!("Página {} de {}", i + 1, pages.len())));
    }
}

#[tokio::test]
async fn the_qr_code_reads_back_as_the_cotejo_url() {
    if !tools("QR", &["pdftoppm", "zbarimg"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (name, invoice) in support::invoice_fixtures::all().await {
        let path = write(dir.path(), name, &pdf(&invoice));
        let image = dir.path().join(name);
        run(Command::new("pdftoppm")
            .args([
                "-r",
                "300",
                "-f",
                "1",
                "-l",
                "1",
                "-gray",
                "-png",
                "-singlefile",
            ])
            .arg(&path)
            .arg(&image));
        let read = run(Command::new("zbarimg")
            .args(["--raw", "-q"])
            .arg(image.with_extension("png")));
        assert_eq!(
            read.strip_suffix('\n'),
            Some(invoice.verifactu.qr_url.as_str()),
            "{name}"
        );
    }
}

#[tokio::test]
async fn the_facturx_pdf_carries_the_cii_xml_as_pdfa3() {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        return not_run("Factur-X", "SVC_PYTHON is not set");
    };
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, invoice) in support::invoice_fixtures::all().await {
        let xml = cii(&invoice);
        let xml_path = dir.path().join(format!("{name}.xml"));
        std::fs::write(&xml_path, &xml).expect("the CII is written");
        files.push(xml_path);
        files.push(write(dir.path(), name, &facturx_pdf(&invoice, &xml)));
    }
    let out = Command::new(python)
        .args(["-c", CHECK_FACTURX])
        .args(&files)
        .output()
        .expect("the Python interpreter starts");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// D12: a service to a business in another member state is located there
/// and reverse charged (art. 69.Uno.1º Ley 37/1992): its invoice says
/// «inversión del sujeto pasivo» (art. 6.1.m RD 1619/2012); to a customer
/// outside the EU it does not.
#[tokio::test]
async fn an_intra_eu_service_says_reverse_charge() {
    if !tools("text", &["pdftotext"]) {
        return;
    }
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    let dir = tempfile::tempdir().unwrap();
    let german = json!({"name": "Werkstatt GmbH", "tax_id": "DE123456789", "address": "Hauptstr. 1",
        "postal_code": "10115", "city": "Berlin", "country": "DE"});
    let american = json!({"name": "Acme Inc", "tax_id": "123456789", "address": "1 Main St",
        "city": "Austin", "country": "US"});
    for (name, customer, reverse) in [("de", german, true), ("us", american, false)] {
        let body = json!({"customer": customer, "lines": [{"description": "Consultoría", "quantity": 1,
            "unit_price": 1000, "vat_rate": 0, "exemption": "N2"}]});
        let r = send(
            &h.app,
            post_json("/api/v1/invoices", &h.live, Some(name), &body.to_string()),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
        let invoice: Invoice = serde_json::from_value(r.json).unwrap();
        let text = squash(&text(&write(dir.path(), name, &pdf(&invoice))));
        assert_eq!(
            text.contains(&squash("inversión del sujeto pasivo")),
            reverse,
            "{name}: {text}"
        );
    }
}
