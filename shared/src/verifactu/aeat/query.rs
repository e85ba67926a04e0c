//! The AEAT's VERI*FACTU query (`ConsultaFactuSistemaFacturacion`,
//! ConsultaLR.xsd, in; `RespuestaConsultaFactuSistemaFacturacion`,
//! RespuestaConsultaLR.xsd, out): the records it holds of one month, asked
//! as their issuer (`ObligadoEmision`) or as their recipient
//! (`Destinatario`), up to 10,000 per answer with a key to the next page.
//! What the asker writes and reads, and what the simulator reads and
//! answers. Pure: no transport here.

use chrono::NaiveDate;
use quick_xml::escape::escape;
use rust_decimal::Decimal;

use super::answer::RecordError;
use super::soap;
use super::submission::InvoiceKey;
use crate::invoice::kind::Kind;
use crate::tax::indirect::IndirectTax;
use crate::verifactu::record::{breakdown_line_nodes, recipient_nodes};
use crate::verifactu::xml::write_all;
use crate::verifactu::{
    BreakdownLine, Exemption, NS_SUMINISTRO_INFORMACION, Qualification, Recipient, Treatment,
};
use crate::xml_tree::Element;

/// Namespace of the query (prefix `con`).
pub const NS_CONSULTA: &str = "https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/ConsultaLR.xsd";
/// Namespace of its answer (prefix `r`).
pub const NS_RESPUESTA_CONSULTA: &str = "https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaConsultaLR.xsd";
/// At most this many records per answer
/// (`RegistroRespuestaConsultaFactuSistemaFacturacion maxOccurs`).
pub const MAX_PAGE: usize = 10_000;

/// Whose records are asked for: the asker's as their issuer, or those its
/// suppliers reported with the asker as recipient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Issuer,
    Recipient,
}

/// `PeriodoImputacion`: a month (the operation date's, or else the issue
/// date's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    year: i32,
    month: u32,
}

impl Period {
    /// A month 1–12 of a four-digit year.
    pub fn new(year: i32, month: u32) -> Option<Period> {
        ((1000..=9999).contains(&year) && (1..=12).contains(&month))
            .then_some(Period { year, month })
    }

    pub fn year(self) -> i32 {
        self.year
    }

    pub fn month(self) -> u32 {
        self.month
    }

    /// The month of an AEAT date (`dd-mm-yyyy`).
    pub fn of_date(date: &str) -> Option<Period> {
        let date = parse_date(date)?;
        Period::new(
            chrono::Datelike::year(&date),
            chrono::Datelike::month(&date),
        )
    }
}

/// An AEAT date (`dd-mm-yyyy`).
pub fn parse_date(date: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(date, "%d-%m-%Y").ok()
}

/// A party by NIF and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Party {
    pub nif: String,
    pub name: String,
}

/// One `ConsultaFactuSistemaFacturacion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub side: Side,
    /// The issuer (`ObligadoEmision`) or the recipient (`Destinatario`).
    pub asker: Party,
    pub period: Period,
    /// `NumSerieFactura`: one invoice only.
    pub number: Option<String>,
    /// `Contraparte`: only records with this recipient (asked as issuer) or
    /// issuer (asked as recipient).
    pub counterpart: Option<Party>,
    /// `ClavePaginacion`: the last record of the previous page.
    pub after: Option<InvoiceKey>,
}

fn element(prefix: &str, tag: &str, content: &str) -> String {
    format!("<{prefix}:{tag}>{content}</{prefix}:{tag}>")
}

fn text(prefix: &str, tag: &str, value: &str) -> String {
    element(prefix, tag, &escape(value))
}

fn party_xml(party: &Party) -> String {
    text("sf", "NombreRazon", &party.name) + &text("sf", "NIF", &party.nif)
}

fn invoice_key_xml(key: &InvoiceKey) -> String {
    text("sf", "IDEmisorFactura", &key.nif)
        + &text("sf", "NumSerieFactura", &key.number)
        + &text("sf", "FechaExpedicionFactura", &key.date)
}

fn period_xml(prefix: &str, period: Period) -> String {
    text(prefix, "Ejercicio", &period.year.to_string())
        + &text("sf", "Periodo", &format!("{:02}", period.month))
}

