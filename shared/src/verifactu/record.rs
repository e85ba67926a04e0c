//! The inputs of a billing record and their mapping to the AEAT elements, in
//! schema order (`RegistroFacturacionAltaType`, `RegistroFacturacionAnulacionType`).

use chrono::{DateTime, FixedOffset, NaiveDate};
use rust_decimal::Decimal;

use super::fingerprint::{
    CancellationHashInput, RegistrationHashInput, fingerprint_cancellation,
    fingerprint_registration,
};
use super::tree::{Node, group, text, to_json};
use super::xml::record_xml;
use crate::invoice::kind::Kind;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::cents;

const ID_VERSION: &str = "1.0";
/// SHA-256, the only TipoHuella.
const HASH_TYPE: &str = "01";
/// Element names of an invoice identity, and of a cancelled one.
const INVOICE_ID: [&str; 3] = [
    "IDEmisorFactura",
    "NumSerieFactura",
    "FechaExpedicionFactura",
];
const CANCELLED_INVOICE_ID: [&str; 3] = [
    "IDEmisorFacturaAnulada",
    "NumSerieFacturaAnulada",
    "FechaExpedicionFacturaAnulada",
];

/// The invoicing software (SistemaInformatico).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemInfo {
    pub producer_name: String,
    pub producer_nif: String,
    /// At most 30 characters.
    pub system_name: String,
    /// At most 2 characters, chosen by the producer.
    pub system_id: String,
    pub version: String,
    pub installation_number: String,
    pub only_verifactu: bool,
    pub multi_ot: bool,
    pub multiple_ot: bool,
}

/// The identity of an invoice: issuer, series and number, issue date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvoiceRef {
    pub issuer_nif: String,
    pub number: String,
    pub issue_date: NaiveDate,
}

/// The chain head before a new record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviousRecord {
    pub invoice: InvoiceRef,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    Nif {
        name: String,
        nif: String,
    },
    Foreign {
        name: String,
        /// ISO 3166-1 alpha-2.
        country: String,
        /// IDType `02`..`07`.
        id_type: String,
        id: String,
    },
}

/// CalificacionOperacion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Qualification {
    S1,
    S2,
    N1,
    N2,
}

/// OperacionExenta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exemption {
    E1,
    E2,
    E3,
    E4,
    E5,
    E6,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    Qualified(Qualification),
    Exempt(Exemption),
}

/// One DetalleDesglose. Absent optional amounts omit their elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakdownLine {
    /// Impuesto: `01` IVA, `03` IGIC, `02` IPSI.
    pub tax: IndirectTax,
    /// ClaveRegimen: `01` general, `18` equivalence surcharge…
    pub regime: String,
    pub treatment: Treatment,
    pub rate: Option<Decimal>,
    pub base: Decimal,
    pub vat: Option<Decimal>,
    pub surcharge_rate: Option<Decimal>,
    pub surcharge: Option<Decimal>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RectificationMethod {
    /// `S`
    Substitution,
    /// `I`
    Differences,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rectification {
    pub method: RectificationMethod,
    pub rectified: Vec<InvoiceRef>,
    /// ImporteRectificacion, required for substitution.
    pub rectified_amounts: Option<RectifiedAmounts>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RectifiedAmounts {
    pub base: Decimal,
    pub vat: Decimal,
    pub surcharge: Option<Decimal>,
}

/// Why a registration of an invoice is sent again (Subsanacion,
/// RechazoPrevio); neither flag is hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Correction {
    /// `Subsanacion=S`: corrects the record the AEAT holds (it was accepted
    /// with errors).
    OfAccepted,
    /// `Subsanacion=S`, `RechazoPrevio=X`: the AEAT rejected the earlier
    /// record, so it holds none of this invoice.
    OfRejected,
}

/// What a registration says of a simplified invoice or of one that
/// replaces simplified ones (none of it is hashed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Simplification {
    /// `FacturaSimplificadaArt7273=S`: a simplified invoice with the
    /// recipient's identification and VAT shown (RD 1619/2012 art. 7.2/7.3), as F1.
    pub qualified: bool,
    /// `FacturaSinIdentifDestinatarioArt61d=S`: a full invoice without the
    /// recipient's identification (art. 6.1.d), as F2.
    pub without_recipient: bool,
    /// `FacturasSustituidas`: the simplified invoices an F3 replaces.
    pub replaced: Vec<InvoiceRef>,
}

