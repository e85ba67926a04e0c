//! The angle and orientation of printed lines, from the dark pixels of a
//! small grey image. Angle: the projection-profile search — at the right
//! angle the ink falls into sharp rows separated by blank ones, so the sum of
//! squared differences between neighbouring rows peaks. Sideways: the same
//! search across the columns is sharper than along the rows.

use image::GrayImage;

use super::filters::box_mean;

/// Angles searched either way, in degrees.
pub const MAX_DEGREES: f32 = 6.0;
/// The most ink points scored per angle (more are sampled evenly).
const MAX_POINTS: usize = 150_000;
/// A pixel this much darker than its neighbourhood's mean is ink.
const INK_RATIO: u32 = 75;
/// Across the columns must be this much sharper than along the rows to turn a page.
const SIDEWAYS_RATIO: f64 = 1.5;

/// The centres of the dark pixels of `image`: darker than `INK_RATIO` % of
/// the mean of a window a few text lines high.
pub fn ink_points(image: &GrayImage) -> Vec<(f32, f32)> {
    let radius = (image.width().max(image.height()) / 80).max(4);
    let mean = box_mean(image, radius);
    let mut points: Vec<(f32, f32)> = image
        .enumerate_pixels()
        .filter(|&(x, y, p)| u32::from(p[0]) * 100 < u32::from(mean.get_pixel(x, y)[0]) * INK_RATIO)
        .map(|(x, y, _)| (x as f32, y as f32))
        .collect();
    if points.len() > MAX_POINTS {
        let step = points.len().div_ceil(MAX_POINTS);
        points = points.into_iter().step_by(step).collect();
    }
    points
}

/// Rows of ink when the lines are taken to slope by `angle` radians.
fn profile(points: &[(f32, f32)], angle: f32) -> Vec<u32> {
    let slope = angle.tan();
    let rows: Vec<f32> = points.iter().map(|&(x, y)| y - x * slope).collect();
    let low = rows.iter().copied().fold(f32::INFINITY, f32::min);
    let high = rows.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !low.is_finite() || !high.is_finite() {
        return Vec::new();
    }
    let mut bins = vec![0u32; (high - low) as usize + 2];
    for row in rows {
        bins[(row - low) as usize] += 1;
    }
    bins
}

/// How sharply the ink falls into rows at `angle` radians.
pub fn sharpness(points: &[(f32, f32)], angle: f32) -> f64 {
    let bins = profile(points, angle);
    let squares: f64 = bins
        .windows(2)
        .map(|w| (f64::from(w[1]) - f64::from(w[0])).powi(2))
        .sum();
    squares / points.len().max(1) as f64
}

/// The angle of the printed lines, in radians (positive: falling to the
/// right, in image coordinates), and how sharp its profile is.
pub fn estimate(points: &[(f32, f32)]) -> (f32, f64) {
    // Around `centre`, which keeps ties (a page without ink).
    let best = |centre: f32, step: f32, steps: i32| {
        let score = |degrees: f32| (degrees, sharpness(points, degrees.to_radians()));
        (-steps..=steps)
            .map(|i| score(centre + i as f32 * step))
            .fold(score(centre), |a, b| if b.1 > a.1 { b } else { a })
    };
    let (coarse, _) = best(0.0, 0.1, (MAX_DEGREES * 10.0) as i32);
    let (fine, score) = best(coarse, 0.01, 10);
    (fine.to_radians(), score)
}

/// Whether the lines run down the image rather than across it.
pub fn sideways(points: &[(f32, f32)], across_score: f64) -> bool {
    let transposed: Vec<(f32, f32)> = points.iter().map(|&(x, y)| (y, x)).collect();
    let (_, down_score) = estimate(&transposed);
    down_score > across_score * SIDEWAYS_RATIO
}

#[cfg(test)]
pub(crate) mod tests {
    use image::Luma;

    use super::*;
    use crate::extraction::photo::filters::{Rect, turned_crop};

    /// A page of `lines` lines of "words" in a blocky type: glyphs of
    /// varied widths with an x-height body, two in five with an ascender,
    /// one in seven with a descender, like Latin print.
    pub(crate) fn printed_page(width: u32, height: u32, lines: u32) -> GrayImage {
        let mut image = GrayImage::from_pixel(width, height, Luma([235]));
        let pitch = (height - 80) / lines;
        let mut glyph = 0u32;
        for line in 0..lines {
            let base = 40 + line * pitch + pitch * 2 / 3;
            let mut x = 40 + (line * 37) % 50;
            while x + 12 < width - 40 {
                glyph = glyph.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let draw = (glyph >> 8) % 20;
                let glyph_width = 4 + (glyph >> 16) % 5;
                if draw < 3 {
                    x += 12;
                    continue;
                }
                let top = if draw < 11 { base - 16 } else { base - 10 };
                let bottom = if draw > 16 { base + 5 } else { base };
                for y in top..bottom {
                    for dx in 0..glyph_width {
                        image.put_pixel(x + dx, y, Luma([30]));
                    }
                }
                x += glyph_width + 2 + (glyph >> 20) % 3;
            }
        }
        image
    }

    fn turned(image: &GrayImage, degrees: f32) -> GrayImage {
        turned_crop(image, -degrees.to_radians(), Rect::whole(image), 235)
    }

    #[test]
    fn finds_a_known_angle_within_a_third_of_a_degree() {
        let page = printed_page(800, 1000, 30);
        for degrees in [-4.5, -2.2, -0.7, 0.0, 1.3, 3.9] {
            let (angle, _) = estimate(&ink_points(&turned(&page, degrees)));
            assert!(
                (angle.to_degrees() - degrees).abs() < 0.3,
                "{degrees}° found as {}°",
                angle.to_degrees()
            );
        }
    }

    #[test]
    fn tells_sideways_pages() {
        let page = printed_page(800, 1000, 30);
        let upright = ink_points(&page);
        let (_, score) = estimate(&upright);
        assert!(!sideways(&upright, score));

        let quarter = ink_points(&image::imageops::rotate90(&page));
        let (_, score) = estimate(&quarter);
        assert!(sideways(&quarter, score));
    }

    #[test]
    fn a_page_without_ink_is_level() {
        assert_eq!(estimate(&[]).0, 0.0);
        let blank = GrayImage::from_pixel(300, 400, Luma([240]));
        assert_eq!(estimate(&ink_points(&blank)).0, 0.0);
    }
}
