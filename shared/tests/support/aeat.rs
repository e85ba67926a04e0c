//! VERI*FACTU records and AEAT messages for the simulator and port tests.

use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::dec;
use shared::invoice::kind::Kind;
use shared::verifactu::aeat::soap;
use shared::verifactu::*;

pub const NIF: &str = "B12345674";
pub const NAME: &str = "Ferretería Núñez, S.L.";

pub fn at(minute: u32) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(&format!("2026-11-24T10:{minute:02}:00+01:00")).unwrap()
}

/// Altas F-1…F-n chained from nothing.
pub fn chain(n: u32) -> Vec<BuiltRecord> {
    let system = SystemInfo {
        producer_name: "Svc".into(),
        producer_nif: "B64717838".into(),
        system_name: "svc".into(),
        system_id: "SV".into(),
        version: "1".into(),
        installation_number: "1".into(),
        only_verifactu: true,
        multi_ot: true,
        multiple_ot: true,
    };
    let mut previous: Option<PreviousRecord> = None;
    (1..=n)
        .map(|i| {
            let invoice = InvoiceRef {
                issuer_nif: NIF.into(),
                number: format!("F-{i}"),
                issue_date: NaiveDate::from_ymd_opt(2026, 11, 24).unwrap(),
            };
            let record = Registration {
                invoice: invoice.clone(),
                issuer_name: NAME.into(),
                correction: None,
                kind: Kind::F2,
                rectification: None,
                simplification: Default::default(),
                operation_date: None,
                description: "Venta".into(),
                recipients: Vec::new(),
                breakdown: vec![BreakdownLine {
                    regime: "01".into(),
                    tax: Default::default(),
                    treatment: Treatment::Qualified(Qualification::S1),
                    rate: Some(dec!(21)),
                    base: dec!(10),
                    vat: Some(dec!(2.1)),
                    surcharge_rate: None,
                    surcharge: None,
                }],
                total_vat: dec!(2.1),
                total: dec!(12.1),
                previous: previous.take(),
                system: system.clone(),
                generated_at: at(i),
            }
            .build();
            previous = Some(PreviousRecord {
                invoice,
                hash: record.hash.clone(),
            });
            record
        })
        .collect()
}

pub fn message(records: &[BuiltRecord]) -> String {
    let refs: Vec<&str> = records.iter().map(|r| r.xml.as_str()).collect();
    let xml = submission_xml(NAME, NIF, &refs);
    soap::envelope(xml.split_once("?>").unwrap().1)
}
