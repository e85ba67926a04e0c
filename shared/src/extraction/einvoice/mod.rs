//! E-invoices read exactly: Facturae 3.x, UBL 2.1 (Invoice and CreditNote,
//! Peppol BIS 3 included) and UN/CEFACT CII D16B (the XML of Factur-X,
//! ZUGFeRD 2 and XRechnung). Every value is what the document states, with
//! confidence 1.0; stated figures that do not add up are not corrected (the
//! checks compare them), and anything this reader infers or recomputes is
//! said in a note.
//!
//! Conventions, the same for the three formats:
//! - Sign: credit notes carry negative base, VAT, surcharge, IRPF and total,
//!   so that total = base + VAT + surcharge − IRPF holds on every document
//!   and a credit note reads as the stored rectifying invoice it came from.
//!   A Facturae credit note already states negative amounts; a UBL
//!   `CreditNote`, or any document with a credit-note type code (381 …),
//!   states positive ones, which are negated. Rates are never negative.
//! - `irpf_amount` is the withheld amount (positive on an invoice), `total`
//!   the invoice total after the withholding: Facturae `InvoiceTotal`;
//!   UBL `TaxInclusiveAmount` and CII `GrandTotalAmount` minus the
//!   withholding when one is identified (EN 16931 has no element for it).
//! - Our own UBL and CII (`crate::documents::en16931`) state IRPF as a
//!   prepaid amount with a note, and fold the equivalence surcharge into the
//!   VAT rate of its group with a note; both notes are read back, so those
//!   documents give the stored invoice's figures.
//! - `vat_amount` is the indirect tax alone (VAT, or IGIC or IPSI as
//!   `indirect_tax` says); each rate's equivalence surcharge is in
//!   `vat_breakdown`.
//! - Amounts are rounded to cents (half away from zero); a note says when
//!   that changed one. Tax ids lose spaces, punctuation and a Spanish `ES`
//!   prefix. The placeholder recipient of simplified invoices (`00000000T`,
//!   "Consumidor final", "Destinatario no identificado") is no recipient.

mod cii;
mod en16931;
mod encoding;
mod facturae;
mod ubl;
mod values;

use rust_decimal::Decimal;

use super::fields::{Field, Fields};
use crate::tax::money::round2;
use crate::xml_tree::{self as tree, XmlError};

/// The e-invoice formats this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Facturae,
    Ubl,
    Cii,
}

#[derive(Debug, thiserror::Error)]
pub enum EinvoiceError {
    #[error(
        "the document is not an e-invoice this service reads (Facturae 3.x, UBL 2.1 Invoice or CreditNote, CII CrossIndustryInvoice)"
    )]
    NotEinvoice,
    #[error("the XML declares the encoding {0:?}, which is not supported (use UTF-8)")]
    UnsupportedEncoding(String),
    #[error("the e-invoice cannot be read: {0}")]
    Malformed(String),
    /// Over a limit of `xml_tree::LIMITS`, which no real e-invoice reaches.
    #[error("the e-invoice is larger than this service reads: {0}")]
    TooLarge(String),
}

impl From<XmlError> for EinvoiceError {
    fn from(e: XmlError) -> Self {
        match e {
            XmlError::Malformed(message) => EinvoiceError::Malformed(message),
            XmlError::TooLarge { message, .. } => EinvoiceError::TooLarge(message),
        }
    }
}

const FACTURAE_NAMESPACES: [&str; 2] = [
    // 3.0, 3.1, 3.2 and 3.2.1: …/2007/v3.0/Facturae, …/2014/v3.2.1/Facturae
    "http://www.facturae.es/Facturae/",
    // 3.2.2: …/Facturaev3_2_2.xml
    "http://www.facturae.gob.es/formato/Versiones/Facturaev3",
];
const UBL_INVOICE: &str = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
const UBL_CREDIT_NOTE: &str = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
const CII: &str = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100";

/// DNI number 0 with its check letter, written when a recipient has no tax id.
const PLACEHOLDER_TAX_ID: &str = "00000000T";
const PLACEHOLDER_NAMES: [&str; 2] = ["consumidor final", "destinatario no identificado"];

/// The e-invoice format of an XML document (skip a BOM, honour the encoding declaration, root local name + namespace), or None.
pub fn detect(xml: &[u8]) -> Option<Format> {
    let text = encoding::decode(xml).ok()?;
    let root = tree::root(&text).ok()?;
    format_of(&root)
}

