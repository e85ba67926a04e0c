//! A page image as a phone photo of the printed sheet: turned by a small
//! angle, lying on a darker, uneven table with a margin around it, lit
//! unevenly (a gradient and a vignette), slightly out of focus, with sensor
//! noise, saved as a JPEG of middling quality. Every choice comes from the
//! caller's seeded generator.

use image::{DynamicImage, Rgb, RgbImage};

use super::raster;
use super::rng::Rng;

/// The largest turn of the sheet, in degrees either way.
pub const MAX_ANGLE_DEGREES: f64 = 4.0;

/// The photo of `page`, as JPEG bytes.
pub fn photograph(page: &DynamicImage, rng: &mut Rng) -> Vec<u8> {
    let turned = on_table(&page.to_rgb8(), rng);
    let lit = light(turned, rng);
    let blurred = blur(&lit, rng.between(0.5, 1.0));
    let noisy = noise(blurred, rng);
    raster::jpeg(&DynamicImage::ImageRgb8(noisy), rng.range(55, 80) as u8)
}

/// The page turned about its centre and laid on a table, with a margin of
/// 3–10 % of the page on each side.
fn on_table(page: &RgbImage, rng: &mut Rng) -> RgbImage {
    let angle = rng
        .between(-MAX_ANGLE_DEGREES, MAX_ANGLE_DEGREES)
        .to_radians();
    let (sin, cos) = angle.sin_cos();
    let (w, h) = (f64::from(page.width()), f64::from(page.height()));
    let (box_w, box_h) = (w * cos.abs() + h * sin.abs(), w * sin.abs() + h * cos.abs());
    let [left, top, right, bottom] = [0; 4].map(|_| rng.between(0.03, 0.10));
    let (canvas_w, canvas_h) = (box_w + (left + right) * w, box_h + (top + bottom) * h);
    let (centre_x, centre_y) = (left * w + box_w / 2.0, top * h + box_h / 2.0);
    let table = Table::random(rng);
    RgbImage::from_fn(canvas_w as u32, canvas_h as u32, |x, y| {
        let (dx, dy) = (f64::from(x) - centre_x, f64::from(y) - centre_y);
        let u = cos * dx + sin * dy + w / 2.0;
        let v = -sin * dx + cos * dy + h / 2.0;
        if (0.0..w - 1.0).contains(&u) && (0.0..h - 1.0).contains(&v) {
            bilinear(page, u, v)
        } else {
            table.at(f64::from(x), f64::from(y))
        }
    })
}

fn bilinear(image: &RgbImage, u: f64, v: f64) -> Rgb<u8> {
    let (x, y) = (u.floor() as u32, v.floor() as u32);
    let (fx, fy) = (u - u.floor(), v - v.floor());
    let p = |dx: u32, dy: u32, c: usize| f64::from(image.get_pixel(x + dx, y + dy)[c]);
    Rgb([0, 1, 2].map(|c| {
        let top = p(0, 0, c) * (1.0 - fx) + p(1, 0, c) * fx;
        let bottom = p(0, 1, c) * (1.0 - fx) + p(1, 1, c) * fx;
        (top * (1.0 - fy) + bottom * fy).round() as u8
    }))
}

/// A darker surface with a colour and slow waves of brightness.
struct Table {
    colour: [f64; 3],
    waves: [(f64, f64, f64, f64); 2],
}

impl Table {
    fn random(rng: &mut Rng) -> Table {
        let level = rng.between(50.0, 120.0);
        Table {
            colour: [
                level,
                level * rng.between(0.7, 1.0),
                level * rng.between(0.5, 0.9),
            ],
            waves: [0; 2].map(|_| {
                (
                    rng.between(0.002, 0.01),
                    rng.between(0.002, 0.01),
                    rng.between(0.0, std::f64::consts::TAU),
                    rng.between(8.0, 20.0),
                )
            }),
        }
    }

    fn at(&self, x: f64, y: f64) -> Rgb<u8> {
        let shade: f64 = self
            .waves
            .iter()
            .map(|&(fx, fy, phase, amplitude)| amplitude * (fx * x + fy * y + phase).sin())
            .sum();
        Rgb(self.colour.map(|c| (c + shade).clamp(0.0, 255.0) as u8))
    }
}

/// Uneven light: brighter towards one side, darker in the corners.
fn light(mut image: RgbImage, rng: &mut Rng) -> RgbImage {
    let direction = rng.between(0.0, std::f64::consts::TAU);
    let (dir_x, dir_y) = (direction.cos(), direction.sin());
    let gradient = rng.between(0.15, 0.4);
    let vignette = rng.between(0.1, 0.3);
    let exposure = rng.between(0.85, 1.0);
    let (w, h) = (f64::from(image.width()), f64::from(image.height()));
    for (x, y, pixel) in image.enumerate_pixels_mut() {
        let (nx, ny) = (f64::from(x) / w - 0.5, f64::from(y) / h - 0.5);
        let along = nx * dir_x + ny * dir_y;
        let corner = (nx * nx + ny * ny) * 2.0;
        let factor = exposure * (1.0 + gradient * along) * (1.0 - vignette * corner);
        pixel.0 = pixel
            .0
            .map(|c| (f64::from(c) * factor).clamp(0.0, 255.0) as u8);
    }
    image
}

/// A separable Gaussian blur of `sigma` pixels.
fn blur(image: &RgbImage, sigma: f64) -> RgbImage {
    let radius = (2.0 * sigma).ceil() as i64;
    let weights: Vec<f64> = (-radius..=radius)
        .map(|i| (-(i * i) as f64 / (2.0 * sigma * sigma)).exp())
        .collect();
    let sum: f64 = weights.iter().sum();
    let weights: Vec<f64> = weights.iter().map(|w| w / sum).collect();
    let pass = |src: &RgbImage, horizontal: bool| {
        let (w, h) = (i64::from(src.width()), i64::from(src.height()));
        RgbImage::from_fn(src.width(), src.height(), |x, y| {
            let mut acc = [0.0; 3];
            for (k, weight) in weights.iter().enumerate() {
                let offset = k as i64 - radius;
                let (sx, sy) = if horizontal {
                    ((i64::from(x) + offset).clamp(0, w - 1), i64::from(y))
                } else {
                    (i64::from(x), (i64::from(y) + offset).clamp(0, h - 1))
                };
                let p = src.get_pixel(sx as u32, sy as u32);
                for (sum, &value) in acc.iter_mut().zip(&p.0) {
                    *sum += weight * f64::from(value);
                }
            }
            Rgb(acc.map(|v| v.round().clamp(0.0, 255.0) as u8))
        })
    };
    pass(&pass(image, true), false)
}

/// Gaussian sensor noise, one draw per channel.
fn noise(mut image: RgbImage, rng: &mut Rng) -> RgbImage {
    let sigma = rng.between(3.0, 8.0);
    for pixel in image.pixels_mut() {
        pixel.0 = pixel
            .0
            .map(|c| (f64::from(c) + sigma * rng.gaussian()).clamp(0.0, 255.0) as u8);
    }
    image
}
