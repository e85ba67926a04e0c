//! Benchmark: field accuracy and time of `POST /api/v1/invoices/extract`
//! through the release `svc serve`, on the seeded extraction corpus (text
//! PDFs, 200-dpi PNG, JPEG and WebP, scanned PDFs, plain texts). Prints, as
//! markdown: per source the share of exact fields, p50/p95 time per file and
//! errors; per field and source the share exact; the `pdf_scanned` detection
//! rate; mixed 5-file requests; e-invoices the service issues and reads back;
//! the server's peak RSS on the largest request it accepts; the first
//! misses of each field, for the parser's authors; and the real third-party
//! invoices of `../shared/corpus/real-invoices` (`real`), per field,
//! language and source.
//!
//! Run: `cargo bench -p svc --bench extraction`. Env: EXTRACTION_SEED (2026),
//! EXTRACTION_PDFS (40), EXTRACTION_IMAGES (20 per format), EXTRACTION_SCANNED
//! (20), EXTRACTION_TEXTS (20), EXTRACTION_EINVOICES (10 per format). Needs
//! poppler (pdftoppm); images are read only when the server has an OCR engine
//! (tesseract).
//! EXTRACTION_PHOTOS (20): phone photos of the printed pages.

#[path = "../../../shared/tests/corpus/mod.rs"]
mod corpus;
mod real;
#[path = "../../../shared/tests/real_corpus/mod.rs"]
mod real_corpus;
mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use corpus::invoice::Invoice;
use corpus::score::{FIELDS, Verdict, score};
use corpus::{Document, KINDS, Kind, request_body};
use serde_json::{Value as Json, json};
use support::Server;

/// `svc serve` on its own data directory, with the quota out of the way.
fn start(data: &std::path::Path) -> Server {
    support::serve_with(
        &["--data".to_string(), data.display().to_string()],
        &[("SVC_QUOTA_PRO", "100000")],
    )
}

/// The server's peak resident memory so far, in MiB.
fn peak_rss_mib(server: &Server) -> f64 {
    server.peak_rss().unwrap_or(0) as f64 / (1024.0 * 1024.0)
}

impl Server {
    async fn extract(&self, client: &reqwest::Client, body: String) -> (u16, Json, Duration) {
        let started = Instant::now();
        let response = client
            .post(format!("{}/api/v1/invoices/extract", self.base))
            .bearer_auth(&self.key)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("the server answers");
        let status = response.status().as_u16();
        let json = response.json().await.unwrap_or(Json::Null);
        (status, json, started.elapsed())
    }

    /// Issues `invoice` in the demo account's name; the reply as JSON.
    async fn issue(&self, client: &reqwest::Client, invoice: &Invoice, key: &str) -> Json {
        let (postal_code, city) = invoice.recipient.city.split_once(' ').unwrap();
        let lines: Vec<Json> = invoice
            .lines
            .iter()
            .map(|l| {
                let mut line = json!({"description": l.description, "quantity": l.quantity.to_string(),
                    "unit_price": l.unit_price.to_string(), "vat_rate": l.vat_rate.to_string()});
                if l.vat_rate.is_zero() {
                    line["exemption"] = json!("E1");
                }
                line
            })
            .collect();
        let body = json!({
            "customer": {"name": invoice.recipient.name, "tax_id": invoice.recipient.nif,
                "address": invoice.recipient.street, "postal_code": postal_code, "city": city},
            "lines": lines,
            "irpf_rate": invoice.irpf_rate.map(|r| r.to_string()),
            "equivalence_surcharge": !invoice.surcharge_amount.is_zero(),
        });
        let response = client
            .post(format!("{}/api/v1/invoices", self.base))
            .bearer_auth(&self.key)
            .header("idempotency-key", key)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let json: Json = response.json().await.unwrap();
        assert!(status.is_success(), "issuing failed: {status} {json}");
        json
    }

    async fn download(&self, client: &reqwest::Client, path: &str) -> Vec<u8> {
        let response = client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "GET {path}: {}",
            response.status()
        );
        response.bytes().await.unwrap().to_vec()
    }
}

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What happened to one document.
enum Outcome {
    Read(Vec<Verdict>, String),
    Error(String),
}

