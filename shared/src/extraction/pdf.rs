//! Reading a PDF: page count, text with positions, embedded files, and whether
//! the pages need OCR. Parsing runs in a sandboxed child process
//! (`super::sandbox`): PDF parsers panic and loop on hostile files, so the
//! service only ever sees a typed error.
//!
//! Bounds: text is read from the first `TEXT_PAGES` pages only (`pages` still
//! counts them all, so a 10,000-page file answers quickly); documents with
//! more than `MAX_OBJECTS` objects, page content beyond
//! `text::MAX_CONTENT_BYTES` or embedded files beyond
//! `attachments::MAX_ATTACHMENT_BYTES` decompressed are `TooLarge`; the child
//! gets `LIMITS`. An encrypted PDF is `Encrypted` unless its user password is
//! empty, in which case it is decrypted and read. QR codes are read from the
//! first page only, where the tax codes are printed (`qr` has its bounds).
//!
//! Whether a PDF is `scanned` is decided page by page (reference §3.3): a
//! page whose text is garbled (a font whose codes nothing maps to text) or
//! that holds only images needs OCR and gives no words; the document is
//! scanned when its first page that is not blank needs OCR, or when the
//! pages kept hold too little text. A good text layer is kept even when a
//! later page needs OCR.

mod attachments;
mod cmap;
mod encodings;
mod fonts;
mod glyph_names;
mod qr;
mod text;

use std::time::Duration;

use lopdf::{Document, LoadOptions, Object, ObjectId};
use serde::{Deserialize, Serialize};

pub use attachments::{Attachment, MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS};
pub use text::{MAX_CONTENT_BYTES, MAX_GLYPHS_PER_PAGE};

use super::layout::{TextDocument, Word};
use super::sandbox::{Limits, SandboxError, run_isolated};

/// Pages whose text is read.
pub const TEXT_PAGES: usize = 20;
/// Most objects in a document.
pub const MAX_OBJECTS: usize = 500_000;
/// Largest object or cross-reference stream, decompressed while loading.
pub const MAX_OBJECT_STREAM_BYTES: usize = 32 << 20;
/// The bounds of the child that parses one PDF.
pub const LIMITS: Limits = Limits {
    wall: Duration::from_secs(10),
    cpu_seconds: 8,
    memory: 512 << 20,
    max_output: 64 << 20,
};
/// A text layer with fewer letters, digits and amount signs than this cannot
/// hold an invoice (reference §3.3).
const MIN_USEFUL_CHARS: usize = 30;
/// A text layer with a larger share of control, replacement or private-use
/// characters is garbage from a broken font map.
const MAX_BAD_SHARE: f32 = 0.10;
/// Deepest page-tree inheritance followed for the page box.
const MAX_INHERITANCE: usize = 32;

/// What a PDF holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PdfContent {
    pub pages: u32,
    pub attachments: Vec<Attachment>,
    /// Words of the first `TEXT_PAGES` pages, in drawing order.
    pub text: TextDocument,
    /// The text layer is missing or unusable on some page: rasterise and OCR.
    pub scanned: bool,
    /// The payloads of the QR codes on the first page (none when scanned).
    pub qr_codes: Vec<String>,
}

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq, Serialize, Deserialize)]
pub enum PdfError {
    #[error("the PDF is password-protected")]
    Encrypted,
    #[error("the PDF could not be read: {0}")]
    Unreadable(String),
    #[error("the PDF is too large to read: {0}")]
    TooLarge(String),
}

/// Reads a PDF in a sandboxed child, on a blocking thread.
pub async fn read_pdf(bytes: Vec<u8>) -> Result<PdfContent, PdfError> {
    tokio::task::spawn_blocking(move || read_isolated(bytes, &LIMITS))
        .await
        .map_err(|e| PdfError::Unreadable(format!("the reading task failed: {e}")))?
}

fn read_isolated(bytes: Vec<u8>, limits: &Limits) -> Result<PdfContent, PdfError> {
    let answer = run_isolated(limits, move || {
        serde_json::to_vec(&parse(&bytes)).unwrap_or_default()
    })
    .map_err(|e| match e {
        SandboxError::TimedOut(limit) => {
            PdfError::Unreadable(format!("reading did not finish within {limit:?}"))
        }
        SandboxError::OutOfMemory(limit) => {
            PdfError::TooLarge(format!("reading needed more than {} MiB", limit >> 20))
        }
        SandboxError::OutputTooLarge(limit) => {
            PdfError::TooLarge(format!("the content is larger than {} MiB", limit >> 20))
        }
        SandboxError::Crashed(why) => PdfError::Unreadable(format!("the reader crashed ({why})")),
        SandboxError::Spawn(why) => PdfError::Unreadable(format!("no reader could start ({why})")),
    })?;
    serde_json::from_slice::<Result<PdfContent, PdfError>>(&answer)
        .map_err(|e| PdfError::Unreadable(format!("the reader gave no answer ({e})")))?
}

