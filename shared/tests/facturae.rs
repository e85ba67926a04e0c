//! Facturae 3.2.2 of every fixture invoice: valid against the schema (Python
//! `xmlschema`, interpreter in `SVC_PYTHON`, schema read from
//! `shared/standards/facturae-3.2.2` beside the workspace), its totals
//! identities recomputed here, and byte-equal to the golden files in
//! `tests/golden/facturae` (`UPDATE_GOLDEN=1` rewrites them).

use crate::support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use quick_xml::Reader;
use quick_xml::events::Event;
use rust_decimal::Decimal;
use shared::documents::facturae::facturae;
use shared::invoice::model::Invoice;
use shared::tax::money::round2;

const SCHEMA_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/standards/facturae-3.2.2"
);
const GOLDEN_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/facturae");

/// Prints `path: reason` for every schema error of every file.
const VALIDATE: &str = r#"
import sys, xmlschema
xsd, xmldsig = sys.argv[1], sys.argv[2]
schema = xmlschema.XMLSchema(xsd, uri_mapper={
    'http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd': xmldsig})
for path in sys.argv[3:]:
    for error in schema.iter_errors(path):
        print(f"{path}: {error.reason} at {error.path}")
"#;

/// Each fixture with its Facturae document.
async fn documents() -> Vec<(&'static str, Invoice, String)> {
    support::invoice_fixtures::all()
        .await
        .into_iter()
        .map(|(name, invoice)| {
            let xml = facturae(&invoice);
            (name, invoice, xml)
        })
        .collect()
}

fn require_python() -> bool {
    std::env::var("SVC_REQUIRE_PYTHON").as_deref() == Ok("1")
}

fn not_run(why: &str) {
    let _ = writeln!(std::io::stderr(), "Facturae validation NOT RUN: {why}");
}

/// The interpreter and the schema folder, or `None` (after saying why) when
/// either is missing and SVC_REQUIRE_PYTHON is not 1.
fn validator() -> Option<(PathBuf, PathBuf)> {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        assert!(
            !require_python(),
            "SVC_REQUIRE_PYTHON=1 but SVC_PYTHON is not set"
        );
        not_run("set SVC_PYTHON");
        return None;
    };
    let dir = PathBuf::from(SCHEMA_DIR);
    if !dir.join("Facturaev3_2_2.xsd").is_file() {
        let why = format!("the schema is not at {}", dir.display());
        assert!(!require_python(), "SVC_REQUIRE_PYTHON=1 but {why}");
        not_run(&why);
        return None;
    }
    Some((PathBuf::from(python), dir))
}

