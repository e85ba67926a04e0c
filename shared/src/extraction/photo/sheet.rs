//! The sheet in a photo: a bright rectangle on a darker surface. With the
//! print removed (a maximum over a window wider than a stroke), the paper is
//! even and the surface darker; scanning in from a border, the sheet starts
//! where the image first turns much brighter than everything passed so far.
//! Light that varies slowly does not do that; a sheet that reaches the
//! border has no edge on that side.

use image::GrayImage;

use super::filters::{Rect, box_max};

/// The paper must be this many times brighter than the surface before it.
const EDGE_RATIO: f32 = 1.3;
/// An edge is looked for in this fraction of the image from each border.
const SEARCH_SHARE: u32 = 3;
/// Pixels given up inside each edge, where paper and surface blur together.
const INSET: u32 = 2;

/// The sheet in `image` (level: its edges run along the axes), or the whole
/// image when no darker surface surrounds it.
pub fn find(image: &GrayImage) -> Rect {
    let (w, h) = image.dimensions();
    if w < 16 || h < 16 {
        return Rect::whole(image);
    }
    let radius = (w.max(h) / 300).max(2);
    let paper = box_max(image, radius);
    let row = |y: u32| -> Vec<u8> { (0..w).map(|x| paper.get_pixel(x, y)[0]).collect() };
    let column = |x: u32| -> Vec<u8> { (0..h).map(|y| paper.get_pixel(x, y)[0]).collect() };
    let rows: Vec<Vec<u8>> = (h / 4..h * 3 / 4).step_by(2).map(row).collect();
    let columns: Vec<Vec<u8>> = (w / 4..w * 3 / 4).step_by(2).map(column).collect();
    let reversed = |lines: &[Vec<u8>]| -> Vec<Vec<u8>> {
        lines
            .iter()
            .map(|l| l.iter().rev().copied().collect())
            .collect()
    };
    let left = median_edge(&rows);
    let right = w - median_edge(&reversed(&rows));
    let top = median_edge(&columns);
    let bottom = h - median_edge(&reversed(&columns));
    // The window maximum spreads the paper `radius` pixels onto the surface.
    let inset = |edge: u32| if edge > 0 { edge + radius + INSET } else { 0 };
    let (left, top) = (inset(left), inset(top));
    let right = if right < w {
        right.saturating_sub(radius + INSET)
    } else {
        w
    };
    let bottom = if bottom < h {
        bottom.saturating_sub(radius + INSET)
    } else {
        h
    };
    if right <= left + w / 4 || bottom <= top + h / 4 {
        return Rect::whole(image);
    }
    Rect {
        left,
        top,
        width: right - left,
        height: bottom - top,
    }
}

/// The median over `lines` of where the sheet starts, from index 0.
fn median_edge(lines: &[Vec<u8>]) -> u32 {
    let mut edges: Vec<u32> = lines.iter().map(|l| edge(l)).collect();
    edges.sort_unstable();
    edges.get(edges.len() / 2).copied().unwrap_or(0)
}

/// The first index much brighter than every value before it, within the
/// first `1 / SEARCH_SHARE` of `line`; 0 when there is none.
fn edge(line: &[u8]) -> u32 {
    let mut darkest_max = 0.0f32;
    for (i, &v) in line
        .iter()
        .enumerate()
        .take(line.len() / SEARCH_SHARE as usize)
    {
        let v = f32::from(v);
        if i > 2 && v > darkest_max * EDGE_RATIO && v > 40.0 {
            return i as u32;
        }
        darkest_max = darkest_max.max(v);
    }
    0
}

#[cfg(test)]
mod tests {
    use image::Luma;

    use super::*;
    use crate::extraction::photo::skew::tests::printed_page;

    /// `page` laid on a surface of `level`, lit more from the left.
    fn on_surface(page: &GrayImage, margins: (u32, u32, u32, u32), level: u8) -> GrayImage {
        let (left, top, right, bottom) = margins;
        let (w, h) = (page.width() + left + right, page.height() + top + bottom);
        GrayImage::from_fn(w, h, |x, y| {
            let light = 1.0 - 0.3 * x as f32 / w as f32;
            let inside =
                (left..left + page.width()).contains(&x) && (top..top + page.height()).contains(&y);
            let v = if inside {
                page.get_pixel(x - left, y - top)[0]
            } else {
                level
            };
            Luma([(f32::from(v) * light) as u8])
        })
    }

    #[test]
    fn finds_a_sheet_on_a_darker_surface() {
        let page = printed_page(600, 800, 24);
        let photo = on_surface(&page, (70, 40, 25, 90), 110);
        let sheet = find(&photo);
        let (right, bottom) = (sheet.left + sheet.width, sheet.top + sheet.height);
        assert!((70..=76).contains(&sheet.left), "{sheet:?}");
        assert!((40..=46).contains(&sheet.top), "{sheet:?}");
        assert!((664..=670).contains(&right), "{sheet:?}");
        assert!((834..=840).contains(&bottom), "{sheet:?}");
    }

    #[test]
    fn a_page_without_a_surface_is_whole() {
        let page = printed_page(600, 800, 24);
        assert_eq!(find(&page), Rect::whole(&page));
        let one_side = on_surface(&page, (0, 0, 0, 60), 90);
        let sheet = find(&one_side);
        assert_eq!((sheet.left, sheet.top, sheet.width), (0, 0, 600));
        assert!((794..=800).contains(&sheet.height), "{sheet:?}");
    }
}
