//! Hostile input to the extraction readers: every file here must give a typed
//! error (or a bounded reading) within bounded time and memory, and this test
//! process must survive all of them. PDFs go through `read_pdf` and its
//! sandboxed child; images through the header checks and, when installed,
//! Tesseract.

use std::io::{Cursor, Read};
use std::time::{Duration, Instant};

use flate2::{Compress, Compression, FlushCompress};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};
use shared::embedded::Tesseract;
use shared::extraction::image::{ImageError, inspect_image};
use shared::extraction::pdf::{LIMITS, PdfContent, PdfError, TEXT_PAGES, read_pdf};
use shared::extraction::sniff::{FileKind, sniff};
use shared::ports::Ocr;
use shared::ports::ocr::{ImageFormat, OcrError};

const LINE: &[u8] =
    b"BT /F1 12 Tf 72 770 Td (Factura 2026/0147 Base imponible 1.546,50 Total 1.871,27) Tj ET";

/// A document whose pages draw `contents`; `extra` may add to the catalog.
fn document(contents: Vec<Vec<u8>>) -> (Document, ObjectId) {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1",
    "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding"});
    let resources = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font}});
    let kids: Vec<Object> = contents
        .into_iter()
        .map(|content| {
            let stream = doc.add_object(Stream::new(dictionary! {}, content));
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
    (doc, catalog)
}

fn saved(mut doc: Document) -> Vec<u8> {
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

fn catalog(doc: &mut Document, id: ObjectId) -> &mut Dictionary {
    doc.get_dictionary_mut(id).unwrap()
}

/// `size` zero bytes (whole mebibytes) as a zlib stream, built from one
/// compressed mebibyte repeated: a full flush ends each chunk on a byte
/// boundary with a fresh state, so every chunk compresses to the same bytes.
fn deflate_bomb(size: usize) -> Vec<u8> {
    let mut compress = Compress::new(Compression::best(), false);
    let mut chunk = Vec::with_capacity(1 << 20);
    compress
        .compress_vec(&vec![0u8; 1 << 20], &mut chunk, FlushCompress::Full)
        .unwrap();
    assert_eq!(compress.total_in(), 1 << 20);
    let mut out = vec![0x78, 0xDA];
    for _ in 0..size >> 20 {
        out.extend(&chunk);
    }
    // An empty final block, then the Adler-32 of `size` zeros.
    out.extend([0x03, 0x00]);
    out.extend(((((size % 65_521) as u32) << 16) | 1).to_be_bytes());
    out
}

fn bomb_stream(size: usize) -> Stream {
    Stream::new(dictionary! {"Filter" => "FlateDecode"}, deflate_bomb(size)).with_compression(false)
}

/// Reads `bytes` and checks the time bound: the child's wall-clock limit
/// plus the fork and the answer.
async fn read(what: &str, bytes: Vec<u8>) -> Result<PdfContent, PdfError> {
    let started = Instant::now();
    let result = read_pdf(bytes).await;
    let took = started.elapsed();
    assert!(
        took < LIMITS.wall + Duration::from_secs(2),
        "{what}: took {took:?}"
    );
    eprintln!("{what}: {took:?} → {:?}", result.as_ref().map(|c| c.pages));
    result
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pdfs_give_typed_errors_in_bounded_time_and_memory() {
    let resident = resident_bytes();
    let valid = saved(document(vec![LINE.to_vec()]).0);
    assert_eq!(sniff(&valid), Some(FileKind::Pdf));

    for cut in [9, valid.len() / 4, valid.len() / 2, valid.len() - 30] {
        match read(&format!("truncated at {cut}"), valid[..cut].to_vec()).await {
            Err(PdfError::Unreadable(_)) => {}
            Ok(content) => assert!(content.pages <= 1),
            other => panic!("truncated at {cut}: {other:?}"),
        }
    }
    for garbage in [
        b"%PDF-1.7\n".to_vec(),
        b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 1 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF".to_vec(),
        [b"%PDF-1.4\n".as_slice(), &[0xAB; 4096]].concat(),
    ] {
        assert!(matches!(
            read("garbage after a PDF header", garbage).await,
            Err(PdfError::Unreadable(_))
        ));
    }

    let (mut doc, root) = document(vec![LINE.to_vec()]);
    catalog(&mut doc, root).set(
        "OpenAction",
        dictionary! {"S" => "JavaScript", "JS" => Object::string_literal("app.alert('hi'); while(1){}")},
    );
    let content = read("JavaScript OpenAction", saved(doc)).await.unwrap();
    assert_eq!(content.text.words[0].text, "Factura");

    let (doc, _) = document(vec![LINE.to_vec(); 10_000]);
    let content = read("10,000 pages", saved(doc)).await.unwrap();
    assert_eq!(content.pages, 10_000);
    assert!(
        content
            .text
            .words
            .iter()
            .all(|w| w.page as usize <= TEXT_PAGES)
    );
    assert_eq!(content.text.words.len(), TEXT_PAGES * 7);

    let (mut doc, _) = document(vec![LINE.to_vec()]);
    let pages = doc
        .catalog()
        .unwrap()
        .get(b"Pages")
        .unwrap()
        .as_reference()
        .unwrap();
    let kids = doc
        .get_dictionary_mut(pages)
        .unwrap()
        .get_mut(b"Kids")
        .unwrap()
        .as_array_mut()
        .unwrap();
    kids.push(pages.into());
    match read("a page tree that contains itself", saved(doc)).await {
        Ok(content) => assert!(content.pages < 10, "{} pages", content.pages),
        Err(e) => assert!(matches!(e, PdfError::Unreadable(_)), "{e:?}"),
    }

    let (mut doc, _) = document(vec![]);
    let a = doc.new_object_id();
    let b = doc.new_object_id();
    doc.objects.insert(a, Object::Reference(b));
    doc.objects.insert(b, Object::Reference(a));
    let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_of(&doc),
    "Contents" => a, "Resources" => a, "MediaBox" => a});
    set_kids(&mut doc, vec![page.into()]);
    match read("references that loop", saved(doc)).await {
        Ok(content) => assert!(content.text.words.is_empty()),
        Err(e) => assert!(matches!(e, PdfError::Unreadable(_)), "{e:?}"),
    }

    let nested = [[b'['; 200_000], [b']'; 200_000]].concat();
    let nested = raw_pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R /Junk 3 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        nested,
    ]);
    assert!(matches!(
        read("arrays nested 200,000 deep", nested).await,
        Err(PdfError::Unreadable(_))
    ));

    let mut inflated = Vec::new();
    flate2::read::ZlibDecoder::new(&deflate_bomb(4 << 20)[..])
        .read_to_end(&mut inflated)
        .unwrap();
    assert_eq!(
        inflated,
        vec![0; 4 << 20],
        "the bomb is a valid zlib stream"
    );
    let (mut doc, _) = document(vec![]);
    let bomb = doc.add_object(bomb_stream(1 << 30));
    let page = doc
        .add_object(dictionary! {"Type" => "Page", "Parent" => pages_of(&doc), "Contents" => bomb});
    set_kids(&mut doc, vec![page.into()]);
    let bytes = saved(doc);
    assert!(bytes.len() < 2 << 20, "the bomb is small: {}", bytes.len());
    assert!(matches!(
        read("a 1 GiB deflate bomb as page content", bytes).await,
        Err(PdfError::TooLarge(_))
    ));

    let (mut doc, root) = document(vec![LINE.to_vec()]);
    let bomb = doc.add_object(bomb_stream(1 << 30));
    let spec = doc.add_object(dictionary! {"Type" => "Filespec",
    "F" => Object::string_literal("factur-x.xml"), "EF" => dictionary! {"F" => bomb}});
    catalog(&mut doc, root).set("AF", vec![spec.into()]);
    assert!(matches!(
        read("a 1 GiB deflate bomb as an attachment", saved(doc)).await,
        Err(PdfError::TooLarge(_))
    ));

    let (mut doc, _) = document(vec![b"q 595 0 0 842 0 0 cm /Im1 Do Q".to_vec()]);
    let image = doc.add_object(Stream::new(
        dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => 2, "Height" => 2,
        "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8},
        vec![0, 255, 255, 0],
    ));
    let page = doc.page_iter().next().unwrap();
    doc.get_dictionary_mut(page).unwrap().set(
        "Resources",
        dictionary! {"XObject" => dictionary! {"Im1" => image}},
    );
    let scan = read("an image-only page", saved(doc)).await.unwrap();
    assert!(scan.scanned);

    let grown = resident_bytes().saturating_sub(resident);
    assert!(grown < 256 << 20, "this process grew by {grown} bytes");
}