/// The document's entry in a reply: its invoice scored, or its error code.
fn outcome(doc: &Document, status: u16, reply: &Json) -> Outcome {
    let named = |list: &str| {
        reply[list]
            .as_array()
            .and_then(|items| items.iter().find(|i| i["file_name"] == doc.name.as_str()))
            .cloned()
    };
    if let Some(invoice) = named("invoices") {
        let source = invoice["source"].as_str().unwrap_or("?").to_string();
        return Outcome::Read(score(&doc.invoice, &invoice), source);
    }
    match named("errors") {
        Some(error) => Outcome::Error(error["code"].as_str().unwrap_or("?").to_string()),
        None => Outcome::Error(format!("http_{status}")),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize].as_secs_f64() * 1000.0
}

#[derive(Default)]
struct Tally {
    documents: usize,
    read: usize,
    exact: BTreeMap<&'static str, usize>,
    times: Vec<Duration>,
    errors: BTreeMap<String, usize>,
    sources: BTreeMap<String, usize>,
    misses: Vec<(String, Verdict)>,
}

impl Tally {
    fn add(&mut self, doc: &Document, outcome: Outcome, time: Duration) {
        self.documents += 1;
        self.times.push(time);
        match outcome {
            Outcome::Read(verdicts, source) => {
                self.read += 1;
                *self.sources.entry(source).or_default() += 1;
                for v in verdicts {
                    if v.exact {
                        *self.exact.entry(v.field).or_default() += 1;
                    } else {
                        self.misses
                            .push((format!("{} ({:?})", doc.name, doc.style.numbers), v));
                    }
                }
            }
            Outcome::Error(code) => *self.errors.entry(code).or_default() += 1,
        }
    }

    /// Share of exact fields over every document (an unread one counts as all wrong).
    fn accuracy(&self, field: Option<&str>) -> f64 {
        let (exact, total) = match field {
            Some(f) => (self.exact.get(f).copied().unwrap_or(0), self.documents),
            None => (self.exact.values().sum(), self.documents * FIELDS.len()),
        };
        100.0 * exact as f64 / total.max(1) as f64
    }
}

fn corpus(seed: u64) -> Vec<Document> {
    let counts = [
        (Kind::TextPdf, env_count("EXTRACTION_PDFS", 40)),
        (Kind::Png, env_count("EXTRACTION_IMAGES", 20)),
        (Kind::Jpeg, env_count("EXTRACTION_IMAGES", 20)),
        (Kind::Webp, env_count("EXTRACTION_IMAGES", 20)),
        (Kind::ScannedPdf, env_count("EXTRACTION_SCANNED", 20)),
        (Kind::Text, env_count("EXTRACTION_TEXTS", 20)),
        (Kind::Photo, env_count("EXTRACTION_PHOTOS", 20)),
    ];
    let started = Instant::now();
    let docs: Vec<Document> = counts
        .iter()
        .flat_map(|&(kind, n)| corpus::documents(seed, kind, n))
        .collect();
    println!(
        "Corpus: seed {seed}, {} documents generated in {:.1} s\n",
        docs.len(),
        started.elapsed().as_secs_f64()
    );
    docs
}

