//! The printed part of a prepared page: a till receipt scanned on an A4
//! sheet, or photographed on another sheet of paper, fills a third of the
//! image, and OCR reads the paper's grain around it as lines of noise that
//! merge with the receipt's rows. The columns and rows that hold ink (clearly
//! darker than the paper, in a share well above the grain's) bound the print;
//! thin dark bands on the image's edges (a scanner's shadow, a table's edge)
//! are not print.

use image::GrayImage;

use super::filters::Rect;

/// Darker than this (on a page whose paper has been made white) is ink.
const INK: u8 = 170;
/// A column or row holds print when its share of ink is at least this part
/// of what the inkiest tenth of them hold.
const PRINT_SHARE: f32 = 0.15;
/// …and at least this share of its pixels.
const MIN_SHARE: f32 = 0.004;
/// A dark band touching the image's edge and at most this share of its side wide is not print.
const EDGE_BAND: f32 = 0.03;
/// Room left around the print, as a share of the side.
const MARGIN: f32 = 0.02;
/// Crops that keep more than this share of the area are not worth making.
const WORTH_IT: f32 = 0.85;
/// Pixels looked at along each side, at most (the page is sampled evenly).
const SAMPLES: u32 = 800;

/// The rectangle of `page` that holds its print, with a margin, when it is
/// clearly smaller than the page.
pub fn print_box(page: &GrayImage) -> Option<Rect> {
    let (w, h) = page.dimensions();
    let (sx, sy) = (w.div_ceil(SAMPLES).max(1), h.div_ceil(SAMPLES).max(1));
    let (cols, rows) = ((w / sx).max(1) as usize, (h / sy).max(1) as usize);
    let mut col_ink = vec![0u32; cols];
    let mut row_ink = vec![0u32; rows];
    for (r, row) in row_ink.iter_mut().enumerate() {
        for (c, col) in col_ink.iter_mut().enumerate() {
            if page.get_pixel(c as u32 * sx, r as u32 * sy)[0] < INK {
                *col += 1;
                *row += 1;
            }
        }
    }
    let (left, right) = span(&col_ink, rows)?;
    let (top, bottom) = span(&row_ink, cols)?;
    let margin = |n: usize| (n as f32 * MARGIN) as usize;
    let (left, right) = (
        left.saturating_sub(margin(cols)),
        (right + margin(cols)).min(cols - 1),
    );
    let (top, bottom) = (
        top.saturating_sub(margin(rows)),
        (bottom + margin(rows)).min(rows - 1),
    );
    let kept = ((right - left + 1) * (bottom - top + 1)) as f32 / (cols * rows) as f32;
    (kept <= WORTH_IT).then(|| {
        let left = left as u32 * sx;
        let top = top as u32 * sy;
        Rect {
            left,
            top,
            width: ((right as u32 + 1) * sx).min(w) - left,
            height: ((bottom as u32 + 1) * sy).min(h) - top,
        }
    })
}

/// The first and last index holding print, from each index's ink count out
/// of `across` pixels.
fn span(ink: &[u32], across: usize) -> Option<(usize, usize)> {
    let shares: Vec<f32> = ink.iter().map(|&n| n as f32 / across as f32).collect();
    let mut sorted = shares.clone();
    sorted.sort_by(f32::total_cmp);
    let top_tenth = sorted[sorted.len() * 9 / 10];
    let threshold = (top_tenth * PRINT_SHARE).max(MIN_SHARE);
    let mut print: Vec<bool> = shares.iter().map(|&s| s >= threshold).collect();
    let n = print.len();
    let edge = ((n as f32 * EDGE_BAND) as usize).max(1);
    for from_start in [true, false] {
        let at = |i: usize| if from_start { i } else { n - 1 - i };
        let band = (0..n).take_while(|&i| print[at(i)]).count();
        if band <= edge {
            for i in 0..band {
                print[at(i)] = false;
            }
        }
    }
    let first = print.iter().position(|&p| p)?;
    let last = print.iter().rposition(|&p| p)?;
    Some((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A white page with lines of "print" in `x0..x1`, and a dark edge on the left.
    fn receipt_on_a_page(w: u32, h: u32, x0: u32, x1: u32) -> GrayImage {
        GrayImage::from_fn(w, h, |x, y| {
            let text = (x0..x1).contains(&x) && (y / 10) % 3 == 0 && (x / 4) % 2 == 0;
            let edge = x < 5;
            let grain = (x * 7 + y * 13) % 97 == 0;
            Luma([if text || edge {
                30
            } else if grain {
                150
            } else {
                250
            }])
        })
    }

    #[test]
    fn a_receipt_on_half_the_page_is_cropped_to_it() {
        let page = receipt_on_a_page(1000, 1400, 560, 960);
        let crop = print_box(&page).unwrap();
        assert!(
            (520..=560).contains(&crop.left) && crop.left + crop.width >= 960,
            "{crop:?}"
        );
        assert!(crop.height >= 1300, "{crop:?}");
    }

    #[test]
    fn a_page_printed_all_over_is_left_whole() {
        let page = receipt_on_a_page(1000, 1400, 60, 960);
        assert_eq!(print_box(&page), None);
    }

    #[test]
    fn a_blank_page_has_no_print() {
        let page = GrayImage::from_pixel(400, 600, Luma([250]));
        assert_eq!(print_box(&page), None);
    }
}
