//! Canvas pages to a PDF object tree: each face is subset to the glyphs the
//! invoice uses and embedded (Type0/CIDFontType2 with ToUnicode, by
//! printpdf), and every item becomes content-stream operators.

use std::collections::{BTreeMap, BTreeSet};

use allsorts::binary::read::ReadScope;
use allsorts::font_data::FontData;
use allsorts::subset::{CmapTarget, SubsetProfile, subset};
use printpdf::{
    Color, FontId, Line, LinePoint, Mm, Op, PaintMode, ParsedFont, PdfDocument, PdfFont,
    PdfFontHandle, PdfPage, PdfSaveOptions, Point, Polygon, PolygonRing, Pt, Rect, TextItem,
    TextMatrix, WindingOrder,
};
use sha2::{Digest, Sha256};

use super::canvas::{Face, Item, MM_PER_PT, PAGE_HEIGHT, PAGE_WIDTH, Page, Rgb};

/// The pages as a PDF without document metadata.
pub fn document(pages: &[Page]) -> lopdf::Document {
    let mut pdf = PdfDocument::new("");
    for (face, chars) in used_chars(pages) {
        pdf.resources
            .fonts
            .map
            .insert(font_id(face), PdfFont::new(subset_face(face, &chars)));
    }
    pdf.pages = pages
        .iter()
        .map(|page| PdfPage::new(Mm(PAGE_WIDTH), Mm(PAGE_HEIGHT), operators(page)))
        .collect();
    let mut warnings = Vec::new();
    let doc = pdf.to_lopdf_document(&PdfSaveOptions::default(), &mut warnings);
    debug_assert!(warnings.is_empty(), "printpdf: {warnings:?}");
    doc
}

fn font_id(face: Face) -> FontId {
    FontId(
        match face {
            Face::Regular => "F1",
            Face::Bold => "F2",
        }
        .to_string(),
    )
}

fn used_chars(pages: &[Page]) -> BTreeMap<Face, BTreeSet<char>> {
    let mut used: BTreeMap<Face, BTreeSet<char>> = BTreeMap::new();
    for item in pages.iter().flat_map(|page| &page.items) {
        if let Item::Text { style, text, .. } = item {
            used.entry(style.face).or_default().extend(text.chars());
        }
    }
    used
}

/// The face cut down to `chars`, renamed with a subset tag derived from them.
fn subset_face(face: Face, chars: &BTreeSet<char>) -> ParsedFont {
    let full = face.font();
    let glyphs: BTreeSet<u16> = chars
        .iter()
        .filter_map(|&c| full.lookup_glyph_index(u32::from(c)))
        .chain([0])
        .collect();
    let ids: Vec<u16> = glyphs.into_iter().collect();
    let source = full.original_bytes.as_slice();
    let font_data = ReadScope::new(source)
        .read::<FontData<'_>>()
        .expect("the vendored font reads");
    let provider = font_data
        .table_provider(0)
        .expect("the vendored font has one face");
    let bytes = subset(&provider, &ids, &SubsetProfile::Pdf, CmapTarget::Unicode)
        .expect("the vendored font subsets");
    let mut font =
        ParsedFont::from_bytes(&bytes, 0, &mut Vec::new()).expect("the font subset parses");
    font.font_name = Some(format!("{}+{}", tag(&ids), face.postscript_name()));
    font
}

/// Six capital letters that name this glyph set (ISO 32000-1, 9.6.4).
fn tag(ids: &[u16]) -> String {
    let digest = Sha256::digest(
        ids.iter()
            .flat_map(|id| id.to_be_bytes())
            .collect::<Vec<u8>>(),
    );
    digest[..6]
        .iter()
        .map(|b| char::from(b'A' + b % 26))
        .collect()
}

fn operators(page: &Page) -> Vec<Op> {
    page.items.iter().flat_map(item_operators).collect()
}

fn item_operators(item: &Item) -> Vec<Op> {
    match item {
        Item::Text {
            x,
            y,
            angle,
            style,
            text,
        } => vec![
            Op::StartTextSection,
            Op::SetFont {
                font: PdfFontHandle::External(font_id(style.face)),
                size: Pt(style.size),
            },
            Op::SetFillColor {
                col: color(style.color),
            },
            Op::SetTextMatrix {
                matrix: text_matrix(*x, *y, *angle),
            },
            Op::ShowText {
                items: vec![TextItem::Text(text.clone())],
            },
            Op::EndTextSection,
        ],
        Item::Fill {
            x,
            y,
            w,
            h,
            color: c,
        } => vec![
            Op::SetFillColor { col: color(*c) },
            Op::DrawRectangle {
                rectangle: rect(*x, *y, *w, *h, PaintMode::Fill),
            },
        ],
        Item::Frame {
            x,
            y,
            w,
            h,
            color: c,
            thickness,
        } => vec![
            Op::SetOutlineColor { col: color(*c) },
            Op::SetOutlineThickness { pt: Pt(*thickness) },
            Op::DrawRectangle {
                rectangle: rect(*x, *y, *w, *h, PaintMode::Stroke),
            },
        ],
        Item::Rule {
            x1,
            x2,
            y,
            color: c,
            thickness,
        } => vec![
            Op::SetOutlineColor { col: color(*c) },
            Op::SetOutlineThickness { pt: Pt(*thickness) },
            Op::DrawLine {
                line: Line {
                    points: vec![point(*x1, *y), point(*x2, *y)],
                    is_closed: false,
                },
            },
        ],
        Item::Squares(squares) => vec![
            Op::SetFillColor {
                col: color(Rgb(0.0, 0.0, 0.0)),
            },
            Op::DrawPolygon {
                polygon: Polygon {
                    rings: squares.iter().map(square).collect(),
                    mode: PaintMode::Fill,
                    winding_order: WindingOrder::NonZero,
                },
            },
        ],
    }
}

/// An exact identity rotation for upright text: printpdf's rotation of 0°
/// leaves a skew of 1e-7 that text extractors take for diagonal text.
fn text_matrix(x: f32, y: f32, angle: f32) -> TextMatrix {
    if angle == 0.0 {
        TextMatrix::Translate(pt(x), pt(PAGE_HEIGHT - y))
    } else {
        TextMatrix::TranslateRotate(pt(x), pt(PAGE_HEIGHT - y), angle)
    }
}

fn pt(mm: f32) -> Pt {
    Pt(mm / MM_PER_PT)
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

/// `x`, `y`: the top-left corner.
fn rect(x: f32, y: f32, w: f32, h: f32, mode: PaintMode) -> Rect {
    Rect {
        mode: Some(mode),
        ..Rect::from_xywh(pt(x), pt(PAGE_HEIGHT - y - h), pt(w), pt(h))
    }
}

fn square(&[x, y, w, h]: &[f32; 4]) -> PolygonRing {
    PolygonRing {
        points: vec![
            point(x, y),
            point(x + w, y),
            point(x + w, y + h),
            point(x, y + h),
        ],
    }
}

fn color(Rgb(r, g, b): Rgb) -> Color {
    Color::Rgb(printpdf::Rgb {
        r,
        g,
        b,
        icc_profile: None,
    })
}