/// A PDF of `objects` (numbered from 1, the first the catalog) with a
/// correct cross-reference table, for content lopdf would refuse to write.
fn raw_pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).bytes());
        out.extend(body);
        out.extend(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for offset in offsets {
        out.extend(format!("{offset:010} 00000 n \n").bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    out
}

fn pages_of(doc: &Document) -> ObjectId {
    doc.catalog()
        .unwrap()
        .get(b"Pages")
        .unwrap()
        .as_reference()
        .unwrap()
}

fn set_kids(doc: &mut Document, kids: Vec<Object>) {
    let pages = pages_of(doc);
    let node = doc.get_dictionary_mut(pages).unwrap();
    node.set("Count", kids.len() as i64);
    node.set("Kids", kids);
}

/// A real JPEG with its frame header patched to 65,535 × 65,535 (the most a
/// JPEG can declare).
fn huge_jpeg() -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image::GrayImage::from_pixel(8, 8, image::Luma([128]))
        .write_to(&mut out, image::ImageFormat::Jpeg)
        .unwrap();
    let mut jpeg = out.into_inner();
    let sof = jpeg
        .windows(2)
        .position(|w| w[0] == 0xFF && (0xC0..=0xC2).contains(&w[1]))
        .unwrap();
    jpeg[sof + 5..sof + 9].copy_from_slice(&[0xFF; 4]);
    jpeg
}

/// A real lossless WebP behind an extended header (VP8X) declaring a
/// 16,384 × 16,384 canvas, the most the decoder itself accepts.
fn huge_webp() -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image::GrayImage::from_pixel(8, 8, image::Luma([128]))
        .write_to(&mut out, image::ImageFormat::WebP)
        .unwrap();
    let simple = out.into_inner();
    let side = (16_384u32 - 1).to_le_bytes();
    let mut body = b"WEBPVP8X".to_vec();
    body.extend(10u32.to_le_bytes());
    body.extend([0, 0, 0, 0]);
    body.extend(&side[..3]);
    body.extend(&side[..3]);
    body.extend(&simple[12..]);
    let mut webp = b"RIFF".to_vec();
    webp.extend((body.len() as u32).to_le_bytes());
    webp.extend(body);
    webp
}

