//! The text layer of one PDF page with positions: a small content-stream
//! interpreter (text state, text and graphics matrices) that places every
//! glyph on the page, then groups glyphs into words in content order, so rows
//! keep the order the generator drew them in.
//!
//! Each code's text comes from `super::fonts`. Widths come from the font
//! (`/Widths`, or `/W` and `/DW` of a CID font);
//! the standard 14 fonts carry none, so half an em stands in for them, which
//! only blurs positions inside a run drawn by one operator. Form XObjects
//! (templates some generators draw headers and footers with) are followed
//! `MAX_FORM_DEPTH` deep, their content counted in the page's
//! `MAX_CONTENT_BYTES`. Page rotation is ignored: positions are on the
//! unrotated page.

use std::collections::HashMap;
use std::rc::Rc;

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};

use super::fonts::{FontCache, FontText};
use crate::extraction::layout::Word;

/// Most glyphs read per page: an invoice page holds a few thousand.
pub const MAX_GLYPHS_PER_PAGE: usize = 100_000;
/// Most content bytes (decompressed) read per page.
pub const MAX_CONTENT_BYTES: usize = 16 << 20;
/// Deepest `q` nesting followed.
const MAX_GRAPHICS_DEPTH: usize = 64;
/// Deepest nesting of form XObjects followed.
const MAX_FORM_DEPTH: usize = 8;
/// Entries read from a CID font's `/W` array.
const MAX_WIDTH_ENTRIES: usize = 65_536;
/// Width of a glyph whose font gives none, in thousandths of an em.
const DEFAULT_WIDTH: f32 = 500.0;

/// A glyph placed on the page: baseline origin and advance in points, page
/// space (origin bottom-left), with its text and font size.
#[derive(Clone, Debug, PartialEq)]
pub struct Glyph {
    pub text: String,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub size: f32,
    /// The baseline's direction, a unit vector: `[1, 0]` for level text.
    pub dir: [f32; 2],
}

/// What one page's content stream drew. A code no map turns into text
/// reads as U+FFFD.
#[derive(Debug, Default)]
pub struct PageText {
    pub glyphs: Vec<Glyph>,
}

#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("the page content is larger than {MAX_CONTENT_BYTES} bytes decompressed")]
    TooLarge,
}

/// Reads the glyphs a page draws. A content stream that does not parse gives
/// no glyphs; only a decompression beyond the limit is an error.
pub fn page_text(
    doc: &Document,
    page: ObjectId,
    cache: &mut FontCache,
) -> Result<PageText, PageError> {
    let content = match doc.get_page_content_with_limit(page, MAX_CONTENT_BYTES) {
        Ok(content) => content,
        Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. })) => {
            return Err(PageError::TooLarge);
        }
        Err(_) => return Ok(PageText::default()),
    };
    let content_len = content.len();
    let Ok(content) = Content::decode(&content) else {
        return Ok(PageText::default());
    };
    let fonts: Fonts = doc
        .get_page_fonts(page)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, dict)| (name, Rc::new(Font::load(doc, dict, cache))))
        .collect();
    let (direct, inherited) = doc.get_page_resources(page).unwrap_or_default();
    let resources: Vec<&Dictionary> = direct
        .into_iter()
        .chain(
            inherited
                .iter()
                .filter_map(|id| doc.get_dictionary(*id).ok()),
        )
        .collect();
    let forms = Forms {
        doc,
        cache,
        depth: 0,
        budget: MAX_CONTENT_BYTES.saturating_sub(content_len),
    };
    let mut interpreter = Interpreter::new(Rc::new(fonts), Some(forms));
    interpreter.xobjects = Rc::new(form_xobjects(doc, &resources));
    Ok(interpreter.run(&content.operations))
}

type Fonts = HashMap<Vec<u8>, Rc<Font>>;
type XObjects<'d> = HashMap<Vec<u8>, &'d lopdf::Stream>;