/// The work of the child.
fn parse(bytes: &[u8]) -> Result<PdfContent, PdfError> {
    let options = LoadOptions {
        max_decompressed_size: Some(MAX_OBJECT_STREAM_BYTES),
        ..LoadOptions::default()
    };
    let doc = match Document::load_mem_with_options(bytes, options) {
        Ok(doc) => doc,
        Err(lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword) => {
            return Err(PdfError::Encrypted);
        }
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => {
            return Err(PdfError::TooLarge(format!(
                "a stream is larger than {MAX_OBJECT_STREAM_BYTES} bytes decompressed"
            )));
        }
        Err(e) => return Err(PdfError::Unreadable(e.to_string())),
    };
    if doc.trailer.has(b"Encrypt") {
        return Err(PdfError::Encrypted);
    }
    if doc.objects.len() > MAX_OBJECTS {
        return Err(PdfError::TooLarge(format!(
            "{} objects; at most {MAX_OBJECTS}",
            doc.objects.len()
        )));
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(PdfError::Unreadable("the document has no pages".into()));
    }
    let mut cache = fonts::FontCache::default();
    let mut words = Vec::new();
    let mut first_page = None;
    for (&number, &id) in pages.iter().take(TEXT_PAGES) {
        let page =
            text::page_text(&doc, id, &mut cache).map_err(|e| PdfError::TooLarge(e.to_string()))?;
        let page_words = text::words(&page.glyphs, number, page_box(&doc, id));
        let kind = PageKind::of(&page_words, || has_images(&doc, id));
        if kind != PageKind::Blank {
            first_page.get_or_insert(kind);
        }
        if kind == PageKind::Text {
            words.extend(page_words);
        }
    }
    let text = TextDocument {
        words,
        ..TextDocument::default()
    };
    let scanned = first_page != Some(PageKind::Text) || unusable(&text);
    let attachments =
        attachments::attachments(&doc).map_err(|e| PdfError::TooLarge(e.to_string()))?;
    let qr_codes = match pages.values().next() {
        Some(&first) if !scanned => qr::page_codes(&doc, first),
        _ => Vec::new(),
    };
    Ok(PdfContent {
        pages: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        attachments,
        text,
        scanned,
        qr_codes,
    })
}

/// What one page's text layer is worth (reference §3.3).
#[derive(Clone, Copy, Debug, PartialEq)]
enum PageKind {
    /// Text that reads.
    Text,
    /// Text with too many bad characters: a broken font map.
    Garbled,
    /// No text, only images: a scan.
    Image,
    /// Neither text nor images.
    Blank,
}

impl PageKind {
    fn of(words: &[Word], has_images: impl FnOnce() -> bool) -> Self {
        let (useful, bad) = char_counts(words);
        if words.is_empty() {
            if has_images() {
                Self::Image
            } else {
                Self::Blank
            }
        } else if garbled(useful, bad) {
            Self::Garbled
        } else {
            Self::Text
        }
    }
}

/// Too few useful characters, or too many bad ones (reference §3.3).
fn unusable(text: &TextDocument) -> bool {
    let (useful, bad) = char_counts(&text.words);
    useful < MIN_USEFUL_CHARS || garbled(useful, bad)
}

fn garbled(useful: usize, bad: usize) -> bool {
    bad as f32 > MAX_BAD_SHARE * (useful + bad) as f32
}

/// Useful characters (letters, digits, amount signs) and bad ones (control,
/// replacement, private use).
fn char_counts(words: &[Word]) -> (usize, usize) {
    let (mut useful, mut bad) = (0usize, 0usize);
    for c in words.iter().flat_map(|w| w.text.chars()) {
        if c.is_alphanumeric() || "€%.,/-".contains(c) {
            useful += 1;
        } else if c.is_control() || c == '\u{FFFD}' || ('\u{E000}'..='\u{F8FF}').contains(&c) {
            bad += 1;
        }
    }
    (useful, bad)
}

