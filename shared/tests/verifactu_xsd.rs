//! VERI*FACTU records against the AEAT schemas: a chain covering the record
//! shapes the service issues is wrapped in a RegFactuSistemaFacturacion and
//! validated against `SuministroLR.xsd`, and each bare record against
//! `SuministroInformacion.xsd`, with Python `xmlschema` (interpreter in
//! `SVC_PYTHON`); so are the records a test account's chain gets through
//! the API when rejected records are resubmitted and a rejected invoice is
//! cancelled. The schemas are read from `shared/standards/verifactu` beside
//! the workspace.

use crate::support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::{Decimal, dec};
use shared::invoice::kind::Kind;
use shared::verifactu::*;

const STANDARDS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/standards/verifactu"
);
const XSD: &str = "XSD validation";
const ISSUER_NAME: &str = "Ferretería Núñez & Hijos, S.L.";
const ISSUER_NIF: &str = "B12345674";

/// Prints every schema error of every file; exits 1 if there was one.
const VALIDATE: &str = r#"
import sys, xmlschema
schema = xmlschema.XMLSchema(sys.argv[1])
failed = False
for path in sys.argv[2:]:
    for error in schema.iter_errors(path):
        failed = True
        print(f"{path}: {error.reason} at {error.path}")
sys.exit(1 if failed else 0)
"#;

fn require_all() -> bool {
    std::env::var("SVC_REQUIRE_PYTHON").as_deref() == Ok("1")
}

fn not_run(what: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "\nVERI*FACTU {what} NOT RUN: {why}\n");
}

/// The schemas folder, or `None` (after saying that `what` did not run) when
/// it is absent.
fn standards(what: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(STANDARDS);
    if dir.join("SuministroLR.xsd").is_file() {
        return Some(dir);
    }
    let why = format!("the AEAT schemas are not at {}", dir.display());
    assert!(!require_all(), "SVC_REQUIRE_PYTHON=1 but {why}");
    not_run(what, &why);
    None
}

/// The interpreter and the schemas folder, or `None` when either is missing.
fn validator() -> Option<(PathBuf, PathBuf)> {
    let Some(python) = std::env::var_os("SVC_PYTHON") else {
        assert!(
            !require_all(),
            "SVC_REQUIRE_PYTHON=1 but SVC_PYTHON is not set"
        );
        not_run(XSD, "set SVC_PYTHON");
        return None;
    };
    Some((PathBuf::from(python), standards(XSD)?))
}

/// Validates the documents against one schema; `Err` holds xmlschema's report.
fn validate(python: &Path, schema: &Path, documents: &[(&str, &str)]) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let paths: Vec<PathBuf> = documents
        .iter()
        .map(|(name, xml)| {
            let path = dir.path().join(format!("{name}.xml"));
            std::fs::write(&path, xml).expect("the XML is written");
            path
        })
        .collect();
    let output = Command::new(python)
        .arg("-c")
        .arg(VALIDATE)
        .arg(schema)
        .args(&paths)
        .output()
        .expect("python runs");
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("a valid date")
}

fn at(minute: u32) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(&format!("2025-07-01T10:{minute:02}:00+02:00"))
        .expect("an RFC 3339 time")
}

fn system() -> SystemInfo {
    SystemInfo {
        producer_name: "Facturas Rápidas, S.L.".to_owned(),
        producer_nif: "B87654323".to_owned(),
        system_name: "Facturas API".to_owned(),
        system_id: "FA".to_owned(),
        version: "1.0.0".to_owned(),
        installation_number: "prod-eu-1".to_owned(),
        only_verifactu: true,
        multi_ot: true,
        multiple_ot: true,
    }
}

fn invoice(number: &str, issue_date: NaiveDate) -> InvoiceRef {
    InvoiceRef {
        issuer_nif: ISSUER_NIF.to_owned(),
        number: number.to_owned(),
        issue_date,
    }
}

fn customer() -> Recipient {
    Recipient::Nif {
        name: "Cliente <Uno>, S.A.".to_owned(),
        nif: "A58818501".to_owned(),
    }
}

