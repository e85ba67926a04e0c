#[path = "../tests/real_corpus/mod.rs"]
mod real_corpus;

use chrono::NaiveDate;
use shared::embedded::tesseract::words_from_tsv;
use shared::extraction::checks::check;
use shared::extraction::pdf::read_pdf;
use shared::extraction::text::parse;
use shared::extraction::{Source, TextDocument};
use shared::tax::nif::Nif;
use std::process::Command;

fn ocr(path: &std::path::Path, name: &str) -> TextDocument {
    let cache = std::path::PathBuf::from("/tmp/ocr-cache");
    std::fs::create_dir_all(&cache).unwrap();
    let png = cache.join(format!("{name}.png"));
    let img = if name.ends_with(".pdf") {
        if !png.exists() {
            let st = Command::new("pdftoppm")
                .args(["-png", "-r", "200", "-singlefile"])
                .arg(path)
                .arg(cache.join(name))
                .status()
                .unwrap();
            assert!(st.success());
        }
        png.clone()
    } else {
        path.to_path_buf()
    };
    let tsv = cache.join(format!("{name}.tsv"));
    if !tsv.exists() {
        let out = Command::new("tesseract")
            .arg(&img)
            .arg("stdout")
            .args(["-l", "spa+eng", "--psm", "6", "tsv"])
            .env("OMP_THREAD_LIMIT", "1")
            .output()
            .unwrap();
        std::fs::write(&tsv, &out.stdout).unwrap();
    }
    let (w, h) = image::image_dimensions(&img).unwrap();
    TextDocument {
        words: words_from_tsv(&std::fs::read_to_string(&tsv).unwrap(), w, h),
        hints: vec![],
    }
}

#[tokio::main]
async fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let dir = real_corpus::dir().unwrap();
    let today = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
    let via_pdftotext = std::env::var_os("PDFTOTEXT").is_some();
    let (mut right, mut total, mut docs_ok, mut docs) = (0, 0, 0, 0);
    let (mut es_right, mut es_total) = (0, 0);
    for truth in real_corpus::load(&dir) {
        if !truth.file.contains(&filter) {
            continue;
        }
        let path = dir.join(&truth.file);
        let image = truth.mime.starts_with("image/") || !truth.text_layer;
        let (source, doc) = if image {
            (Source::Ocr, ocr(&path, &truth.file))
        } else if via_pdftotext {
            let out = Command::new("pdftotext")
                .args(["-layout"])
                .arg(&path)
                .arg("-")
                .output()
                .unwrap();
            (
                Source::PdfText,
                TextDocument::from_plain_text(&String::from_utf8_lossy(&out.stdout)),
            )
        } else {
            match read_pdf(std::fs::read(&path).unwrap()).await {
                Ok(c) => (Source::PdfText, c.text),
                Err(e) => {
                    println!("{}: {e}", truth.file);
                    continue;
                }
            }
        };
        let own = truth.recipient_nif().and_then(|n| Nif::parse(n).ok());
        let fields = parse(&doc, own.as_ref());
        let got = serde_json::to_value(check(fields, source, &truth.file, today)).unwrap();
        let verdicts = real_corpus::score(&truth, &got);
        docs += 1;
        let ok = verdicts.iter().filter(|v| v.right).count();
        if ok == verdicts.len() {
            docs_ok += 1;
        }
        right += ok;
        total += verdicts.len();
        if truth.spanish() {
            es_right += ok;
            es_total += verdicts.len();
        }
        println!("{} {}/{}", truth.file, ok, verdicts.len());
        for v in verdicts.iter().filter(|v| !v.right) {
            println!("    {}: expected {} got {}", v.field, v.expected, v.got);
        }
        if std::env::var_os("WARN").is_some() {
            println!(
                "    warnings: {}",
                got["warnings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|w| w["code"].as_str().unwrap())
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
    }
    println!(
        "ALL {:.1} % ({right}/{total}), ES {:.1} %, docs all right {docs_ok}/{docs}",
        100.0 * right as f64 / total as f64,
        100.0 * es_right as f64 / es_total.max(1) as f64
    );
}
