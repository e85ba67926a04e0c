//! UBL 2.1 and CII D16B documents of every fixture invoice: compared with the
//! golden files (`UPDATE_GOLDEN=1` rewrites them), and validated, with
//! variants covering the categories and payment means the fixtures do not,
//! in one Python process (interpreter in `SVC_PYTHON`) against the UBL 2.1
//! and Factur-X EN 16931 schemas (`xmlschema`) and the EN 16931 and Factur-X
//! Schematron (`saxonche`). The standards are read from `shared/standards`
//! beside the workspace.

use crate::support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::NaiveDate;
use shared::documents::{cii::cii, ubl::ubl};
use shared::invoice::model::{Invoice, Payment};
use shared::invoice::party::Party;

const STANDARDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/standards");
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

/// The schemas and stylesheets, relative to `STANDARDS`, in the order the
/// script takes them.
const ARTEFACTS: [&str; 6] = [
    "ubl-2.1/maindoc/UBL-Invoice-2.1.xsd",
    "ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd",
    "factur-x-1.09.2/facturx-en16931/Factur-X_EN16931.xsd",
    "en16931-validation/ubl/xslt/EN16931-UBL-validation.xslt",
    "en16931-validation/cii/xslt/EN16931-CII-validation.xslt",
    "factur-x-1.09.2/facturx-en16931/FACTUR-X_EN16931.xslt",
];

/// Validates `ubl:<path>` and `cii:<path>` arguments after the six artefacts.
/// Prints one line per schema error and per failed assert; a failed assert is
/// fatal unless flagged `warning` or `information` (the Factur-X stylesheet
/// flags none of its errors). Exits 1 on any schema error or fatal assert.
const VALIDATE: &str = r#"
import sys, xml.etree.ElementTree as ET, xmlschema
from saxonche import PySaxonProcessor
ubl_invoice, ubl_credit_note, cii_xsd, ubl_rules, cii_rules, fx_rules = sys.argv[1:7]
schemas = {"Invoice": xmlschema.XMLSchema(ubl_invoice), "CreditNote": xmlschema.XMLSchema(ubl_credit_note),
           "CrossIndustryInvoice": xmlschema.XMLSchema(cii_xsd)}
SVRL = "{http://purl.oclc.org/dsdl/svrl}"
failed = False
with PySaxonProcessor(license=False) as saxon:
    xslt = saxon.new_xslt30_processor()
    rules = {"ubl": [xslt.compile_stylesheet(stylesheet_file=ubl_rules)],
             "cii": [xslt.compile_stylesheet(stylesheet_file=cii_rules), xslt.compile_stylesheet(stylesheet_file=fx_rules)]}
    for argument in sys.argv[7:]:
        syntax, path = argument.split(":", 1)
        name = path.rsplit("/", 1)[-1]
        root = ET.parse(path).getroot().tag.split("}")[1]
        for error in schemas[root].iter_errors(path):
            failed = True
            print(f"{name}: XSD {root}: {error.reason} at {error.path}")
        for stylesheet in rules[syntax]:
            report = ET.fromstring(stylesheet.transform_to_string(source_file=path))
            for fail in report.iter(SVRL + "failed-assert"):
                flag = fail.get("flag") or "fatal"
                fatal = flag not in ("warning", "information")
                failed = failed or fatal
                text = " ".join((fail.findtext(SVRL + "text") or "").split())
                print(f"{name}: {'FATAL' if fatal else flag} {fail.get('id')}: {text}")
sys.exit(1 if failed else 0)
"#;

fn require_all() -> bool {
    std::env::var("SVC_REQUIRE_PYTHON").as_deref() == Ok("1")
}

fn not_run(why: &str) {
    assert!(
        !require_all(),
        "SVC_REQUIRE_PYTHON=1 but UBL/CII validation cannot run: {why}"
    );
    let _ = writeln!(std::io::stderr(), "\nUBL/CII validation NOT RUN: {why}\n");
}

