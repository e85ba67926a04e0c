//! Photos and scans made ready for OCR: decoded to grey, turned a quarter
//! turn when the print runs sideways, levelled by the
//! angle of the printed lines, cropped to the sheet when it lies on a darker
//! surface, its uneven light divided out (each pixel over an estimate of
//! the paper's brightness around it), and cut down to its print when that
//! fills only part of it (a receipt scanned on an A4 sheet). All analysis runs on a copy at most
//! `ANALYSIS_SIDE` pixels long; the full image is resampled once. A clean,
//! level page with even light is left as it is: OCR reads it unchanged.

mod filters;
mod print;
mod sheet;
mod skew;

use std::io::Cursor;

use image::imageops::{rotate90, rotate180};
use image::{GrayImage, ImageReader, Limits};

use crate::extraction::image::{ImageError, ImageFormat, MAX_PIXELS, MAX_SIDE, inspect_image};
use filters::{Rect, box_max, box_mean, shrink, turned_crop};

/// The longest side of the copy the page is analysed on.
const ANALYSIS_SIDE: u32 = 1600;
/// Below this angle (degrees) a page counts as level.
const LEVEL_DEGREES: f32 = 0.15;
/// Light counts as even when the darkest paper is at least this share of the brightest.
const EVEN_LIGHT: f32 = 0.85;
/// An A4 page is 8.27 inches wide, a till receipt about 3.15.
const A4_WIDTH_INCHES: f32 = 8.27;
const RECEIPT_WIDTH_INCHES: f32 = 3.15;

/// A page prepared for OCR: a grey PNG and its estimated resolution, which
/// the PNG also carries.
#[derive(Debug)]
pub struct Page {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
    pub dpi: u32,
}

/// The bounds of the child that prepares one photo: a 40-megapixel page
/// decodes to 40 MB of grey and is turned and filtered in a few copies.
pub const SANDBOX: crate::extraction::sandbox::Limits = crate::extraction::sandbox::Limits {
    wall: std::time::Duration::from_secs(20),
    cpu_seconds: 15,
    memory: 1 << 30,
    max_output: 96 << 20,
};

/// `prepare` in a sandboxed child: the decoder reads untrusted bytes, and a
/// panic or a runaway there must not take the service down. A child that
/// fails leaves the photo as it was sent (`None`): the OCR engine reads it
/// in its own process.
pub fn prepare_isolated(
    bytes: &[u8],
    format: ImageFormat,
    way: Way,
) -> Result<Option<Page>, ImageError> {
    let answer = crate::extraction::sandbox::run_isolated(&SANDBOX, || {
        to_answer(prepare(bytes, format, way))
    });
    match answer {
        Ok(answer) => from_answer(&answer),
        Err(_) => Ok(None),
    }
}

/// The child's answer: a tag byte, then the page (width, height and dpi as
/// little-endian u32, then the PNG) or the error's message.
fn to_answer(prepared: Result<Option<Page>, ImageError>) -> Vec<u8> {
    match prepared {
        Ok(None) => vec![0],
        Ok(Some(page)) => {
            let mut out = vec![1];
            for n in [page.width, page.height, page.dpi] {
                out.extend(n.to_le_bytes());
            }
            out.extend(page.png);
            out
        }
        Err(ImageError::Unreadable(m)) => [&[2u8][..], m.as_bytes()].concat(),
        Err(ImageError::TooLarge(m)) => [&[3u8][..], m.as_bytes()].concat(),
    }
}

fn from_answer(answer: &[u8]) -> Result<Option<Page>, ImageError> {
    let number = |i: usize| {
        answer
            .get(1 + 4 * i..5 + 4 * i)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
    };
    let message = || String::from_utf8_lossy(answer.get(1..).unwrap_or(&[])).into_owned();
    match answer.first() {
        Some(1) => match (number(0), number(1), number(2)) {
            (Some(width), Some(height), Some(dpi)) => Ok(Some(Page {
                png: answer[13..].to_vec(),
                width,
                height,
                dpi,
            })),
            _ => Ok(None),
        },
        Some(2) => Err(ImageError::Unreadable(message())),
        Some(3) => Err(ImageError::TooLarge(message())),
        _ => Ok(None),
    }
}