fn required<'a>(element: &'a Element, path: &[&str]) -> Result<&'a str, String> {
    element
        .text_at(path)
        .ok_or_else(|| format!("{} is missing", path.join("/")))
}

fn read_party(element: &Element) -> Result<Party, String> {
    Ok(Party {
        nif: required(element, &["NIF"])?.to_string(),
        name: element
            .text_at(&["NombreRazon"])
            .unwrap_or_default()
            .to_string(),
    })
}

fn read_invoice_key(element: &Element) -> Result<InvoiceKey, String> {
    Ok(InvoiceKey {
        nif: required(element, &["IDEmisorFactura"])?.to_string(),
        number: required(element, &["NumSerieFactura"])?.to_string(),
        date: required(element, &["FechaExpedicionFactura"])?.to_string(),
    })
}

fn read_period(element: &Element) -> Result<Period, String> {
    let year = required(element, &["Ejercicio"])?;
    let month = required(element, &["Periodo"])?;
    year.parse()
        .ok()
        .zip(month.parse().ok())
        .and_then(|(y, m)| Period::new(y, m))
        .ok_or_else(|| format!("PeriodoImputacion {year}/{month} is not a month"))
}

/// The Cabecera's asker and side (`ObligadoEmision` or `Destinatario`).
fn read_header(header: &Element) -> Result<(Side, Party), String> {
    match (
        header.child("ObligadoEmision"),
        header.child("Destinatario"),
    ) {
        (Some(issuer), None) => Ok((Side::Issuer, read_party(issuer)?)),
        (None, Some(recipient)) => Ok((Side::Recipient, read_party(recipient)?)),
        _ => Err("Cabecera holds neither one ObligadoEmision nor one Destinatario".into()),
    }
}

fn header_xml(prefix: &str, side: Side, asker: &Party) -> String {
    let who = match side {
        Side::Issuer => "ObligadoEmision",
        Side::Recipient => "Destinatario",
    };
    element(
        prefix,
        "Cabecera",
        &(text("sf", "IDVersion", "1.0") + &element("sf", who, &party_xml(asker))),
    )
}

impl Query {
    /// The query element (without XML declaration), to put in a SOAP body.
    pub fn to_xml(&self) -> String {
        let mut filter = element("con", "PeriodoImputacion", &period_xml("sf", self.period));
        if let Some(number) = &self.number {
            filter.push_str(&text("con", "NumSerieFactura", number));
        }
        if let Some(counterpart) = &self.counterpart {
            filter.push_str(&element("con", "Contraparte", &party_xml(counterpart)));
        }
        if let Some(after) = &self.after {
            filter.push_str(&element("con", "ClavePaginacion", &invoice_key_xml(after)));
        }
        let mut out = format!(
            r#"<con:ConsultaFactuSistemaFacturacion xmlns:con="{NS_CONSULTA}" xmlns:sf="{NS_SUMINISTRO_INFORMACION}">"#
        );
        out.push_str(&header_xml("con", self.side, &self.asker));
        out.push_str(&element("con", "FiltroConsulta", &filter));
        // A recipient sees its suppliers' names only when it asks for them.
        if self.side == Side::Recipient {
            out.push_str(&element(
                "con",
                "DatosAdicionalesRespuesta",
                &text("con", "MostrarNombreRazonEmisor", "S"),
            ));
        }
        out.push_str("</con:ConsultaFactuSistemaFacturacion>");
        out
    }

    /// The whole SOAP message.
    pub fn envelope(&self) -> String {
        soap::envelope(&self.to_xml())
    }

    /// Reads the query element of a SOAP body.
    pub fn read(content: &Element) -> Result<Query, String> {
        if content.name != "ConsultaFactuSistemaFacturacion" {
            return Err(format!(
                "the body is {}, not ConsultaFactuSistemaFacturacion",
                content.name
            ));
        }
        let header = content.child("Cabecera").ok_or("Cabecera is missing")?;
        let (side, asker) = read_header(header)?;
        let filter = content
            .child("FiltroConsulta")
            .ok_or("FiltroConsulta is missing")?;
        let period = filter
            .child("PeriodoImputacion")
            .ok_or("FiltroConsulta/PeriodoImputacion is missing")?;
        Ok(Query {
            side,
            asker,
            period: read_period(period)?,
            number: filter.text_at(&["NumSerieFactura"]).map(str::to_string),
            counterpart: filter.child("Contraparte").map(read_party).transpose()?,
            after: filter
                .child("ClavePaginacion")
                .map(read_invoice_key)
                .transpose()?,
        })
    }
}