/// Every invoice in the document (a Facturae batch may hold several), exactly as written.
pub fn read(xml: &[u8]) -> Result<(Format, Vec<Fields>), EinvoiceError> {
    if !looks_like_xml(xml) {
        return Err(EinvoiceError::NotEinvoice);
    }
    let text = encoding::decode(xml)?;
    let root = tree::root(&text)?;
    let format = format_of(&root).ok_or(EinvoiceError::NotEinvoice)?;
    let (_, document) = tree::parse(&text)?;
    let invoices = match format {
        Format::Facturae => facturae::read(&document)?,
        Format::Ubl => vec![ubl::read(&document)?],
        Format::Cii => vec![cii::read(&document)?],
    };
    Ok((format, invoices.into_iter().map(rounded).collect()))
}

/// A byte-order mark or, after optional whitespace, a `<`: a PDF, an image
/// or plain text is no e-invoice rather than malformed XML.
fn looks_like_xml(xml: &[u8]) -> bool {
    let rest = xml.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(xml);
    xml.starts_with(b"\xFF\xFE")
        || xml.starts_with(b"\xFE\xFF")
        || rest.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}

fn format_of(root: &tree::Root) -> Option<Format> {
    let namespace = root.namespace.as_str();
    match root.name.as_str() {
        "Facturae" if FACTURAE_NAMESPACES.iter().any(|n| namespace.starts_with(n)) => {
            Some(Format::Facturae)
        }
        "Invoice" if namespace == UBL_INVOICE => Some(Format::Ubl),
        "CreditNote" if namespace == UBL_CREDIT_NOTE => Some(Format::Ubl),
        "CrossIndustryInvoice" if namespace == CII => Some(Format::Cii),
        _ => None,
    }
}

fn note(fields: &mut Fields, code: &str, message: String) {
    fields.notes.push((code.to_string(), message));
}

fn exact<T>(value: Option<T>) -> Option<Field<T>> {
    value.map(Field::exact)
}

/// The recipient, unless it is the placeholder of an unidentified one.
fn set_recipient(fields: &mut Fields, name: Option<String>, tax_id: Option<String>) {
    let placeholder_id = tax_id.as_deref() == Some(PLACEHOLDER_TAX_ID);
    let tax_id = tax_id.filter(|_| !placeholder_id);
    let placeholder_name = name
        .as_deref()
        .is_some_and(|n| PLACEHOLDER_NAMES.contains(&n.to_lowercase().as_str()));
    let name = name.filter(|_| !(placeholder_name && tax_id.is_none()));
    if placeholder_id || (placeholder_name && tax_id.is_none()) {
        note(
            fields,
            "recipient_unidentified",
            "Destinatario no identificado (factura simplificada): el documento lleva un \
             destinatario de relleno, que no se toma como destinatario."
                .to_string(),
        );
    }
    fields.recipient_name = exact(name);
    fields.recipient_nif = exact(tax_id);
}

/// IGIC (Canarias) or IPSI (Ceuta, Melilla) in place of VAT, with a note.
fn set_indirect_tax(fields: &mut Fields, tax: &str) {
    let region = if tax == "IGIC" {
        "Canarias"
    } else {
        "Ceuta y Melilla"
    };
    fields.indirect_tax = Some(tax.to_string());
    note(
        fields,
        "indirect_tax",
        format!(
            "El impuesto indirecto es el {tax} ({region}), no el IVA: cuota y desglose son de {tax}."
        ),
    );
}