fn has_images(doc: &Document, page: ObjectId) -> bool {
    doc.get_page_images(page)
        .is_ok_and(|images| !images.is_empty())
}

/// The visible page (`/CropBox`, else `/MediaBox`, inherited) as
/// `[x0, y0, x1, y1]`; US Letter when the file gives none.
fn page_box(doc: &Document, page: ObjectId) -> [f32; 4] {
    let mut node = doc.get_dictionary(page).ok();
    for _ in 0..MAX_INHERITANCE {
        let Some(dict) = node else { break };
        for key in [b"CropBox".as_slice(), b"MediaBox"] {
            if let Some(rect) = dict.get(key).ok().and_then(|o| rectangle(doc, o)) {
                return rect;
            }
        }
        node = dict
            .get(b"Parent")
            .ok()
            .and_then(|p| doc.dereference(p).ok()?.1.as_dict().ok());
    }
    [0.0, 0.0, 612.0, 792.0]
}

fn rectangle(doc: &Document, object: &Object) -> Option<[f32; 4]> {
    let array = doc.dereference(object).ok()?.1.as_array().ok()?;
    let n: Vec<f32> = array
        .iter()
        .filter_map(|o| doc.dereference(o).ok()?.1.as_float().ok())
        .filter(|v| v.is_finite())
        .collect();
    let [a, b, c, d] = n[..] else { return None };
    let rect = [a.min(c), b.min(d), a.max(c), b.max(d)];
    (rect[2] - rect[0] >= 1.0 && rect[3] - rect[1] >= 1.0).then_some(rect)
}

#[cfg(test)]
mod tests {
    use lopdf::encryption::{EncryptionState, EncryptionVersion, Permissions};
    use lopdf::{Dictionary, Stream, dictionary};

    use super::*;

    const INVOICE: &[u8] = b"BT /F1 12 Tf 72 770 Td (Factura 2026/0147) Tj \
        0 -20 Td [(Base) -250 (imponible)] TJ 300 0 Td (1.546,50) Tj ET";