/// The form XObjects named in resource dictionaries (the first naming wins).
fn form_xobjects<'d>(doc: &'d Document, resources: &[&'d Dictionary]) -> XObjects<'d> {
    let mut forms = HashMap::new();
    for dict in resources {
        let Some(xobjects) = dict
            .get(b"XObject")
            .ok()
            .and_then(|o| resolve(doc, o)?.as_dict().ok())
        else {
            continue;
        };
        for (name, object) in xobjects {
            if let Some(stream) = resolve(doc, object).and_then(|o| o.as_stream().ok())
                && stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Form")
            {
                forms.entry(name.clone()).or_insert(stream);
            }
        }
    }
    forms
}

/// What following form XObjects needs: the document, its fonts, and what is
/// left of the page's content budget (forms beyond it are not read).
struct Forms<'d, 'c> {
    doc: &'d Document,
    cache: &'c mut FontCache,
    depth: usize,
    budget: usize,
}

struct Font {
    text: Rc<FontText>,
    widths: Widths,
}

enum Widths {
    Simple {
        first: i64,
        widths: Vec<f32>,
        missing: f32,
    },
    Cid {
        default: f32,
        widths: HashMap<u32, f32>,
    },
}

impl Font {
    fn load(doc: &Document, dict: &Dictionary, cache: &mut FontCache) -> Self {
        let text = cache.get(doc, dict);
        let widths = if text.two_byte() {
            cid_widths(doc, dict)
        } else {
            simple_widths(doc, dict)
        };
        Font { text, widths }
    }

    fn width(&self, code: u32) -> f32 {
        match &self.widths {
            Widths::Simple {
                first,
                widths,
                missing,
            } => usize::try_from(i64::from(code) - first)
                .ok()
                .and_then(|i| widths.get(i).copied())
                .unwrap_or(*missing),
            Widths::Cid { default, widths } => widths.get(&code).copied().unwrap_or(*default),
        }
    }

    fn decode(&self, code: u32) -> String {
        self.text.text(code).unwrap_or_else(|| "\u{FFFD}".into())
    }
}

fn resolve<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

fn number(doc: &Document, object: &Object) -> Option<f32> {
    resolve(doc, object)?.as_float().ok()
}

fn simple_widths(doc: &Document, dict: &Dictionary) -> Widths {
    let first = dict
        .get(b"FirstChar")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_i64().ok())
        .unwrap_or(0);
    let widths = dict
        .get(b"Widths")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_array().ok())
        .map(|a| {
            a.iter()
                .take(256)
                .map(|w| number(doc, w).unwrap_or(DEFAULT_WIDTH))
                .collect()
        })
        .unwrap_or_default();
    let missing = dict
        .get(b"FontDescriptor")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_dict().ok())
        .and_then(|d| number(doc, d.get(b"MissingWidth").ok()?))
        .filter(|w| *w > 0.0)
        .unwrap_or(DEFAULT_WIDTH);
    Widths::Simple {
        first,
        widths,
        missing,
    }
}

fn cid_widths(doc: &Document, dict: &Dictionary) -> Widths {
    let descendant = dict
        .get(b"DescendantFonts")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_array().ok()?.first())
        .and_then(|o| resolve(doc, o)?.as_dict().ok());
    let default = descendant
        .and_then(|d| number(doc, d.get(b"DW").ok()?))
        .unwrap_or(1000.0);
    let mut widths = HashMap::new();
    let w = descendant
        .and_then(|d| resolve(doc, d.get(b"W").ok()?)?.as_array().ok())
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut i = 0;
    while i + 1 < w.len() && widths.len() < MAX_WIDTH_ENTRIES {
        let Some(start) = number(doc, &w[i]).map(|n| n as u32) else {
            break;
        };
        match resolve(doc, &w[i + 1]) {
            Some(Object::Array(list)) => {
                for (k, width) in list.iter().take(MAX_WIDTH_ENTRIES).enumerate() {
                    if let Some(width) = number(doc, width) {
                        widths.insert(start.saturating_add(k as u32), width);
                    }
                }
                i += 2;
            }
            Some(end) => {
                let (Some(end), Some(width)) = (
                    end.as_float().ok().map(|n| n as u32),
                    w.get(i + 2).and_then(|o| number(doc, o)),
                ) else {
                    break;
                };
                let last = end.min(start.saturating_add(MAX_WIDTH_ENTRIES as u32));
                for code in start..=last {
                    widths.insert(code, width);
                }
                i += 3;
            }
            None => break,
        }
    }
    Widths::Cid { default, widths }
}

