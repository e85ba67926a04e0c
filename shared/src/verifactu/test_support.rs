//! Records for the unit tests: the josemmo F1 example (its data and Huella
//! are in `shared/standards/verifactu/examples/registration-record-f1.xml`)
//! and a small chain.

use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::dec;

use super::*;
use crate::invoice::kind::Kind;

pub(crate) const JOSEMMO_F1_HUELLA: &str =
    "8B042C064EE8260DE86766B4C4878DD1347377D00C7D7C97043E126B1215F2A6";

pub(crate) fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("a valid date")
}

pub(crate) fn at(rfc3339: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(rfc3339).expect("an RFC 3339 time")
}

pub(crate) fn system(producer_name: &str, producer_nif: &str) -> SystemInfo {
    SystemInfo {
        producer_name: producer_name.to_owned(),
        producer_nif: producer_nif.to_owned(),
        system_name: "Test SIF".to_owned(),
        system_id: "TS".to_owned(),
        version: "0.0.1".to_owned(),
        installation_number: "01234".to_owned(),
        only_verifactu: true,
        multi_ot: false,
        multiple_ot: false,
    }
}

pub(crate) fn invoice(issuer_nif: &str, number: &str, issue_date: NaiveDate) -> InvoiceRef {
    InvoiceRef {
        issuer_nif: issuer_nif.to_owned(),
        number: number.to_owned(),
        issue_date,
    }
}

pub(crate) fn s1_line(rate: rust_decimal::Decimal, base: rust_decimal::Decimal) -> BreakdownLine {
    BreakdownLine {
        regime: "01".to_owned(),
        tax: Default::default(),
        treatment: Treatment::Qualified(Qualification::S1),
        rate: Some(rate),
        base,
        vat: Some(crate::tax::money::round2(base * rate / dec!(100))),
        surcharge_rate: None,
        surcharge: None,
    }
}

pub(crate) fn josemmo_f1() -> Registration {
    let name = "El Nombre del Emisor, S.L.";
    Registration {
        invoice: invoice("00000000B", "PRUEBA-0002", date(2025, 6, 2)),
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
        breakdown: vec![s1_line(dec!(21), dec!(100)), s1_line(dec!(10), dec!(50))],
        total_vat: dec!(26),
        total: dec!(176),
        previous: Some(PreviousRecord {
            invoice: invoice("00000000B", "PRUEBA-001", date(2025, 6, 1)),
            hash: "A".repeat(64),
        }),
        system: system(name, "00000000B"),
        generated_at: at("2025-06-02T11:22:33+02:00"),
    }
}

/// The head a new record chains to.
pub(crate) fn head(invoice: &InvoiceRef, built: &BuiltRecord) -> Option<PreviousRecord> {
    Some(PreviousRecord {
        invoice: invoice.clone(),
        hash: built.hash.clone(),
    })
}

/// Alta (first), alta, anulación of the second: their JSON views.
pub(crate) fn chain_of_three() -> Vec<serde_json::Value> {
    let mut first = josemmo_f1();
    first.previous = None;
    let first_built = first.build();
    let second = Registration {
        invoice: invoice("00000000B", "PRUEBA-0003", date(2025, 6, 3)),
        previous: head(&first.invoice, &first_built),
        generated_at: at("2025-06-03T09:00:00+02:00"),
        ..josemmo_f1()
    };
    let second_built = second.build();
    let cancellation = Cancellation {
        invoice: second.invoice.clone(),
        without_registration: false,
        after_rejection: false,
        previous: head(&second.invoice, &second_built),
        system: second.system.clone(),
        generated_at: at("2025-06-03T09:05:00+02:00"),
    };
    vec![
        first_built.json,
        second_built.json,
        cancellation.build().json,
    ]
}
