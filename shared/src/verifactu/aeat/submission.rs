//! A RegFactuSistemaFacturacion as the AEAT receives it: the obligado's
//! identity and each record's identity, chaining and fingerprint inputs —
//! what the simulator checks — and what a query returns of it. (The service writes these messages with
//! `submission_xml`.)

use super::query::HeldData;
use super::simulated_errors::SimulatedError;
use crate::verifactu::{
    CancellationHashInput, RegistrationHashInput, fingerprint_cancellation,
    fingerprint_registration,
};
use crate::xml_tree::Element;

/// At most this many records per message (`RegistroFactura maxOccurs`).
pub const MAX_RECORDS: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    Alta,
    Anulacion,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Alta => "Alta",
            Operation::Anulacion => "Anulacion",
        }
    }
}

/// An invoice's identity as written in the records: issuer NIF, series and
/// number, issue date (`dd-mm-yyyy`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InvoiceKey {
    pub nif: String,
    pub number: String,
    pub date: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmittedRecord {
    pub operation: Operation,
    pub invoice: InvoiceKey,
    /// Alta only: TipoFactura, CuotaTotal, ImporteTotal.
    pub kind: String,
    pub total_vat: String,
    pub total: String,
    /// The previous record's Huella; `None` for a first record (PrimerRegistro S).
    pub previous_hash: Option<String>,
    pub generated_at: String,
    pub hash: String,
    /// Subsanacion S: the invoice's registration sent again, corrected.
    pub correction: bool,
    /// The record says the AEAT holds no registration of its invoice:
    /// RechazoPrevio X on an alta, SinRegistroPrevio S on an anulación.
    pub without_registration: bool,
    /// The RegistroAlta or RegistroAnulacion element, for the AEAT's record
    /// rules (`verifactu::validation`).
    pub record: Element,
    /// Alta only: what a query returns of it.
    pub data: HeldData,
}

impl SubmittedRecord {
    /// The fingerprint its fields give (what `hash` must be).
    pub fn expected_hash(&self) -> String {
        let previous = self.previous_hash.as_deref().unwrap_or("");
        match self.operation {
            Operation::Alta => fingerprint_registration(&RegistrationHashInput {
                issuer_nif: &self.invoice.nif,
                number: &self.invoice.number,
                issue_date: &self.invoice.date,
                kind: &self.kind,
                total_vat: &self.total_vat,
                total: &self.total,
                previous_hash: previous,
                generated_at: &self.generated_at,
            }),
            Operation::Anulacion => fingerprint_cancellation(&CancellationHashInput {
                issuer_nif: &self.invoice.nif,
                number: &self.invoice.number,
                issue_date: &self.invoice.date,
                previous_hash: previous,
                generated_at: &self.generated_at,
            }),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    pub issuer_nif: String,
    pub issuer_name: String,
    pub records: Vec<SubmittedRecord>,
    /// What a test message's records ask a simulator to answer (its SOAP
    /// Header); the body alone asks nothing.
    pub simulated_errors: Vec<SimulatedError>,
}

fn required<'a>(element: &'a Element, path: &[&str]) -> Result<&'a str, String> {
    element
        .text_at(path)
        .ok_or_else(|| format!("{} is missing", path.join("/")))
}

/// Reads the body of a submission message (`RegFactuSistemaFacturacion`);
/// its Header's `simulated_errors` are for the caller to add.
pub fn read(content: &Element) -> Result<Submission, String> {
    if content.name != "RegFactuSistemaFacturacion" {
        return Err(format!(
            "the body is {}, not RegFactuSistemaFacturacion",
            content.name
        ));
    }
    let entries: Vec<&Element> = content.children("RegistroFactura").collect();
    if entries.is_empty() || entries.len() > MAX_RECORDS {
        return Err(format!(
            "a message carries 1 to {MAX_RECORDS} RegistroFactura, not {}",
            entries.len()
        ));
    }
    let records = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| record(entry).map_err(|e| format!("RegistroFactura[{i}]: {e}")))
        .collect::<Result<_, _>>()?;
    Ok(Submission {
        issuer_nif: required(content, &["Cabecera", "ObligadoEmision", "NIF"])?.to_string(),
        issuer_name: required(content, &["Cabecera", "ObligadoEmision", "NombreRazon"])?
            .to_string(),
        records,
        simulated_errors: Vec::new(),
    })
}

fn record(entry: &Element) -> Result<SubmittedRecord, String> {
    let (operation, record, id) = match (
        entry.child("RegistroAlta"),
        entry.child("RegistroAnulacion"),
    ) {
        (Some(alta), None) => (
            Operation::Alta,
            alta,
            [
                "IDEmisorFactura",
                "NumSerieFactura",
                "FechaExpedicionFactura",
            ],
        ),
        (None, Some(anulacion)) => (
            Operation::Anulacion,
            anulacion,
            [
                "IDEmisorFacturaAnulada",
                "NumSerieFacturaAnulada",
                "FechaExpedicionFacturaAnulada",
            ],
        ),
        _ => return Err("holds neither one RegistroAlta nor one RegistroAnulacion".into()),
    };
    let text = |path: &[&str]| required(record, path).map(str::to_string);
    let optional = |name: &str| record.text_at(&[name]).unwrap_or_default().to_string();
    let chaining = record
        .child("Encadenamiento")
        .ok_or("Encadenamiento is missing")?;
    let previous_hash = match chaining.text_at(&["PrimerRegistro"]) {
        Some("S") => None,
        _ => Some(required(chaining, &["RegistroAnterior", "Huella"])?.to_string()),
    };
    Ok(SubmittedRecord {
        operation,
        invoice: InvoiceKey {
            nif: text(&["IDFactura", id[0]])?,
            number: text(&["IDFactura", id[1]])?,
            date: text(&["IDFactura", id[2]])?,
        },
        kind: optional("TipoFactura"),
        total_vat: optional("CuotaTotal"),
        total: optional("ImporteTotal"),
        previous_hash,
        generated_at: text(&["FechaHoraHusoGenRegistro"])?,
        hash: text(&["Huella"])?,
        correction: record.text_at(&["Subsanacion"]) == Some("S"),
        without_registration: match operation {
            Operation::Alta => record.text_at(&["RechazoPrevio"]) == Some("X"),
            Operation::Anulacion => record.text_at(&["SinRegistroPrevio"]) == Some("S"),
        },
        record: record.clone(),
        data: match operation {
            Operation::Alta => HeldData::read(record)?,
            Operation::Anulacion => HeldData {
                hash: record.text_at(&["Huella"]).map(str::to_string),
                ..HeldData::default()
            },
        },
    })
}