/// `EstadoRegistro` of a held record. The XSD spells the states in the
/// masculine, the AEAT's documentation and sample answers in the feminine:
/// both are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldState {
    Correct,
    AcceptedWithErrors,
    Cancelled,
}

impl HeldState {
    /// As the XSD spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            HeldState::Correct => "Correcto",
            HeldState::AcceptedWithErrors => "AceptadoConErrores",
            HeldState::Cancelled => "Anulado",
        }
    }

    pub fn parse(state: &str) -> Option<HeldState> {
        match state {
            "Correcto" | "Correcta" => Some(HeldState::Correct),
            "AceptadoConErrores" | "AceptadaConErrores" => Some(HeldState::AcceptedWithErrors),
            "Anulado" | "Anulada" => Some(HeldState::Cancelled),
            _ => None,
        }
    }
}

/// What of a record's data the service reads back (`DatosRegistroFacturacion`,
/// whose elements are a RegistroAlta's): every element is optional there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeldData {
    /// `NombreRazonEmisor` (returned to a recipient that asks for it).
    pub issuer_name: Option<String>,
    pub kind: Option<Kind>,
    /// `FechaOperacion` (`dd-mm-yyyy`).
    pub operation_date: Option<String>,
    pub recipients: Vec<Recipient>,
    pub breakdown: Vec<BreakdownLine>,
    pub total_vat: Option<Decimal>,
    pub total: Option<Decimal>,
    pub hash: Option<String>,
}

fn decimal(element: &Element, name: &str) -> Result<Option<Decimal>, String> {
    element
        .text_at(&[name])
        .map(|t| {
            t.parse()
                .map_err(|_| format!("{name} {t:?} is not an amount"))
        })
        .transpose()
}

fn read_recipient(entry: &Element) -> Result<Recipient, String> {
    let name = entry
        .text_at(&["NombreRazon"])
        .unwrap_or_default()
        .to_string();
    if let Some(nif) = entry.text_at(&["NIF"]) {
        return Ok(Recipient::Nif {
            name,
            nif: nif.to_string(),
        });
    }
    let other = entry
        .child("IDOtro")
        .ok_or("IDDestinatario holds neither NIF nor IDOtro")?;
    Ok(Recipient::Foreign {
        name,
        country: other
            .text_at(&["CodigoPais"])
            .unwrap_or_default()
            .to_string(),
        id_type: required(other, &["IDType"])?.to_string(),
        id: required(other, &["ID"])?.to_string(),
    })
}

fn read_treatment(line: &Element) -> Result<Treatment, String> {
    match (
        line.text_at(&["CalificacionOperacion"]),
        line.text_at(&["OperacionExenta"]),
    ) {
        (Some(q), _) => Ok(Treatment::Qualified(match q {
            "S1" => Qualification::S1,
            "S2" => Qualification::S2,
            "N1" => Qualification::N1,
            "N2" => Qualification::N2,
            other => return Err(format!("CalificacionOperacion {other:?} is unknown")),
        })),
        (None, Some(e)) => Ok(Treatment::Exempt(match e {
            "E1" => Exemption::E1,
            "E2" => Exemption::E2,
            "E3" => Exemption::E3,
            "E4" => Exemption::E4,
            "E5" => Exemption::E5,
            "E6" => Exemption::E6,
            other => return Err(format!("OperacionExenta {other:?} is unknown")),
        })),
        (None, None) => {
            Err("DetalleDesglose has neither CalificacionOperacion nor OperacionExenta".into())
        }
    }
}