/// The interpreter and the artefacts' paths, or `None` when either is missing.
fn validator() -> Option<(PathBuf, Vec<PathBuf>)> {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        not_run("set SVC_PYTHON");
        return None;
    };
    let artefacts: Vec<PathBuf> = ARTEFACTS
        .iter()
        .map(|a| Path::new(STANDARDS).join(a))
        .collect();
    if let Some(missing) = artefacts.iter().find(|a| !a.is_file()) {
        not_run(&format!("{} is missing", missing.display()));
        return None;
    }
    Some((PathBuf::from(python), artefacts))
}

/// Each invoice's document in both syntaxes: (syntax, invoice name, XML).
fn documents(invoices: &[(&'static str, Invoice)]) -> Vec<(&'static str, &'static str, String)> {
    invoices
        .iter()
        .flat_map(|(name, invoice)| [("ubl", *name, ubl(invoice)), ("cii", *name, cii(invoice))])
        .collect()
}

/// The XML without the indentation, for assertions that span elements.
fn flat(xml: &str) -> String {
    xml.lines().map(str::trim).collect()
}

fn named(invoices: &[(&'static str, Invoice)], name: &str) -> Invoice {
    invoices
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, invoice)| invoice.clone())
        .expect("an invoice of that name")
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("a valid date")
}

/// The invoice totals from its lines and VAT groups, after changing them.
fn recompute(invoice: &mut Invoice) {
    invoice.base = invoice.lines.iter().map(|l| l.base).sum();
    invoice.vat_amount = invoice.breakdown.iter().map(|g| g.vat_amount).sum();
    invoice.surcharge_amount = invoice.breakdown.iter().map(|g| g.surcharge_amount).sum();
    invoice.total =
        invoice.base + invoice.vat_amount + invoice.surcharge_amount - invoice.irpf_amount;
}

/// Changes the sign of the first `lines` lines and `groups` VAT groups.
fn negate(mut invoice: Invoice, lines: usize, groups: usize) -> Invoice {
    for line in invoice.lines.iter_mut().take(lines) {
        line.quantity = -line.quantity;
        line.base = -line.base;
    }
    for group in invoice.breakdown.iter_mut().take(groups) {
        group.base = -group.base;
        group.vat_amount = -group.vat_amount;
        group.surcharge_amount = -group.surcharge_amount;
    }
    recompute(&mut invoice);
    invoice
}

/// The `exempt` fixture with its exempt line under another code and a
/// customer in another country.
fn exempt_as(
    invoices: &[(&'static str, Invoice)],
    code: &str,
    country: &str,
    tax_id: &str,
) -> Invoice {
    let mut invoice = named(invoices, "exempt");
    invoice.lines[1].exemption = Some(code.to_owned());
    invoice.breakdown[1].exemption = Some(code.to_owned());
    if let Some(customer) = invoice.customer.as_mut() {
        customer.country = country.to_owned();
        customer.tax_id = Some(tax_id.to_owned());
    }
    invoice
}

/// Invoices derived from the fixtures for what the fixtures do not cover.
fn variants(fixtures: &[(&'static str, Invoice)]) -> Vec<(&'static str, Invoice)> {
    let mut not_subject = named(fixtures, "reverse_charge");
    not_subject.lines[0].exemption = Some("N1".to_owned());
    not_subject.breakdown[0].exemption = Some("N1".to_owned());
    let mut direct_debit = named(fixtures, "rectifying_differences");
    direct_debit.due_date = Some(date(2026, 12, 21));
    direct_debit.payment = Some(Payment {
        method: "direct_debit".to_owned(),
        iban: Some("ES7921000813610123456789".to_owned()),
    });
    let mut due_without_payment = named(fixtures, "rectifying_differences");
    due_without_payment.due_date = Some(date(2026, 12, 21));
    let mut card = named(fixtures, "one_rate");
    card.operation_date = Some(date(2026, 11, 2));
    card.payment = Some(Payment {
        method: "card".to_owned(),
        iban: None,
    });
    let mut named_consumer = named(fixtures, "simplified");
    named_consumer.customer = Some(Party {
        name: "Juan Pérez".to_owned(),
        tax_id: None,
        address: None,
        postal_code: None,
        city: None,
        country: "ES".to_owned(),
        email: None,
    });
    vec![
        ("export", exempt_as(fixtures, "E2", "US", "981234567")),
        (
            "intra_community",
            exempt_as(fixtures, "E5", "FR", "FR40303265045"),
        ),
        (
            "not_subject_beside_taxed",
            exempt_as(fixtures, "N2", "DE", "DE123456789"),
        ),
        ("not_subject", not_subject),
        ("direct_debit_credit_note", direct_debit),
        ("credit_note_due_date", due_without_payment),
        ("card_with_operation_date", card),
        ("simplified_named_consumer", named_consumer),
        (
            "mixed_signs",
            negate(named(fixtures, "several_rates"), 1, 1),
        ),
        (
            "credit_with_discounts",
            negate(named(fixtures, "discounts"), 2, 1),
        ),
    ]
}

#[tokio::test]
async fn documents_match_the_golden_files() {
    let update = std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1");
    let fixtures = support::invoice_fixtures::all().await;
    for (syntax, name, xml) in documents(&fixtures) {
        let path = Path::new(GOLDEN).join(syntax).join(format!("{name}.xml"));
        if update {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder");
            std::fs::write(&path, &xml).expect("the golden file is written");
            continue;
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
        assert!(
            golden == xml,
            "{syntax} {name} differs from {} (UPDATE_GOLDEN=1 rewrites it):\n{xml}",
            path.display()
        );
    }
}

#[tokio::test]
async fn documents_pass_the_schemas_and_the_en16931_rules() {
    let Some((python, artefacts)) = validator() else {
        return;
    };
    let fixtures = support::invoice_fixtures::all().await;
    let mut invoices = variants(&fixtures);
    invoices.extend(fixtures);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut arguments = Vec::new();
    for (syntax, name, xml) in documents(&invoices) {
        let path = dir.path().join(format!("{syntax}-{name}.xml"));
        std::fs::write(&path, xml).expect("the XML is written");
        arguments.push(format!("{syntax}:{}", path.display()));
    }
    let output = Command::new(python)
        .arg("-c")
        .arg(VALIDATE)
        .args(&artefacts)
        .args(&arguments)
        .output()
        .expect("python runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if !report.trim().is_empty() {
        let _ = writeln!(std::io::stderr(), "\nUBL/CII validation report:\n{report}");
    }
    assert!(
        output.status.success(),
        "UBL/CII validation failed:\n{report}"
    );
    assert_eq!(arguments.len(), 2 * (19 + 10));
}

#[tokio::test]
async fn the_same_invoice_gives_the_same_bytes() {
    let first = documents(&support::invoice_fixtures::all().await);
    let second = documents(&support::invoice_fixtures::all().await);
    assert!(first == second);
}

#[tokio::test]
async fn a_negative_rectification_is_a_credit_note_with_positive_amounts() {
    let fixtures = support::invoice_fixtures::all().await;
    let invoice = named(&fixtures, "rectifying_differences");
    let xml = flat(&ubl(&invoice));
    assert!(xml.contains(
        r#"<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2""#
    ));
    assert!(xml.contains("<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>"));
    assert!(xml.contains(r#"<cbc:CreditedQuantity unitCode="C62">2</cbc:CreditedQuantity>"#));
    assert!(xml.contains(
        "<cac:InvoiceDocumentReference><cbc:ID>F2026-000008</cbc:ID><cbc:IssueDate>2026-11-21</cbc:IssueDate>"
    ));
    assert!(xml.contains(r#"<cbc:PrepaidAmount currencyID="EUR">3.78</cbc:PrepaidAmount><cbc:PayableAmount currencyID="EUR">61.56</cbc:PayableAmount>"#));
    let cii = flat(&cii(&invoice));
    assert!(cii.contains("<ram:TypeCode>381</ram:TypeCode>"));
    assert!(cii.contains(
        "<ram:InvoiceReferencedDocument><ram:IssuerAssignedID>F2026-000008</ram:IssuerAssignedID>"
    ));
    assert!(cii.contains("<ram:DuePayableAmount>61.56</ram:DuePayableAmount>"));
    let substitution = ubl(&named(&fixtures, "rectifying_substitution"));
    assert!(substitution.contains("<cbc:InvoiceTypeCode>384</cbc:InvoiceTypeCode>"));
    let mixed = flat(&ubl(&named(&variants(&fixtures), "mixed_signs")));
    assert!(mixed.contains(r#"<cbc:CreditedQuantity unitCode="C62">-3</cbc:CreditedQuantity><cbc:LineExtensionAmount currencyID="EUR">-37.50</cbc:LineExtensionAmount>"#));
}

#[tokio::test]
async fn irpf_is_a_paid_amount_and_surcharge_joins_the_vat_rate() {
    let fixtures = support::invoice_fixtures::all().await;
    let irpf = flat(&ubl(&named(&fixtures, "irpf")));
    assert!(irpf.contains(concat!(
        r#"<cbc:TaxExclusiveAmount currencyID="EUR">1234.56</cbc:TaxExclusiveAmount>"#,
        r#"<cbc:TaxInclusiveAmount currencyID="EUR">1493.82</cbc:TaxInclusiveAmount>"#,
        r#"<cbc:PrepaidAmount currencyID="EUR">185.18</cbc:PrepaidAmount>"#,
        r#"<cbc:PayableAmount currencyID="EUR">1308.64</cbc:PayableAmount>"#
    )));
    let surcharge = flat(&cii(&named(&fixtures, "surcharge")));
    assert!(surcharge.contains(concat!(
        "<ram:CalculatedAmount>65.50</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode>",
        "<ram:BasisAmount>250.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode>",
        "<ram:RateApplicablePercent>26.2</ram:RateApplicablePercent>"
    )));
    assert!(
        surcharge.contains(r#"<ram:TaxTotalAmount currencyID="EUR">71.20</ram:TaxTotalAmount>"#)
    );
}

#[tokio::test]
async fn exemptions_carry_their_category_and_reason() {
    let fixtures = support::invoice_fixtures::all().await;
    let variants = variants(&fixtures);
    let reverse = flat(&ubl(&named(&fixtures, "reverse_charge")));
    assert!(reverse.contains("<cbc:ID>AE</cbc:ID><cbc:Percent>0</cbc:Percent><cbc:TaxExemptionReasonCode>VATEX-EU-AE</cbc:TaxExemptionReasonCode>"));
    assert!(reverse.contains("<cbc:CompanyID>ESB64717838</cbc:CompanyID>"));
    let exempt = cii(&named(&fixtures, "exempt"));
    assert!(exempt.contains(
        "<ram:ExemptionReason>Exenta por el artículo 20 de la Ley 37/1992</ram:ExemptionReason>"
    ));
    let export = ubl(&named(&variants, "export"));
    assert!(export.contains("<cbc:TaxExemptionReasonCode>VATEX-EU-G</cbc:TaxExemptionReasonCode>"));
    assert!(!export.contains("US981234567"));
    let intra = flat(&cii(&named(&variants, "intra_community")));
    assert!(intra.contains(
        "<ram:ShipToTradeParty><ram:PostalTradeAddress><ram:CountryID>FR</ram:CountryID>"
    ));
    assert!(intra.contains(r#"<ram:ID schemeID="VA">FR40303265045</ram:ID>"#));
    let not_subject = ubl(&named(&variants, "not_subject"));
    assert!(
        not_subject.contains("<cbc:TaxExemptionReasonCode>VATEX-EU-O</cbc:TaxExemptionReasonCode>")
    );
    assert!(!not_subject.contains("cac:PartyTaxScheme") && !not_subject.contains("cbc:Percent"));
    let beside_taxed = ubl(&named(&variants, "not_subject_beside_taxed"));
    assert!(beside_taxed.contains("<cbc:ID>E</cbc:ID>"));
    let simplified = ubl(&named(&fixtures, "simplified"));
    assert!(
        simplified
            .contains("<cbc:RegistrationName>Destinatario no identificado</cbc:RegistrationName>")
    );
}