/// Which way up a photo is taken to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    AsSent,
    /// Turned half a turn: OCR read the photo as sent as noise, and it may
    /// have been taken the other way up.
    UpsideDown,
}

/// The page in `bytes` prepared for OCR, or `None` when it is a clean,
/// level page with even light that needs nothing done (and is taken as sent).
pub fn prepare(bytes: &[u8], format: ImageFormat, way: Way) -> Result<Option<Page>, ImageError> {
    inspect_image(bytes, format)?;
    let mut grey = decode(bytes, format)?;
    if way == Way::UpsideDown {
        grey = rotate180(&grey);
    }
    let image = match straightened(grey) {
        Ok(image) => image,
        Err(_) if way == Way::AsSent => return Ok(None),
        Err(image) => image,
    };
    // The resolution is the sheet's, before it is cut down to its print.
    let dpi = dpi(image.width(), image.height());
    let image = match print::print_box(&image) {
        Some(r) => image::imageops::crop_imm(&image, r.left, r.top, r.width, r.height).to_image(),
        None => image,
    };
    let (width, height) = image.dimensions();
    let png = png_with_dpi(&image, dpi).map_err(|e| ImageError::Unreadable(e.to_string()))?;
    Ok(Some(Page {
        png,
        width,
        height,
        dpi,
    }))
}

/// The grey page as a quickly compressed PNG whose pHYs chunk gives its
/// resolution: the OCR engine takes it from there, so it can be started
/// before the resolution is known.
fn png_with_dpi(image: &GrayImage, dpi: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width(), image.height());
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::Filter::Sub);
    let per_metre = (f64::from(dpi) / 0.0254).round() as u32;
    encoder.set_pixel_dims(Some(png::PixelDimensions {
        xppu: per_metre,
        yppu: per_metre,
        unit: png::Unit::Meter,
    }));
    let mut writer = encoder.write_header()?;
    writer.write_image_data(image.as_raw())?;
    writer.finish()?;
    Ok(out)
}

/// The resolution of a page `width` pixels wide, as if it were an A4 sheet,
/// or a till receipt when it is more than twice as tall as wide.
pub fn dpi(width: u32, height: u32) -> u32 {
    let inches = if height > width * 2 {
        RECEIPT_WIDTH_INCHES
    } else {
        A4_WIDTH_INCHES
    };
    (width as f32 / inches).round().clamp(70.0, 600.0) as u32
}

fn decode(bytes: &[u8], format: ImageFormat) -> Result<GrayImage, ImageError> {
    let codec = match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Webp => image::ImageFormat::WebP,
    };
    let mut reader = ImageReader::with_format(Cursor::new(bytes), codec);
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 4);
    reader.limits(limits);
    reader
        .decode()
        .map(|image| image.into_luma8())
        .map_err(|e| ImageError::Unreadable(format!("{format:?}: {e}")))
}

/// How to turn and crop a page, found on its small copy.
struct Plan {
    /// Shrink factor of the small copy.
    factor: u32,
    angle: f32,
    /// The sheet in the levelled small copy.
    sheet: Rect,
    /// Whether the sheet is less than the whole copy.
    cropped: bool,
    /// The paper's brightness over the sheet, on a copy `factor × BACKGROUND_SHRINK` smaller.
    background: GrayImage,
}

/// The background is estimated on a copy this many times smaller again.
const BACKGROUND_SHRINK: u32 = 4;

