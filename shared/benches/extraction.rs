//! Benchmark: reading a typical one-page invoice PDF in the sandboxed child
//! (the service's own PDF and its Factur-X variant), a 10,000-page PDF, the
//! VERI*FACTU QR of that invoice in a 12-megapixel JPEG photo of it (in
//! process, and in its sandboxed child), and OCR of that invoice as a 200 dpi
//! A4 PNG with Tesseract.
//!
//! Run: `cargo bench -p shared --bench extraction` (needs poppler-utils for
//! the photo and OCR rows, and tesseract-ocr-spa for the OCR row).

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lopdf::{Document, Object, Stream, dictionary};
use shared::documents::{cii, facturx, pdf};
use shared::embedded::tesseract::Tesseract;
use shared::extraction::pdf::read_pdf;
use shared::extraction::qr_image::{decode_encoded, read_codes};
use shared::ports::Ocr;
use shared::ports::ocr::ImageFormat;

async fn p50<F: std::future::Future<Output = usize>>(
    runs: usize,
    mut f: impl FnMut() -> F,
) -> (Duration, usize) {
    let mut times = Vec::with_capacity(runs);
    let mut found = 0;
    for _ in 0..runs {
        let started = Instant::now();
        found = f().await;
        times.push(started.elapsed());
    }
    times.sort();
    (times[runs / 2], found)
}

fn row(name: &str, (time, found): (Duration, usize), unit: &str) {
    println!(
        "{name:<40} p50 {:>9.1} ms   {found} {unit}",
        time.as_secs_f64() * 1000.0
    );
}

fn pages(count: usize) -> Vec<u8> {
    let mut doc = Document::with_version("1.7");
    let pages = doc.new_object_id();
    let font = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1",
    "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding"});
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F1 12 Tf 72 770 Td (Factura 2026/0147 Total 1.871,27) Tj ET".to_vec(),
    ));
    let kids: Vec<Object> = (0..count)
        .map(|_| {
            doc.add_object(
                dictionary! {"Type" => "Page", "Parent" => pages, "Contents" => content,
                "Resources" => dictionary! {"Font" => dictionary! {"F1" => font}}},
            )
            .into()
        })
        .collect();
    doc.objects.insert(
        pages,
        Object::Dictionary(dictionary! {"Type" => "Pages", "Count" => count as i64,
        "Kids" => kids, "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()]}),
    );
    let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages});
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// The first page as an image: `format` is `-png` or `-jpeg`.
fn rasterise(pdf: &[u8], dpi: &str, format: &str) -> Option<Vec<u8>> {
    let mut child = Command::new("pdftoppm")
        .args(["-r", dpi, format, "-singlefile", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(pdf).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

#[tokio::main]
async fn main() {
    let fixtures = support::invoice_fixtures::all().await;
    let invoice = &fixtures
        .iter()
        .find(|(n, _)| *n == "several_rates")
        .expect("fixture")
        .1;
    let invoice_pdf = pdf::pdf(invoice);
    let facturx_pdf = facturx::facturx_pdf(invoice, &cii::cii(invoice));
    row(
        "read_pdf: 1-page invoice PDF",
        p50(31, || async {
            read_pdf(invoice_pdf.clone())
                .await
                .unwrap()
                .text
                .words
                .len()
        })
        .await,
        "words",
    );
    row(
        "read_pdf: 1-page Factur-X PDF",
        p50(31, || async {
            read_pdf(facturx_pdf.clone())
                .await
                .unwrap()
                .attachments
                .len()
        })
        .await,
        "attachments",
    );
    let many = pages(10_000);
    row(
        "read_pdf: 10,000-page PDF",
        p50(3, || async {
            read_pdf(many.clone()).await.unwrap().pages as usize
        })
        .await,
        "pages",
    );
    if let Some(photo) = rasterise(&invoice_pdf, "350", "-jpeg") {
        row(
            "QR: 12-MP JPEG photo, in process",
            p50(11, || async {
                decode_encoded(&photo, ImageFormat::Jpeg).len()
            })
            .await,
            "codes",
        );
        row(
            "QR: 12-MP JPEG photo, sandboxed child",
            p50(11, || async {
                read_codes(photo.clone(), ImageFormat::Jpeg).await.len()
            })
            .await,
            "codes",
        );
    }
    let (Some(png), Some(tesseract)) =
        (rasterise(&invoice_pdf, "200", "-png"), Tesseract::detect())
    else {
        println!("OCR not measured: needs pdftoppm and tesseract with the spa model");
        return;
    };
    row(
        "Tesseract: invoice as 200 dpi A4 PNG",
        p50(5, || async {
            tesseract
                .read(&png, ImageFormat::Png)
                .await
                .unwrap()
                .words
                .len()
        })
        .await,
        "words",
    );
}
