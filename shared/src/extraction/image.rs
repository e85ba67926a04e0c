//! Image checks before any decoding: the format and the dimensions read from
//! the header alone, so a decompression bomb (a few kilobytes declaring
//! 100,000 × 100,000 pixels) is refused before an engine allocates for it.

use std::io::Cursor;

use image::ImageReader;

/// An image format the OCR engines are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Jpeg,
    Webp,
}

/// The longest side accepted, in pixels: Textract's own limit, and an A4 page
/// at 600 dpi (4,961 × 7,016) fits.
pub const MAX_SIDE: u32 = 10_000;
/// The most pixels accepted (an A4 page at 600 dpi is 34.8 million). At one
/// byte per pixel for a grey page this bounds an engine's working image to
/// tens of megabytes.
pub const MAX_PIXELS: u64 = 40_000_000;

/// What the header of an image says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageInfo {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImageError {
    /// Not an image of the given format, or a header that cannot be read.
    #[error("the image could not be read: {0}")]
    Unreadable(String),
    /// Dimensions beyond `MAX_SIDE` or `MAX_PIXELS`.
    #[error("the image is too large: {0}")]
    TooLarge(String),
}

/// Reads the dimensions from the header and checks them against the limits.
pub fn inspect_image(bytes: &[u8], format: ImageFormat) -> Result<ImageInfo, ImageError> {
    let codec = match format {
        ImageFormat::Png => image::ImageFormat::Png,
        ImageFormat::Jpeg => image::ImageFormat::Jpeg,
        ImageFormat::Webp => image::ImageFormat::WebP,
    };
    let (width, height) = ImageReader::with_format(Cursor::new(bytes), codec)
        .into_dimensions()
        .map_err(|e| ImageError::Unreadable(format!("{format:?}: {e}")))?;
    if width == 0 || height == 0 {
        return Err(ImageError::Unreadable(format!(
            "{format:?}: the header declares {width} × {height} pixels"
        )));
    }
    if width.max(height) > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageError::TooLarge(format!(
            "{width} × {height} pixels; at most {MAX_SIDE} per side and {MAX_PIXELS} in all"
        )));
    }
    Ok(ImageInfo {
        format,
        width,
        height,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An image of `width` × `height` grey pixels in `format`, encoded for real.
    pub(crate) fn encoded(format: ImageFormat, width: u32, height: u32) -> Vec<u8> {
        let img = image::GrayImage::from_pixel(width, height, image::Luma([200]));
        let codec = match format {
            ImageFormat::Png => image::ImageFormat::Png,
            ImageFormat::Jpeg => image::ImageFormat::Jpeg,
            ImageFormat::Webp => image::ImageFormat::WebP,
        };
        let mut out = Cursor::new(Vec::new());
        image::DynamicImage::ImageLuma8(img)
            .to_rgb8()
            .write_to(&mut out, codec)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn every_format_gives_its_dimensions() {
        for format in [ImageFormat::Png, ImageFormat::Jpeg, ImageFormat::Webp] {
            let info = inspect_image(&encoded(format, 31, 17), format).unwrap();
            assert_eq!((info.format, info.width, info.height), (format, 31, 17));
        }
    }

    #[test]
    fn a_header_of_another_format_is_unreadable() {
        let png = encoded(ImageFormat::Png, 4, 4);
        for format in [ImageFormat::Jpeg, ImageFormat::Webp] {
            assert!(matches!(
                inspect_image(&png, format),
                Err(ImageError::Unreadable(_))
            ));
        }
        assert!(matches!(
            inspect_image(b"", ImageFormat::Png),
            Err(ImageError::Unreadable(_))
        ));
    }

    #[test]
    fn limits_are_inclusive() {
        assert!(inspect_image(&png_header(MAX_SIDE, 4_000), ImageFormat::Png).is_ok());
        for (w, h) in [(MAX_SIDE + 1, 10), (10, MAX_SIDE + 1), (8_000, 5_001)] {
            assert!(matches!(
                inspect_image(&png_header(w, h), ImageFormat::Png),
                Err(ImageError::TooLarge(_))
            ));
        }
    }

    /// A PNG declaring `width` × `height` with an empty IDAT: a few dozen
    /// bytes, the shape of a decompression bomb's header.
    pub(crate) fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(width.to_be_bytes());
        ihdr.extend(height.to_be_bytes());
        ihdr.extend([8, 0, 0, 0, 0]);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        for chunk in [&ihdr[..], b"IDAT"] {
            out.extend((chunk.len() as u32 - 4).to_be_bytes());
            out.extend(chunk);
            out.extend(crc32(chunk).to_be_bytes());
        }
        out
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
