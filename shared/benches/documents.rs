//! Benchmark: generation time per invoice (p50) of the PDF, the Factur-X PDF
//! and each XML format, for a 3-line and a 60-line invoice, and PDF sizes.
//!
//! Run: `cargo bench -p shared --bench documents`

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use shared::documents::{cii, facturae, facturx, pdf, ubl};
use shared::invoice::model::Invoice;

const RUNS: usize = 31;

type Generate<'a> = Box<dyn FnMut() -> usize + 'a>;

fn p50(mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut times = Vec::with_capacity(RUNS);
    let mut size = 0;
    for _ in 0..RUNS {
        let started = Instant::now();
        size = std::hint::black_box(f());
        times.push(started.elapsed());
    }
    times.sort();
    (times[RUNS / 2], size)
}

fn report(name: &str, invoice: &Invoice) {
    let rows: [(&str, Generate); 5] = [
        ("PDF", Box::new(|| pdf::pdf(invoice).len())),
        (
            "Factur-X PDF",
            Box::new(|| facturx::facturx_pdf(invoice, &cii::cii(invoice)).len()),
        ),
        (
            "Facturae 3.2.2",
            Box::new(|| facturae::facturae(invoice).len()),
        ),
        ("UBL 2.1", Box::new(|| ubl::ubl(invoice).len())),
        ("CII D16B", Box::new(|| cii::cii(invoice).len())),
    ];
    for (format, mut generate) in rows {
        let (time, size) = p50(&mut generate);
        println!(
            "{name:<22} {format:<15} p50 {:>8.3} ms, {:>8} bytes",
            time.as_secs_f64() * 1000.0,
            size
        );
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let fixtures = runtime.block_on(support::invoice_fixtures::all());
    for (name, label) in [
        ("several_rates", "3-line invoice"),
        ("sixty_lines", "60-line invoice"),
    ] {
        let invoice = &fixtures
            .iter()
            .find(|(n, _)| *n == name)
            .expect("fixture")
            .1;
        report(label, invoice);
    }
}