impl Plan {
    fn of(grey: &GrayImage, factor: u32) -> (Plan, bool) {
        let small = shrink(grey, factor);
        let (angle, _) = skew::estimate(&skew::ink_points(&small));
        let level = turned_crop(&small, angle, Rect::whole(&small), 0);
        let sheet = sheet::find(&level);
        let cropped = turned_crop(&small, angle, sheet, 255);
        // Judged on the sheet alone: the edges of a surface around it are long
        // straight lines. Invoices and receipts are portrait, and a barcode's bars
        // make a portrait sheet's columns look like lines: only a landscape sheet
        // is taken for a page on its side.
        let points = skew::ink_points(&cropped);
        let sideways =
            sheet.width > sheet.height && skew::sideways(&points, skew::sharpness(&points, 0.0));
        let background = background(&cropped);
        let plan = Plan {
            factor,
            angle,
            sheet,
            cropped: sheet != Rect::whole(&level),
            background,
        };
        (plan, sideways)
    }

    fn is_clean(&self) -> bool {
        let (darkest, brightest) = self
            .background
            .pixels()
            .fold((255u8, 0u8), |(lo, hi), p| (lo.min(p[0]), hi.max(p[0])));
        self.angle.to_degrees().abs() < LEVEL_DEGREES
            && !self.cropped
            && f32::from(darkest) >= f32::from(brightest) * EVEN_LIGHT
    }
}

/// The paper's brightness: the print removed by a window maximum, then smoothed.
fn background(small: &GrayImage) -> GrayImage {
    let tiny = shrink(small, BACKGROUND_SHRINK);
    let radius = (tiny.width().max(tiny.height()) / 60).max(2);
    box_mean(&box_max(&tiny, radius), radius)
}

/// The page turned, levelled, cropped and evenly lit; given back unchanged
/// (`Err`) when it already is.
fn straightened(mut grey: GrayImage) -> Result<GrayImage, GrayImage> {
    let factor = grey.width().max(grey.height()).div_ceil(ANALYSIS_SIDE);
    let (mut plan, sideways) = Plan::of(&grey, factor);
    if sideways {
        grey = rotate90(&grey);
        plan = Plan::of(&grey, factor).0;
    } else if plan.is_clean() {
        return Err(grey);
    }
    let (w, h) = grey.dimensions();
    let crop = plan.sheet.scaled(factor, w, h);
    let mut page = turned_crop(&grey, plan.angle, crop, 255);
    drop(grey);
    flatten(&mut page, &plan.background, plan.factor * BACKGROUND_SHRINK);
    Ok(page)
}

