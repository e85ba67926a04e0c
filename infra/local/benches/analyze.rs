//! Benchmark: `POST /api/v1/analyze` through the release `svc serve`, one
//! request at a time: 10k and 100k `ventas` rows, a body at Lambda's 6 MiB
//! payload limit, and the largest request the engine allows (200k rows in two
//! files of 100k). For each, a fresh server (body limit raised to 64 MiB) and
//! its peak resident memory (VmHWM) after the requests, against its idle peak.
//!
//! Run: `cargo bench -p svc --bench analyze` (env BENCH_RUNS per size, default 3).

mod support;

use std::time::{Duration, Instant};

use support::serve_with;

const CLIENTS: [&str; 7] = [
    "Taller Ana SL",
    "Bar Lola",
    "Ferretería Pérez",
    "Academia Sol",
    "Clínica Dental Ruiz",
    "Hostal Miramar",
    "Estudio Vega",
];
const PRODUCTS: [&str; 5] = [
    "Revisión",
    "Mantenimiento",
    "Reparación",
    "Instalación",
    "Consultoría",
];

/// One `ventas` row: date, invoice, customer, product, quantity, price, amount.
fn row(i: usize) -> String {
    let quantity = 1 + i % 5;
    let cents = 1_999 + (i * 7_919) % 30_000;
    format!(
        r#"{{"Fecha": "2026-{:02}-{:02}", "Factura": "F2026-{:06}", "Cliente": "{}", "Producto": "{}", "Cantidad": {quantity}, "Precio": {}.{:02}, "Importe": {}.{:02}}}"#,
        1 + (i / 28) % 10,
        1 + i % 28,
        i + 1,
        CLIENTS[(i * 31) % CLIENTS.len()],
        PRODUCTS[(i * 17) % PRODUCTS.len()],
        cents / 100,
        cents % 100,
        cents * quantity / 100,
        cents * quantity % 100,
    )
}

fn file(name: &str, rows: impl Iterator<Item = usize>) -> String {
    let rows: Vec<String> = rows.map(row).collect();
    format!(r#"{{"name": "{name}", "rows": [{}]}}"#, rows.join(", "))
}

fn request(files: &[String]) -> String {
    format!(
        r#"{{"type": "excel", "lang": "es", "title": "Ventas 2026", "data": {{"module": "ventas", "files": [{}]}}}}"#,
        files.join(", ")
    )
}

fn rows(n: usize) -> String {
    request(&[file("ventas.xlsx", 0..n)])
}

/// The most whole rows whose request fits in `bytes`.
fn fitting(bytes: usize) -> String {
    let overhead = rows(0).len();
    let per_row = row(0).len() + 2;
    let mut n = (bytes - overhead) / per_row;
    loop {
        let body = rows(n);
        if body.len() <= bytes {
            return body;
        }
        n -= 1 + (body.len() - bytes) / per_row;
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let cases = [
        ("10k rows".to_string(), rows(10_000)),
        ("100k rows".to_string(), rows(100_000)),
        ("6 MiB body (Lambda's limit)".to_string(), fitting(6 << 20)),
        (
            "200k rows in 2 files (largest allowed)".to_string(),
            request(&[
                file("2025.xlsx", 0..100_000),
                file("2026.xlsx", 100_000..200_000),
            ]),
        ),
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{:<40} {:>9} {:>9} {:>9} {:>14} {:>10}",
        "POST /api/v1/analyze (ventas)", "body MiB", "min ms", "max ms", "peak RSS MiB", "idle MiB"
    );
    for (name, body) in cases {
        let dir = tempfile::tempdir().unwrap();
        let server = serve_with(
            &["--data".into(), dir.path().display().to_string()],
            &[("SVC_MAX_BODY_BYTES", "67108864")],
        );
        let idle = server.peak_rss().unwrap_or(0);
        let times: Vec<Duration> = runtime.block_on(async {
            let client = reqwest::Client::new();
            let mut times = Vec::new();
            for _ in 0..runs {
                let started = Instant::now();
                let response = client
                    .post(format!("{}/api/v1/analyze", server.base))
                    .bearer_auth(&server.key)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await
                    .unwrap();
                let status = response.status();
                let text = response.text().await.unwrap();
                assert!(status.is_success(), "{name}: {status}: {text}");
                times.push(started.elapsed());
            }
            times
        });
        let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:<40} {:>9.2} {:>9.1} {:>9.1} {:>14.1} {:>10.1}",
            name,
            mib(body.len() as u64),
            times.iter().map(ms).fold(f64::INFINITY, f64::min),
            times.iter().map(ms).fold(0.0, f64::max),
            mib(server.peak_rss().unwrap_or(0)),
            mib(idle),
        );
    }
}
