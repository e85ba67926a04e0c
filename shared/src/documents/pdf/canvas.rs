//! What a page shows, in millimetres from the top-left corner, before it
//! becomes PDF: text runs in the embedded DejaVu Sans, filled and stroked
//! boxes, rules and the QR modules. Text is measured here with the fonts'
//! own advance widths, so columns can be right-aligned and long text wrapped.

use std::sync::LazyLock;

use printpdf::ParsedFont;

pub const PAGE_WIDTH: f32 = 210.0;
pub const PAGE_HEIGHT: f32 = 297.0;
pub const MM_PER_PT: f32 = 25.4 / 72.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Face {
    Regular,
    Bold,
}

static REGULAR: LazyLock<ParsedFont> =
    LazyLock::new(|| parse(include_bytes!("../../../assets/fonts/DejaVuSans.ttf")));
static BOLD: LazyLock<ParsedFont> =
    LazyLock::new(|| parse(include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf")));

fn parse(bytes: &[u8]) -> ParsedFont {
    ParsedFont::from_bytes(bytes, 0, &mut Vec::new()).expect("the vendored font parses")
}

impl Face {
    /// The whole font, as vendored.
    pub fn font(self) -> &'static ParsedFont {
        match self {
            Face::Regular => &REGULAR,
            Face::Bold => &BOLD,
        }
    }

    pub fn postscript_name(self) -> &'static str {
        match self {
            Face::Regular => "DejaVuSans",
            Face::Bold => "DejaVuSans-Bold",
        }
    }

    fn glyph(self, c: char) -> Option<u16> {
        self.font()
            .lookup_glyph_index(u32::from(c))
            .filter(|&gid| gid != 0)
    }

    /// `text` with whitespace as plain spaces and characters the font lacks as `?`.
    pub fn printable(self, text: &str) -> String {
        text.chars()
            .map(|c| match c {
                c if c.is_whitespace() => ' ',
                c if self.glyph(c).is_some() => c,
                _ => '?',
            })
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgb(pub f32, pub f32, pub f32);

impl Rgb {
    pub const fn hex(rgb: u32) -> Rgb {
        Rgb(
            ((rgb >> 16) & 0xFF) as f32 / 255.0,
            ((rgb >> 8) & 0xFF) as f32 / 255.0,
            (rgb & 0xFF) as f32 / 255.0,
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    pub face: Face,
    /// Font size in points.
    pub size: f32,
    pub color: Rgb,
}

impl Style {
    pub const fn new(face: Face, size: f32, color: Rgb) -> Style {
        Style { face, size, color }
    }

    pub fn bold(self) -> Style {
        Style {
            face: Face::Bold,
            ..self
        }
    }

    pub fn colored(self, color: Rgb) -> Style {
        Style { color, ..self }
    }

    pub fn sized(self, size: f32) -> Style {
        Style { size, ..self }
    }

    /// This style, smaller if need be for `text` to fit in `width`.
    pub fn fit(self, text: &str, width: f32) -> Style {
        self.sized(self.size.min(self.size * width / self.width(text)))
    }

    /// Baseline-to-baseline distance in millimetres.
    pub fn leading(self) -> f32 {
        self.size * 1.3 * MM_PER_PT
    }

    /// Width of `text` in millimetres.
    pub fn width(self, text: &str) -> f32 {
        let font = self.face.font();
        let units: u32 = self
            .face
            .printable(text)
            .chars()
            .filter_map(|c| self.face.glyph(c))
            .filter_map(|gid| font.get_glyph_width(gid))
            .map(u32::from)
            .sum();
        units as f32 / f32::from(font.units_per_em) * self.size * MM_PER_PT
    }

    /// `text` broken into lines no wider than `width`, at spaces where it can
    /// and inside a word only when the word alone is too wide.
    pub fn wrap(self, text: &str, width: f32) -> Vec<String> {
        let mut lines = Vec::new();
        for paragraph in text.lines() {
            let mut line = String::new();
            for word in paragraph.split_whitespace() {
                let candidate = if line.is_empty() {
                    word.to_string()
                } else {
                    format!("{line} {word}")
                };
                if self.width(&candidate) <= width {
                    line = candidate;
                    continue;
                }
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                line = self.split_long(word, width, &mut lines);
            }
            lines.push(line);
        }
        lines
    }

    /// Pushes the full-width pieces of `word` and returns what is left of it.
    fn split_long(self, word: &str, width: f32, lines: &mut Vec<String>) -> String {
        let mut piece = String::new();
        for c in word.chars() {
            piece.push(c);
            if self.width(&piece) > width && piece.chars().count() > 1 {
                piece.pop();
                lines.push(std::mem::replace(&mut piece, c.to_string()));
            }
        }
        piece
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `x`, `y`: the start of the baseline; `angle` in degrees, counter-clockwise.
    Text {
        x: f32,
        y: f32,
        angle: f32,
        style: Style,
        text: String,
    },
    Fill {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        color: Rgb,
    },
    Frame {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        color: Rgb,
        thickness: f32,
    },
    Rule {
        x1: f32,
        x2: f32,
        y: f32,
        color: Rgb,
        thickness: f32,
    },
    /// Black squares `[x, y, w, h]` filled as one path (the QR code).
    Squares(Vec<[f32; 4]>),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page {
    pub items: Vec<Item>,
}

impl Page {
    pub fn text(&mut self, x: f32, y: f32, style: Style, text: &str) {
        self.rotated(x, y, 0.0, style, text);
    }

    pub fn text_right(&mut self, right: f32, y: f32, style: Style, text: &str) {
        self.text(right - style.width(text), y, style, text);
    }

    pub fn rotated(&mut self, x: f32, y: f32, angle: f32, style: Style, text: &str) {
        self.items.push(Item::Text {
            x,
            y,
            angle,
            style,
            text: style.face.printable(text),
        });
    }

    /// Lines one below the other from baseline `y`; returns the baseline after the last.
    pub fn paragraph(&mut self, x: f32, y: f32, style: Style, lines: &[String]) -> f32 {
        let mut y = y;
        for line in lines {
            self.text(x, y, style, line);
            y += style.leading();
        }
        y
    }

    pub fn fill(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb) {
        self.items.push(Item::Fill { x, y, w, h, color });
    }

    pub fn frame(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb, thickness: f32) {
        self.items.push(Item::Frame {
            x,
            y,
            w,
            h,
            color,
            thickness,
        });
    }

    pub fn rule(&mut self, x1: f32, x2: f32, y: f32, color: Rgb, thickness: f32) {
        self.items.push(Item::Rule {
            x1,
            x2,
            y,
            color,
            thickness,
        });
    }

    pub fn squares(&mut self, squares: Vec<[f32; 4]>) {
        self.items.push(Item::Squares(squares));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: Style = Style::new(Face::Regular, 10.0, Rgb(0.0, 0.0, 0.0));

    #[test]
    fn spanish_letters_have_glyphs() {
        for face in [Face::Regular, Face::Bold] {
            assert_eq!(face.printable("ñÑáéíóúüÜ€ºª·–"), "ñÑáéíóúüÜ€ºª·–");
            assert_eq!(face.printable("a\tb\u{4E2D}"), "a b?");
        }
    }

    #[test]
    fn text_wraps_at_spaces_and_inside_overlong_words() {
        let width = BODY.width("Diseño de");
        assert_eq!(
            BODY.wrap("Diseño de logotipo", width),
            ["Diseño de", "logotipo"]
        );
        let long = BODY.wrap("ABCDEFGHIJKLMNOPQRSTUVWXYZ", width);
        assert!(long.len() > 1 && long.iter().all(|l| BODY.width(l) <= width));
        assert_eq!(long.concat(), "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        assert_eq!(BODY.wrap("uno\ndos", 100.0), ["uno", "dos"]);
    }
}
