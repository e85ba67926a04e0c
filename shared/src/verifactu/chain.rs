//! Verification of a stored chain from the records' JSON views.

use serde_json::Value;

use super::fingerprint::{
    CancellationHashInput, RegistrationHashInput, fingerprint_cancellation,
    fingerprint_registration,
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainCheck {
    Ok {
        records: usize,
    },
    /// The first broken record. `problem` is `"hash"` when its Huella is not
    /// the hash of its own fields, `"link"` when its Encadenamiento does not
    /// name the previous record (`expected`/`found` are then the first
    /// differing value: the previous Huella, NIF, number or date).
    Broken {
        index: usize,
        number: String,
        expected: String,
        found: String,
        problem: String,
    },
}

/// Recomputes every hash of a chain from the stored JSON views (oldest first)
/// and checks each record's Encadenamiento against the previous record's
/// identity and Huella. The first record's own link is not checked: its
/// predecessor, if any, is not in the slice.
pub fn verify_chain(records: &[Value]) -> ChainCheck {
    let mut previous = None;
    for (index, record) in records.iter().enumerate() {
        let link_error = previous.and_then(|previous| link_mismatch(previous, record));
        let broken = |(expected, found): (String, String), problem: &str| ChainCheck::Broken {
            index,
            number: own_id(record)[1].to_owned(),
            expected,
            found,
            problem: problem.to_owned(),
        };
        if let Some(mismatch) = link_error {
            return broken(mismatch, "link");
        }
        let recomputed = recompute_hash(record);
        let stored = field(&record["Huella"]);
        if recomputed != stored {
            return broken((recomputed, stored.to_owned()), "hash");
        }
        previous = Some(record);
    }
    ChainCheck::Ok {
        records: records.len(),
    }
}

fn field(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

fn is_cancellation(record: &Value) -> bool {
    record["IDFactura"].get("IDEmisorFacturaAnulada").is_some()
}

/// NIF, number and date of the invoice a record registers or cancels.
fn own_id(record: &Value) -> [&str; 3] {
    let id = &record["IDFactura"];
    let names = if is_cancellation(record) {
        [
            "IDEmisorFacturaAnulada",
            "NumSerieFacturaAnulada",
            "FechaExpedicionFacturaAnulada",
        ]
    } else {
        [
            "IDEmisorFactura",
            "NumSerieFactura",
            "FechaExpedicionFactura",
        ]
    };
    names.map(|name| field(&id[name]))
}

fn previous_hash(record: &Value) -> &str {
    field(&record["Encadenamiento"]["RegistroAnterior"]["Huella"])
}

fn recompute_hash(record: &Value) -> String {
    let [issuer_nif, number, issue_date] = own_id(record);
    let previous_hash = previous_hash(record);
    let generated_at = field(&record["FechaHoraHusoGenRegistro"]);
    if is_cancellation(record) {
        fingerprint_cancellation(&CancellationHashInput {
            issuer_nif,
            number,
            issue_date,
            previous_hash,
            generated_at,
        })
    } else {
        fingerprint_registration(&RegistrationHashInput {
            issuer_nif,
            number,
            issue_date,
            kind: field(&record["TipoFactura"]),
            total_vat: field(&record["CuotaTotal"]),
            total: field(&record["ImporteTotal"]),
            previous_hash,
            generated_at,
        })
    }
}

/// The first (expected, found) pair where `record`'s RegistroAnterior differs
/// from `previous`, the Huella first.
fn link_mismatch(previous: &Value, record: &Value) -> Option<(String, String)> {
    let link = &record["Encadenamiento"]["RegistroAnterior"];
    let [nif, number, date] = own_id(previous);
    [
        (field(&previous["Huella"]), previous_hash(record)),
        (nif, field(&link["IDEmisorFactura"])),
        (number, field(&link["NumSerieFactura"])),
        (date, field(&link["FechaExpedicionFactura"])),
    ]
    .into_iter()
    .find(|(expected, found)| expected != found)
    .map(|(expected, found)| (expected.to_owned(), found.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::chain_of_three;
    use super::*;

    #[test]
    fn alta_alta_anulacion_verifies() {
        assert_eq!(
            verify_chain(&chain_of_three()),
            ChainCheck::Ok { records: 3 }
        );
        assert_eq!(verify_chain(&[]), ChainCheck::Ok { records: 0 });
    }

    #[test]
    fn a_tampered_amount_breaks_that_records_hash() {
        let mut chain = chain_of_three();
        let stored = chain[1]["Huella"].as_str().unwrap_or_default().to_owned();
        chain[1]["ImporteTotal"] = "177.00".into();
        let ChainCheck::Broken {
            index,
            number,
            expected,
            found,
            problem,
        } = verify_chain(&chain)
        else {
            panic!("the tampered chain verified");
        };
        assert_eq!(
            (index, number.as_str(), problem.as_str()),
            (1, "PRUEBA-0003", "hash")
        );
        assert_eq!(found, stored);
        assert_ne!(expected, stored);
    }

    #[test]
    fn a_tampered_link_is_reported_as_a_link() {
        let mut chain = chain_of_three();
        let real = chain[1]["Huella"].as_str().unwrap_or_default().to_owned();
        let forged = "B".repeat(64);
        chain[2]["Encadenamiento"]["RegistroAnterior"]["Huella"] = forged.clone().into();
        assert_eq!(
            verify_chain(&chain),
            ChainCheck::Broken {
                index: 2,
                number: "PRUEBA-0003".to_owned(),
                expected: real,
                found: forged,
                problem: "link".to_owned(),
            }
        );
    }

    #[test]
    fn a_link_naming_another_invoice_is_reported() {
        let mut chain = chain_of_three();
        chain[1]["Encadenamiento"]["RegistroAnterior"]["NumSerieFactura"] = "X-1".into();
        assert_eq!(
            verify_chain(&chain),
            ChainCheck::Broken {
                index: 1,
                number: "PRUEBA-0003".to_owned(),
                expected: "PRUEBA-0002".to_owned(),
                found: "X-1".to_owned(),
                problem: "link".to_owned(),
            }
        );
    }

    #[test]
    fn data_that_is_not_a_record_is_reported_not_panicked_on() {
        let check = verify_chain(&[serde_json::json!("x"), serde_json::Value::Null]);
        assert!(
            matches!(&check, ChainCheck::Broken { index: 0, problem, .. } if problem == "hash"),
            "{check:?}"
        );
    }

    #[test]
    fn a_restarted_chain_is_a_broken_link() {
        let mut chain = chain_of_three();
        chain[1]["Encadenamiento"] = serde_json::json!({"PrimerRegistro": "S"});
        let check = verify_chain(&chain);
        assert!(
            matches!(&check, ChainCheck::Broken { index: 1, found, problem, .. } if found.is_empty() && problem == "link"),
            "{check:?}"
        );
    }
}