    fn helvetica() -> Dictionary {
        dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding", "FirstChar" => 32,
        "Widths" => vec![278.into(); 224]}
    }

    /// An A4 document whose pages draw `contents` with font `/F1`.
    fn document(contents: &[&[u8]], font: Dictionary) -> Document {
        document_with(contents, |_| font)
    }

    /// The same, with a font that needs objects of its own.
    fn document_with(
        contents: &[&[u8]],
        font: impl FnOnce(&mut Document) -> Dictionary,
    ) -> Document {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let font = font(&mut doc);
        let font_id = doc.add_object(font);
        let resources = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font_id}});
        let kids: Vec<Object> = contents
            .iter()
            .map(|content| {
                let stream = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
                doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id,
                "Contents" => stream, "Resources" => resources})
                    .into()
            })
            .collect();
        let count = kids.len() as i64;
        doc.objects.insert(
            pages_id,
            Object::Dictionary(
                dictionary! {"Type" => "Pages", "Kids" => kids, "Count" => count,
                "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()]},
            ),
        );
        let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
        doc.trailer.set("Root", catalog);
        doc
    }

    fn saved(mut doc: Document) -> Vec<u8> {
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    fn embedded(doc: &mut Document, name: &str, bytes: &[u8]) -> ObjectId {
        let mut stream = Stream::new(dictionary! {"Type" => "EmbeddedFile"}, bytes.to_vec());
        stream.compress().unwrap();
        let stream = doc.add_object(stream);
        doc.add_object(
            dictionary! {"Type" => "Filespec", "F" => Object::string_literal(name),
            "UF" => lopdf::text_string(name), "EF" => dictionary! {"F" => stream}},
        )
    }

    #[test]
    fn text_comes_with_positions_in_drawing_order() {
        let content = parse(&saved(document(&[INVOICE], helvetica()))).unwrap();
        let texts: Vec<_> = content.text.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            texts,
            ["Factura", "2026/0147", "Base", "imponible", "1.546,50"]
        );
        assert_eq!((content.pages, content.scanned), (1, false));
        let [factura, number, base, _, amount] = &content.text.words[..] else {
            unreachable!()
        };
        assert!((factura.left - 72.0 / 595.0).abs() < 1e-4);
        assert!((factura.top - (842.0 - 770.0 - 9.6) / 842.0).abs() < 1e-4);
        assert!((factura.height - 12.0 / 842.0).abs() < 1e-4);
        assert!((factura.width - 7.0 * 12.0 * 0.278 / 595.0).abs() < 1e-4);
        assert!((number.left - (72.0 + 8.0 * 12.0 * 0.278) / 595.0).abs() < 1e-4);
        assert!(base.top > factura.top && (amount.top - base.top).abs() < 1e-6);
        assert!((amount.left - 372.0 / 595.0).abs() < 1e-4);
        assert!(
            content
                .text
                .words
                .iter()
                .all(|w| w.page == 1 && w.confidence == 1.0)
        );
    }

    #[test]
    fn embedded_files_come_from_the_name_tree_and_the_af_array() {
        let mut doc = document(&[INVOICE], helvetica());
        let facturx = embedded(&mut doc, "factur-x.xml", b"<rsm:CrossIndustryInvoice/>");
        let logo = embedded(&mut doc, "logo.txt", b"logo");
        let xrechnung = embedded(&mut doc, "xrechnung.xml", b"<Invoice/>");
        let leaf = doc.add_object(dictionary! {"Names" => vec![
        Object::string_literal("factur-x.xml"), facturx.into(),
        Object::string_literal("logo.txt"), logo.into()]});
        let root = doc.add_object(dictionary! {"Kids" => vec![leaf.into()]});
        let catalog = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
        let catalog = doc.get_dictionary_mut(catalog).unwrap();
        catalog.set("Names", dictionary! {"EmbeddedFiles" => root});
        catalog.set("AF", vec![facturx.into(), xrechnung.into()]);
        let content = parse(&saved(doc)).unwrap();
        let found: Vec<_> = content
            .attachments
            .iter()
            .map(|a| (a.name.as_str(), a.bytes.as_slice()))
            .collect();
        assert_eq!(
            found,
            [
                ("factur-x.xml", &b"<rsm:CrossIndustryInvoice/>"[..]),
                ("logo.txt", b"logo"),
                ("xrechnung.xml", b"<Invoice/>"),
            ]
        );
    }

    #[test]
    fn an_image_only_page_is_scanned() {
        let mut doc = document(&[b"q 595 0 0 842 0 0 cm /Im1 Do Q"], helvetica());
        let image = doc.add_object(Stream::new(
            dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => 1, "Height" => 1,
            "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8},
            vec![0],
        ));
        let page = doc.page_iter().next().unwrap();
        doc.get_dictionary_mut(page).unwrap().set(
            "Resources",
            dictionary! {"XObject" => dictionary! {"Im1" => image}},
        );
        let content = parse(&saved(doc)).unwrap();
        assert!(content.scanned && content.text.words.is_empty());
    }

    #[test]
    fn a_cid_font_without_unicode_map_is_scanned() {
        let font = dictionary! {"Type" => "Font", "Subtype" => "Type0", "BaseFont" => "ABCDEF+Arial",
        "Encoding" => "Identity-H", "DescendantFonts" => vec![Object::Dictionary(dictionary! {
            "Type" => "Font", "Subtype" => "CIDFontType2", "DW" => 600,
            "W" => vec![36.into(), vec![Object::from(700), 650.into()].into()]})]};
        let glyph_ids: Vec<u8> = (0..40u16).flat_map(|g| (g + 36).to_be_bytes()).collect();
        let mut content = b"BT /F1 10 Tf 50 700 Td <".to_vec();
        content.extend(hex(&glyph_ids).bytes());
        content.extend(b"> Tj ET");
        let parsed = parse(&saved(document(&[&content], font))).unwrap();
        assert!(parsed.scanned);
    }

    #[test]
    fn a_cid_font_with_a_unicode_map_reads_its_text() {
        let cmap = b"/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n\
1 beginbfrange\n<0024> <003D> <0041>\nendbfrange\n\
endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
        let font = |doc: &mut Document| {
            let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap.to_vec()));
            dictionary! {"Type" => "Font", "Subtype" => "Type0", "BaseFont" => "ABCDEF+Arial",
            "Encoding" => "Identity-H", "ToUnicode" => to_unicode,
            "DescendantFonts" => vec![Object::Dictionary(dictionary! {
                "Type" => "Font", "Subtype" => "CIDFontType2", "DW" => 600})]}
        };
        let glyph_ids: Vec<u8> = (0..26u16).flat_map(|g| (g + 0x24).to_be_bytes()).collect();
        let mut content = b"BT /F1 10 Tf 50 700 Td <".to_vec();
        content.extend(hex(&glyph_ids).bytes());
        content.extend(b"> Tj 0 -12 Td <");
        content.extend(hex(&glyph_ids).bytes());
        content.extend(b"> Tj ET");
        let parsed = parse(&saved(document_with(&[&content], font))).unwrap();
        let texts: Vec<_> = parsed.text.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["ABCDEFGHIJKLMNOPQRSTUVWXYZ"; 2]);
        assert!(!parsed.scanned);
        assert!((parsed.text.words[0].width - 26.0 * 6.0 / 595.0).abs() < 1e-4);
    }

    #[test]
    fn a_garbled_page_is_dropped_unless_it_comes_first() {
        let garbled: &[u8] = b"BT /F1 12 Tf 72 770 Td <0102030405060708090A0B0C> Tj ET";
        let parsed = parse(&saved(document(&[INVOICE, garbled], helvetica()))).unwrap();
        assert!(!parsed.scanned);
        assert!(parsed.text.words.iter().all(|w| w.page == 1));
        assert_eq!(parsed.text.words.len(), 5);
        let parsed = parse(&saved(document(&[garbled, INVOICE], helvetica()))).unwrap();
        assert!(parsed.scanned);
    }

    #[test]
    fn text_inside_a_form_xobject_is_read_where_the_form_is_drawn() {
        let mut doc = document(&[b"q 1 0 0 1 100 0 cm /Fm1 Do Q"], helvetica());
        let font = doc.add_object(helvetica());
        let form = doc.add_object(Stream::new(
            dictionary! {"Type" => "XObject", "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 0.into(), 20.into()],
            "Resources" => dictionary! {"Font" => dictionary! {"F9" => font}}},
            b"BT /F9 12 Tf 0 700 Td (Total factura 1.546,50 EUR) Tj ET".to_vec(),
        ));
        let page = doc.page_iter().next().unwrap();
        doc.get_dictionary_mut(page).unwrap().set(
            "Resources",
            dictionary! {"XObject" => dictionary! {"Fm1" => form}},
        );
        let parsed = parse(&saved(doc)).unwrap();
        let texts: Vec<_> = parsed.text.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Total", "factura", "1.546,50", "EUR"]);
        let total = &parsed.text.words[0];
        assert!((total.left - 100.0 / 595.0).abs() < 1e-4);
        assert!((total.top - (842.0 - 720.0 - 9.6) / 842.0).abs() < 1e-4);
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02X}")).collect()
    }

    #[test]
    fn too_little_or_garbled_text_is_scanned() {
        let few = parse(&saved(document(
            &[b"BT /F1 12 Tf 72 770 Td (Factura 7) Tj ET"],
            helvetica(),
        )));
        assert!(few.unwrap().scanned);
        let garbled = TextDocument::from_plain_text(&format!(
            "Factura 2026/0147 Base imponible 1.546,50 {}",
            "\u{FFFD}".repeat(10)
        ));
        assert!(unusable(&garbled));
        assert!(!unusable(&TextDocument::from_plain_text(
            "Factura 2026/0147 Base imponible 1.546,50 Total 1.871,27 €"
        )));
    }

    fn encrypted(user_password: &str) -> Vec<u8> {
        let mut doc = document(&[INVOICE], helvetica());
        doc.trailer
            .set("ID", vec![Object::string_literal("0123456789abcdef"); 2]);
        let state = EncryptionState::try_from(EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password,
            key_length: 128,
            permissions: Permissions::all(),
        })
        .unwrap();
        doc.encrypt(&state).unwrap();
        saved(doc)
    }

    #[test]
    fn a_password_protected_pdf_is_encrypted() {
        assert_eq!(parse(&encrypted("secret")), Err(PdfError::Encrypted));
    }

    #[test]
    fn an_empty_user_password_is_decrypted() {
        let content = parse(&encrypted("")).unwrap();
        assert_eq!(content.text.words[0].text, "Factura");
    }

    #[tokio::test]
    async fn read_pdf_answers_from_the_child() {
        let bytes = saved(document(&[INVOICE, INVOICE], helvetica()));
        let content = read_pdf(bytes.clone()).await.unwrap();
        assert_eq!(content, parse(&bytes).unwrap());
        assert_eq!(content.pages, 2);
        assert!(matches!(
            read_pdf(b"%PDF-1.7\n".to_vec()).await,
            Err(PdfError::Unreadable(_))
        ));
    }
}
