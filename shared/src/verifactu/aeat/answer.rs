//! The AEAT's answer to a submission (`RespuestaRegFactuSistemaFacturacion`,
//! RespuestaSuministro.xsd): the whole message's state, the wait before the
//! next one (`TiempoEsperaEnvio`, the law's flow control), the CSV, and each
//! record's state with its error code and description.

use quick_xml::escape::escape;

use super::submission::{InvoiceKey, Operation};
use crate::verifactu::NS_SUMINISTRO_INFORMACION;
use crate::xml_tree::Element;

pub const NS_RESPUESTA: &str = "https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaSuministro.xsd";

/// `EstadoEnvio`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendState {
    Correcto,
    ParcialmenteCorrecto,
    Incorrecto,
}

/// `EstadoRegistro`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    Correcto,
    AceptadoConErrores,
    Incorrecto,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub code: u32,
    pub description: String,
}

/// `RegistroDuplicado`: the AEAT already holds this record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The submission that registered it (`IdPeticionRegistroDuplicado`).
    pub request_id: String,
    /// `Correcta`, `AceptadaConErrores` or `Anulada`.
    pub state: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerLine {
    pub invoice: InvoiceKey,
    pub operation: Operation,
    pub state: RecordState,
    pub error: Option<RecordError>,
    pub duplicate: Option<Duplicate>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Present unless the whole message was rejected.
    pub csv: Option<String>,
    /// `DatosPresentacion`: the presenter's NIF and the time (xs:dateTime).
    pub presented: Option<(String, String)>,
    pub issuer_nif: String,
    pub issuer_name: String,
    /// Seconds to wait before the next message (unless 1,000 records are waiting).
    pub wait_seconds: u32,
    pub state: SendState,
    pub lines: Vec<AnswerLine>,
}

fn name(state: impl std::fmt::Debug) -> String {
    format!("{state:?}")
}

fn element(prefix: &str, tag: &str, content: &str) -> String {
    format!("<{prefix}:{tag}>{content}</{prefix}:{tag}>")
}

fn text(prefix: &str, tag: &str, value: &str) -> String {
    element(prefix, tag, &escape(value))
}

impl Answer {
    /// The answer element (without XML declaration), to put in a SOAP body.
    pub fn to_xml(&self) -> String {
        let mut out = format!(
            r#"<sfR:RespuestaRegFactuSistemaFacturacion xmlns:sfR="{NS_RESPUESTA}" xmlns:sf="{NS_SUMINISTRO_INFORMACION}">"#
        );
        if let Some(csv) = &self.csv {
            out.push_str(&text("sfR", "CSV", csv));
        }
        if let Some((nif, at)) = &self.presented {
            let inner =
                text("sf", "NIFPresentador", nif) + &text("sf", "TimestampPresentacion", at);
            out.push_str(&element("sfR", "DatosPresentacion", &inner));
        }
        let obligado =
            text("sf", "NombreRazon", &self.issuer_name) + &text("sf", "NIF", &self.issuer_nif);
        out.push_str(&element(
            "sfR",
            "Cabecera",
            &element("sf", "ObligadoEmision", &obligado),
        ));
        out.push_str(&text(
            "sfR",
            "TiempoEsperaEnvio",
            &self.wait_seconds.to_string(),
        ));
        out.push_str(&text("sfR", "EstadoEnvio", &name(self.state)));
        for line in &self.lines {
            out.push_str(&element("sfR", "RespuestaLinea", &line_xml(line)));
        }
        out.push_str("</sfR:RespuestaRegFactuSistemaFacturacion>");
        out
    }