fn line(regime: &str, treatment: Treatment, base: Decimal) -> BreakdownLine {
    BreakdownLine {
        regime: regime.to_owned(),
        tax: Default::default(),
        treatment,
        rate: None,
        base,
        vat: None,
        surcharge_rate: None,
        surcharge: None,
    }
}

fn s1(rate: Decimal, base: Decimal, vat: Decimal) -> BreakdownLine {
    BreakdownLine {
        rate: Some(rate),
        vat: Some(vat),
        ..line("01", Treatment::Qualified(Qualification::S1), base)
    }
}

fn f1(
    number: &str,
    breakdown: Vec<BreakdownLine>,
    total_vat: Decimal,
    total: Decimal,
) -> Registration {
    Registration {
        invoice: invoice(number, date(2025, 7, 1)),
        issuer_name: ISSUER_NAME.to_owned(),
        correction: None,
        kind: Kind::F1,
        rectification: None,
        simplification: Default::default(),
        operation_date: None,
        description: "Venta de material de ferretería".to_owned(),
        recipients: vec![customer()],
        breakdown,
        total_vat,
        total,
        previous: None,
        system: system(),
        generated_at: at(0),
    }
}

/// The registrations of the chain, before chaining (the last two are
/// corrections: Subsanacion, and Subsanacion with RechazoPrevio X).
fn registrations() -> Vec<Registration> {
    let surcharge = BreakdownLine {
        rate: Some(dec!(21)),
        vat: Some(dec!(21)),
        surcharge_rate: Some(dec!(5.2)),
        surcharge: Some(dec!(5.2)),
        ..line("18", Treatment::Qualified(Qualification::S1), dec!(100))
    };
    let f2 = Registration {
        kind: Kind::F2,
        recipients: Vec::new(),
        ..f1(
            "T-1",
            vec![s1(dec!(21), dec!(10), dec!(2.1))],
            dec!(2.1),
            dec!(12.1),
        )
    };
    let r4 = Registration {
        kind: Kind::R4,
        rectification: Some(Rectification {
            method: RectificationMethod::Substitution,
            rectified: vec![invoice("A-1", date(2025, 7, 1))],
            rectified_amounts: Some(RectifiedAmounts {
                base: dec!(100),
                vat: dec!(21),
                surcharge: None,
            }),
        }),
        operation_date: Some(date(2025, 6, 30)),
        ..f1(
            "R-1",
            vec![s1(dec!(21), dec!(90), dec!(18.9))],
            dec!(18.9),
            dec!(108.9),
        )
    };
    let r1 = Registration {
        kind: Kind::R1,
        rectification: Some(Rectification {
            method: RectificationMethod::Differences,
            rectified: vec![
                invoice("A-2", date(2025, 7, 1)),
                invoice("A-3", date(2025, 7, 1)),
            ],
            rectified_amounts: None,
        }),
        ..f1(
            "R-2",
            vec![s1(dec!(21), dec!(-1620), dec!(-340.2))],
            dec!(-340.2),
            dec!(-1960.2),
        )
    };
    let foreign = Registration {
        recipients: vec![Recipient::Foreign {
            name: "Louise Dubois".to_owned(),
            country: "FR".to_owned(),
            id_type: "02".to_owned(),
            id: "FR52422961982".to_owned(),
        }],
        ..f1(
            "A-8",
            vec![line("01", Treatment::Exempt(Exemption::E5), dec!(500))],
            dec!(0),
            dec!(500),
        )
    };
    let corrected = |correction, number| Registration {
        correction: Some(correction),
        ..f1(
            number,
            vec![s1(dec!(21), dec!(100), dec!(21))],
            dec!(21),
            dec!(121),
        )
    };
    vec![
        f1(
            "A-1",
            vec![s1(dec!(21), dec!(100), dec!(21))],
            dec!(21),
            dec!(121),
        ),
        f1(
            "A-2",
            vec![
                s1(dec!(21), dec!(100), dec!(21)),
                s1(dec!(10), dec!(50), dec!(5)),
                s1(dec!(4), dec!(10.5), dec!(0.42)),
            ],
            dec!(26.42),
            dec!(186.92),
        ),
        f1("A-3", vec![surcharge], dec!(26.2), dec!(126.2)),
        f1(
            "A-4",
            vec![line("01", Treatment::Exempt(Exemption::E1), dec!(80))],
            dec!(0),
            dec!(80),
        ),
        f1(
            "A-5",
            vec![line(
                "01",
                Treatment::Qualified(Qualification::S2),
                dec!(1000),
            )],
            dec!(0),
            dec!(1000),
        ),
        f2,
        r4,
        r1,
        foreign,
        corrected(Correction::OfAccepted, "A-1"),
        corrected(Correction::OfRejected, "A-9"),
    ]
}