/// A PNG declaring 100,000 × 100,000 pixels, its IDAT a deflate bomb.
fn huge_png() -> Vec<u8> {
    let mut ihdr = 100_000u32.to_be_bytes().to_vec();
    ihdr.extend(100_000u32.to_be_bytes());
    ihdr.extend([8, 0, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", ihdr), (b"IDAT", deflate_bomb(64 << 20))] {
        png.extend((data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(&data);
        png.extend(kind);
        png.extend(data);
        png.extend(crc.sum().to_be_bytes());
    }
    png
}

#[tokio::test]
async fn image_bombs_and_wrong_magic_numbers_are_refused_before_decoding() {
    let cases = [
        ("PNG", huge_png(), ImageFormat::Png, FileKind::Png),
        ("JPEG", huge_jpeg(), ImageFormat::Jpeg, FileKind::Jpeg),
        ("WebP", huge_webp(), ImageFormat::Webp, FileKind::Webp),
    ];
    let tesseract = Tesseract::detect();
    for (what, bytes, format, kind) in &cases {
        assert_eq!(sniff(bytes), Some(*kind), "{what}");
        assert!(
            matches!(inspect_image(bytes, *format), Err(ImageError::TooLarge(_))),
            "{what}: {:?}",
            inspect_image(bytes, *format)
        );
        if let Some(tesseract) = &tesseract {
            let started = Instant::now();
            assert!(matches!(
                tesseract.read(bytes, *format).await,
                Err(OcrError::Unreadable(_))
            ));
            assert!(started.elapsed() < Duration::from_secs(1), "{what}");
        }
    }
    for (what, bytes) in [
        (
            "a PNG signature with a wrong byte",
            b"\x89PNX\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
        ),
        ("an EXE", b"MZ\x90\0\x03\0\0\0".to_vec()),
        ("a ZIP", b"PK\x03\x04\x14\0".to_vec()),
        (
            "a RIFF that is not WebP",
            b"RIFF\x24\0\0\0WAVEfmt ".to_vec(),
        ),
    ] {
        assert_eq!(sniff(&bytes), None, "{what}");
        for format in [ImageFormat::Png, ImageFormat::Jpeg, ImageFormat::Webp] {
            assert!(
                matches!(
                    inspect_image(&bytes, format),
                    Err(ImageError::Unreadable(_))
                ),
                "{what} as {format:?}"
            );
        }
    }
}