/// A registro de alta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub invoice: InvoiceRef,
    pub issuer_name: String,
    /// `None` for the invoice's first registration.
    pub correction: Option<Correction>,
    /// TipoFactura.
    pub kind: Kind,
    pub rectification: Option<Rectification>,
    pub simplification: Simplification,
    pub operation_date: Option<NaiveDate>,
    pub description: String,
    pub recipients: Vec<Recipient>,
    pub breakdown: Vec<BreakdownLine>,
    /// CuotaTotal: Σ VAT + Σ equivalence surcharge.
    pub total_vat: Decimal,
    /// ImporteTotal: Σ bases + VAT + surcharge, never minus IRPF.
    pub total: Decimal,
    pub previous: Option<PreviousRecord>,
    pub system: SystemInfo,
    pub generated_at: DateTime<FixedOffset>,
}

/// A registro de anulación. Its two flags are not hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancellation {
    pub invoice: InvoiceRef,
    /// `SinRegistroPrevio=S`: the AEAT holds no registration of the invoice
    /// (it rejected it).
    pub without_registration: bool,
    /// `RechazoPrevio=S`: the AEAT rejected an earlier cancellation of it.
    pub after_rejection: bool,
    pub previous: Option<PreviousRecord>,
    pub system: SystemInfo,
    pub generated_at: DateTime<FixedOffset>,
}

/// A built record: its hash, its XML element (RegistroAlta /
/// RegistroAnulacion, namespace `sf` = SuministroInformacion) and the JSON
/// view keyed by AEAT element names, nested as in the XML, holding the
/// literal strings that were hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltRecord {
    pub hash: String,
    pub xml: String,
    pub json: serde_json::Value,
}

impl Registration {
    pub fn build(&self) -> BuiltRecord {
        let id = IdText::of(&self.invoice);
        let total_vat = cents(self.total_vat);
        let total = cents(self.total);
        let generated_at = timestamp_text(self.generated_at);
        let previous_hash = previous_hash(self.previous.as_ref());
        let hash = fingerprint_registration(&RegistrationHashInput {
            issuer_nif: &id.nif,
            number: &id.number,
            issue_date: &id.date,
            kind: self.kind.code(),
            total_vat: &total_vat,
            total: &total,
            previous_hash,
            generated_at: &generated_at,
        });

        let mut children = vec![
            text("IDVersion", ID_VERSION),
            group("IDFactura", id.nodes(INVOICE_ID)),
            text("NombreRazonEmisor", &self.issuer_name),
        ];
        children.extend(self.correction.map_or_else(Vec::new, correction_nodes));
        children.push(text("TipoFactura", self.kind.code()));
        if let Some(rectification) = &self.rectification {
            children.extend(rectification_nodes(rectification));
        }
        let simplification = &self.simplification;
        if !simplification.replaced.is_empty() {
            let entries = simplification
                .replaced
                .iter()
                .map(|invoice| IdText::of(invoice).nodes(INVOICE_ID))
                .collect();
            children.push(group(
                "FacturasSustituidas",
                vec![Node::Repeated("IDFacturaSustituida", entries)],
            ));
        }
        children.extend(
            self.operation_date
                .map(|date| text("FechaOperacion", date_text(date))),
        );
        children.push(text("DescripcionOperacion", &self.description));
        if simplification.qualified {
            children.push(text("FacturaSimplificadaArt7273", "S"));
        }
        if simplification.without_recipient {
            children.push(text("FacturaSinIdentifDestinatarioArt61d", "S"));
        }
        children.extend(recipients_node(&self.recipients));
        children.extend([
            group(
                "Desglose",
                vec![Node::Repeated(
                    "DetalleDesglose",
                    self.breakdown.iter().map(breakdown_line_nodes).collect(),
                )],
            ),
            text("CuotaTotal", total_vat),
            text("ImporteTotal", total),
        ]);
        children.extend(trailer_nodes(
            self.previous.as_ref(),
            &self.system,
            generated_at,
            &hash,
        ));
        finish("RegistroAlta", children, hash)
    }
}

