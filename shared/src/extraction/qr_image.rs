//! Finding and decoding QR codes in pixels: phone photos, scans and the
//! images of a PDF page, and the module grid of a code drawn as vector
//! squares. The search runs on a grey copy shrunk to at most `SEARCH_SIDE`
//! pixels a side (a block average, which also smooths sensor noise), first
//! with the reader's own adaptive threshold, then on a globally binarised
//! copy (Otsu), then on a copy half as large, stopping at the first that
//! finds a code.
//!
//! Photos are decoded in a sandboxed child (`read_codes`): the image decoder
//! and the QR reader parse hostile bytes, and a panic in the release profile
//! would abort the service.

use std::io::Cursor;
use std::time::Duration;

use image::{DynamicImage, GrayImage, ImageReader, Luma};
use rqrr::{BitGrid, Grid, PreparedImage};

use zune_jpeg::JpegDecoder;
use zune_jpeg::zune_core::bytestream::ZCursor;
use zune_jpeg::zune_core::colorspace::ColorSpace;
use zune_jpeg::zune_core::options::DecoderOptions;

use super::image::MAX_PIXELS;
use super::sandbox::{Limits, run_isolated};
use crate::extraction::image::ImageFormat;

/// Longest side of the grey copy searched. An A4 photo this size gives a
/// 30 mm code about 230 pixels, four or more per module.
pub const SEARCH_SIDE: u32 = 1600;
/// Most codes returned for one image.
pub const MAX_CODES: usize = 4;
/// The bounds of the child that decodes one image (a 40-megapixel RGBA image
/// takes 160 MiB decoded).
pub const LIMITS: Limits = Limits {
    wall: Duration::from_secs(5),
    cpu_seconds: 4,
    memory: 512 << 20,
    max_output: 64 << 10,
};

/// The payloads of the QR codes in an encoded image, decoded in a sandboxed
/// child on a blocking thread; none when the image or the child fails.
pub async fn read_codes(bytes: Vec<u8>, format: ImageFormat) -> Vec<String> {
    tokio::task::spawn_blocking(move || {
        run_isolated(&LIMITS, || {
            serde_json::to_vec(&decode_encoded(&bytes, format)).unwrap_or_default()
        })
        .ok()
        .and_then(|answer| serde_json::from_slice(&answer).ok())
        .unwrap_or_default()
    })
    .await
    .unwrap_or_default()
}

/// The payloads of the QR codes in an encoded image (decoded in this process).
pub fn decode_encoded(bytes: &[u8], format: ImageFormat) -> Vec<String> {
    if format == ImageFormat::Jpeg
        && let Some(grey) = jpeg_luma(bytes, MAX_PIXELS)
    {
        return decode(&shrunk_grey(&DynamicImage::ImageLuma8(grey), SEARCH_SIDE));
    }
    let codec = match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Webp => image::ImageFormat::WebP,
    };
    match ImageReader::with_format(Cursor::new(bytes), codec).decode() {
        Ok(image) => decode(&shrunk_grey(&image, SEARCH_SIDE)),
        Err(_) => Vec::new(),
    }
}

/// The luma plane of a JPEG, decoded without converting its colour to RGB
/// and back; none beyond `max_pixels` or when the decoder cannot give luma.
pub fn jpeg_luma(bytes: &[u8], max_pixels: u64) -> Option<GrayImage> {
    let options = DecoderOptions::default()
        .set_strict_mode(false)
        .jpeg_set_out_colorspace(ColorSpace::Luma);
    let mut decoder = JpegDecoder::new_with_options(ZCursor::new(bytes), options);
    decoder.decode_headers().ok()?;
    let (w, h) = decoder.dimensions()?;
    if (w as u64).saturating_mul(h as u64) > max_pixels {
        return None;
    }
    let pixels = decoder.decode().ok()?;
    GrayImage::from_raw(u32::try_from(w).ok()?, u32::try_from(h).ok()?, pixels)
}

/// The payloads of the QR codes in a grey image of any size.
pub fn decode(grey: &GrayImage) -> Vec<String> {
    let grey = if grey.width().max(grey.height()) > SEARCH_SIDE {
        shrunk_grey(&DynamicImage::ImageLuma8(grey.clone()), SEARCH_SIDE)
    } else {
        grey.clone()
    };
    let found = search(&grey);
    if !found.is_empty() {
        return found;
    }
    let found = search(&binarised(&grey));
    if !found.is_empty() {
        return found;
    }
    let half = grey.width().max(grey.height()) / 2;
    search(&shrunk_grey(&DynamicImage::ImageLuma8(grey), half))
}