/// The registrations chained in order, then the cancellation of the last,
/// and that cancellation sent again with SinRegistroPrevio and RechazoPrevio.
fn chain() -> Vec<BuiltRecord> {
    let mut built: Vec<BuiltRecord> = Vec::new();
    let mut previous: Option<PreviousRecord> = None;
    for (minute, mut registration) in (0..).zip(registrations()) {
        registration.previous = previous.take();
        registration.generated_at = at(minute);
        let record = registration.build();
        previous = Some(PreviousRecord {
            invoice: registration.invoice,
            hash: record.hash.clone(),
        });
        built.push(record);
    }
    let cancelled = previous
        .as_ref()
        .map(|p| p.invoice.clone())
        .expect("a chain");
    let cancellation = Cancellation {
        invoice: cancelled.clone(),
        without_registration: false,
        after_rejection: false,
        previous,
        system: system(),
        generated_at: at(58),
    }
    .build();
    let resent = Cancellation {
        without_registration: true,
        after_rejection: true,
        previous: Some(PreviousRecord {
            invoice: cancelled.clone(),
            hash: cancellation.hash.clone(),
        }),
        generated_at: at(59),
        invoice: cancelled,
        system: system(),
    }
    .build();
    built.extend([cancellation, resent]);
    built
}

#[test]
fn records_validate_against_the_aeat_schemas() {
    let Some((python, standards)) = validator() else {
        return;
    };
    let records = chain();
    let jsons: Vec<serde_json::Value> = records.iter().map(|r| r.json.clone()).collect();
    assert_eq!(
        verify_chain(&jsons),
        ChainCheck::Ok {
            records: records.len()
        }
    );

    let refs: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
    let submission = submission_xml(ISSUER_NAME, ISSUER_NIF, &refs);
    if let Err(report) = validate(
        &python,
        &standards.join("SuministroLR.xsd"),
        &[("submission", &submission)],
    ) {
        panic!("the submission is not valid against SuministroLR.xsd:\n{report}\n{submission}");
    }

    let names: Vec<String> = (0..records.len()).map(|i| format!("record-{i}")).collect();
    let bare: Vec<(&str, &str)> = names
        .iter()
        .zip(&records)
        .map(|(name, record)| (name.as_str(), record.xml.as_str()))
        .collect();
    if let Err(report) = validate(&python, &standards.join("SuministroInformacion.xsd"), &bare) {
        panic!("records are not valid against SuministroInformacion.xsd:\n{report}");
    }
}