impl Cancellation {
    pub fn build(&self) -> BuiltRecord {
        let id = IdText::of(&self.invoice);
        let generated_at = timestamp_text(self.generated_at);
        let hash = fingerprint_cancellation(&CancellationHashInput {
            issuer_nif: &id.nif,
            number: &id.number,
            issue_date: &id.date,
            previous_hash: previous_hash(self.previous.as_ref()),
            generated_at: &generated_at,
        });

        let mut children = vec![
            text("IDVersion", ID_VERSION),
            group("IDFactura", id.nodes(CANCELLED_INVOICE_ID)),
        ];
        if self.without_registration {
            children.push(text("SinRegistroPrevio", "S"));
        }
        if self.after_rejection {
            children.push(text("RechazoPrevio", "S"));
        }
        children.extend(trailer_nodes(
            self.previous.as_ref(),
            &self.system,
            generated_at,
            &hash,
        ));
        finish("RegistroAnulacion", children, hash)
    }
}

fn finish(root: &str, children: Vec<Node>, hash: String) -> BuiltRecord {
    BuiltRecord {
        xml: record_xml(root, &children),
        json: to_json(&children),
        hash,
    }
}

/// An invoice identity as the trimmed strings that are written and hashed.
struct IdText {
    nif: String,
    number: String,
    date: String,
}

impl IdText {
    fn of(invoice: &InvoiceRef) -> Self {
        IdText {
            nif: invoice.issuer_nif.trim().to_owned(),
            number: invoice.number.trim().to_owned(),
            date: date_text(invoice.issue_date),
        }
    }

