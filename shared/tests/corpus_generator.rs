//! The extraction corpus generator checks itself: ground truth adds up, NIFs
//! are valid, a text PDF's text layer holds the values as printed, a scanned
//! PDF has no text, images are A4 at 200 dpi, and a seed gives the same bytes.
//! Needs poppler (`pdftotext`, `pdftoppm`).

use crate::corpus;

use std::io::Write;
use std::process::{Command, Stdio};

use corpus::layout::LAYOUTS;
use corpus::{Kind, document};
use rust_decimal::Decimal;
use shared::tax::money::round2;
use shared::tax::nif::Nif;

const SEED: u64 = 2026;

fn pdftotext(pdf: &[u8]) -> String {
    let mut child = Command::new("pdftotext")
        .args(["-layout", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pdftotext runs (apt-get install poppler-utils)");
    child.stdin.take().unwrap().write_all(pdf).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn ground_truth_adds_up_per_rate_group() {
    for i in 0..200 {
        let invoice = corpus::invoice::generate(&mut corpus::rng::Rng::new(i));
        assert!(Nif::parse(&invoice.issuer.nif).is_ok());
        assert!(Nif::parse(&invoice.recipient.nif).is_ok());
        assert!((1..=8).contains(&invoice.lines.len()));
        for group in &invoice.groups {
            let base: Decimal = invoice
                .lines
                .iter()
                .filter(|l| l.vat_rate == group.rate)
                .map(|l| l.amount)
                .sum();
            assert_eq!(group.base, base);
            assert_eq!(
                group.vat_amount,
                round2(base * group.rate / Decimal::ONE_HUNDRED)
            );
        }
        assert_eq!(
            invoice.total,
            invoice.base + invoice.vat_amount + invoice.surcharge_amount - invoice.irpf_amount
        );
        assert!(invoice.irpf_rate.is_none() || invoice.surcharge_amount.is_zero());
    }
}

#[test]
fn text_pdfs_carry_the_printed_values_in_every_layout() {
    for index in 0..LAYOUTS.len() {
        let doc = document(SEED, index, Kind::TextPdf);
        assert!(doc.data.starts_with(b"%PDF"));
        let text = pdftotext(&doc.data);
        for value in doc.printed() {
            assert!(
                text.contains(&value),
                "{}: {value:?} not in\n{text}",
                doc.name
            );
        }
        assert!(text.contains(&doc.invoice.issuer.name), "{}", doc.name);
    }
}

#[test]
fn plain_texts_carry_the_printed_values() {
    for index in 0..LAYOUTS.len() {
        let doc = document(SEED, index, Kind::Text);
        let text = String::from_utf8(doc.data.clone()).unwrap();
        for value in doc.printed() {
            assert!(
                text.contains(&value),
                "{}: {value:?} not in\n{text}",
                doc.name
            );
        }
    }
}

#[test]
fn scanned_pdfs_have_no_text_and_images_are_a4_at_200_dpi() {
    let scanned = document(SEED, 0, Kind::ScannedPdf);
    assert!(scanned.data.starts_with(b"%PDF"));
    assert!(pdftotext(&scanned.data).trim().is_empty());
    for kind in [Kind::Png, Kind::Jpeg, Kind::Webp] {
        let doc = document(SEED, 1, kind);
        let image = image::load_from_memory(&doc.data).unwrap();
        assert_eq!((image.width(), image.height()), (1654, 2339), "{kind:?}");
    }
}

#[test]
fn a_seed_gives_the_same_bytes() {
    for kind in [Kind::TextPdf, Kind::Text, Kind::Jpeg] {
        assert_eq!(document(SEED, 3, kind).data, document(SEED, 3, kind).data);
    }
    assert_ne!(
        document(SEED, 3, Kind::TextPdf).data,
        document(SEED + 1, 3, Kind::TextPdf).data
    );
}

#[test]
fn photos_are_larger_jpegs_of_the_page_and_seeded() {
    let doc = document(SEED, 2, Kind::Photo);
    let image = image::load_from_memory_with_format(&doc.data, image::ImageFormat::Jpeg).unwrap();
    assert!(image.width() > 1654 && image.height() > 2339);
    assert_eq!(doc.data, document(SEED, 2, Kind::Photo).data);
}