fn read_line(line: &Element) -> Result<BreakdownLine, String> {
    Ok(BreakdownLine {
        tax: match line.text_at(&["Impuesto"]).unwrap_or("01") {
            "01" => IndirectTax::Iva,
            "02" => IndirectTax::Ipsi,
            "03" => IndirectTax::Igic,
            other => return Err(format!("Impuesto {other:?} is unknown")),
        },
        regime: line
            .text_at(&["ClaveRegimen"])
            .unwrap_or_default()
            .to_string(),
        treatment: read_treatment(line)?,
        rate: decimal(line, "TipoImpositivo")?,
        base: decimal(line, "BaseImponibleOimporteNoSujeto")?
            .ok_or("DetalleDesglose/BaseImponibleOimporteNoSujeto is missing")?,
        vat: decimal(line, "CuotaRepercutida")?,
        surcharge_rate: decimal(line, "TipoRecargoEquivalencia")?,
        surcharge: decimal(line, "CuotaRecargoEquivalencia")?,
    })
}

impl HeldData {
    /// Reads a RegistroAlta, or the DatosRegistroFacturacion of an answer
    /// (the same element names).
    pub fn read(record: &Element) -> Result<HeldData, String> {
        let kind = record.text_at(&["TipoFactura"]);
        Ok(HeldData {
            issuer_name: record.text_at(&["NombreRazonEmisor"]).map(str::to_string),
            kind: kind
                .map(|k| Kind::parse(k).ok_or_else(|| format!("TipoFactura {k:?} is unknown")))
                .transpose()?,
            operation_date: record.text_at(&["FechaOperacion"]).map(str::to_string),
            recipients: record
                .find_all(&["Destinatarios", "IDDestinatario"])
                .into_iter()
                .map(read_recipient)
                .collect::<Result<_, _>>()?,
            breakdown: record
                .find_all(&["Desglose", "DetalleDesglose"])
                .into_iter()
                .map(read_line)
                .collect::<Result<_, _>>()?,
            total_vat: decimal(record, "CuotaTotal")?,
            total: decimal(record, "ImporteTotal")?,
            hash: record.text_at(&["Huella"]).map(str::to_string),
        })
    }

    /// As `DatosRegistroFacturacion` (its own elements in the answer's
    /// namespace, those of SuministroInformacion types in `sf`), in the
    /// schema's order.
    fn to_xml(&self) -> String {
        let mut out = String::new();
        if let Some(name) = &self.issuer_name {
            out.push_str(&text("r", "NombreRazonEmisor", name));
        }
        if let Some(kind) = self.kind {
            out.push_str(&text("r", "TipoFactura", kind.code()));
        }
        if let Some(date) = &self.operation_date {
            out.push_str(&text("r", "FechaOperacion", date));
        }
        if !self.recipients.is_empty() {
            let mut entries = String::new();
            for recipient in &self.recipients {
                let mut inner = String::new();
                write_all(&recipient_nodes(recipient), &mut inner);
                entries.push_str(&element("r", "IDDestinatario", &inner));
            }
            out.push_str(&element("r", "Destinatarios", &entries));
        }
        if !self.breakdown.is_empty() {
            let mut lines = String::new();
            for line in &self.breakdown {
                let mut inner = String::new();
                write_all(&breakdown_line_nodes(line), &mut inner);
                lines.push_str(&element("sf", "DetalleDesglose", &inner));
            }
            out.push_str(&element("r", "Desglose", &lines));
        }
        if let Some(total_vat) = self.total_vat {
            out.push_str(&text("r", "CuotaTotal", &total_vat.to_string()));
        }
        if let Some(total) = self.total {
            out.push_str(&text("r", "ImporteTotal", &total.to_string()));
        }
        if let Some(hash) = &self.hash {
            out.push_str(&text("r", "TipoHuella", "01"));
            out.push_str(&text("r", "Huella", hash));
        }
        out
    }
}

/// One `RegistroRespuestaConsultaFactuSistemaFacturacion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldRecord {
    pub invoice: InvoiceKey,
    pub data: HeldData,
    pub state: HeldState,
    /// `CodigoErrorRegistro` and `DescripcionErrorRegistro`, of a record
    /// accepted with errors.
    pub error: Option<RecordError>,
    /// `TimestampUltimaModificacion` (xs:dateTime).
    pub modified_at: String,
}

impl HeldRecord {
    /// The month it is filed under: its operation date's, or else its issue
    /// date's.
    pub fn period(&self) -> Option<Period> {
        Period::of_date(
            self.data
                .operation_date
                .as_ref()
                .unwrap_or(&self.invoice.date),
        )
    }

