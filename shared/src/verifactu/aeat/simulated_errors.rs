//! A SOAP header of our own for test messages: the records whose test
//! invoice asked to be answered with a chosen AEAT error (the API's
//! `test_options.verifactu_error`). Only messages of test chains carry it,
//! and they only ever reach a simulator (in-process, or `svc
//! aeat-simulator`), which answers those records with that error as if it
//! had been injected for that message alone. A record sent again (a
//! correction) carries none, so a rejected test invoice can be corrected.
//!
//! ```xml
//! <svc:SimulatedErrors xmlns:svc="urn:svc:verifactu:simulated-errors">
//!   <svc:Record>
//!     <svc:NumSerieFactura>TEST-F2026-000001</svc:NumSerieFactura>
//!     <svc:TipoOperacion>Alta</svc:TipoOperacion>
//!     <svc:CodigoErrorRegistro>1104</svc:CodigoErrorRegistro>
//!     <svc:DescripcionErrorRegistro>…</svc:DescripcionErrorRegistro>
//!   </svc:Record>
//! </svc:SimulatedErrors>
//! ```

use quick_xml::escape::escape;

use super::answer::RecordError;
use super::submission::Operation;
use crate::xml_tree::Element;

pub const NS_SIMULATED_ERRORS: &str = "urn:svc:verifactu:simulated-errors";

/// The error one record of the message asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulatedError {
    /// NumSerieFactura of the record's invoice.
    pub number: String,
    pub operation: Operation,
    pub error: RecordError,
}

/// The header element listing `errors`; nothing when there are none.
pub fn header(errors: &[SimulatedError]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let mut out = format!(r#"<svc:SimulatedErrors xmlns:svc="{NS_SIMULATED_ERRORS}">"#);
    for e in errors {
        out.push_str(&format!(
            "<svc:Record><svc:NumSerieFactura>{}</svc:NumSerieFactura><svc:TipoOperacion>{}</svc:TipoOperacion><svc:CodigoErrorRegistro>{}</svc:CodigoErrorRegistro><svc:DescripcionErrorRegistro>{}</svc:DescripcionErrorRegistro></svc:Record>",
            escape(e.number.as_str()),
            e.operation.as_str(),
            e.error.code,
            escape(e.error.description.as_str()),
        ));
    }
    out.push_str("</svc:SimulatedErrors>");
    out
}

/// The errors a message's SOAP Header lists (none when it has no such
/// element); `Err` says what is wrong with the list.
pub fn read(header: Option<&Element>) -> Result<Vec<SimulatedError>, String> {
    let Some(list) = header.and_then(|h| h.child("SimulatedErrors")) else {
        return Ok(Vec::new());
    };
    list.children("Record").map(record).collect()
}

fn record(entry: &Element) -> Result<SimulatedError, String> {
    let text = |name: &str| {
        entry
            .text_at(&[name])
            .ok_or_else(|| format!("SimulatedErrors/Record/{name} is missing"))
    };
    let operation = match text("TipoOperacion")? {
        "Alta" => Operation::Alta,
        "Anulacion" => Operation::Anulacion,
        other => {
            return Err(format!(
                "SimulatedErrors: TipoOperacion {other:?} is unknown"
            ));
        }
    };
    let code = text("CodigoErrorRegistro")?;
    Ok(SimulatedError {
        number: text("NumSerieFactura")?.to_string(),
        operation,
        error: RecordError {
            code: code.parse().map_err(|_| {
                format!("SimulatedErrors: CodigoErrorRegistro {code:?} is not a number")
            })?,
            description: text("DescripcionErrorRegistro")?.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::soap;
    use super::*;

    fn asked() -> Vec<SimulatedError> {
        vec![
            SimulatedError {
                number: "TEST-F2026-000001".into(),
                operation: Operation::Alta,
                error: RecordError {
                    code: 1104,
                    description: "NumSerieFactura <incorrecto> & más".into(),
                },
            },
            SimulatedError {
                number: "TEST-F2026-000002".into(),
                operation: Operation::Anulacion,
                error: RecordError {
                    code: 2001,
                    description: "Destinatario no censado".into(),
                },
            },
        ]
    }

    fn header_of(envelope: &str) -> Option<Element> {
        soap::read_with_header(envelope).unwrap().0
    }

    #[test]
    fn the_errors_read_back_from_the_envelopes_header() {
        let envelope = soap::envelope_with_header(&header(&asked()), "<a:X xmlns:a=\"urn:a\"/>");
        assert_eq!(read(header_of(&envelope).as_ref()).unwrap(), asked());
    }

    #[test]
    fn no_errors_no_header_element() {
        assert_eq!(header(&[]), "");
        let plain = soap::envelope("<a:X xmlns:a=\"urn:a\"/>");
        assert!(plain.contains("<env:Header/>"), "{plain}");
        assert_eq!(read(header_of(&plain).as_ref()).unwrap(), []);
    }

    #[test]
    fn a_malformed_list_says_what_is_wrong() {
        let bad = header(&asked()).replace(">1104<", ">mil<");
        let envelope = soap::envelope_with_header(&bad, "<a:X xmlns:a=\"urn:a\"/>");
        let e = read(header_of(&envelope).as_ref()).unwrap_err();
        assert!(e.contains("CodigoErrorRegistro \"mil\""), "{e}");
    }
}