fn print_summary(tallies: &BTreeMap<Kind, Tally>) {
    println!(
        "| source | docs | read | fields exact | p50 ms/file | p95 ms/file | errors | reported source |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (kind, t) in tallies {
        let mut times = t.times.clone();
        times.sort();
        println!(
            "| {} | {} | {} | {:.1} % | {:.1} | {:.1} | {:?} | {:?} |",
            kind.name(),
            t.documents,
            t.read,
            t.accuracy(None),
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            t.errors,
            t.sources
        );
    }
    println!(
        "\n| field | {} |",
        tallies
            .keys()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---|".repeat(tallies.len()));
    for field in FIELDS {
        let cells: Vec<String> = tallies
            .values()
            .map(|t| format!("{:.1} %", t.accuracy(Some(field))))
            .collect();
        println!("| {field} | {} |", cells.join(" | "));
    }
    if let Some(scanned) = tallies.get(&Kind::ScannedPdf) {
        let detected = scanned.errors.get("pdf_scanned").copied().unwrap_or(0);
        println!(
            "\npdf_scanned detection: {detected}/{} ({:.1} %)",
            scanned.documents,
            100.0 * detected as f64 / scanned.documents.max(1) as f64
        );
    }
    println!("\nFirst misses per source and field (document: expected ≠ got):");
    for (kind, t) in tallies {
        for field in FIELDS {
            let misses: Vec<_> = t.misses.iter().filter(|(_, v)| v.field == field).collect();
            for (name, v) in misses.iter().take(3) {
                println!(
                    "- {} {field}: {name}: {:?} ≠ {:?} ({} misses)",
                    kind.name(),
                    v.expected,
                    v.got,
                    misses.len()
                );
            }
        }
    }
}

/// Mixed requests of five documents: every one answered under its own name.
async fn mixed_requests(server: &Server, client: &reqwest::Client, docs: &[Document]) {
    let pick = |kind: Kind| docs.iter().filter(move |d| d.kind == kind);
    let mut pool: Vec<&Document> = pick(Kind::TextPdf)
        .take(6)
        .chain(pick(Kind::Text).take(2))
        .chain(pick(Kind::Png).take(2))
        .collect();
    pool.truncate(10);
    let mut tally = Tally::default();
    let mut request_times = Vec::new();
    for batch in pool.chunks(5) {
        let (status, reply, time) = server.extract(client, request_body(batch)).await;
        request_times.push(time);
        for doc in batch {
            tally.add(doc, outcome(doc, status, &reply), time / batch.len() as u32);
        }
    }
    request_times.sort();
    println!(
        "\n5-file requests (text PDFs, texts, PNG): {} requests, {} of {} documents read, {:.1} % fields exact, p50 {:.1} ms per request",
        request_times.len(),
        tally.read,
        tally.documents,
        tally.accuracy(None),
        percentile(&request_times, 0.5)
    );
}

/// E-invoices the service issues itself (Facturae, UBL, CII, Factur-X) from
/// corpus invoices, read back; the truth is the corpus invoice with the
/// demo issuer, the service's number and date, and the service's own totals
/// checked against the corpus's.
async fn einvoices(server: &Server, client: &reqwest::Client, docs: &[Document], count: usize) {
    let formats = [
        ("facturae", "application/xml"),
        ("ubl", "application/xml"),
        ("cii", "application/xml"),
        ("facturx", "application/pdf"),
    ];
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut totals_differ = 0;
    for (i, doc) in docs
        .iter()
        .filter(|d| d.kind == Kind::TextPdf)
        .take(count)
        .enumerate()
    {
        let issued = server
            .issue(
                client,
                &doc.invoice,
                &format!("bench-einvoice-{}-{i}", std::process::id()),
            )
            .await;
        let mut truth = doc.invoice.clone();
        truth.issuer.name = issued["issuer"]["name"].as_str().unwrap().to_string();
        truth.issuer.nif = issued["issuer"]["tax_id"].as_str().unwrap().to_string();
        truth.number = issued["number"].as_str().unwrap().to_string();
        truth.date = issued["issue_date"].as_str().unwrap().parse().unwrap();
        if score(&truth, &issued)
            .iter()
            .any(|v| matches!(v.field, "base" | "vat_amount" | "irpf_amount" | "total") && !v.exact)
        {
            totals_differ += 1;
        }
        for (format, mime) in formats {
            let path = match format {
                "facturx" => format!("/api/v1/invoices/{}/pdf?format=facturx", issued["id"]),
                _ => format!("/api/v1/invoices/{}/xml?format={format}", issued["id"]),
            };
            let data = server.download(client, &path).await;
            let name = format!(
                "{}-{format}.{}",
                truth.number,
                if format == "facturx" { "pdf" } else { "xml" }
            );
            let body =
                json!({"files": [{"name": name, "mime": mime, "data": STANDARD.encode(&data)}]});
            let (status, reply, time) = server.extract(client, body.to_string()).await;
            let entry = Document {
                name,
                kind: Kind::TextPdf,
                layout: doc.layout,
                invoice: truth.clone(),
                style: doc.style.clone(),
                data,
            };
            tallies
                .entry(format)
                .or_default()
                .add(&entry, outcome(&entry, status, &reply), time);
        }
    }
    println!("
E-invoices issued by the service and read back ({totals_differ} with totals other than the corpus's):\n");
    println!("| format | docs | read | fields exact | p50 ms/file | errors | reported source |");
    println!("|---|---|---|---|---|---|---|");
    for (format, t) in &tallies {
        let mut times = t.times.clone();
        times.sort();
        println!(
            "| {format} | {} | {} | {:.1} % | {:.1} | {:?} | {:?} |",
            t.documents,
            t.read,
            t.accuracy(None),
            percentile(&times, 0.5),
            t.errors,
            t.sources
        );
    }
    for (format, t) in &tallies {
        for (name, v) in t.misses.iter().take(6) {
            println!(
                "- {format} {}: {name}: {:?} ≠ {:?}",
                v.field, v.expected, v.got
            );
        }
    }
}

/// Five JPEG pages as large as the body limit allows: the largest of a few
/// resolutions and qualities that fits a fifth of `max_body_bytes`.
fn largest_request(seed: u64, max_body_bytes: usize) -> (String, usize) {
    let budget = (max_body_bytes - 4096) / 5 * 3 / 4;
    let base = corpus::document(seed, 0, Kind::TextPdf);
    let jpeg = [(400, 95), (350, 95), (300, 95), (300, 85), (200, 95)]
        .into_iter()
        .map(|(dpi, quality)| {
            corpus::raster::jpeg(&corpus::raster::rasterise(&base.data, dpi), quality)
        })
        .find(|j| j.len() <= budget)
        .expect("a 200-dpi page fits");
    let size = jpeg.len();
    let docs: Vec<Document> = (0..5)
        .map(|i| Document {
            name: format!("large-{i}.jpg"),
            kind: Kind::Jpeg,
            layout: base.layout,
            invoice: base.invoice.clone(),
            style: base.style.clone(),
            data: jpeg.clone(),
        })
        .collect();
    (request_body(&docs.iter().collect::<Vec<_>>()), size)
}

async fn run(seed: u64) {
    let docs = corpus(seed);
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path());
    let mut tallies: BTreeMap<Kind, Tally> = BTreeMap::new();
    for kind in KINDS {
        for doc in docs.iter().filter(|d| d.kind == kind) {
            let (status, reply, time) = server.extract(&client, request_body(&[doc])).await;
            tallies
                .entry(kind)
                .or_default()
                .add(doc, outcome(doc, status, &reply), time);
        }
    }
    print_summary(&tallies);
    real::run(&client).await;
    mixed_requests(&server, &client, &docs).await;
    einvoices(
        &server,
        &client,
        &docs,
        env_count("EXTRACTION_EINVOICES", 10),
    )
    .await;
    drop(server);

    let max_body = shared::config::Config::default().max_body_bytes;
    let (body, file_bytes) = largest_request(seed, max_body);
    let fresh = tempfile::tempdir().unwrap();
    let server = start(fresh.path());
    let idle = peak_rss_mib(&server);
    let (status, reply, time) = server.extract(&client, body.clone()).await;
    let read = reply["invoices"].as_array().map_or(0, Vec::len);
    println!(
        "\nLargest request: 5 JPEG files of {file_bytes} bytes, body {} of {max_body} bytes: HTTP {status}, {read} invoices, {:.0} ms; server peak RSS {:.1} MiB (idle {idle:.1} MiB)",
        body.len(),
        time.as_secs_f64() * 1000.0,
        peak_rss_mib(&server)
    );
}

fn main() {
    let seed = env_count("EXTRACTION_SEED", 2026) as u64;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(seed));
}