/// The payloads of the QR codes in a clean grey image (a PDF's own image):
/// one search, on the shrunk copy.
pub fn decode_clean(grey: &GrayImage) -> Vec<String> {
    if grey.width().max(grey.height()) > SEARCH_SIDE {
        search(&shrunk_grey(
            &DynamicImage::ImageLuma8(grey.clone()),
            SEARCH_SIDE,
        ))
    } else {
        search(grey)
    }
}

/// The payloads of the QR codes in a black-and-white bitmap (`dark(x, y)`).
pub fn decode_bitmap(w: usize, h: usize, dark: impl Fn(usize, usize) -> bool) -> Vec<String> {
    if w < 21 || h < 21 {
        return Vec::new();
    }
    payloads(PreparedImage::prepare_from_bitmap(w, h, dark).detect_grids())
}

fn search(grey: &GrayImage) -> Vec<String> {
    let (w, h) = (grey.width() as usize, grey.height() as usize);
    if w < 21 || h < 21 {
        return Vec::new();
    }
    let mut prepared =
        PreparedImage::prepare_from_greyscale(w, h, |x, y| grey.get_pixel(x as u32, y as u32).0[0]);
    payloads(prepared.detect_grids())
}

fn payloads<G: BitGrid>(grids: Vec<Grid<G>>) -> Vec<String> {
    let mut codes: Vec<String> = Vec::new();
    for grid in grids {
        if let Ok((_, payload)) = grid.decode()
            && !codes.contains(&payload)
        {
            codes.push(payload);
        }
        if codes.len() == MAX_CODES {
            break;
        }
    }
    codes
}

/// A grey copy whose longest side is at most `side`, each pixel the mean
/// luma of the block of source pixels it covers.
pub fn shrunk_grey(image: &DynamicImage, side: u32) -> GrayImage {
    let (w, h) = (image.width(), image.height());
    let factor = w.max(h).div_ceil(side.max(1)).max(1);
    let grey;
    let source = match image {
        DynamicImage::ImageLuma8(g) => g,
        other => {
            grey = other.to_luma8();
            &grey
        }
    };
    if factor == 1 {
        return source.clone();
    }
    let (sw, sh) = (w.div_ceil(factor), h.div_ceil(factor));
    let mut sums = vec![(0u32, 0u32); (sw * sh) as usize];
    for (x, y, pixel) in source.enumerate_pixels() {
        let cell = &mut sums[((y / factor) * sw + x / factor) as usize];
        cell.0 += u32::from(pixel.0[0]);
        cell.1 += 1;
    }
    GrayImage::from_fn(sw, sh, |x, y| {
        let (sum, count) = sums[(y * sw + x) as usize];
        Luma([(sum / count.max(1)) as u8])
    })
}