/// The simulator's answers to the chain (all correct; then a duplicate, a
/// broken chain and an injected code) validate against RespuestaSuministro.xsd,
/// and the chain's submission reads back as the simulator sees it.
#[test]
fn simulator_answers_validate_against_respuesta_suministro() {
    use shared::verifactu::aeat::{RecordError, soap, submission};
    use shared::verifactu::simulator::Simulator;

    let Some((python, standards)) = validator() else {
        return;
    };
    let records = chain();
    let read = |records: &[&BuiltRecord]| {
        let records: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
        let xml = submission_xml(ISSUER_NAME, ISSUER_NIF, &records);
        let soap::Body::Content(body) =
            soap::read(&soap::envelope(xml.split_once("?>").unwrap().1)).unwrap()
        else {
            panic!("a body")
        };
        submission::read(&body).unwrap()
    };
    let mut simulator = Simulator::default();
    let all: Vec<&BuiltRecord> = records.iter().collect();
    let first = simulator.answer(&read(&all), at(59));
    assert_eq!(first.lines.len(), records.len());
    simulator.inject(
        "A-1",
        RecordError {
            code: 1105,
            description: "Destinatario <no> identificado & más".into(),
        },
    );
    let second = simulator.answer(&read(&[&records[0], &records[1]]), at(59));
    let answers = [("correct", first.to_xml()), ("rejected", second.to_xml())];
    let documents: Vec<(&str, &str)> = answers.iter().map(|(n, x)| (*n, x.as_str())).collect();
    if let Err(report) = validate(
        &python,
        &standards.join("RespuestaSuministro.xsd"),
        &documents,
    ) {
        panic!(
            "simulator answers are not valid against RespuestaSuministro.xsd:\n{report}\n{}",
            answers[1].1
        );
    }
}

/// The query (as issuer with a counterpart and a page key, and as recipient)
/// validates against ConsultaLR.xsd, and the simulator's answer to it (the
/// chain's records: surcharge, exempt and foreign recipients, a cancelled
/// invoice) against RespuestaConsultaLR.xsd; the answer reads back.
#[test]
fn queries_and_their_answers_validate_against_consulta_lr() {
    use shared::verifactu::aeat::query::{Party, Period, Query, Side, read_answer};
    use shared::verifactu::aeat::{InvoiceKey, soap};
    use shared::verifactu::simulator::Simulator;

    let Some((python, standards)) = validator() else {
        return;
    };
    let records = chain();
    let refs: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
    let submission = submission_xml(ISSUER_NAME, ISSUER_NIF, &refs);
    let mut simulator = Simulator::default();
    simulator
        .respond(
            &soap::envelope(submission.split_once("?>").unwrap().1),
            at(59),
        )
        .unwrap();
    let query = |side, nif: &str| Query {
        side,
        asker: Party {
            nif: nif.into(),
            name: ISSUER_NAME.into(),
        },
        period: Period::new(2025, 7).unwrap(),
        number: None,
        counterpart: None,
        after: None,
    };
    let as_issuer = Query {
        counterpart: Some(Party {
            nif: "A58818501".into(),
            name: "Cliente <Uno>, S.A.".into(),
        }),
        after: Some(InvoiceKey {
            nif: ISSUER_NIF.into(),
            number: "A-0".into(),
            date: "01-07-2025".into(),
        }),
        number: Some("A-1".into()),
        ..query(Side::Issuer, ISSUER_NIF)
    };
    let as_recipient = query(Side::Recipient, "A58818501");
    let requests = [as_issuer.to_xml(), as_recipient.to_xml()];
    let documents = [
        ("issuer", requests[0].as_str()),
        ("recipient", requests[1].as_str()),
    ];
    if let Err(report) = validate(&python, &standards.join("ConsultaLR.xsd"), &documents) {
        panic!(
            "queries are not valid against ConsultaLR.xsd:\n{report}\n{}",
            requests[0]
        );
    }

    let mut answers = Vec::new();
    for side in [Side::Issuer, Side::Recipient] {
        let nif = if side == Side::Issuer {
            ISSUER_NIF
        } else {
            "A58818501"
        };
        let envelope = simulator
            .respond(&query(side, nif).envelope(), at(59))
            .unwrap();
        let answer = read_answer(&envelope).unwrap();
        assert!(!answer.records.is_empty(), "{envelope}");
        answers.push(answer.to_xml());
    }
    let documents = [
        ("issuer", answers[0].as_str()),
        ("recipient", answers[1].as_str()),
    ];
    if let Err(report) = validate(
        &python,
        &standards.join("RespuestaConsultaLR.xsd"),
        &documents,
    ) {
        panic!(
            "query answers are not valid against RespuestaConsultaLR.xsd:\n{report}\n{}",
            answers[0]
        );
    }
}