/// Amounts to cents; Facturae allows up to 8 decimals.
fn rounded(mut fields: Fields) -> Fields {
    let mut changed = false;
    let mut round = |value: &mut Decimal| {
        let cents = round2(*value);
        changed |= cents != *value;
        *value = cents;
    };
    for field in [
        &mut fields.base,
        &mut fields.vat_amount,
        &mut fields.irpf_amount,
        &mut fields.total,
    ]
    .into_iter()
    .flatten()
    {
        round(&mut field.value);
    }
    for line in &mut fields.vat_breakdown {
        round(&mut line.base);
        round(&mut line.vat_amount);
        if let Some(amount) = &mut line.surcharge_amount {
            round(amount);
        }
    }
    if changed {
        note(
            &mut fields,
            "amounts_rounded",
            "Importes con más de dos decimales redondeados al céntimo (mitad hacia arriba)."
                .to_string(),
        );
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(namespace: &str, name: &str) -> Vec<u8> {
        format!(r#"<?xml version="1.0"?><x:{name} xmlns:x="{namespace}"><a/></x:{name}>"#)
            .into_bytes()
    }

    #[test]
    fn every_facturae_version_is_detected() {
        for namespace in [
            "http://www.facturae.es/Facturae/2007/v3.0/Facturae",
            "http://www.facturae.es/Facturae/2007/v3.1/Facturae",
            "http://www.facturae.es/Facturae/2009/v3.2/Facturae",
            "http://www.facturae.es/Facturae/2014/v3.2.1/Facturae",
            "http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml",
        ] {
            assert_eq!(detect(&root(namespace, "Facturae")), Some(Format::Facturae));
        }
    }

    #[test]
    fn ubl_and_cii_roots_are_detected_with_or_without_prefix() {
        assert_eq!(detect(&root(UBL_INVOICE, "Invoice")), Some(Format::Ubl));
        assert_eq!(
            detect(&root(UBL_CREDIT_NOTE, "CreditNote")),
            Some(Format::Ubl)
        );
        assert_eq!(
            detect(&root(CII, "CrossIndustryInvoice")),
            Some(Format::Cii)
        );
        let default_namespace = format!(r#"<Invoice xmlns="{UBL_INVOICE}"/>"#);
        assert_eq!(detect(default_namespace.as_bytes()), Some(Format::Ubl));
    }

    #[test]
    fn wrong_pairs_and_other_xml_are_not_einvoices() {
        assert_eq!(detect(&root(UBL_CREDIT_NOTE, "Invoice")), None);
        assert_eq!(detect(&root(CII, "Invoice")), None);
        assert_eq!(detect(b"<Invoice><ID>1</ID></Invoice>"), None);
        assert_eq!(
            detect(&root(
                "urn:un:unece:uncefact:data:standard:CrossIndustryDocument:100",
                "CrossIndustryDocument"
            )),
            None
        );
        let verifactu = root(
            "https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroLR.xsd",
            "RegFactuSistemaFacturacion",
        );
        assert_eq!(detect(&verifactu), None);
        assert!(matches!(read(&verifactu), Err(EinvoiceError::NotEinvoice)));
        assert_eq!(detect(b"%PDF-1.7"), None);
        assert_eq!(detect(b""), None);
    }

    #[test]
    fn bom_and_declared_encoding_are_honoured() {
        let mut with_bom = b"\xEF\xBB\xBF".to_vec();
        with_bom.extend(root(UBL_INVOICE, "Invoice"));
        assert_eq!(detect(&with_bom), Some(Format::Ubl));
        let latin1 = format!(
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<fe:Facturae xmlns:fe=\"{}\"><Parties/></fe:Facturae>",
            "http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml"
        );
        let mut bytes = latin1.into_bytes();
        bytes.extend(b"<!-- Espa\xF1a -->");
        assert_eq!(detect(&bytes), Some(Format::Facturae));
        let utf16 = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-16\"?><Invoice xmlns=\"{UBL_INVOICE}\"><ID>Nº 1</ID></Invoice>"
        );
        let bytes: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(utf16.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let (format, invoices) = read(&bytes).unwrap();
        assert_eq!(format, Format::Ubl);
        assert_eq!(invoices[0].invoice_number.as_ref().unwrap().value, "Nº 1");
    }

    #[test]
    fn malformed_and_hostile_documents_are_errors() {
        let truncated = format!(r#"<Invoice xmlns="{UBL_INVOICE}"><ID>1</ID>"#);
        assert!(matches!(
            read(truncated.as_bytes()),
            Err(EinvoiceError::Malformed(_))
        ));
        let bomb = format!(
            r#"<!DOCTYPE Invoice [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><Invoice xmlns="{UBL_INVOICE}"><ID>&b;</ID></Invoice>"#
        );
        assert!(
            matches!(read(bomb.as_bytes()), Err(EinvoiceError::Malformed(m)) if m.contains("DOCTYPE"))
        );
        assert!(matches!(read(b"no xml"), Err(EinvoiceError::NotEinvoice)));
        assert!(matches!(
            read(b"%PDF-1.7\n%\xE2\xE3\xCF\xD3"),
            Err(EinvoiceError::NotEinvoice)
        ));
        assert!(matches!(read(b""), Err(EinvoiceError::NotEinvoice)));
        assert!(matches!(
            read(b"<a>\xFF</a>"),
            Err(EinvoiceError::Malformed(_))
        ));
    }

    #[test]
    fn placeholder_recipients_are_dropped_with_a_note() {
        let mut fields = Fields::default();
        set_recipient(
            &mut fields,
            Some("Consumidor final".into()),
            Some(PLACEHOLDER_TAX_ID.into()),
        );
        assert_eq!((fields.recipient_name, fields.recipient_nif), (None, None));
        assert_eq!(fields.notes[0].0, "recipient_unidentified");
        let mut fields = Fields::default();
        set_recipient(
            &mut fields,
            Some("Juan".into()),
            Some(PLACEHOLDER_TAX_ID.into()),
        );
        assert_eq!(fields.recipient_name.unwrap().value, "Juan");
        assert_eq!(fields.recipient_nif, None);
        let mut fields = Fields::default();
        set_recipient(
            &mut fields,
            Some("Consumidor Final".into()),
            Some("B64717838".into()),
        );
        assert!(fields.recipient_name.is_some() && fields.notes.is_empty());
    }
}
