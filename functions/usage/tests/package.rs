//! The usage function's binary links none of the invoice documents: the PDF
//! fonts are in the invoices function only (their positive check is in its
//! tests), because each function names its own group's routes.

#[test]
fn the_usage_function_carries_no_pdf_fonts() {
    let binary = std::fs::read(env!("CARGO_BIN_EXE_usage")).expect("the usage binary");
    let font = b"DejaVu Sans";
    assert!(!binary.windows(font.len()).any(|w| w == font));
}