    fn to_xml(&self) -> String {
        let mut state = text("r", "TimestampUltimaModificacion", &self.modified_at)
            + &text("r", "EstadoRegistro", self.state.as_str());
        if let Some(error) = &self.error {
            state.push_str(&text("r", "CodigoErrorRegistro", &error.code.to_string()));
            state.push_str(&text("r", "DescripcionErrorRegistro", &error.description));
        }
        element(
            "r",
            "RegistroRespuestaConsultaFactuSistemaFacturacion",
            &(element("r", "IDFactura", &invoice_key_xml(&self.invoice))
                + &element("r", "DatosRegistroFacturacion", &self.data.to_xml())
                + &element("r", "EstadoRegistro", &state)),
        )
    }

    fn read(entry: &Element) -> Result<HeldRecord, String> {
        let id = entry.child("IDFactura").ok_or("IDFactura is missing")?;
        let data = entry
            .child("DatosRegistroFacturacion")
            .ok_or("DatosRegistroFacturacion is missing")?;
        let state = entry
            .child("EstadoRegistro")
            .ok_or("EstadoRegistro is missing")?;
        let named = required(state, &["EstadoRegistro"])?;
        Ok(HeldRecord {
            invoice: read_invoice_key(id)?,
            data: HeldData::read(data)?,
            state: HeldState::parse(named)
                .ok_or_else(|| format!("EstadoRegistro {named:?} is unknown"))?,
            error: state
                .text_at(&["CodigoErrorRegistro"])
                .map(|code| {
                    Ok::<_, String>(RecordError {
                        code: code
                            .parse()
                            .map_err(|_| format!("CodigoErrorRegistro {code:?} is not a number"))?,
                        description: state
                            .text_at(&["DescripcionErrorRegistro"])
                            .unwrap_or_default()
                            .to_string(),
                    })
                })
                .transpose()?,
            modified_at: state
                .text_at(&["TimestampUltimaModificacion"])
                .unwrap_or_default()
                .to_string(),
        })
    }
}

/// One `RespuestaConsultaFactuSistemaFacturacion`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryAnswer {
    pub side: Side,
    pub asker: Party,
    pub period: Period,
    pub records: Vec<HeldRecord>,
    /// `IndicadorPaginacion` S with `ClavePaginacion`: the key to ask the
    /// next page after.
    pub next: Option<InvoiceKey>,
}

impl QueryAnswer {
    /// The answer element (without XML declaration), to put in a SOAP body.
    pub fn to_xml(&self) -> String {
        let mut out = format!(
            r#"<r:RespuestaConsultaFactuSistemaFacturacion xmlns:r="{NS_RESPUESTA_CONSULTA}" xmlns:sf="{NS_SUMINISTRO_INFORMACION}">"#
        );
        out.push_str(&header_xml("r", self.side, &self.asker));
        out.push_str(&element(
            "r",
            "PeriodoImputacion",
            &(text("r", "Ejercicio", &self.period.year.to_string())
                + &text("r", "Periodo", &format!("{:02}", self.period.month))),
        ));
        out.push_str(&text(
            "r",
            "IndicadorPaginacion",
            if self.next.is_some() { "S" } else { "N" },
        ));
        out.push_str(&text(
            "r",
            "ResultadoConsulta",
            if self.records.is_empty() {
                "SinDatos"
            } else {
                "ConDatos"
            },
        ));
        for record in &self.records {
            out.push_str(&record.to_xml());
        }
        if let Some(next) = &self.next {
            out.push_str(&element("r", "ClavePaginacion", &invoice_key_xml(next)));
        }
        out.push_str("</r:RespuestaConsultaFactuSistemaFacturacion>");
        out
    }