/// Each pixel divided by the paper's brightness around it (`background`,
/// `scale` times smaller, sampled bilinearly), so paper becomes white.
fn flatten(page: &mut GrayImage, background: &GrayImage, scale: u32) {
    let (bw, bh) = background.dimensions();
    if bw == 0 || bh == 0 {
        return;
    }
    let (bw, bh) = (bw as usize, bh as usize);
    let paper = background.as_raw();
    let at = |x: usize, y: usize| f32::from(paper[y.min(bh - 1) * bw + x.min(bw - 1)]);
    // Where each column falls between the background's samples.
    let sample = |i: u32| {
        let t = ((i as f32 + 0.5) / scale as f32 - 0.5).max(0.0);
        (t as usize, t - t.floor())
    };
    let columns: Vec<(usize, f32)> = (0..page.width()).map(sample).collect();
    let width = page.width().max(1) as usize;
    for (y, row) in page.chunks_exact_mut(width).enumerate() {
        let (y0, fy) = sample(y as u32);
        for (pixel, &(x0, fx)) in row.iter_mut().zip(&columns) {
            let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * fx;
            let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * fx;
            let paper = (top + (bottom - top) * fy).max(16.0);
            *pixel = (f32::from(*pixel) * 255.0 / paper).min(255.0) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_childs_answer_carries_the_page_or_the_error() {
        let page = Page {
            png: vec![137, 80, 78, 71],
            width: 2480,
            height: 3508,
            dpi: 300,
        };
        let back = from_answer(&to_answer(Ok(Some(page)))).unwrap().unwrap();
        assert_eq!(
            (back.width, back.height, back.dpi, back.png),
            (2480, 3508, 300, vec![137, 80, 78, 71])
        );
        assert!(from_answer(&to_answer(Ok(None))).unwrap().is_none());
        assert_eq!(
            from_answer(&to_answer(Err(ImageError::Unreadable("bad".into())))).unwrap_err(),
            ImageError::Unreadable("bad".into())
        );
        assert!(from_answer(&[]).unwrap().is_none());
    }

    #[test]
    fn a_photo_is_prepared_in_a_child() {
        assert!(matches!(
            prepare_isolated(b"not an image", ImageFormat::Png, Way::AsSent),
            Err(ImageError::Unreadable(_))
        ));
    }

    use super::*;
    use crate::extraction::image::tests::encoded;
    use image::Luma;
    use skew::tests::printed_page;

    fn png(image: &GrayImage) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        image.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn a_clean_level_page_is_left_as_it_is() {
        let page = printed_page(600, 800, 24);
        assert!(
            prepare(&png(&page), ImageFormat::Png, Way::AsSent)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_turned_page_on_a_table_comes_out_level_cropped_and_white() {
        let page = printed_page(600, 800, 24);
        let turned = turned_crop(&page, (-3.0f32).to_radians(), Rect::whole(&page), 235);
        let photo = GrayImage::from_fn(760, 960, |x, y| {
            let inside = (80..680).contains(&x) && (80..880).contains(&y);
            let v = if inside {
                turned.get_pixel(x - 80, y - 80)[0]
            } else {
                90
            };
            Luma([(f32::from(v) * (1.0 - 0.3 * y as f32 / 960.0)) as u8])
        });
        let prepared = prepare(&png(&photo), ImageFormat::Png, Way::AsSent)
            .unwrap()
            .unwrap();
        assert!(
            prepared.width < 640 && prepared.height < 840,
            "{prepared:?}"
        );
        let out = image::load_from_memory(&prepared.png).unwrap().into_luma8();
        let points = skew::ink_points(&out);
        let (angle, _) = skew::estimate(&points);
        assert!(angle.to_degrees().abs() < 0.3, "{}", angle.to_degrees());
        let corner = out.get_pixel(out.width() - 30, out.height() - 30)[0];
        assert!(corner > 240, "paper at the bottom corner is {corner}");
        // The PNG carries the page's resolution for the OCR engine.
        let reader = png::Decoder::new(Cursor::new(&prepared.png[..]))
            .read_info()
            .unwrap();
        let dims = reader.info().pixel_dims.unwrap();
        assert_eq!(dims.unit, png::Unit::Meter);
        assert_eq!((f64::from(dims.xppu) * 0.0254).round() as u32, prepared.dpi);
        assert_eq!(dims.xppu, dims.yppu);
    }

    #[test]
    fn a_page_taken_upside_down_is_turned_back_on_request() {
        let page = printed_page(600, 800, 24);
        let flipped = rotate180(&page);
        let turned = prepare(&png(&flipped), ImageFormat::Png, Way::UpsideDown)
            .unwrap()
            .expect("turned, so prepared even though clean");
        let out = image::load_from_memory(&turned.png).unwrap().into_luma8();
        let upright = match print::print_box(&page) {
            Some(r) => {
                image::imageops::crop_imm(&page, r.left, r.top, r.width, r.height).to_image()
            }
            None => page.clone(),
        };
        assert_eq!(out.dimensions(), upright.dimensions());
        let differing = out
            .pixels()
            .zip(upright.pixels())
            .filter(|(a, b)| a[0].abs_diff(b[0]) > 40)
            .count();
        assert!(differing * 100 < page.len(), "{differing} pixels differ");
    }

    #[test]
    fn a_broken_image_is_unreadable() {
        let mut bytes = encoded(ImageFormat::Jpeg, 64, 64);
        bytes.truncate(bytes.len() / 3);
        assert!(matches!(
            prepare(&bytes, ImageFormat::Jpeg, Way::AsSent),
            Err(ImageError::Unreadable(_))
        ));
    }
}