pub(super) type Matrix = [f32; 6];

pub(super) const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `a` then `b`: the PDF convention for `a × b`.
pub(super) fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

fn translate(tx: f32, ty: f32) -> Matrix {
    [1.0, 0.0, 0.0, 1.0, tx, ty]
}

#[derive(Clone)]
struct State {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    size: f32,
    char_spacing: f32,
    word_spacing: f32,
    scale: f32,
    leading: f32,
    rise: f32,
}

struct Interpreter<'d, 'c> {
    fonts: Rc<Fonts>,
    xobjects: Rc<XObjects<'d>>,
    forms: Option<Forms<'d, 'c>>,
    state: State,
    saved: Vec<State>,
    tm: Matrix,
    tlm: Matrix,
    out: PageText,
}

impl<'d, 'c> Interpreter<'d, 'c> {
    fn new(fonts: Rc<Fonts>, forms: Option<Forms<'d, 'c>>) -> Self {
        Interpreter {
            fonts,
            xobjects: Rc::new(HashMap::new()),
            forms,
            state: State {
                ctm: IDENTITY,
                font: None,
                size: 0.0,
                char_spacing: 0.0,
                word_spacing: 0.0,
                scale: 1.0,
                leading: 0.0,
                rise: 0.0,
            },
            saved: Vec::new(),
            tm: IDENTITY,
            tlm: IDENTITY,
            out: PageText::default(),
        }
    }

    fn run(mut self, operations: &[lopdf::content::Operation]) -> PageText {
        self.steps(operations);
        self.out
    }

    fn steps(&mut self, operations: &[lopdf::content::Operation]) {
        for op in operations {
            if self.out.glyphs.len() >= MAX_GLYPHS_PER_PAGE {
                break;
            }
            self.step(op);
        }
    }

