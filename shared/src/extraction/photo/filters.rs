//! Grey-image primitives for the photo pipeline: shrinking by block
//! averages, box means and maxima over square windows (both in time
//! independent of the window), and resampling a turned crop.

use image::{GrayImage, Luma};

/// `image` shrunk by `factor` in both directions, each pixel the mean of its block.
pub fn shrink(image: &GrayImage, factor: u32) -> GrayImage {
    let factor = factor.max(1);
    let (w, h) = (
        (image.width() / factor).max(1),
        (image.height() / factor).max(1),
    );
    let mut sums = vec![0u32; (w * h) as usize];
    let mut counts = vec![0u32; (w * h) as usize];
    for (x, y, p) in image.enumerate_pixels() {
        let i = ((y / factor).min(h - 1) * w + (x / factor).min(w - 1)) as usize;
        sums[i] += u32::from(p[0]);
        counts[i] += 1;
    }
    GrayImage::from_fn(w, h, |x, y| {
        let i = (y * w + x) as usize;
        Luma([(sums[i] / counts[i].max(1)) as u8])
    })
}

/// The mean of the `(2 radius + 1)²` window around each pixel, clipped at the borders.
pub fn box_mean(image: &GrayImage, radius: u32) -> GrayImage {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let stride = w + 1;
    let mut table = vec![0u64; stride * (h + 1)];
    for y in 0..h {
        let mut row = 0u64;
        for x in 0..w {
            row += u64::from(image.get_pixel(x as u32, y as u32)[0]);
            table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + row;
        }
    }
    let r = radius as usize;
    GrayImage::from_fn(w as u32, h as u32, |x, y| {
        let (x, y) = (x as usize, y as usize);
        let (x0, y0) = (x.saturating_sub(r), y.saturating_sub(r));
        let (x1, y1) = ((x + r + 1).min(w), (y + r + 1).min(h));
        let sum = table[y1 * stride + x1] + table[y0 * stride + x0]
            - table[y0 * stride + x1]
            - table[y1 * stride + x0];
        Luma([(sum / ((x1 - x0) * (y1 - y0)) as u64) as u8])
    })
}

/// The brightest pixel of the `(2 radius + 1)²` window around each pixel:
/// dark print narrower than the window disappears, the paper stays.
pub fn box_max(image: &GrayImage, radius: u32) -> GrayImage {
    let rows = GrayImage::from_fn(image.width(), image.height(), |x, y| {
        let lo = x.saturating_sub(radius);
        let hi = (x + radius).min(image.width() - 1);
        Luma([(lo..=hi)
            .map(|i| image.get_pixel(i, y)[0])
            .max()
            .unwrap_or(0)])
    });
    GrayImage::from_fn(image.width(), image.height(), |x, y| {
        let lo = y.saturating_sub(radius);
        let hi = (y + radius).min(image.height() - 1);
        Luma([(lo..=hi)
            .map(|j| rows.get_pixel(x, j)[0])
            .max()
            .unwrap_or(0)])
    })
}

/// A rectangle in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub left: u32,
    pub top: u32,
    pub width: u32,
    pub height: u32,
}

impl Rect {
    pub fn whole(image: &GrayImage) -> Rect {
        Rect {
            left: 0,
            top: 0,
            width: image.width(),
            height: image.height(),
        }
    }

    /// The rectangle `factor` times larger, kept within `width` × `height`.
    pub fn scaled(self, factor: u32, width: u32, height: u32) -> Rect {
        let left = (self.left * factor).min(width - 1);
        let top = (self.top * factor).min(height - 1);
        Rect {
            left,
            top,
            width: (self.width * factor).clamp(1, width - left),
            height: (self.height * factor).clamp(1, height - top),
        }
    }
}

/// The part `crop` of `image` turned by `-angle` radians about the image's
/// centre (so a line printed at `angle` becomes level), bilinear; what falls
/// outside the image is `fill`.
pub fn turned_crop(image: &GrayImage, angle: f32, crop: Rect, fill: u8) -> GrayImage {
    let (sin, cos) = angle.sin_cos();
    let (width, height) = image.dimensions();
    let (cx, cy) = (width as f32 / 2.0, height as f32 / 2.0);
    let (max_x, max_y) = (width as f32 - 1.0, height as f32 - 1.0);
    let source = image.as_raw();
    let stride = width as usize;
    let mut out = vec![fill; crop.width as usize * crop.height as usize];
    for (y, row) in out.chunks_exact_mut(crop.width.max(1) as usize).enumerate() {
        let dy = (crop.top + y as u32) as f32 - cy + 0.5;
        for (x, pixel) in row.iter_mut().enumerate() {
            let dx = (crop.left + x as u32) as f32 - cx + 0.5;
            let u = cos * dx - sin * dy + cx - 0.5;
            let v = sin * dx + cos * dy + cy - 0.5;
            if !(0.0..max_x).contains(&u) || !(0.0..max_y).contains(&v) {
                continue;
            }
            let (x0, y0) = (u as usize, v as usize);
            let (fx, fy) = (u - x0 as f32, v - y0 as f32);
            let at = y0 * stride + x0;
            let p = |i: usize| f32::from(source[i]);
            let top = p(at) + (p(at + 1) - p(at)) * fx;
            let bottom = p(at + stride) + (p(at + stride + 1) - p(at + stride)) * fx;
            // Non-negative: adding a half and truncating rounds it.
            *pixel = (top + (bottom - top) * fy + 0.5) as u8;
        }
    }
    GrayImage::from_raw(crop.width, crop.height, out).unwrap_or_else(|| GrayImage::new(0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_averages_blocks() {
        let image = GrayImage::from_fn(4, 2, |x, _| Luma([if x < 2 { 0 } else { 200 }]));
        assert_eq!(shrink(&image, 2).into_raw(), vec![0, 200]);
    }

    #[test]
    fn box_mean_and_max_see_the_window() {
        let mut image = GrayImage::from_pixel(9, 9, Luma([100]));
        image.put_pixel(4, 4, Luma([10]));
        assert_eq!(box_mean(&image, 1).get_pixel(4, 4)[0], 90);
        assert_eq!(box_mean(&image, 1).get_pixel(0, 0)[0], 100);
        assert_eq!(box_max(&image, 1).get_pixel(4, 4)[0], 100);
    }

    #[test]
    fn a_quarter_turn_moves_a_dot_around_the_centre() {
        let mut image = GrayImage::from_pixel(21, 21, Luma([0]));
        image.put_pixel(15, 10, Luma([255]));
        let turned = turned_crop(&image, std::f32::consts::FRAC_PI_2, Rect::whole(&image), 0);
        assert_eq!(turned.get_pixel(10, 5)[0], 255);
        assert_eq!(turned.get_pixel(15, 10)[0], 0);
    }
}
