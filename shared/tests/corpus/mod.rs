//! A seeded corpus of Spanish invoices with ground truth, for measuring
//! extraction: each document is a random invoice printed in one of five
//! layouts with random fonts, labels, number and date formats, delivered as a
//! text PDF, a 200-dpi PNG, JPEG or WebP, a phone photo of the printed page
//! (JPEG), a scanned PDF (image only) or plain text. The same seed gives the same bytes. Shared by the extraction tests
//! and the extraction benchmark (`#[path]`); images need poppler's `pdftoppm`.

// Each user compiles this module and uses only part of it.
#![allow(dead_code)]

pub mod invoice;
pub mod layout;
pub mod photo;
pub mod raster;
pub mod render;
pub mod rng;
pub mod score;
pub mod style;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value as Json, json};

use invoice::Invoice;
use layout::{LAYOUTS, Layout};
use rng::Rng;
use style::Style;

/// How a document reaches the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    TextPdf,
    Png,
    Jpeg,
    Webp,
    ScannedPdf,
    Text,
    /// The 200-dpi page photographed: askew on a table, uneven light, noise, blur, JPEG.
    Photo,
}

pub const KINDS: [Kind; 7] = [
    Kind::TextPdf,
    Kind::Png,
    Kind::Jpeg,
    Kind::Webp,
    Kind::ScannedPdf,
    Kind::Text,
    Kind::Photo,
];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::TextPdf => "text PDF",
            Kind::Png => "PNG 200 dpi",
            Kind::Jpeg => "JPEG 200 dpi",
            Kind::Webp => "WebP 200 dpi",
            Kind::ScannedPdf => "scanned PDF",
            Kind::Text => "text",
            Kind::Photo => "photo JPEG",
        }
    }

    /// File name prefix, extension and mime type.
    fn file(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Kind::TextPdf => ("pdf", "pdf", "application/pdf"),
            Kind::ScannedPdf => ("scan", "pdf", "application/pdf"),
            Kind::Png => ("png", "png", "image/png"),
            Kind::Jpeg => ("jpeg", "jpg", "image/jpeg"),
            Kind::Webp => ("webp", "webp", "image/webp"),
            Kind::Text => ("text", "txt", "text/plain"),
            Kind::Photo => ("photo", "jpg", "image/jpeg"),
        }
    }

    pub fn is_image(self) -> bool {
        matches!(self, Kind::Png | Kind::Jpeg | Kind::Webp | Kind::Photo)
    }
}

pub struct Document {
    pub name: String,
    pub kind: Kind,
    pub layout: Layout,
    pub invoice: Invoice,
    pub style: Style,
    /// The file's bytes, or the UTF-8 text for `Kind::Text`.
    pub data: Vec<u8>,
}

impl Document {
    /// The ground-truth values as this document prints them.
    pub fn printed(&self) -> Vec<String> {
        let s = &self.style;
        vec![
            self.invoice.number.clone(),
            s.date(self.invoice.date),
            s.nif(&self.invoice.issuer.nif),
            s.nif(&self.invoice.recipient.nif),
            s.amount(self.invoice.base),
            s.amount(self.invoice.total),
        ]
    }

    /// The document as an item of the extraction request (`files` or `texts`).
    pub fn request_item(&self) -> Json {
        let (_, _, mime) = self.kind.file();
        match self.kind {
            Kind::Text => json!({"name": self.name, "text": String::from_utf8_lossy(&self.data)}),
            _ => json!({"name": self.name, "mime": mime, "data": STANDARD.encode(&self.data)}),
        }
    }
}

/// The body of `POST /api/v1/invoices/extract` for `documents`.
pub fn request_body(documents: &[&Document]) -> String {
    let (texts, files): (Vec<&Document>, Vec<&Document>) =
        documents.iter().partition(|d| d.kind == Kind::Text);
    json!({
        "files": files.iter().map(|d| d.request_item()).collect::<Vec<_>>(),
        "texts": texts.iter().map(|d| d.request_item()).collect::<Vec<_>>(),
    })
    .to_string()
}

/// The text PDF of a random invoice: the seed picks the invoice and the
/// style, `index` the layout (so consecutive indices cover all five).
fn text_pdf(seed: u64, index: usize, kind: Kind) -> Document {
    let mut rng = Rng::new(seed ^ ((kind as u64) << 40) ^ index as u64);
    let invoice = invoice::generate(&mut rng);
    let style = style::random(&mut rng);
    let layout = LAYOUTS[index % LAYOUTS.len()];
    let page = layout::page(layout, &invoice, &style);
    let (prefix, extension, _) = kind.file();
    let name = format!("{prefix}-{index:03}-{layout:?}.{extension}");
    let data = match kind {
        Kind::Text => render::plain_text(&page).into_bytes(),
        _ => render::text_pdf(&page, &format!("Factura {}", invoice.number)),
    };
    Document {
        name,
        kind,
        layout,
        invoice,
        style,
        data,
    }
}

/// Document `index` of `kind` for `seed`.
pub fn document(seed: u64, index: usize, kind: Kind) -> Document {
    let mut doc = text_pdf(seed, index, kind);
    if matches!(kind, Kind::TextPdf | Kind::Text) {
        return doc;
    }
    let image = raster::rasterise(&doc.data, raster::DPI);
    doc.data = match kind {
        Kind::Png => raster::png(&image),
        Kind::Jpeg => raster::jpeg(&image, raster::JPEG_QUALITY),
        Kind::Webp => raster::webp(&image),
        Kind::Photo => photo::photograph(&image, &mut Rng::new(seed ^ 0x9807_0000 ^ index as u64)),
        _ => raster::scanned_pdf(
            raster::jpeg(&image, raster::JPEG_QUALITY),
            image.width(),
            image.height(),
        ),
    };
    doc
}

/// `count` documents of `kind`.
pub fn documents(seed: u64, kind: Kind, count: usize) -> Vec<Document> {
    (0..count).map(|i| document(seed, i, kind)).collect()
}