    /// Draws a form XObject: its content in its own resources (or the
    /// current ones), under its `/Matrix`, with the graphics state restored
    /// after.
    fn form(&mut self, name: &[u8]) {
        let Some(&stream) = self.xobjects.get(name) else {
            return;
        };
        let Some(forms) = self.forms.as_mut().filter(|f| f.depth < MAX_FORM_DEPTH) else {
            return;
        };
        let content = match stream.get_plain_content_with_limit(forms.budget) {
            Ok(content) => content,
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => {
                forms.budget = 0;
                return;
            }
            Err(_) => return,
        };
        forms.budget -= content.len();
        let Ok(content) = Content::decode(&content) else {
            return;
        };
        let doc = forms.doc;
        let resources = stream
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|o| resolve(doc, o)?.as_dict().ok());
        let outer = (self.fonts.clone(), self.xobjects.clone());
        if let Some(resources) = resources {
            let fonts: Fonts = resources
                .get(b"Font")
                .ok()
                .and_then(|o| resolve(doc, o)?.as_dict().ok())
                .into_iter()
                .flatten()
                .filter_map(|(name, font)| {
                    let font = resolve(doc, font)?.as_dict().ok()?;
                    Some((name.clone(), Rc::new(Font::load(doc, font, forms.cache))))
                })
                .collect();
            self.fonts = Rc::new(fonts);
            self.xobjects = Rc::new(form_xobjects(doc, &[resources]));
        }
        forms.depth += 1;
        let matrix = stream
            .dict
            .get(b"Matrix")
            .ok()
            .and_then(|o| resolve(doc, o)?.as_array().ok())
            .and_then(|a| {
                let n: Vec<f32> = a.iter().filter_map(|o| o.as_float().ok()).collect();
                <[f32; 6]>::try_from(n).ok()
            })
            .unwrap_or(IDENTITY);
        let (state, saved, tm, tlm) = (
            self.state.clone(),
            std::mem::take(&mut self.saved),
            self.tm,
            self.tlm,
        );
        self.state.ctm = multiply(&matrix, &self.state.ctm);
        self.steps(&content.operations);
        (self.state, self.saved, self.tm, self.tlm) = (state, saved, tm, tlm);
        (self.fonts, self.xobjects) = outer;
        if let Some(forms) = self.forms.as_mut() {
            forms.depth -= 1;
        }
    }

    fn step(&mut self, op: &lopdf::content::Operation) {
        let nums: Vec<f32> = op
            .operands
            .iter()
            .filter_map(|o| o.as_float().ok())
            .collect();
        let n = |i: usize| nums.get(i).copied().unwrap_or(0.0);
        match op.operator.as_str() {
            "q" if self.saved.len() < MAX_GRAPHICS_DEPTH => self.saved.push(self.state.clone()),
            "Q" => {
                if let Some(state) = self.saved.pop() {
                    self.state = state;
                }
            }
            "cm" if nums.len() == 6 => {
                self.state.ctm = multiply(&[n(0), n(1), n(2), n(3), n(4), n(5)], &self.state.ctm)
            }
            "BT" => {
                self.tm = IDENTITY;
                self.tlm = IDENTITY;
            }
            "Do" => {
                if let Some(name) = op.operands.first().and_then(|o| o.as_name().ok()) {
                    self.form(name);
                }
            }
            "Tf" => {
                self.state.font = op
                    .operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .and_then(|name| self.fonts.get(name).cloned());
                self.state.size = n(0);
            }
            "Tc" => self.state.char_spacing = n(0),
            "Tw" => self.state.word_spacing = n(0),
            "Tz" => self.state.scale = n(0) / 100.0,
            "TL" => self.state.leading = n(0),
            "Ts" => self.state.rise = n(0),
            "Td" => self.next_line(n(0), n(1)),
            "TD" => {
                self.state.leading = -n(1);
                self.next_line(n(0), n(1));
            }
            "Tm" if nums.len() == 6 => {
                self.tm = [n(0), n(1), n(2), n(3), n(4), n(5)];
                self.tlm = self.tm;
            }
            "T*" => self.next_line(0.0, -self.state.leading),
            "Tj" => self.show_operand(op.operands.first()),
            "'" => {
                self.next_line(0.0, -self.state.leading);
                self.show_operand(op.operands.first());
            }
            "\"" => {
                self.state.word_spacing = n(0);
                self.state.char_spacing = n(1);
                self.next_line(0.0, -self.state.leading);
                self.show_operand(op.operands.get(2));
            }
            "TJ" => {
                for item in op
                    .operands
                    .first()
                    .and_then(|o| o.as_array().ok())
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    match item.as_float() {
                        Ok(adjust) => self.advance(-adjust / 1000.0 * self.state.size),
                        Err(_) => self.show_operand(Some(item)),
                    }
                }
            }
            _ => {}
        }
    }

    fn next_line(&mut self, tx: f32, ty: f32) {
        self.tlm = multiply(&translate(tx, ty), &self.tlm);
        self.tm = self.tlm;
    }

    fn advance(&mut self, tx: f32) {
        self.tm = multiply(&translate(tx * self.state.scale, 0.0), &self.tm);
    }

    fn show_operand(&mut self, operand: Option<&Object>) {
        let Some(Object::String(bytes, _)) = operand else {
            return;
        };
        let Some(font) = self.state.font.clone() else {
            return;
        };
        let code_len = if font.text.two_byte() { 2 } else { 1 };
        for code in bytes.chunks(code_len) {
            if self.out.glyphs.len() >= MAX_GLYPHS_PER_PAGE {
                return;
            }
            let value = code.iter().fold(0u32, |v, b| v << 8 | u32::from(*b));
            let size = self.state.size;
            let trm = multiply(
                &[
                    size * self.state.scale,
                    0.0,
                    0.0,
                    size,
                    0.0,
                    self.state.rise,
                ],
                &multiply(&self.tm, &self.state.ctm),
            );
            let em = font.width(value) / 1000.0;
            let x_scale = trm[0].hypot(trm[1]);
            let dir = if x_scale > 0.0 {
                [trm[0] / x_scale, trm[1] / x_scale]
            } else {
                [1.0, 0.0]
            };
            self.out.glyphs.push(Glyph {
                text: font.decode(value),
                x: trm[4],
                y: trm[5],
                width: em * x_scale,
                size: trm[2].hypot(trm[3]),
                dir,
            });
            let spacing = if code_len == 1 && value == 32 {
                self.state.word_spacing
            } else {
                0.0
            };
            self.advance(em * size + self.state.char_spacing + spacing);
        }
    }
}

