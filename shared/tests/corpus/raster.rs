//! A text PDF as page images (rasterised by poppler's `pdftoppm`, encoded
//! with the `image` crate) and as a scanned PDF: one page whose only content
//! is the JPEG, without a text layer.

use std::io::{Cursor, Write};
use std::process::{Command, Stdio};

use image::codecs::jpeg::JpegEncoder;
use image::codecs::webp::WebPEncoder;
use image::{DynamicImage, ImageFormat};
use lopdf::{Document, Object, Stream, dictionary};

pub const DPI: u32 = 200;
pub const JPEG_QUALITY: u8 = 85;

/// The first page of `pdf` at `dpi`, in colour.
pub fn rasterise(pdf: &[u8], dpi: u32) -> DynamicImage {
    let mut child = Command::new("pdftoppm")
        .args(["-r", &dpi.to_string(), "-png", "-singlefile", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pdftoppm runs (apt-get install poppler-utils)");
    child.stdin.take().unwrap().write_all(pdf).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "pdftoppm failed");
    image::load_from_memory_with_format(&output.stdout, ImageFormat::Png)
        .expect("pdftoppm writes a PNG")
}

pub fn png(image: &DynamicImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, ImageFormat::Png).unwrap();
    out.into_inner()
}

pub fn jpeg(image: &DynamicImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(&image.to_rgb8())
        .unwrap();
    out
}

/// Lossless WebP (the only kind the `image` crate encodes).
pub fn webp(image: &DynamicImage) -> Vec<u8> {
    let mut out = Vec::new();
    image
        .to_rgb8()
        .write_with_encoder(WebPEncoder::new_lossless(&mut out))
        .unwrap();
    out
}

/// An A4 PDF whose page shows only `jpeg` (`width` × `height` pixels).
pub fn scanned_pdf(jpeg: Vec<u8>, width: u32, height: u32) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let image = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Image",
            "Width" => i64::from(width),
            "Height" => i64::from(height),
            "ColorSpace" => "DeviceRGB",
            "BitsPerComponent" => 8,
            "Filter" => "DCTDecode",
        },
        jpeg,
    ));
    let (page_w, page_h) = (595.28, 841.89);
    let content = format!("q {page_w} 0 0 {page_h} 0 0 cm /Im1 Do Q");
    let content_id = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
    let page_id = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "MediaBox" => vec![0.into(), 0.into(), Object::Real(page_w), Object::Real(page_h)],
        "Contents" => content_id,
        "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => vec![page_id.into()],
            "Count" => 1,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}