/// Guards the harness: a record with two elements swapped must be rejected.
#[test]
fn the_validator_rejects_a_misordered_record() {
    let Some((python, standards)) = validator() else {
        return;
    };
    let xml = chain()[0].xml.replacen(
        "<sf:NombreRazonEmisor>",
        "<sf:TipoFactura>F1</sf:TipoFactura><sf:NombreRazonEmisor>",
        1,
    );
    let report = validate(
        &python,
        &standards.join("SuministroInformacion.xsd"),
        &[("misordered", &xml)],
    )
    .expect_err("a misordered record must not validate");
    assert!(report.contains("misordered.xml"), "{report}");
}

/// The josemmo F1 example, rebuilt from its data, is the same element for
/// element (it also sends Subsanacion=N, which the service never does).
#[test]
fn rebuilt_f1_example_matches_the_published_one() {
    let Some(standards) = standards("example comparison") else {
        return;
    };
    let path = standards.join("examples/registration-record-f1.xml");
    let published = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
    let published = compact(&published)
        .replace("xmlns:sum1=", "xmlns:sf=")
        .replace("sum1:", "sf:")
        .replace("<sf:Subsanacion>N</sf:Subsanacion>", "");
    assert_eq!(josemmo_f1().build().xml, published);
}

/// The XML without its declaration and without whitespace between tags.
fn compact(xml: &str) -> String {
    let body = xml.split_once("?>").map_or(xml, |(_, body)| body);
    body.lines().map(str::trim).collect()
}

fn josemmo_f1() -> Registration {
    let name = "El Nombre del Emisor, S.L.";
    Registration {
        invoice: InvoiceRef {
            issuer_nif: "00000000B".to_owned(),
            number: "PRUEBA-0002".to_owned(),
            issue_date: date(2025, 6, 2),
        },
        issuer_name: name.to_owned(),
        correction: None,
        kind: Kind::F1,
        rectification: None,
        simplification: Default::default(),
        operation_date: Some(date(2025, 5, 15)),
        description: "Factura de prueba".to_owned(),
        recipients: vec![
            Recipient::Nif {
                name: "El Destinatario, S.L.".to_owned(),
                nif: "11111111B".to_owned(),
            },
            Recipient::Foreign {
                name: "Louise Dubois".to_owned(),
                country: "FR".to_owned(),
                id_type: "02".to_owned(),
                id: "FR52422961982".to_owned(),
            },
        ],
        breakdown: vec![
            s1(dec!(21), dec!(100), dec!(21)),
            s1(dec!(10), dec!(50), dec!(5)),
        ],
        total_vat: dec!(26),
        total: dec!(176),
        previous: Some(PreviousRecord {
            invoice: InvoiceRef {
                issuer_nif: "00000000B".to_owned(),
                number: "PRUEBA-001".to_owned(),
                issue_date: date(2025, 6, 1),
            },
            hash: "A".repeat(64),
        }),
        system: SystemInfo {
            producer_name: name.to_owned(),
            producer_nif: "00000000B".to_owned(),
            system_name: "Test SIF".to_owned(),
            system_id: "TS".to_owned(),
            version: "0.0.1".to_owned(),
            installation_number: "01234".to_owned(),
            only_verifactu: true,
            multi_ot: false,
            multiple_ot: false,
        },
        generated_at: DateTime::parse_from_rfc3339("2025-06-02T11:22:33+02:00")
            .expect("an RFC 3339 time"),
    }
}

/// The service in-process on the embedded engine, for the tests through the API.
async fn api() -> support::Harness {
    support::start(
        support::relaxed(),
        shared::domain::account::Plan::Pro,
        axum::Router::new(),
    )
    .await
}

/// Checks that the harness account's test chain holds `count` records, that
/// each flag is in one of them, and that together they are a submission
/// valid against `SuministroLR.xsd`.
async fn assert_chain(
    h: &support::Harness,
    (python, standards): (&Path, &Path),
    label: &str,
    count: usize,
    flags: &[&str],
) {
    let xml = chain_records(h).await;
    let records: Vec<&str> = xml.iter().map(String::as_str).collect();
    assert_eq!(records.len(), count, "{label}");
    for flag in flags {
        assert!(records.iter().any(|r| r.contains(flag)), "{label}: {flag}");
    }
    assert_valid_submission(python, standards, label, &records);
}

