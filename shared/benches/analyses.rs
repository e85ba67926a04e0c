//! Benchmark: reading (`read`: parse and validation, rows straight into
//! columns) + analysis of 10,000, 100,000 and the maximum rows per request for
//! every module, in-process, and the peak heap the two steps allocate against
//! the size of the request body (a counting allocator).
//!
//! Times are the median (p50) of `BENCH_RUNS` runs (default 5), wall time
//! with the CPU time of the benchmark thread (from
//! `/proc/thread-self/schedstat`), which a busy shared machine inflates less.
//!
//! Run: `cargo bench -p shared --bench analyses`; `BENCH_MODULES=ventas
//! BENCH_ROWS=100000` (comma-separated lists) pick the cases.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use chrono::NaiveDate;
use serde_json::{Map, Value, json};
use shared::analyses::request::{Cell, MAX_ROWS_PER_FILE, MAX_ROWS_PER_REQUEST, Module, Sheet};
use shared::analyses::{analyze, read, sample};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn cell_json(cell: &Cell) -> Value {
    match cell {
        Cell::Number(n) => serde_json::from_str(&n.to_string()).unwrap(),
        Cell::Text(t) => Value::String(t.clone()),
        Cell::Bool(b) => Value::Bool(*b),
        Cell::Empty => Value::Null,
    }
}

fn file_json(sheet: &Sheet) -> Value {
    let rows: Vec<Value> = sheet
        .rows
        .iter()
        .map(|r| {
            let mut m = Map::new();
            for (k, c) in &r.0 {
                m.insert(k.to_string(), cell_json(c));
            }
            Value::Object(m)
        })
        .collect();
    json!({"name": sheet.name, "rows": rows})
}

/// The request body for `rows` rows of `module`, split in files of at most
/// `MAX_ROWS_PER_FILE`.
fn body(module: Module, rows: usize) -> Vec<u8> {
    let mut files = Vec::new();
    let mut left = rows;
    let mut seed = 7;
    while left > 0 {
        let n = left.min(MAX_ROWS_PER_FILE);
        files.push(file_json(&sample::sheet(module, n, seed, 2025)));
        left -= n;
        seed += 1;
    }
    serde_json::to_vec(
        &json!({"type": "excel", "data": {"module": module.as_str(), "files": files}}),
    )
    .unwrap()
}

/// CPU time of this thread in ms (0 where /proc is not available).
fn cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e6)
}

/// A comma-separated list from the environment, or `default`.
fn list<T: std::str::FromStr>(var: &str, default: Vec<T>) -> Vec<T> {
    match std::env::var(var) {
        Ok(s) => s
            .split(',')
            .map(|x| x.trim().parse().unwrap_or_else(|_| panic!("{var}: {x:?}")))
            .collect(),
        Err(_) => default,
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let as_of = NaiveDate::from_ymd_opt(2026, 1, 15).unwrap();
    let modules: Vec<Module> = list::<String>("BENCH_MODULES", vec![])
        .iter()
        .map(|m| {
            *Module::ALL
                .iter()
                .find(|x| x.as_str() == m)
                .expect("a module")
        })
        .collect();
    let modules = if modules.is_empty() {
        Module::ALL.to_vec()
    } else {
        modules
    };
    let sizes = list("BENCH_ROWS", vec![10_000, 100_000, MAX_ROWS_PER_REQUEST]);
    let runs = list("BENCH_RUNS", vec![5])[0];
    println!(
        "module      rows   body MB  parse ms  analyse ms  total ms  total cpu ms  peak heap MB  peak/body"
    );
    for module in modules {
        for &rows in &sizes {
            let bytes = body(module, rows);
            let (mut parse_ms, mut analyse_ms, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
            let mut peak = 0;
            for _ in 0..runs {
                let base = CURRENT.load(Ordering::Relaxed);
                PEAK.store(base, Ordering::Relaxed);
                let cpu_started = cpu_ms();
                let started = Instant::now();
                let request = read(&bytes).expect("the request parses");
                let parsed = started.elapsed().as_secs_f64() * 1e3;
                let analysis = analyze(&request, as_of).expect("the analysis runs");
                let total = started.elapsed().as_secs_f64() * 1e3;
                cpu.push(cpu_ms() - cpu_started);
                peak = peak.max(PEAK.load(Ordering::Relaxed) - base);
                std::hint::black_box(analysis);
                drop(request);
                parse_ms.push(parsed);
                analyse_ms.push(total - parsed);
            }
            let totals: Vec<f64> = parse_ms
                .iter()
                .zip(&analyse_ms)
                .map(|(p, a)| p + a)
                .collect();
            let mb = |b: usize| b as f64 / 1_048_576.0;
            println!(
                "{:<10} {:>7} {:>9.1} {:>9.1} {:>11.1} {:>9.1} {:>13.1} {:>13.1} {:>10.2}",
                module.as_str(),
                rows,
                mb(bytes.len()),
                median(parse_ms),
                median(analyse_ms),
                median(totals),
                median(cpu),
                mb(peak),
                peak as f64 / bytes.len() as f64
            );
        }
    }
}