    /// Reads the answer element of a SOAP body.
    pub fn read(content: &Element) -> Result<QueryAnswer, String> {
        if content.name != "RespuestaConsultaFactuSistemaFacturacion" {
            return Err(format!(
                "the body is {}, not RespuestaConsultaFactuSistemaFacturacion",
                content.name
            ));
        }
        let header = content.child("Cabecera").ok_or("Cabecera is missing")?;
        let (side, asker) = read_header(header)?;
        let period = content
            .child("PeriodoImputacion")
            .ok_or("PeriodoImputacion is missing")?;
        let records = content
            .children("RegistroRespuestaConsultaFactuSistemaFacturacion")
            .enumerate()
            .map(|(i, entry)| {
                HeldRecord::read(entry).map_err(|e| {
                    format!("RegistroRespuestaConsultaFactuSistemaFacturacion[{i}]: {e}")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let next = match required(content, &["IndicadorPaginacion"])? {
            "S" => Some(match content.child("ClavePaginacion") {
                Some(key) => read_invoice_key(key)?,
                None => records
                    .last()
                    .map(|r| r.invoice.clone())
                    .ok_or("IndicadorPaginacion S without a record to go on from")?,
            }),
            "N" => None,
            other => return Err(format!("IndicadorPaginacion {other:?} is neither S nor N")),
        };
        Ok(QueryAnswer {
            side,
            asker,
            period: read_period(period)?,
            records,
            next,
        })
    }
}

/// Reads a query's answer envelope: the answer, or why there is none (a
/// fault, or something else).
pub fn read_answer(envelope: &str) -> Result<QueryAnswer, String> {
    match soap::read(envelope) {
        Ok(soap::Body::Content(content)) => {
            QueryAnswer::read(&content).map_err(|e| format!("aeat_unreadable_answer: {e}"))
        }
        Ok(soap::Body::Fault(fault)) => Err(format!("aeat_fault: {}", fault.message)),
        Err(e) => Err(format!("aeat_unreadable_answer: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;

    fn body(envelope: &str) -> Element {
        let soap::Body::Content(content) = soap::read(envelope).unwrap() else {
            panic!("a body")
        };
        content
    }

    fn query(side: Side) -> Query {
        Query {
            side,
            asker: Party {
                nif: "B00000000".into(),
                name: "CLIENTE & CÍA SL".into(),
            },
            period: Period::new(2027, 3).unwrap(),
            number: None,
            counterpart: Some(Party {
                nif: "A00000000".into(),
                name: "PROVEEDOR SA".into(),
            }),
            after: Some(InvoiceKey {
                nif: "A00000000".into(),
                number: "F27-0999".into(),
                date: "31-03-2027".into(),
            }),
        }
    }

    #[test]
    fn a_query_reads_back_as_written_and_only_a_recipient_asks_for_names() {
        for side in [Side::Issuer, Side::Recipient] {
            let written = query(side);
            let xml = written.envelope();
            assert_eq!(Query::read(&body(&xml)).unwrap(), written);
            assert_eq!(
                xml.contains("<con:MostrarNombreRazonEmisor>S<"),
                side == Side::Recipient
            );
        }
        let xml = query(Side::Recipient).to_xml();
        assert!(xml.contains("<sf:Periodo>03</sf:Periodo>"), "{xml}");
        assert!(xml.contains("<sf:Destinatario><sf:NombreRazon>CLIENTE &amp; CÍA SL<"));
    }

    #[test]
    fn periods_are_months_of_four_digit_years() {
        assert_eq!(Period::new(2027, 0), None);
        assert_eq!(Period::new(2027, 13), None);
        assert_eq!(Period::new(27, 1), None);
        assert_eq!(Period::of_date("31-03-2027"), Period::new(2027, 3));
        assert_eq!(Period::of_date("2027-03-31"), None);
    }

    /// tax-depth.md §6's answer skeleton, filled in as the AEAT's sample
    /// answers are (feminine states, Huella, a Desglose with surcharge).
    const SAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body>
<r:RespuestaConsultaFactuSistemaFacturacion xmlns:r="https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaConsultaLR.xsd" xmlns:sum="https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd">
  <r:Cabecera><sum:IDVersion>1.0</sum:IDVersion>
    <sum:Destinatario><sum:NombreRazon>CLIENTE SL</sum:NombreRazon><sum:NIF>B00000000</sum:NIF></sum:Destinatario></r:Cabecera>
  <r:PeriodoImputacion><r:Ejercicio>2027</r:Ejercicio><r:Periodo>03</r:Periodo></r:PeriodoImputacion>
  <r:IndicadorPaginacion>S</r:IndicadorPaginacion>
  <r:ResultadoConsulta>ConDatos</r:ResultadoConsulta>
  <r:RegistroRespuestaConsultaFactuSistemaFacturacion>
    <r:IDFactura><sum:IDEmisorFactura>A00000000</sum:IDEmisorFactura><sum:NumSerieFactura>F27-0999</sum:NumSerieFactura><sum:FechaExpedicionFactura>31-03-2027</sum:FechaExpedicionFactura></r:IDFactura>
    <r:DatosRegistroFacturacion>
      <r:NombreRazonEmisor>PROVEEDOR SA</r:NombreRazonEmisor>
      <r:TipoFactura>F1</r:TipoFactura>
      <r:DescripcionOperacion>Material</r:DescripcionOperacion>
      <r:Destinatarios><r:IDDestinatario><sum:NombreRazon>CLIENTE SL</sum:NombreRazon><sum:NIF>B00000000</sum:NIF></r:IDDestinatario></r:Destinatarios>
      <r:Desglose>
        <sum:DetalleDesglose><sum:Impuesto>01</sum:Impuesto><sum:ClaveRegimen>18</sum:ClaveRegimen><sum:CalificacionOperacion>S1</sum:CalificacionOperacion><sum:TipoImpositivo>21.00</sum:TipoImpositivo><sum:BaseImponibleOimporteNoSujeto>100.00</sum:BaseImponibleOimporteNoSujeto><sum:CuotaRepercutida>21.00</sum:CuotaRepercutida><sum:TipoRecargoEquivalencia>5.20</sum:TipoRecargoEquivalencia><sum:CuotaRecargoEquivalencia>5.20</sum:CuotaRecargoEquivalencia></sum:DetalleDesglose>
        <sum:DetalleDesglose><sum:Impuesto>01</sum:Impuesto><sum:ClaveRegimen>01</sum:ClaveRegimen><sum:OperacionExenta>E1</sum:OperacionExenta><sum:BaseImponibleOimporteNoSujeto>10.00</sum:BaseImponibleOimporteNoSujeto></sum:DetalleDesglose>
      </r:Desglose>
      <r:CuotaTotal>26.20</r:CuotaTotal><r:ImporteTotal>136.20</r:ImporteTotal>
      <r:Encadenamiento><r:PrimerRegistro>S</r:PrimerRegistro></r:Encadenamiento>
      <r:FechaHoraHusoGenRegistro>2027-03-31T19:20:30+01:00</r:FechaHoraHusoGenRegistro>
      <r:TipoHuella>01</r:TipoHuella><r:Huella>3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60</r:Huella>
    </r:DatosRegistroFacturacion>
    <r:DatosPresentacion><sum:NIFPresentador>A00000000</sum:NIFPresentador><sum:TimestampPresentacion>2027-03-31T19:21:00+01:00</sum:TimestampPresentacion><sum:IdPeticion>202703311921001</sum:IdPeticion></r:DatosPresentacion>
    <r:EstadoRegistro><r:TimestampUltimaModificacion>2027-03-31T19:21:00+01:00</r:TimestampUltimaModificacion><r:EstadoRegistro>Correcta</r:EstadoRegistro></r:EstadoRegistro>
  </r:RegistroRespuestaConsultaFactuSistemaFacturacion>
  <r:RegistroRespuestaConsultaFactuSistemaFacturacion>
    <r:IDFactura><sum:IDEmisorFactura>A00000000</sum:IDEmisorFactura><sum:NumSerieFactura>F27-1000</sum:NumSerieFactura><sum:FechaExpedicionFactura>31-03-2027</sum:FechaExpedicionFactura></r:IDFactura>
    <r:DatosRegistroFacturacion><r:TipoFactura>F2</r:TipoFactura><r:FechaOperacion>28-02-2027</r:FechaOperacion></r:DatosRegistroFacturacion>
    <r:EstadoRegistro><r:TimestampUltimaModificacion>2027-04-01T09:00:00+02:00</r:TimestampUltimaModificacion><r:EstadoRegistro>AceptadaConErrores</r:EstadoRegistro><r:CodigoErrorRegistro>2004</r:CodigoErrorRegistro><r:DescripcionErrorRegistro>Fuera de plazo.</r:DescripcionErrorRegistro></r:EstadoRegistro>
  </r:RegistroRespuestaConsultaFactuSistemaFacturacion>
  <r:ClavePaginacion><sum:IDEmisorFactura>A00000000</sum:IDEmisorFactura><sum:NumSerieFactura>F27-1000</sum:NumSerieFactura><sum:FechaExpedicionFactura>31-03-2027</sum:FechaExpedicionFactura></r:ClavePaginacion>
</r:RespuestaConsultaFactuSistemaFacturacion></env:Body></env:Envelope>"#;

    #[test]
    fn the_sample_answer_is_read_into_typed_records() {
        let answer = read_answer(SAMPLE).unwrap();
        assert_eq!(answer.side, Side::Recipient);
        assert_eq!(answer.period, Period::new(2027, 3).unwrap());
        assert_eq!(answer.records.len(), 2);
        let first = &answer.records[0];
        assert_eq!(first.invoice.number, "F27-0999");
        assert_eq!(first.state, HeldState::Correct);
        assert_eq!(first.data.issuer_name.as_deref(), Some("PROVEEDOR SA"));
        assert_eq!(first.data.kind, Some(Kind::F1));
        assert_eq!(
            first.data.recipients,
            [Recipient::Nif {
                name: "CLIENTE SL".into(),
                nif: "B00000000".into()
            }]
        );
        let surcharged = &first.data.breakdown[0];
        assert_eq!(
            (
                surcharged.regime.as_str(),
                surcharged.treatment,
                surcharged.rate,
                surcharged.base,
                surcharged.vat,
                surcharged.surcharge_rate,
                surcharged.surcharge
            ),
            (
                "18",
                Treatment::Qualified(Qualification::S1),
                Some(dec!(21.00)),
                dec!(100.00),
                Some(dec!(21.00)),
                Some(dec!(5.20)),
                Some(dec!(5.20))
            )
        );
        assert_eq!(
            first.data.breakdown[1].treatment,
            Treatment::Exempt(Exemption::E1)
        );
        assert_eq!(
            (first.data.total_vat, first.data.total),
            (Some(dec!(26.20)), Some(dec!(136.20)))
        );
        assert_eq!(first.data.hash.as_deref().map(str::len), Some(64));
        let second = &answer.records[1];
        assert_eq!(second.state, HeldState::AcceptedWithErrors);
        assert_eq!(second.error.as_ref().map(|e| e.code), Some(2004));
        assert_eq!(
            second.period(),
            Period::new(2027, 2),
            "the operation date's month"
        );
        assert_eq!(
            answer.next.as_ref().map(|k| k.number.as_str()),
            Some("F27-1000")
        );
    }

    #[test]
    fn an_answer_reads_back_as_written_and_states_read_in_both_genders() {
        let read = read_answer(SAMPLE).unwrap();
        let written = soap::envelope(&read.to_xml());
        assert_eq!(read_answer(&written).unwrap(), read);
        let empty = QueryAnswer {
            records: Vec::new(),
            next: None,
            ..read
        };
        let xml = empty.to_xml();
        assert!(xml.contains(">SinDatos<") && xml.contains(">N</r:IndicadorPaginacion>"));
        for (masculine, feminine) in [
            ("Correcto", "Correcta"),
            ("AceptadoConErrores", "AceptadaConErrores"),
            ("Anulado", "Anulada"),
        ] {
            assert_eq!(HeldState::parse(masculine), HeldState::parse(feminine));
            assert_eq!(HeldState::parse(masculine).unwrap().as_str(), masculine);
        }
        assert_eq!(HeldState::parse("Incorrecto"), None);
    }

    #[test]
    fn faults_and_other_bodies_say_why() {
        let fault = soap::fault_envelope(&soap::Fault {
            code: "env:Client".into(),
            message: "Codigo[4102].El XML no cumple el esquema".into(),
        });
        assert!(read_answer(&fault).unwrap_err().starts_with("aeat_fault"));
        let other = soap::envelope("<x:Otra xmlns:x=\"urn:x\"/>");
        assert!(
            read_answer(&other)
                .unwrap_err()
                .contains("not RespuestaConsulta")
        );
        assert!(
            read_answer(&SAMPLE.replace(">Correcta<", ">Rara<"))
                .unwrap_err()
                .contains("EstadoRegistro \"Rara\"")
        );
    }
}