/// Sends the pending test records to the simulator and checks that it
/// accepted each of these invoices' records.
async fn submit_and_expect_accepted(h: &support::Harness, ids: &[&serde_json::Value]) {
    shared::app::verifactu::submit_pending(&h.ports)
        .await
        .unwrap();
    for id in ids {
        let path = format!("/api/v1/invoices/{id}");
        let now = support::send(&h.app, support::get(&path, Some(&h.test)))
            .await
            .json;
        assert_eq!(
            now["verifactu"]["status"], "accepted",
            "{} {}: {}",
            now["kind"], now["number"], now["verifactu"]
        );
    }
}

/// The XML of the harness account's test chain records, in chain order.
async fn chain_records(h: &support::Harness) -> Vec<String> {
    use shared::ports::table::{Query, SortKey};
    let chain = format!("CHAIN#test#{}#12345678Z#RECORDS", h.account);
    let page = h
        .ports
        .table
        .query(&Query::new(chain, SortKey::All))
        .await
        .unwrap();
    page.items
        .iter()
        .filter_map(|i| i.s("xml").map(str::to_string))
        .collect()
}

/// Panics with the validator's report unless the records, as one
/// submission, are valid against `SuministroLR.xsd`.
fn assert_valid_submission(python: &Path, standards: &Path, label: &str, records: &[&str]) {
    let submission = submission_xml("Ana García Pérez", "12345678Z", records);
    if let Err(report) = validate(
        python,
        &standards.join("SuministroLR.xsd"),
        &[(label, &submission)],
    ) {
        panic!(
            "the {label} records are not valid against SuministroLR.xsd:\n{report}\n{submission}"
        );
    }
}

/// A test account's chain after corrections made through the API: an
/// invoice rejected and resubmitted (Subsanacion, RechazoPrevio X), one
/// accepted with errors and corrected (Subsanacion), one rejected and then
/// cancelled (SinRegistroPrevio).
#[tokio::test]
async fn resubmitted_records_validate_against_suministro_lr() {
    use serde_json::json;
    use support::{post_json, send};

    let Some((python, standards)) = validator() else {
        return;
    };
    let h = api().await;
    h.set_issuer().await;
    let mut ids = Vec::new();
    for code in [1104, 2001, 1104] {
        let body = json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": 21}],
            "test_options": {"verifactu_error": {"code": code}}});
        let idem = format!("xsd-{}", ids.len());
        let r = send(
            &h.app,
            post_json("/api/v1/invoices", &h.test, Some(&idem), &body.to_string()),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.json);
        ids.push(r.json["id"].clone());
    }
    shared::app::verifactu::submit_pending(&h.ports)
        .await
        .unwrap();
    for (id, action) in [
        (&ids[0], "verifactu/resubmit"),
        (&ids[1], "verifactu/resubmit"),
        (&ids[2], "cancel"),
    ] {
        let path = format!("/api/v1/invoices/{id}/{action}");
        let r = send(&h.app, post_json(&path, &h.test, None, "{}")).await;
        assert_eq!(r.status, 200, "{action}: {}", r.json);
    }
    let flags = [
        "<sf:RechazoPrevio>X</sf:RechazoPrevio>",
        "<sf:Subsanacion>S</sf:Subsanacion><sf:TipoFactura>",
        "<sf:SinRegistroPrevio>S</sf:SinRegistroPrevio>",
    ];
    assert_chain(&h, (&python, &standards), "resubmitted", 6, &flags).await;
}

