//! A page as a text PDF (standard-14 fonts, WinAnsi text, through printpdf)
//! and as plain text laid out in character columns for the `texts` field.

use printpdf::{
    BuiltinFont, Line, LinePoint, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage,
    PdfSaveOptions, Point, Pt, Rect, TextItem, TextMatrix,
};

use super::layout::{Align, Item, Page, text_width};
use super::style::Family;

const PAGE_WIDTH: f32 = 210.0;
const PAGE_HEIGHT: f32 = 297.0;

fn pt(mm: f32) -> Pt {
    Pt(mm * 72.0 / 25.4)
}

fn font(family: Family, bold: bool) -> BuiltinFont {
    match (family, bold) {
        (Family::Helvetica, false) => BuiltinFont::Helvetica,
        (Family::Helvetica, true) => BuiltinFont::HelveticaBold,
        (Family::Times, false) => BuiltinFont::TimesRoman,
        (Family::Times, true) => BuiltinFont::TimesBold,
        (Family::Courier, false) => BuiltinFont::Courier,
        (Family::Courier, true) => BuiltinFont::CourierBold,
    }
}

/// The left edge of a text item.
fn left(family: Family, x: f32, size: f32, align: Align, text: &str) -> f32 {
    match align {
        Align::Left => x,
        Align::Right => x - text_width(family, size, text),
    }
}

fn point(x: f32, y: f32) -> LinePoint {
    LinePoint {
        p: Point {
            x: pt(x),
            y: pt(PAGE_HEIGHT - y),
        },
        bezier: false,
    }
}

fn operators(page: &Page) -> Vec<Op> {
    let mut ops = vec![Op::SetOutlineThickness { pt: Pt(0.6) }];
    for item in &page.items {
        match item {
            Item::Text {
                x,
                y,
                size,
                bold,
                align,
                text,
            } => ops.extend([
                Op::StartTextSection,
                Op::SetFont {
                    font: PdfFontHandle::Builtin(font(page.family, *bold)),
                    size: Pt(*size),
                },
                Op::SetTextMatrix {
                    matrix: TextMatrix::Translate(
                        pt(left(page.family, *x, *size, *align, text)),
                        pt(PAGE_HEIGHT - y),
                    ),
                },
                Op::ShowText {
                    items: vec![TextItem::Text(text.clone())],
                },
                Op::EndTextSection,
            ]),
            Item::Frame { x, y, w, h } => ops.push(Op::DrawRectangle {
                rectangle: Rect {
                    mode: Some(PaintMode::Stroke),
                    ..Rect::from_xywh(pt(*x), pt(PAGE_HEIGHT - y - h), pt(*w), pt(*h))
                },
            }),
            Item::Rule { x1, x2, y } => ops.push(Op::DrawLine {
                line: Line {
                    points: vec![point(*x1, *y), point(*x2, *y)],
                    is_closed: false,
                },
            }),
        }
    }
    ops
}

/// One A4 page with a text layer; the trailer `/ID` (random in printpdf)
/// comes from `title`, so the bytes depend on the page alone.
pub fn text_pdf(page: &Page, title: &str) -> Vec<u8> {
    let mut pdf = PdfDocument::new(title);
    pdf.pages = vec![PdfPage::new(
        Mm(PAGE_WIDTH),
        Mm(PAGE_HEIGHT),
        operators(page),
    )];
    let mut doc = pdf.to_lopdf_document(&PdfSaveOptions::default(), &mut Vec::new());
    let id = lopdf::Object::string_literal(title.as_bytes().to_vec());
    doc.trailer.set("ID", vec![id.clone(), id]);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// Millimetres per character column of the plain-text rendering.
const COLUMN_MM: f32 = 1.9;

/// The page as text: one line per baseline (a blank line for a wide gap),
/// each item at the column of its position, at least one space apart.
pub fn plain_text(page: &Page) -> String {
    let mut runs: Vec<(i32, usize, &str)> = page
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Text {
                x,
                y,
                size,
                align,
                text,
                ..
            } => {
                let start = left(page.family, *x, *size, *align, text);
                Some((
                    (y * 2.0).round() as i32,
                    (start / COLUMN_MM).round() as usize,
                    text.as_str(),
                ))
            }
            _ => None,
        })
        .collect();
    runs.sort();
    let mut out = String::new();
    let mut previous: Option<i32> = None;
    let mut line = String::new();
    for (row, column, text) in runs {
        if previous != Some(row) {
            if let Some(p) = previous {
                out.push_str(line.trim_end());
                out.push('\n');
                if row - p > 16 {
                    out.push('\n');
                }
            }
            line.clear();
            previous = Some(row);
        }
        let used = line.chars().count();
        let pad = if used == 0 {
            column
        } else {
            column.saturating_sub(used).max(2)
        };
        line.extend(std::iter::repeat_n(' ', pad));
        line.push_str(text);
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}