/// Black and white at the threshold that best separates the two (Otsu).
fn binarised(grey: &GrayImage) -> GrayImage {
    let mut histogram = [0u64; 256];
    for pixel in grey.pixels() {
        histogram[usize::from(pixel.0[0])] += 1;
    }
    let total: u64 = histogram.iter().sum();
    let weighted: u64 = histogram
        .iter()
        .enumerate()
        .map(|(v, n)| v as u64 * n)
        .sum();
    let (mut below, mut below_weighted) = (0u64, 0u64);
    let (mut best, mut threshold) = (0f64, 128u8);
    for (value, &count) in histogram.iter().enumerate() {
        below += count;
        below_weighted += value as u64 * count;
        let above = total - below;
        if below == 0 || above == 0 {
            continue;
        }
        let mean_below = below_weighted as f64 / below as f64;
        let mean_above = (weighted - below_weighted) as f64 / above as f64;
        let spread = below as f64 * above as f64 * (mean_below - mean_above).powi(2);
        if spread > best {
            best = spread;
            threshold = value as u8;
        }
    }
    GrayImage::from_fn(grey.width(), grey.height(), |x, y| {
        Luma([if grey.get_pixel(x, y).0[0] <= threshold {
            0
        } else {
            255
        }])
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use image::imageops::{FilterType, resize};
    use qrcode::{EcLevel, QrCode};

    use super::*;

    pub(crate) const URL: &str = "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=2026%2F0147&fecha=05-08-2026&importe=1871.27";

    /// A white sheet `width` × `height` with `url`'s code, `module` pixels a
    /// module, its top-left corner at `at`.
    pub(crate) fn sheet(
        url: &str,
        width: u32,
        height: u32,
        module: u32,
        at: (u32, u32),
    ) -> GrayImage {
        let code = QrCode::with_error_correction_level(url, EcLevel::M).unwrap();
        let size = code.width() as u32;
        let colors = code.to_colors();
        GrayImage::from_fn(width, height, |x, y| {
            let (cx, cy) = (x.wrapping_sub(at.0) / module, y.wrapping_sub(at.1) / module);
            let dark = x >= at.0
                && y >= at.1
                && cx < size
                && cy < size
                && colors[(cy * size + cx) as usize] == qrcode::Color::Dark;
            Luma([if dark { 20 } else { 235 }])
        })
    }

    /// `image` turned by `degrees` about its centre (nearest pixel, white outside).
    fn rotated(image: &GrayImage, degrees: f32) -> GrayImage {
        let (sin, cos) = degrees.to_radians().sin_cos();
        let (cx, cy) = (image.width() as f32 / 2.0, image.height() as f32 / 2.0);
        GrayImage::from_fn(image.width(), image.height(), |x, y| {
            let (dx, dy) = (x as f32 - cx, y as f32 - cy);
            let (sx, sy) = (cos * dx + sin * dy + cx, -sin * dx + cos * dy + cy);
            if sx < 0.0 || sy < 0.0 {
                return Luma([235]);
            }
            *image
                .get_pixel_checked(sx as u32, sy as u32)
                .unwrap_or(&Luma([235]))
        })
    }

    /// Deterministic sensor noise of ±`amplitude` and an uneven light from left to right.
    fn noisy(image: &GrayImage, amplitude: i32) -> GrayImage {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        GrayImage::from_fn(image.width(), image.height(), |x, y| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = (state % (2 * amplitude as u64 + 1)) as i32 - amplitude;
            let light = (x * 60 / image.width()) as i32;
            let v = i32::from(image.get_pixel(x, y).0[0]) + noise - light;
            Luma([v.clamp(0, 255) as u8])
        })
    }

    fn jpeg(image: &GrayImage, quality: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
        DynamicImage::ImageLuma8(image.clone())
            .to_rgb8()
            .write_with_encoder(encoder)
            .unwrap();
        out
    }

    #[test]
    fn a_clean_code_is_read() {
        assert_eq!(decode(&sheet(URL, 400, 400, 5, (60, 60))), [URL]);
    }

    #[test]
    fn photographed_codes_are_read_turned_noisy_and_jpeg_encoded() {
        let page = sheet(URL, 1240, 1754, 6, (120, 120));
        for degrees in [-5.0, -2.5, 3.0, 5.0] {
            let photo = noisy(&rotated(&page, degrees), 30);
            let bytes = jpeg(&photo, 60);
            assert_eq!(
                decode_encoded(&bytes, ImageFormat::Jpeg),
                [URL],
                "at {degrees}°"
            );
        }
    }

    #[test]
    fn a_large_photo_is_shrunk_before_the_search() {
        let page = sheet(URL, 3000, 4000, 14, (300, 300));
        let bytes = jpeg(&noisy(&rotated(&page, 2.0), 20), 75);
        assert_eq!(decode_encoded(&bytes, ImageFormat::Jpeg), [URL]);
    }

    #[test]
    fn a_blurred_code_is_read() {
        let page = sheet(URL, 600, 600, 6, (80, 80));
        let blurred = resize(
            &resize(&page, 300, 300, FilterType::Triangle),
            600,
            600,
            FilterType::Triangle,
        );
        assert_eq!(decode(&blurred), [URL]);
    }

    #[test]
    fn no_code_and_bad_bytes_give_nothing() {
        assert!(decode(&GrayImage::from_pixel(500, 500, Luma([255]))).is_empty());
        assert!(decode(&GrayImage::new(5, 5)).is_empty());
        assert!(decode_encoded(b"not a png", ImageFormat::Png).is_empty());
        let bytes = jpeg(&sheet(URL, 300, 200, 4, (10, 10)), 80);
        assert_eq!(
            jpeg_luma(&bytes, 60_000).map(|g| g.dimensions()),
            Some((300, 200))
        );
        assert_eq!(jpeg_luma(&bytes, 59_999), None);
    }

    #[test]
    fn a_bitmap_is_searched() {
        let page = sheet(URL, 300, 300, 4, (40, 40));
        let dark = |x: usize, y: usize| page.get_pixel(x as u32, y as u32).0[0] < 128;
        assert_eq!(decode_bitmap(300, 300, dark), [URL]);
        assert!(decode_bitmap(10, 10, |_, _| true).is_empty());
        assert_eq!(decode_clean(&page), [URL]);
    }

    #[test]
    fn shrinking_averages_blocks() {
        let image = GrayImage::from_fn(4, 2, |x, _| Luma([if x < 2 { 0 } else { 200 }]));
        let small = shrunk_grey(&DynamicImage::ImageLuma8(image), 2);
        assert_eq!(small.as_raw(), &[0, 200]);
    }

    #[tokio::test]
    async fn the_child_answers_with_the_codes() {
        let bytes = jpeg(&sheet(URL, 400, 400, 5, (60, 60)), 90);
        assert_eq!(read_codes(bytes, ImageFormat::Jpeg).await, [URL]);
        assert!(
            read_codes(b"junk".to_vec(), ImageFormat::Webp)
                .await
                .is_empty()
        );
    }
}