/// Groups glyphs into words: a word ends at white space, at a jump off the
/// baseline, or at a gap wider than 0.15 em (kerning stays below it; a TJ
/// adjustment standing for a space, typically 0.25 em, goes beyond). `page_box` is
/// the visible page `[x0, y0, x1, y1]` in points.
///
/// Text printed turned (the registry line many Spanish invoices print up
/// the margin) is read along its own baseline, and each of its lines is
/// placed below the page's last row, where a footer would be.
pub fn words(glyphs: &[Glyph], page: u32, page_box: [f32; 4]) -> Vec<Word> {
    let [x0, y0, x1, y1] = page_box;
    let (w, h) = ((x1 - x0).max(1.0), (y1 - y0).max(1.0));
    let frac = |v: f32| {
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let finite = |g: &&Glyph| {
        [g.x, g.y, g.width, g.size, g.dir[0], g.dir[1]]
            .iter()
            .all(|v| v.is_finite())
    };
    let (level, turned): (Vec<&Glyph>, Vec<&Glyph>) = glyphs
        .iter()
        .filter(finite)
        .partition(|g| g.dir[0] > LEVEL_COSINE);
    let mut words: Vec<Word> = runs(
        level
            .iter()
            .map(|g| (g.text.as_str(), g.x, g.y, g.width, g.size)),
    )
    .into_iter()
    .map(|r| Word {
        text: r.text,
        page,
        left: frac((r.start - x0) / w),
        top: frac((y1 - r.baseline - 0.8 * r.size) / h),
        width: frac((r.end - r.start) / w),
        height: frac(r.size / h),
        confidence: 1.0,
        line: None,
    })
    .collect();
    // Along the baseline and across it, so that turned text reads as level.
    let turned_runs = runs(turned.iter().map(|g| {
        let [dx, dy] = g.dir;
        let along = g.x * dx + g.y * dy;
        let across = g.y * dx - g.x * dy;
        (g.text.as_str(), along, across, g.width, g.size)
    }));
    let mut lines: Vec<Vec<Run>> = Vec::new();
    for run in turned_runs {
        match lines.last_mut() {
            Some(line) if (line[0].baseline - run.baseline).abs() <= 0.3 * run.size => {
                line.push(run)
            }
            _ => lines.push(vec![run]),
        }
    }
    let length = w.max(h);
    let count = lines.len().min(MAX_TURNED_LINES);
    for (k, line) in lines.into_iter().take(count).enumerate() {
        let start = line.iter().map(|r| r.start).fold(f32::INFINITY, f32::min);
        let top = 1.0 - TURNED_ROW * (count - k) as f32;
        words.extend(line.into_iter().map(|r| Word {
            text: r.text,
            page,
            left: frac((r.start - start) / length),
            top: frac(top),
            width: frac((r.end - r.start) / length),
            height: TURNED_ROW / 2.0,
            confidence: 1.0,
            line: None,
        }));
    }
    words
}

/// A baseline within about 25° of level is level text.
const LEVEL_COSINE: f32 = 0.9;
/// Lines of turned text read per page.
const MAX_TURNED_LINES: usize = 20;
/// The height, as a share of the page, of each row turned text is placed on.
const TURNED_ROW: f32 = 0.004;

/// A run of glyphs that reads as one word.
struct Run {
    text: String,
    start: f32,
    end: f32,
    baseline: f32,
    size: f32,
}

/// Glyphs `(text, x, y, advance, size)` along a baseline in drawing order,
/// grouped into words.
fn runs<'g>(glyphs: impl Iterator<Item = (&'g str, f32, f32, f32, f32)>) -> Vec<Run> {
    let mut out = Vec::new();
    let mut current: Option<Run> = None;
    for (text, x, y, width, size) in glyphs {
        let blank = text.chars().all(char::is_whitespace);
        let joins = current.as_ref().is_some_and(|r| {
            let tolerance = r.size.max(size);
            (y - r.baseline).abs() <= 0.3 * tolerance
                && x - r.end <= 0.15 * tolerance
                && x - r.end >= -0.5 * tolerance
        });
        if blank || !joins {
            out.extend(current.take());
        }
        if blank {
            continue;
        }
        match current.as_mut() {
            Some(r) => {
                r.text.push_str(text);
                r.end = r.end.max(x + width);
                r.size = r.size.max(size);
            }
            None => {
                current = Some(Run {
                    text: text.to_string(),
                    start: x,
                    end: x + width,
                    baseline: y,
                    size,
                })
            }
        }
    }
    out.extend(current);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyph(text: &str, x: f32, y: f32) -> Glyph {
        Glyph {
            text: text.into(),
            x,
            y,
            width: 6.0,
            size: 12.0,
            dir: [1.0, 0.0],
        }
    }

    #[test]
    fn text_printed_up_the_margin_reads_as_a_line_below_the_page() {
        // "CIF A1" drawn upwards at x = 20, beside a level word.
        let up = |text: &str, y: f32| Glyph {
            dir: [0.0, 1.0],
            ..glyph(text, 20.0, y)
        };
        let glyphs = [
            up("C", 100.0),
            up("I", 106.0),
            up("F", 112.0),
            up(" ", 118.0),
            up("A", 124.0),
            up("1", 130.0),
            glyph("Total", 100.0, 700.0),
        ];
        let words = words(&glyphs, 1, [0.0, 0.0, 600.0, 800.0]);
        let texts: Vec<_> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Total", "CIF", "A1"]);
        assert!(words[1].top > 0.99 && words[1].top == words[2].top);
        assert!(words[1].left < words[2].left);
    }

    #[test]
    fn glyphs_become_words_in_drawing_order() {
        let glyphs = [
            glyph("B", 100.0, 700.0),
            glyph("a", 106.0, 700.0),
            glyph(" ", 112.0, 700.0),
            glyph("1", 300.0, 700.0),
            glyph("0", 306.0, 700.0),
            glyph("T", 100.0, 680.0),
        ];
        let words = words(&glyphs, 2, [0.0, 0.0, 600.0, 800.0]);
        let texts: Vec<_> = words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Ba", "10", "T"]);
        let ba = &words[0];
        assert_eq!(ba.page, 2);
        assert!((ba.left - 100.0 / 600.0).abs() < 1e-6);
        assert!((ba.width - 12.0 / 600.0).abs() < 1e-6);
        assert!((ba.top - (800.0 - 700.0 - 9.6) / 800.0).abs() < 1e-6);
        assert!((ba.height - 12.0 / 800.0).abs() < 1e-6);
        assert!(words[2].top > ba.top);
    }

    #[test]
    fn a_wide_gap_or_a_new_baseline_splits_a_word() {
        let glyphs = [
            glyph("A", 0.0, 10.0),
            glyph("B", 6.0 + 1.9, 10.0),
            glyph("C", 13.9, 30.0),
        ];
        assert_eq!(words(&glyphs, 1, [0.0, 0.0, 100.0, 100.0]).len(), 3);
    }

    #[test]
    fn the_interpreter_follows_text_and_graphics_matrices() {
        let mut interpreter = Interpreter::new(Rc::default(), None);
        let ops = Content::decode(b"q 2 0 0 2 10 20 cm BT 1 0 0 1 5 6 Tm 0 -10 Td").unwrap();
        for op in &ops.operations {
            interpreter.step(op);
        }
        assert_eq!(interpreter.tm, [1.0, 0.0, 0.0, 1.0, 5.0, -4.0]);
        assert_eq!(interpreter.state.ctm, [2.0, 0.0, 0.0, 2.0, 10.0, 20.0]);
    }
}
