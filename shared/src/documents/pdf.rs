//! The invoice as an A4 PDF with everything RD 1619/2012 asks of an invoice
//! and the VERI*FACTU QR at the top of the first page. DejaVu Sans is
//! embedded (subset, with ToUnicode, so the text can be extracted) and the
//! bytes depend only on the invoice: the document id and dates come from it.

mod canvas;
pub(crate) mod format;
mod layout;
mod qr;
mod render;

use lopdf::{Dictionary, Object, StringFormat};
use sha2::{Digest, Sha256};

use crate::invoice::model::Invoice;

pub(crate) const PRODUCER: &str = "svc";

pub fn pdf(invoice: &Invoice) -> Vec<u8> {
    save(document(invoice))
}

/// The PDF before saving, with its metadata, for the Factur-X container to extend.
pub(crate) fn document(invoice: &Invoice) -> lopdf::Document {
    let mut doc = render::document(&layout::pages(invoice));
    doc.version = "1.7".to_string();
    let info_id = doc
        .trailer
        .get(b"Info")
        .and_then(Object::as_reference)
        .expect("printpdf writes an Info dictionary");
    doc.objects
        .insert(info_id, Object::Dictionary(info(invoice)));
    doc.trailer.set("ID", file_id(invoice));
    doc
}

pub(crate) fn save(mut doc: lopdf::Document) -> Vec<u8> {
    doc.compress();
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes)
        .expect("writing to memory does not fail");
    bytes
}

pub(crate) fn title(invoice: &Invoice) -> String {
    format!("Factura {}", invoice.number)
}

/// When the invoice was issued, as a PDF date: the document's creation and modification date.
pub(crate) fn date(invoice: &Invoice) -> Object {
    Object::string_literal(
        invoice
            .created_at
            .format("D:%Y%m%d%H%M%S+00'00'")
            .to_string(),
    )
}

fn info(invoice: &Invoice) -> Dictionary {
    let date = date(invoice);
    Dictionary::from_iter([
        ("Title", text_string(&title(invoice))),
        ("Producer", Object::string_literal(PRODUCER)),
        ("CreationDate", date.clone()),
        ("ModDate", date),
    ])
}

/// A PDF text string: PDFDocEncoding is ASCII-compatible, anything else goes as UTF-16BE.
fn text_string(text: &str) -> Object {
    if text.is_ascii() {
        return Object::string_literal(text);
    }
    let utf16 = [0xFEFF]
        .into_iter()
        .chain(text.encode_utf16())
        .flat_map(u16::to_be_bytes)
        .collect();
    Object::String(utf16, StringFormat::Hexadecimal)
}

/// The trailer `/ID`: permanent for the invoice, a new instance when its status changes.
fn file_id(invoice: &Invoice) -> Object {
    let permanent = Sha256::digest(
        [
            invoice.issuer.tax_id.as_str(),
            &invoice.number,
            &invoice.verifactu.hash,
        ]
        .join("\n"),
    );
    let instance = Sha256::digest([&permanent[..], invoice.status.code().as_bytes()].concat());
    Object::Array(
        [permanent, instance]
            .iter()
            .map(|digest| Object::String(digest[..16].to_vec(), StringFormat::Hexadecimal))
            .collect(),
    )
}
