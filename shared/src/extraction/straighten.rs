//! OCR words straightened into the page's frame: on a page photographed
//! askew the words of one printed row climb or fall across it, and rows
//! built from word positions break apart. The skew is the angle at which
//! most pairs of words far enough apart line up, within a quarter of a
//! word's height; every word box is then turned about the page's centre by
//! the opposite angle and shrunk back to the box of the upright word.
//!
//! Coordinates are fractions of the page's width and height; angles are
//! measured as if the page were an A4 sheet (height √2 times the width): a
//! phone photo (4:3) is close, and at a few degrees a wrong aspect only
//! moves words by a fraction of a glyph.

use crate::extraction::layout::{TextDocument, Word};

/// Angles searched either way, in degrees, and the step.
const MAX_DEGREES: f32 = 6.0;
const STEP_DEGREES: f32 = 0.05;
/// A smaller skew is left alone: rows already hold together.
const MIN_DEGREES: f32 = 0.1;
/// Pairs of words closer than this many word heights say nothing of the angle.
const MIN_PAIR_HEIGHTS: f32 = 3.0;
/// Two words line up when their centres differ by less than this share of
/// a word's height; the closer, the more the pair counts.
const ALIGNED: f32 = 0.25;
/// The most words per page weighed (pairs grow with the square).
const MAX_WORDS: usize = 1_500;
/// Height over width of the page the angles are measured on.
const ASPECT: f32 = std::f32::consts::SQRT_2;

impl TextDocument {
    /// The document with each page's words turned level (see the module).
    pub fn straightened(mut self) -> TextDocument {
        let mut pages: Vec<u32> = self.words.iter().map(|w| w.page).collect();
        pages.sort_unstable();
        pages.dedup();
        for page in pages {
            let angle = skew(self.words.iter().filter(|w| w.page == page));
            if angle.to_degrees().abs() >= MIN_DEGREES {
                for word in self.words.iter_mut().filter(|w| w.page == page) {
                    level(word, angle);
                }
            }
        }
        self
    }
}

/// A word's centre and height in page-width units.
fn centre(w: &Word) -> Option<(f32, f32, f32)> {
    let values = [w.left, w.top, w.width, w.height];
    (values.iter().all(|v| v.is_finite()) && w.height > 0.0).then(|| {
        (
            w.left + w.width / 2.0,
            (w.top + w.height / 2.0) * ASPECT,
            w.height * ASPECT,
        )
    })
}

/// The angle (radians, positive falling to the right) at which most pairs
/// of `words` line up; 0 when nothing lines up.
fn skew<'a>(words: impl Iterator<Item = &'a Word>) -> f32 {
    let centres: Vec<(f32, f32, f32)> = words.filter_map(centre).take(MAX_WORDS).collect();
    let mut heights: Vec<f32> = centres.iter().map(|c| c.2).collect();
    heights.sort_by(f32::total_cmp);
    let Some(&height) = heights.get(heights.len() / 2) else {
        return 0.0;
    };
    let reach = MAX_DEGREES.to_radians().tan();
    let mut pairs = Vec::new();
    for (i, a) in centres.iter().enumerate() {
        for b in &centres[i + 1..] {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            if dx.abs() >= MIN_PAIR_HEIGHTS * height && dy.abs() <= dx.abs() * reach + height {
                pairs.push((dx, dy));
            }
        }
    }
    let steps = (MAX_DEGREES / STEP_DEGREES) as i32;
    let tolerance = ALIGNED * height;
    let (best, count) = (-steps..=steps)
        .map(|i| {
            let slope = (i as f32 * STEP_DEGREES).to_radians().tan();
            let aligned: f32 = pairs
                .iter()
                .map(|(dx, dy)| (1.0 - (dy - dx * slope).abs() / tolerance).max(0.0))
                .sum();
            (i, aligned)
        })
        .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    if count == 0.0 {
        return 0.0;
    }
    (best as f32 * STEP_DEGREES).to_radians()
}