    fn nodes(&self, [nif, number, date]: [&'static str; 3]) -> Vec<Node> {
        vec![
            text(nif, &self.nif),
            text(number, &self.number),
            text(date, &self.date),
        ]
    }
}

/// `dd-mm-yyyy`, the AEAT date format.
pub(crate) fn date_text(date: NaiveDate) -> String {
    date.format("%d-%m-%Y").to_string()
}

fn timestamp_text(at: DateTime<FixedOffset>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

fn previous_hash(previous: Option<&PreviousRecord>) -> &str {
    previous.map_or("", |p| p.hash.trim())
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "S" } else { "N" }
}

fn correction_nodes(correction: Correction) -> Vec<Node> {
    let mut nodes = vec![text("Subsanacion", "S")];
    if correction == Correction::OfRejected {
        nodes.push(text("RechazoPrevio", "X"));
    }
    nodes
}

fn rectification_nodes(rectification: &Rectification) -> Vec<Node> {
    let method = match rectification.method {
        RectificationMethod::Substitution => "S",
        RectificationMethod::Differences => "I",
    };
    let mut nodes = vec![text("TipoRectificativa", method)];
    if !rectification.rectified.is_empty() {
        let entries = rectification
            .rectified
            .iter()
            .map(|invoice| IdText::of(invoice).nodes(INVOICE_ID))
            .collect();
        nodes.push(group(
            "FacturasRectificadas",
            vec![Node::Repeated("IDFacturaRectificada", entries)],
        ));
    }
    if let Some(amounts) = &rectification.rectified_amounts {
        let mut amount_nodes = vec![
            text("BaseRectificada", cents(amounts.base)),
            text("CuotaRectificada", cents(amounts.vat)),
        ];
        amount_nodes.extend(
            amounts
                .surcharge
                .map(|x| text("CuotaRecargoRectificado", cents(x))),
        );
        nodes.push(group("ImporteRectificacion", amount_nodes));
    }
    nodes
}

fn recipients_node(recipients: &[Recipient]) -> Option<Node> {
    if recipients.is_empty() {
        return None;
    }
    let entries = recipients.iter().map(recipient_nodes).collect();
    Some(group(
        "Destinatarios",
        vec![Node::Repeated("IDDestinatario", entries)],
    ))
}

pub(crate) fn recipient_nodes(recipient: &Recipient) -> Vec<Node> {
    match recipient {
        Recipient::Nif { name, nif } => vec![text("NombreRazon", name), text("NIF", nif)],
        Recipient::Foreign {
            name,
            country,
            id_type,
            id,
        } => {
            let mut other = Vec::new();
            if !country.trim().is_empty() {
                other.push(text("CodigoPais", country));
            }
            other.extend([text("IDType", id_type), text("ID", id)]);
            vec![text("NombreRazon", name), group("IDOtro", other)]
        }
    }
}

pub(crate) fn breakdown_line_nodes(line: &BreakdownLine) -> Vec<Node> {
    let mut nodes = vec![text("Impuesto", line.tax.aeat_code())];
    if !line.regime.trim().is_empty() {
        nodes.push(text("ClaveRegimen", &line.regime));
    }
    nodes.push(treatment_node(line.treatment));
    nodes.extend(line.rate.map(|x| text("TipoImpositivo", cents(x))));
    nodes.push(text("BaseImponibleOimporteNoSujeto", cents(line.base)));
    nodes.extend(line.vat.map(|x| text("CuotaRepercutida", cents(x))));
    nodes.extend(
        line.surcharge_rate
            .map(|x| text("TipoRecargoEquivalencia", cents(x))),
    );
    nodes.extend(
        line.surcharge
            .map(|x| text("CuotaRecargoEquivalencia", cents(x))),
    );
    nodes
}

fn treatment_node(treatment: Treatment) -> Node {
    match treatment {
        Treatment::Qualified(q) => text(
            "CalificacionOperacion",
            match q {
                Qualification::S1 => "S1",
                Qualification::S2 => "S2",
                Qualification::N1 => "N1",
                Qualification::N2 => "N2",
            },
        ),
        Treatment::Exempt(e) => text(
            "OperacionExenta",
            match e {
                Exemption::E1 => "E1",
                Exemption::E2 => "E2",
                Exemption::E3 => "E3",
                Exemption::E4 => "E4",
                Exemption::E5 => "E5",
                Exemption::E6 => "E6",
            },
        ),
    }
}

/// Encadenamiento through Huella, shared by both record kinds.
fn trailer_nodes(
    previous: Option<&PreviousRecord>,
    system: &SystemInfo,
    generated_at: String,
    hash: &str,
) -> Vec<Node> {
    vec![
        chaining_node(previous),
        system_node(system),
        text("FechaHoraHusoGenRegistro", generated_at),
        text("TipoHuella", HASH_TYPE),
        text("Huella", hash),
    ]
}

fn chaining_node(previous: Option<&PreviousRecord>) -> Node {
    let link = match previous {
        None => text("PrimerRegistro", "S"),
        Some(previous) => {
            let mut nodes = IdText::of(&previous.invoice).nodes(INVOICE_ID);
            nodes.push(text("Huella", &previous.hash));
            group("RegistroAnterior", nodes)
        }
    };
    group("Encadenamiento", vec![link])
}

fn system_node(system: &SystemInfo) -> Node {
    group(
        "SistemaInformatico",
        vec![
            text("NombreRazon", &system.producer_name),
            text("NIF", &system.producer_nif),
            text("NombreSistemaInformatico", &system.system_name),
            text("IdSistemaInformatico", &system.system_id),
            text("Version", &system.version),
            text("NumeroInstalacion", &system.installation_number),
            text("TipoUsoPosibleSoloVerifactu", yes_no(system.only_verifactu)),
            text("TipoUsoPosibleMultiOT", yes_no(system.multi_ot)),
            text("IndicadorMultiplesOT", yes_no(system.multiple_ot)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;
    use serde_json::json;

    use super::super::test_support::*;
    use super::*;

    #[test]
    fn josemmo_f1_example_rebuilt_has_its_huella() {
        let built = josemmo_f1().build();
        assert_eq!(built.hash, JOSEMMO_F1_HUELLA);
        assert_eq!(built.json["Huella"], JOSEMMO_F1_HUELLA);
        assert!(built.xml.ends_with(&format!(
            "<sf:TipoHuella>01</sf:TipoHuella><sf:Huella>{JOSEMMO_F1_HUELLA}</sf:Huella></sf:RegistroAlta>"
        )));
    }

    #[test]
    fn josemmo_cancellation_example_rebuilt_has_its_huella() {
        let cancellation = Cancellation {
            invoice: invoice("A00000000", "12345679/G34", date(2024, 1, 1)),
            without_registration: false,
            after_rejection: false,
            previous: Some(PreviousRecord {
                invoice: invoice("A00000000", "12345679/G34", date(2024, 1, 1)),
                hash: "F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97".to_owned(),
            }),
            system: system("Perico de los Palotes, S.A.", "A00000000"),
            generated_at: at("2024-01-01T19:20:40+01:00"),
        };
        let built = cancellation.build();
        assert_eq!(
            built.hash,
            "5DCAFD630E24AA03BCE2D3E6F595BAE802555F4604AF830F0340F3338B4935F6"
        );
        assert_eq!(
            built.json["IDFactura"],
            json!({
                "IDEmisorFacturaAnulada": "A00000000",
                "NumSerieFacturaAnulada": "12345679/G34",
                "FechaExpedicionFacturaAnulada": "01-01-2024"
            })
        );
        assert!(built.xml.starts_with(&format!(
            r#"<sf:RegistroAnulacion xmlns:sf="{}"><sf:IDVersion>1.0</sf:IDVersion><sf:IDFactura>"#,
            crate::verifactu::NS_SUMINISTRO_INFORMACION
        )));
    }

    #[test]
    fn json_view_holds_the_literal_strings_that_were_hashed() {
        let registration = Registration {
            invoice: invoice(" 89890001K ", " 12345678 / G33 ", date(2024, 1, 1)),
            kind: Kind::F1,
            breakdown: vec![s1_line(dec!(21), dec!(102.0248))],
            total_vat: dec!(21.425),
            total: dec!(123.4),
            previous: None,
            generated_at: at("2024-01-01T19:20:30+01:00"),
            ..josemmo_f1()
        };
        let built = registration.build();
        let json = &built.json;
        assert_eq!(
            json["IDFactura"],
            json!({
                "IDEmisorFactura": "89890001K",
                "NumSerieFactura": "12345678 / G33",
                "FechaExpedicionFactura": "01-01-2024"
            })
        );
        assert_eq!(json["IDVersion"], "1.0");
        assert_eq!(json["TipoFactura"], "F1");
        assert_eq!(json["CuotaTotal"], "21.43");
        assert_eq!(json["ImporteTotal"], "123.40");
        assert_eq!(json["Encadenamiento"], json!({"PrimerRegistro": "S"}));
        assert_eq!(
            json["FechaHoraHusoGenRegistro"],
            "2024-01-01T19:20:30+01:00"
        );
        assert_eq!(json["TipoHuella"], "01");
        assert_eq!(json["FechaOperacion"], "15-05-2025");
        assert_eq!(
            json["Desglose"]["DetalleDesglose"],
            json!([{
                "Impuesto": "01",
                "ClaveRegimen": "01",
                "CalificacionOperacion": "S1",
                "TipoImpositivo": "21.00",
                "BaseImponibleOimporteNoSujeto": "102.02",
                "CuotaRepercutida": "21.43"
            }])
        );
        assert_eq!(
            json["Destinatarios"]["IDDestinatario"][1]["IDOtro"],
            json!({"CodigoPais": "FR", "IDType": "02", "ID": "FR52422961982"})
        );
        assert_eq!(
            json["SistemaInformatico"]["TipoUsoPosibleSoloVerifactu"],
            "S"
        );
        assert_eq!(json["SistemaInformatico"]["IndicadorMultiplesOT"], "N");
        for literal in [
            "<sf:CuotaTotal>21.43</sf:CuotaTotal><sf:ImporteTotal>123.40</sf:ImporteTotal>",
            "<sf:NumSerieFactura>12345678 / G33</sf:NumSerieFactura>",
            "<sf:Encadenamiento><sf:PrimerRegistro>S</sf:PrimerRegistro></sf:Encadenamiento>",
        ] {
            assert!(built.xml.contains(literal), "{literal} in {}", built.xml);
        }
        let expected =
            crate::verifactu::fingerprint_registration(&crate::verifactu::RegistrationHashInput {
                issuer_nif: "89890001K",
                number: "12345678 / G33",
                issue_date: "01-01-2024",
                kind: "F1",
                total_vat: "21.43",
                total: "123.40",
                previous_hash: "",
                generated_at: "2024-01-01T19:20:30+01:00",
            });
        assert_eq!(built.hash, expected);
        assert_eq!(json["Huella"], expected);
    }

    #[test]
    fn rectification_by_substitution_is_written_in_schema_order() {
        let registration = Registration {
            kind: Kind::R4,
            rectification: Some(Rectification {
                method: RectificationMethod::Substitution,
                rectified: vec![invoice("00000000B", "PRUEBA-0001", date(2025, 5, 30))],
                rectified_amounts: Some(RectifiedAmounts {
                    base: dec!(150),
                    vat: dec!(26),
                    surcharge: None,
                }),
            }),
            ..josemmo_f1()
        };
        let xml = registration.build().xml;
        let order = [
            "<sf:TipoFactura>R4</sf:TipoFactura>",
            "<sf:TipoRectificativa>S</sf:TipoRectificativa>",
            "<sf:FacturasRectificadas><sf:IDFacturaRectificada><sf:IDEmisorFactura>00000000B</sf:IDEmisorFactura><sf:NumSerieFactura>PRUEBA-0001</sf:NumSerieFactura><sf:FechaExpedicionFactura>30-05-2025</sf:FechaExpedicionFactura></sf:IDFacturaRectificada></sf:FacturasRectificadas>",
            "<sf:ImporteRectificacion><sf:BaseRectificada>150.00</sf:BaseRectificada><sf:CuotaRectificada>26.00</sf:CuotaRectificada></sf:ImporteRectificacion>",
            "<sf:FechaOperacion>",
            "<sf:DescripcionOperacion>",
        ];
        let positions: Vec<usize> = order
            .iter()
            .map(|part| xml.find(part).unwrap_or_else(|| panic!("{part} in {xml}")))
            .collect();
        assert!(positions.is_sorted(), "{positions:?}");
    }

    #[test]
    fn a_correction_carries_its_flags_in_schema_order_and_keeps_the_hash() {
        let first = josemmo_f1().build();
        for (correction, flags) in [
            (Correction::OfAccepted, "<sf:Subsanacion>S</sf:Subsanacion>"),
            (
                Correction::OfRejected,
                "<sf:Subsanacion>S</sf:Subsanacion><sf:RechazoPrevio>X</sf:RechazoPrevio>",
            ),
        ] {
            let built = Registration {
                correction: Some(correction),
                ..josemmo_f1()
            }
            .build();
            let expected = format!(
                "<sf:NombreRazonEmisor>El Nombre del Emisor, S.L.</sf:NombreRazonEmisor>{flags}<sf:TipoFactura>F1</sf:TipoFactura>"
            );
            assert!(built.xml.contains(&expected), "{}", built.xml);
            assert_eq!(built.json["Subsanacion"], "S");
            assert_eq!(built.hash, first.hash, "the flags are not hashed");
        }
        assert!(!first.xml.contains("Subsanacion"));
        assert!(!first.xml.contains("RechazoPrevio"));
    }

    #[test]
    fn a_cancellation_carries_its_flags_after_the_invoice_id() {
        let plain = Cancellation {
            invoice: invoice("00000000B", "PRUEBA-0002", date(2025, 6, 2)),
            without_registration: false,
            after_rejection: false,
            previous: None,
            system: system("El Nombre del Emisor, S.L.", "00000000B"),
            generated_at: at("2025-06-03T09:05:00+02:00"),
        };
        let flagged = Cancellation {
            without_registration: true,
            after_rejection: true,
            ..plain.clone()
        }
        .build();
        assert!(
            flagged.xml.contains(
                "</sf:IDFactura><sf:SinRegistroPrevio>S</sf:SinRegistroPrevio><sf:RechazoPrevio>S</sf:RechazoPrevio><sf:Encadenamiento>"
            ),
            "{}",
            flagged.xml
        );
        let plain = plain.build();
        assert!(!plain.xml.contains("SinRegistroPrevio"));
        assert_eq!(flagged.hash, plain.hash, "the flags are not hashed");
    }

    #[test]
    fn missing_optional_data_omits_elements() {
        let registration = Registration {
            kind: Kind::F2,
            operation_date: None,
            recipients: Vec::new(),
            breakdown: vec![BreakdownLine {
                regime: String::new(),
                tax: Default::default(),
                treatment: Treatment::Exempt(Exemption::E1),
                rate: None,
                base: dec!(100),
                vat: None,
                surcharge_rate: None,
                surcharge: None,
            }],
            ..josemmo_f1()
        };
        let built = registration.build();
        for absent in [
            "FechaOperacion",
            "Destinatarios",
            "ClaveRegimen",
            "TipoImpositivo",
        ] {
            assert!(!built.xml.contains(absent), "{absent} in {}", built.xml);
            assert!(built.json.get(absent).is_none());
        }
        assert_eq!(
            built.json["Desglose"]["DetalleDesglose"],
            json!([{"Impuesto": "01", "OperacionExenta": "E1", "BaseImponibleOimporteNoSujeto": "100.00"}])
        );
    }
}