/// The schema errors of each file, by file.
fn schema_errors(python: &Path, dir: &Path, files: &[PathBuf]) -> Vec<Vec<String>> {
    let output = Command::new(python)
        .arg("-c")
        .arg(VALIDATE)
        .arg(dir.join("Facturaev3_2_2.xsd"))
        .arg(dir.join("xmldsig-core-schema.xsd"))
        .args(files)
        .output()
        .expect("SVC_PYTHON runs");
    assert!(
        output.status.success(),
        "the validator failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = String::from_utf8_lossy(&output.stdout);
    files
        .iter()
        .map(|file| {
            let prefix = format!("{}: ", file.display());
            report
                .lines()
                .filter(|line| line.starts_with(&prefix))
                .map(str::to_string)
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn every_document_is_valid_against_the_schema() {
    let Some((python, dir)) = validator() else {
        return;
    };
    let documents = documents().await;
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, _, xml) in &documents {
        let file = tmp.path().join(format!("{name}.xml"));
        std::fs::write(&file, xml).unwrap();
        files.push(file);
    }
    // A broken document proves that the validator rejects what it should.
    let broken = tmp.path().join("broken.xml");
    let invalid = documents[0]
        .2
        .replace("<InvoiceClass>OO", "<InvoiceClass>XX");
    std::fs::write(&broken, invalid).unwrap();
    files.push(broken);
    let mut errors = schema_errors(&python, &dir, &files);
    assert!(
        !errors.pop().unwrap_or_default().is_empty(),
        "the validator accepted an invalid document"
    );
    let reasons: Vec<String> = errors.into_iter().flatten().collect();
    assert!(reasons.is_empty(), "{}", reasons.join("\n"));
}

/// An element with text: its path from the root (`/`-joined local names),
/// its text, and the number of the InvoiceLine it is in (0 outside lines).
#[derive(Clone)]
struct Leaf {
    path: String,
    text: String,
    line: usize,
}

struct Doc {
    leaves: Vec<Leaf>,
}

impl Doc {
    fn parse(xml: &str) -> Doc {
        let mut reader = Reader::from_str(xml);
        let mut path: Vec<String> = Vec::new();
        let (mut leaves, mut lines) = (Vec::new(), 0);
        loop {
            match reader.read_event().unwrap() {
                Event::Start(e) => {
                    let name = e.local_name().as_ref().to_string();
                    if name == "InvoiceLine" {
                        lines += 1;
                    }
                    path.push(name);
                }
                Event::End(_) => {
                    path.pop();
                }
                Event::Text(t) if !t.as_ref().trim().is_empty() => {
                    let in_line = path.iter().any(|p| p == "InvoiceLine");
                    leaves.push(Leaf {
                        path: format!("/{}", path.join("/")),
                        text: t.as_ref().to_string(),
                        line: if in_line { lines } else { 0 },
                    });
                }
                Event::Eof => break,
                _ => {}
            }
        }
        Doc { leaves }
    }

    fn line_count(&self) -> usize {
        self.leaves.iter().map(|l| l.line).max().unwrap_or(0)
    }

    fn line(&self, n: usize) -> Doc {
        let leaves = self.leaves.iter().filter(|l| l.line == n).cloned();
        Doc {
            leaves: leaves.collect(),
        }
    }

    /// The texts of the elements whose path ends with `suffix`.
    fn texts(&self, suffix: &str) -> Vec<&str> {
        let suffix = format!("/{suffix}");
        self.leaves
            .iter()
            .filter(|l| l.path.ends_with(&suffix))
            .map(|l| l.text.as_str())
            .collect()
    }

    fn sum(&self, suffix: &str) -> Decimal {
        self.texts(suffix)
            .into_iter()
            .map(|t| t.parse::<Decimal>().unwrap())
            .sum()
    }

    fn amount(&self, suffix: &str) -> Decimal {
        assert_eq!(self.texts(suffix).len(), 1, "one {suffix}");
        self.sum(suffix)
    }
}

/// Amounts in EUR have exactly 2 decimals.
fn has_two_decimals(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    digits.split_once('.').is_some_and(|(units, cents)| {
        !units.is_empty()
            && cents.len() == 2
            && units
                .bytes()
                .chain(cents.bytes())
                .all(|b| b.is_ascii_digit())
    })
}

fn is_amount(path: &str) -> bool {
    const AMOUNTS: [&str; 6] = [
        "/TotalAmount",
        "/TotalCost",
        "/DiscountAmount",
        "/GrossAmount",
        "/InstallmentAmount",
        "/EquivalenceSurcharge",
    ];
    path.contains("/InvoiceTotals/") || AMOUNTS.iter().any(|a| path.ends_with(a))
}

fn check_lines(name: &str, doc: &Doc) {
    for n in 1..=doc.line_count() {
        let line = doc.line(n);
        let quantity: Decimal = line.texts("InvoiceLine/Quantity")[0].parse().unwrap();
        let price: Decimal = line.texts("InvoiceLine/UnitPriceWithoutTax")[0]
            .parse()
            .unwrap();
        let total_cost = line.amount("InvoiceLine/TotalCost");
        assert_eq!(total_cost, round2(quantity * price), "{name} line {n}");
        let gross = line.amount("InvoiceLine/GrossAmount");
        assert_eq!(
            gross,
            total_cost - line.sum("Discount/DiscountAmount") + line.sum("Charge/ChargeAmount"),
            "{name} line {n}: GrossAmount = TotalCost − discounts + charges"
        );
        assert_eq!(
            line.amount("InvoiceLine/TaxesOutputs/Tax/TaxableBase/TotalAmount"),
            gross,
            "{name} line {n}"
        );
    }
}

fn check_totals(name: &str, invoice: &Invoice, doc: &Doc) {
    let t = |element: &str| doc.amount(&format!("InvoiceTotals/{element}"));
    let gross = t("TotalGrossAmount");
    assert_eq!(gross, doc.sum("InvoiceLine/GrossAmount"), "{name}");
    let before_taxes = t("TotalGrossAmountBeforeTaxes");
    assert_eq!(
        before_taxes,
        gross - doc.sum("InvoiceTotals/TotalGeneralDiscounts")
            + doc.sum("InvoiceTotals/TotalGeneralSurcharges"),
        "{name}: TotalGrossAmountBeforeTaxes"
    );
    assert_eq!(
        before_taxes,
        doc.sum("Invoice/TaxesOutputs/Tax/TaxableBase/TotalAmount"),
        "{name}: the VAT bases add up to the taxable amount"
    );
    let outputs = t("TotalTaxOutputs");
    assert_eq!(
        outputs,
        doc.sum("Invoice/TaxesOutputs/Tax/TaxAmount/TotalAmount")
            + doc.sum("Invoice/TaxesOutputs/Tax/EquivalenceSurchargeAmount/TotalAmount"),
        "{name}: TotalTaxOutputs"
    );
    let withheld = t("TotalTaxesWithheld");
    assert_eq!(
        withheld,
        doc.sum("Invoice/TaxesWithheld/Tax/TaxAmount/TotalAmount"),
        "{name}: TotalTaxesWithheld"
    );
    let total = t("InvoiceTotal");
    assert_eq!(
        total,
        before_taxes + outputs - withheld,
        "{name}: InvoiceTotal"
    );
    assert_eq!(total, invoice.total.value(), "{name}: the invoice's total");
    let outstanding = t("TotalOutstandingAmount");
    assert_eq!(
        outstanding,
        total - doc.sum("Subsidy/SubsidyAmount") - doc.sum("InvoiceTotals/TotalPaymentsOnAccount"),
        "{name}: TotalOutstandingAmount"
    );
    let executable = t("TotalExecutableAmount");
    assert_eq!(
        executable,
        outstanding
            - doc.sum("AmountsWithheld/WithholdingAmount")
            - doc.sum("PaymentInKind/PaymentInKindAmount")
            + doc.sum("InvoiceTotals/TotalReimbursableExpenses")
            + doc.sum("InvoiceTotals/TotalFinancialExpenses"),
        "{name}: TotalExecutableAmount"
    );
    let batch = |element: &str| doc.amount(&format!("Batch/{element}/TotalAmount"));
    assert_eq!(batch("TotalInvoicesAmount"), total, "{name}");
    assert_eq!(batch("TotalOutstandingAmount"), outstanding, "{name}");
    assert_eq!(batch("TotalExecutableAmount"), executable, "{name}");
    let instalments = doc.texts("Installment/InstallmentAmount");
    assert!(
        instalments.is_empty() || doc.sum("Installment/InstallmentAmount") == executable,
        "{name}: the instalments add up to what is payable"
    );
}

#[tokio::test]
async fn totals_identities_hold() {
    for (name, invoice, xml) in documents().await {
        let doc = Doc::parse(&xml);
        for leaf in doc.leaves.iter().filter(|l| is_amount(&l.path)) {
            assert!(
                has_two_decimals(&leaf.text),
                "{name}: {} = {}",
                leaf.path,
                leaf.text
            );
        }
        assert_eq!(doc.line_count(), invoice.lines.len(), "{name}");
        check_lines(name, &doc);
        check_totals(name, &invoice, &doc);
    }
}

#[tokio::test]
async fn documents_say_what_the_invoices_mean() {
    let documents = documents().await;
    let doc = |wanted: &str| {
        let (_, _, xml) = documents
            .iter()
            .find(|(name, _, _)| *name == wanted)
            .unwrap();
        Doc::parse(xml)
    };
    let one_rate = doc("one_rate");
    assert_eq!(one_rate.texts("PersonTypeCode"), ["F", "J"]);
    assert_eq!(one_rate.texts("SellerParty/Individual/Name"), ["Ana"]);
    assert_eq!(
        one_rate.texts("BuyerParty/LegalEntity/CorporateName"),
        ["Taller Ana SL"]
    );
    assert_eq!(one_rate.texts("Installment/PaymentMeans"), ["04"]);
    assert_eq!(
        one_rate.texts("AccountToBeCredited/IBAN"),
        ["ES9121000418450200051332"]
    );
    let irpf = doc("irpf");
    assert_eq!(irpf.texts("Invoice/TaxesWithheld/Tax/TaxTypeCode"), ["04"]);
    assert_eq!(irpf.texts("Invoice/TaxesWithheld/Tax/TaxRate"), ["15.00"]);
    let surcharge = doc("surcharge");
    assert_eq!(
        surcharge.texts("Invoice/TaxesOutputs/Tax/TaxTypeCode"),
        ["01", "01"]
    );
    assert_eq!(
        surcharge.texts("Invoice/TaxesOutputs/Tax/EquivalenceSurcharge"),
        ["5.20", "1.40"]
    );
    let exempt = doc("exempt");
    assert_eq!(exempt.texts("SpecialTaxableEventCode"), ["01"]);
    assert_eq!(
        exempt.texts("LegalReference"),
        ["Operación exenta de IVA (art. 20 Ley 37/1992)"]
    );
    let reverse = doc("reverse_charge");
    assert!(reverse.texts("SpecialTaxableEventCode").is_empty());
    assert_eq!(
        reverse.texts("LegalReference"),
        ["Inversión del sujeto pasivo"]
    );
    let simplified = doc("simplified");
    assert_eq!(simplified.texts("InvoiceDocumentType"), ["FA"]);
    assert_eq!(
        simplified.texts("BuyerParty/TaxIdentification/TaxIdentificationNumber"),
        ["00000000T"]
    );
    for (name, method) in [
        ("rectifying_substitution", "01"),
        ("rectifying_differences", "02"),
    ] {
        let rectifying = doc(name);
        assert_eq!(rectifying.texts("InvoiceClass"), ["OR"], "{name}");
        assert_eq!(
            rectifying.texts("Corrective/InvoiceNumber"),
            ["F2026-000008"]
        );
        assert_eq!(rectifying.texts("Corrective/ReasonCode"), ["16"], "{name}");
        assert_eq!(rectifying.texts("Corrective/CorrectionMethod"), [method]);
    }
    assert!(doc("cancelled").texts("InvoiceAdditionalInformation")[0].contains("ANULADA"));
    assert!(doc("test_mode").texts("InvoiceAdditionalInformation")[0].contains("PRUEBA"));
}

/// The line number where two texts first differ.
fn first_difference(a: &str, b: &str) -> usize {
    a.lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or_else(|| a.lines().count().min(b.lines().count()))
        + 1
}

#[tokio::test]
async fn documents_match_the_golden_files() {
    let update = std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1");
    let dir = Path::new(GOLDEN_DIR);
    for (name, _, xml) in documents().await {
        let file = dir.join(format!("{name}.xml"));
        if update {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(&file, &xml).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_GOLDEN=1", file.display()));
        assert!(
            xml == golden,
            "{name}: differs from {} at line {}; check and run with UPDATE_GOLDEN=1",
            file.display(),
            first_difference(&xml, &golden)
        );
    }
}