    /// Reads the answer element of a SOAP body.
    pub fn read(content: &Element) -> Result<Answer, String> {
        if content.name != "RespuestaRegFactuSistemaFacturacion" {
            return Err(format!(
                "the body is {}, not RespuestaRegFactuSistemaFacturacion",
                content.name
            ));
        }
        let required = |path: &[&str]| {
            content
                .text_at(path)
                .map(str::to_string)
                .ok_or_else(|| format!("{} is missing", path.join("/")))
        };
        let wait = required(&["TiempoEsperaEnvio"])?;
        Ok(Answer {
            csv: content.text_at(&["CSV"]).map(str::to_string),
            presented: content.child("DatosPresentacion").map(|d| {
                let text = |name: &str| d.text_at(&[name]).unwrap_or_default().to_string();
                (text("NIFPresentador"), text("TimestampPresentacion"))
            }),
            issuer_nif: required(&["Cabecera", "ObligadoEmision", "NIF"])?,
            issuer_name: required(&["Cabecera", "ObligadoEmision", "NombreRazon"])?,
            wait_seconds: wait
                .parse()
                .map_err(|_| format!("TiempoEsperaEnvio {wait:?} is not a number"))?,
            state: match required(&["EstadoEnvio"])?.as_str() {
                "Correcto" => SendState::Correcto,
                "ParcialmenteCorrecto" => SendState::ParcialmenteCorrecto,
                "Incorrecto" => SendState::Incorrecto,
                other => return Err(format!("EstadoEnvio {other:?} is unknown")),
            },
            lines: content
                .children("RespuestaLinea")
                .map(read_line)
                .collect::<Result<_, _>>()?,
        })
    }
}

fn line_xml(line: &AnswerLine) -> String {
    let id = text("sf", "IDEmisorFactura", &line.invoice.nif)
        + &text("sf", "NumSerieFactura", &line.invoice.number)
        + &text("sf", "FechaExpedicionFactura", &line.invoice.date);
    let mut out = element("sfR", "IDFactura", &id);
    out.push_str(&element(
        "sfR",
        "Operacion",
        &text("sf", "TipoOperacion", line.operation.as_str()),
    ));
    out.push_str(&text("sfR", "EstadoRegistro", &name(line.state)));
    if let Some(error) = &line.error {
        out.push_str(&text("sfR", "CodigoErrorRegistro", &error.code.to_string()));
        out.push_str(&text("sfR", "DescripcionErrorRegistro", &error.description));
    }
    if let Some(duplicate) = &line.duplicate {
        let inner = text("sf", "IdPeticionRegistroDuplicado", &duplicate.request_id)
            + &text("sf", "EstadoRegistroDuplicado", &duplicate.state);
        out.push_str(&element("sfR", "RegistroDuplicado", &inner));
    }
    out
}

fn read_line(line: &Element) -> Result<AnswerLine, String> {
    let required = |path: &[&str]| {
        line.text_at(path)
            .map(str::to_string)
            .ok_or_else(|| format!("RespuestaLinea/{} is missing", path.join("/")))
    };
    let code = line.text_at(&["CodigoErrorRegistro"]);
    Ok(AnswerLine {
        invoice: InvoiceKey {
            nif: required(&["IDFactura", "IDEmisorFactura"])?,
            number: required(&["IDFactura", "NumSerieFactura"])?,
            date: required(&["IDFactura", "FechaExpedicionFactura"])?,
        },
        operation: match required(&["Operacion", "TipoOperacion"])?.as_str() {
            "Alta" => Operation::Alta,
            "Anulacion" => Operation::Anulacion,
            other => return Err(format!("TipoOperacion {other:?} is unknown")),
        },
        state: match required(&["EstadoRegistro"])?.as_str() {
            "Correcto" => RecordState::Correcto,
            "AceptadoConErrores" => RecordState::AceptadoConErrores,
            "Incorrecto" => RecordState::Incorrecto,
            other => return Err(format!("EstadoRegistro {other:?} is unknown")),
        },
        error: match code {
            Some(code) => Some(RecordError {
                code: code
                    .parse()
                    .map_err(|_| format!("CodigoErrorRegistro {code:?} is not a number"))?,
                description: line
                    .text_at(&["DescripcionErrorRegistro"])
                    .unwrap_or_default()
                    .to_string(),
            }),
            None => None,
        },
        duplicate: line.child("RegistroDuplicado").map(|d| Duplicate {
            request_id: d
                .text_at(&["IdPeticionRegistroDuplicado"])
                .unwrap_or_default()
                .to_string(),
            state: d
                .text_at(&["EstadoRegistroDuplicado"])
                .unwrap_or_default()
                .to_string(),
        }),
    })
}
