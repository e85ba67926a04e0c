//! The invoices function's binary carries the PDF fonts its documents use
//! (the usage function's tests check that it does not).

#[test]
fn the_invoices_function_carries_the_pdf_fonts() {
    let binary = std::fs::read(env!("CARGO_BIN_EXE_invoices")).expect("the invoices binary");
    let font = b"DejaVu Sans";
    assert!(binary.windows(font.len()).any(|w| w == font));
}