/// The records of every simplified type (F2 ticket, F1 qualified simplified,
/// F2 without the recipient's identification, F3 replacing tickets, R5 by
/// differences and by substitution) are valid against `SuministroLR.xsd`,
/// and the simulator, which applies the AEAT's checks of each type, accepts
/// them all.
#[tokio::test]
async fn simplified_types_validate_and_the_simulator_accepts_them() {
    use serde_json::{Value, json};
    use support::{post_json, send};

    let Some((python, standards)) = validator() else {
        return;
    };
    let h = api().await;
    h.set_issuer().await;
    let customer = json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"});
    let cafe = json!([{"description": "Café", "quantity": 2, "unit_price": 1.5, "vat_rate": 10}]);
    let mut n = 0;
    let mut post = async |path: String, body: Value| -> Value {
        n += 1;
        let r = send(
            &h.app,
            post_json(&path, &h.test, Some(&format!("s{n}")), &body.to_string()),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.json);
        r.json
    };
    let issue = "/api/v1/invoices".to_string();
    let ticket = post(
        issue.clone(),
        json!({"prices_include_vat": true, "lines": cafe}),
    )
    .await;
    let other = post(issue.clone(), json!({"lines": cafe})).await;
    let third = post(issue.clone(), json!({"lines": cafe})).await;
    let mut issued = vec![
        ticket.clone(),
        post(issue.clone(), json!({"simplified": true, "customer": customer, "lines": cafe})).await,
        post(issue.clone(), json!({"simplified": false,
            "customer": {"name": "Jane Roe", "address": "1 Main St", "country": "US"},
            "lines": [{"description": "Consultoría", "quantity": 1, "unit_price": 900, "vat_rate": 0, "exemption": "N2"}]})).await,
        post(issue.clone(), json!({"customer": customer, "replaces": [ticket["id"]]})).await,
        post(format!("/api/v1/invoices/{}/rectify", other["id"]),
            json!({"reason_code": "R5", "method": "differences", "description": "Devolución"})).await,
        post(format!("/api/v1/invoices/{}/rectify", third["id"]),
            json!({"reason_code": "R5", "method": "substitution", "description": "Precio",
                "lines": [{"description": "Café", "quantity": 2, "unit_price": 1.2, "vat_rate": 10}]})).await,
    ];
    issued.extend([other, third]);
    let kinds: Vec<&str> = issued.iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["F2", "F1", "F2", "F3", "R5", "R5", "F2", "F2"]);

    let ids: Vec<&Value> = issued.iter().map(|i| &i["id"]).collect();
    submit_and_expect_accepted(&h, &ids).await;
    let flags = [
        "<sf:FacturaSimplificadaArt7273>S</sf:FacturaSimplificadaArt7273>",
        "<sf:FacturaSinIdentifDestinatarioArt61d>S</sf:FacturaSinIdentifDestinatarioArt61d>",
        "<sf:FacturasSustituidas><sf:IDFacturaSustituida>",
    ];
    assert_chain(&h, (&python, &standards), "simplified", 8, &flags).await;
}

/// IGIC (`Impuesto` 03) and IPSI (02) records are valid against
/// `SuministroLR.xsd` and accepted by the simulator.
#[tokio::test]
async fn igic_and_ipsi_records_validate_and_are_accepted() {
    use serde_json::json;
    use support::{post_json, send};

    let Some((python, standards)) = validator() else {
        return;
    };
    let h = api().await;
    let mut ids = Vec::new();
    for (postal_code, rate) in [("38001", 7), ("51001", 4)] {
        let issuer = shared::domain::account::Issuer {
            postal_code: Some(postal_code.into()),
            ..support::madrid_issuer()
        };
        shared::app::accounts::set_issuer(&h.ports, &h.account, &issuer)
            .await
            .unwrap();
        let body = json!({"lines": [{"description": "Café", "quantity": 1, "unit_price": 10, "vat_rate": rate}]});
        let r = send(
            &h.app,
            post_json(
                "/api/v1/invoices",
                &h.test,
                Some(postal_code),
                &body.to_string(),
            ),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.json);
        ids.push(r.json["id"].clone());
    }
    submit_and_expect_accepted(&h, &ids.iter().collect::<Vec<_>>()).await;
    let flags = [
        "<sf:Impuesto>03</sf:Impuesto>",
        "<sf:Impuesto>02</sf:Impuesto>",
    ];
    assert_chain(&h, (&python, &standards), "igic_ipsi", 2, &flags).await;
}
