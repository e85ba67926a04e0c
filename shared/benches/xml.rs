//! Benchmark: the memory of reading e-invoice XML into a tree
//! (`xml_tree::parse`), as the heap's peak above what was allocated before
//! the call (a counting allocator), and its time. Issue 44's attack, a
//! 52 MB flood of empty elements (`<a/>`) in a UBL root, is read twice:
//! without limits (as before them: nesting alone was bounded) and within
//! `xml_tree::LIMITS`; then a legitimate large document within them (1,000
//! invoice lines and 12 MB of base64 attachments).
//!
//! Run: `cargo bench -p shared --bench xml`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use shared::xml_tree::{LIMITS, Limits, parse_within};

/// Counts the bytes allocated now and the most at any time.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = NOW.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The old and the new block both exist while the bytes are copied.
        grew(new_size);
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// No limit but nesting: the reader before issue 44.
const UNLIMITED: Limits = Limits {
    bytes: usize::MAX,
    depth: 64,
    elements: usize::MAX,
    attributes_per_element: usize::MAX,
    attributes: usize::MAX,
    name_bytes: usize::MAX,
    value_bytes: usize::MAX,
    text_bytes: usize::MAX,
};

const UBL: &str = r#"<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">"#;

fn flood(bytes: usize) -> String {
    let count = (bytes - UBL.len() - "</Invoice>".len()) / 4;
    format!("{UBL}{}</Invoice>", "<a/>".repeat(count))
}

/// A UBL-shaped invoice with `lines` lines of 12 elements and six
/// attachments of 2 MB of base64.
fn large_invoice(lines: usize) -> String {
    let line = "<cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode=\"C62\">2\
        </cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID=\"EUR\">20.00</cbc:LineExtensionAmount>\
        <cac:Item><cbc:Name>Artículo</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID>\
        <cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme>\
        </cac:ClassifiedTaxCategory></cac:Item><cac:Price><cbc:PriceAmount currencyID=\"EUR\">10.00\
        </cbc:PriceAmount></cac:Price></cac:InvoiceLine>";
    let attachment = format!(
        "<cac:AdditionalDocumentReference><cbc:ID>A</cbc:ID><cac:Attachment>\
         <cbc:EmbeddedDocumentBinaryObject mimeCode=\"application/pdf\" filename=\"a.pdf\">{}\
         </cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>",
        "QUJD".repeat(500_000)
    );
    format!(
        "{}{}{}</Invoice>",
        UBL.replace(
            "Invoice-2\"",
            "Invoice-2\" xmlns:cac=\"urn:cac\" xmlns:cbc=\"urn:cbc\""
        ),
        attachment.repeat(6),
        line.repeat(lines)
    )
}

/// Reads `xml` within `limits`: the heap's peak above the start, the time,
/// and what came of it.
fn measure(xml: &str, limits: &Limits) -> (usize, f64, String) {
    let before = NOW.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    let read = parse_within(xml, limits);
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let outcome = match &read {
        Ok((_, tree)) => format!("read, {} children of the root", tree.elements().len()),
        Err(e) => format!("refused: {e}"),
    };
    drop(read);
    (PEAK.load(Ordering::Relaxed) - before, ms, outcome)
}

fn main() {
    let attack = flood(52_000_000);
    let legitimate = large_invoice(1_000);
    let cases = [
        ("52 MB <a/> flood, no limits (before)", &attack, &UNLIMITED),
        ("52 MB <a/> flood, LIMITS", &attack, &LIMITS),
        (
            "1,000 lines + 12 MB attachments, LIMITS",
            &legitimate,
            &LIMITS,
        ),
    ];
    println!("| document | input MB | peak heap MB | ms | outcome |");
    println!("|---|---|---|---|---|");
    for (name, xml, limits) in cases {
        let (peak, ms, outcome) = measure(xml, limits);
        println!(
            "| {name} | {:.1} | {:.1} | {ms:.0} | {outcome} |",
            xml.len() as f64 / 1e6,
            peak as f64 / 1e6
        );
    }
}