/// `word` turned by `-angle` about the page's centre, its box the upright word's.
fn level(word: &mut Word, angle: f32) {
    let Some((x, y, _)) = centre(word) else {
        return;
    };
    let (sin, cos) = angle.sin_cos();
    let (dx, dy) = (x - 0.5, y - ASPECT / 2.0);
    let x = 0.5 + cos * dx + sin * dy;
    let y = ASPECT / 2.0 - sin * dx + cos * dy;
    // The box of a w × h word turned by the angle is (w cos + h sin) × (w sin + h cos).
    let (box_w, box_h) = (word.width, word.height * ASPECT);
    let (s, c) = (sin.abs(), cos);
    let det = c * c - s * s;
    let (w, h) = ((box_w * c - box_h * s) / det, (box_h * c - box_w * s) / det);
    let (w, h) = if w > 0.0 && h > 0.0 {
        (w, h)
    } else {
        (box_w, box_h)
    };
    word.width = w.clamp(0.0, 1.0);
    word.height = (h / ASPECT).clamp(0.0, 1.0);
    word.left = (x - w / 2.0).clamp(0.0, 1.0);
    word.top = (y / ASPECT - word.height / 2.0).clamp(0.0, 1.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of words laid out level, then the page turned by `degrees`
    /// (each word's box the box of the turned word).
    fn turned_page(degrees: f32) -> TextDocument {
        let (sin, cos) = degrees.to_radians().sin_cos();
        let mut words = Vec::new();
        for row in 0..12 {
            for column in 0..5 {
                let (w, h) = (0.09, 0.012);
                let (x, y) = (
                    0.1 + column as f32 * 0.17 + w / 2.0,
                    (0.1 + row as f32 * 0.06 + h / 2.0) * ASPECT,
                );
                let (dx, dy) = (x - 0.5, y - ASPECT / 2.0);
                let (x, y) = (
                    0.5 + cos * dx - sin * dy,
                    ASPECT / 2.0 + sin * dx + cos * dy,
                );
                let (box_w, box_h) = (
                    w * cos + h * ASPECT * sin.abs(),
                    w * sin.abs() + h * ASPECT * cos,
                );
                words.push(Word {
                    text: format!("r{row}c{column}"),
                    page: 1,
                    left: x - box_w / 2.0,
                    top: (y - box_h / 2.0) / ASPECT,
                    width: box_w,
                    height: box_h / ASPECT,
                    confidence: 0.9,
                    line: None,
                });
            }
        }
        TextDocument {
            words,
            ..TextDocument::default()
        }
    }

    /// Whether every row's words have their centres within half a word's height.
    fn rows_hold_together(doc: &TextDocument) -> bool {
        (0..12).all(|row| {
            let centres: Vec<f32> = doc
                .words
                .iter()
                .filter(|w| w.text.starts_with(&format!("r{row}c")))
                .map(|w| w.top + w.height / 2.0)
                .collect();
            let spread = centres.iter().copied().fold(f32::MIN, f32::max)
                - centres.iter().copied().fold(f32::MAX, f32::min);
            spread < 0.006
        })
    }

    #[test]
    fn the_words_of_a_turned_row_share_one_row() {
        for degrees in [-4.0, -1.5, 2.5, 4.0] {
            let doc = turned_page(degrees);
            assert!(!rows_hold_together(&doc), "{degrees}° is not skewed");
            let straight = doc.straightened();
            assert!(rows_hold_together(&straight), "{degrees}°: {straight:?}");
            let first = &straight.words[0];
            assert!((first.height - 0.012).abs() < 0.002, "{first:?}");
            assert!((first.left - 0.1).abs() < 0.01, "{first:?}");
        }
    }

    #[test]
    fn a_level_page_and_hints_are_untouched() {
        let doc = turned_page(0.0);
        assert_eq!(doc.clone().straightened(), doc);
        assert_eq!(
            TextDocument::default().straightened(),
            TextDocument::default()
        );
    }
}
