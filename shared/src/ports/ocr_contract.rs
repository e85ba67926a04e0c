//! The one contract test suite of the `Ocr` port. Every engine runs it:
//! Tesseract in this crate's tests, Textract in `infra-aws` against a fake
//! endpoint that answers with Tesseract's reading in Textract's shape. The
//! test invoice is a text PDF rasterised at 200 dpi by `pdftoppm`.

use std::io::{Cursor, Write};
use std::process::{Command, Stdio};

use lopdf::{Document, Object, Stream, dictionary};

use super::ocr::{ImageFormat, Ocr, OcrError};
use crate::extraction::TextDocument;

/// The printed lines of the test invoice (WinAnsi: `\u{e9}` é, `\u{80}` €).
const LINES: [&[u8]; 6] = [
    b"Reformas Ib\xe9ricas Mart\xednez, S.L.",
    b"CIF: B12345674",
    b"Factura 2026/0147   Fecha 05/08/2026",
    b"Base imponible 1.546,50 \x80",
    b"IVA 21% 324,77 \x80",
    b"Total factura 1.639,29 \x80",
];

/// Runs every contract check.
pub async fn run(ocr: &dyn Ocr) {
    let png = invoice_png();
    let words = reads_the_invoice(ocr, &png, ImageFormat::Png).await;
    let jpeg = transcode(&png, image::ImageFormat::Jpeg);
    assert_eq!(
        reads_the_invoice(ocr, &jpeg, ImageFormat::Jpeg).await.len(),
        words.len()
    );
    let webp = transcode(&png, image::ImageFormat::WebP);
    assert_eq!(
        reads_the_invoice(ocr, &webp, ImageFormat::Webp).await.len(),
        words.len()
    );
    corrupt_images_are_unreadable(ocr, &png).await;
}

/// An A4 invoice page as a 200 dpi PNG.
pub fn invoice_png() -> Vec<u8> {
    let mut content = b"BT /F1 14 Tf 72 770 Td".to_vec();
    for line in LINES {
        content.extend(b" (");
        content.extend(line);
        content.extend(b") Tj 0 -28 Td");
    }
    content.extend(b" ET");
    let mut doc = Document::with_version("1.4");
    let pages = doc.new_object_id();
    let font = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1",
    "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding"});
    let contents = doc.add_object(Stream::new(dictionary! {}, content));
    let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages,
    "Contents" => contents, "Resources" => dictionary! {"Font" => dictionary! {"F1" => font}}});
    doc.objects.insert(
        pages,
        Object::Dictionary(dictionary! {"Type" => "Pages", "Kids" => vec![page.into()],
        "Count" => 1, "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()]}),
    );
    let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages});
    doc.trailer.set("Root", catalog);
    let mut pdf = Vec::new();
    doc.save_to(&mut pdf).expect("write the test invoice");
    rasterise(&pdf)
}

fn rasterise(pdf: &[u8]) -> Vec<u8> {
    let mut child = Command::new("pdftoppm")
        .args(["-r", "200", "-png", "-singlefile", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pdftoppm (poppler-utils) renders the test invoice");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(pdf)
        .expect("feed pdftoppm");
    let out = child.wait_with_output().expect("pdftoppm output");
    assert!(out.status.success(), "pdftoppm failed");
    out.stdout
}

fn transcode(png: &[u8], format: image::ImageFormat) -> Vec<u8> {
    let img = image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .expect("decode the test PNG")
        .to_rgb8();
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format)
        .expect("encode the test image");
    out.into_inner()
}

async fn reads_the_invoice(ocr: &dyn Ocr, image: &[u8], format: ImageFormat) -> Vec<String> {
    let doc: TextDocument = ocr
        .read(image, format)
        .await
        .unwrap_or_else(|e| panic!("{format:?}: {e}"));
    let texts: Vec<String> = doc.words.iter().map(|w| w.text.clone()).collect();
    for expected in ["Factura", "B12345674", "2026/0147", "1.546,50", "1.639,29"] {
        assert!(
            texts.iter().any(|t| t == expected),
            "{format:?}: {expected} not among {texts:?}"
        );
    }
    for w in &doc.words {
        assert_eq!(w.page, 1);
        for v in [w.left, w.top, w.width, w.height, w.confidence] {
            assert!((0.0..=1.0).contains(&v), "{format:?}: {w:?}");
        }
        assert!(w.left + w.width <= 1.0001 && w.top + w.height <= 1.0001);
    }
    let at = |t: &str| doc.words.iter().find(|w| w.text == t).unwrap();
    let (factura, total) = (at("Factura"), at("1.639,29"));
    assert!(factura.top < total.top, "rows keep their order");
    assert!(
        (0.05..0.2).contains(&factura.left),
        "Factura is at the left margin: {factura:?}"
    );
    assert!(factura.confidence > 0.5);
    texts
}

async fn corrupt_images_are_unreadable(ocr: &dyn Ocr, png: &[u8]) {
    let mut truncated = png[..png.len() / 3].to_vec();
    truncated.extend(b"not the rest of the image");
    let mut bomb = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    bomb.extend(100_000u32.to_be_bytes());
    bomb.extend(100_000u32.to_be_bytes());
    bomb.extend([8, 0, 0, 0, 0, 0, 0, 0, 0]);
    let cases: [(&str, &[u8], ImageFormat); 5] = [
        (
            "random bytes",
            b"this is not an image at all",
            ImageFormat::Png,
        ),
        ("a truncated PNG", &truncated, ImageFormat::Png),
        ("a PNG said to be JPEG", png, ImageFormat::Jpeg),
        ("an empty WebP", b"RIFF\0\0\0\0WEBP", ImageFormat::Webp),
        ("a 100000 x 100000 PNG header", &bomb, ImageFormat::Png),
    ];
    for (what, bytes, format) in cases {
        match ocr.read(bytes, format).await {
            Err(OcrError::Unreadable(_)) => {}
            other => panic!("{what}: expected Unreadable, got {other:?}"),
        }
    }
}
