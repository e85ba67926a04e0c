//! QR codes on a PDF page, read in the PDF child: the page's image XObjects
//! (JPEG, or raw 1-bit grey and 8-bit grey, RGB or ICC-based pixels) and codes
//! drawn as filled squares. Drawn codes are recognised by their module, the
//! side most filled rectangles share, then painted into a small bitmap around
//! those rectangles and searched like an image.
//!
//! Bounds: `MAX_IMAGES` roughly square images of at most `MAX_IMAGE_PIXELS`,
//! `MAX_RECTANGLES` rectangles from the page's own content stream (form
//! XObjects are not followed) and a bitmap of at most `MAX_BITMAP_SIDE` a side.

use std::collections::{HashMap, HashSet};
use std::io::Cursor;

use image::{DynamicImage, GrayImage, ImageReader, Luma};
use lopdf::content::Content;
use lopdf::xobject::PdfImage;
use lopdf::{Document, Object, ObjectId};

use super::text::{IDENTITY, MAX_CONTENT_BYTES, Matrix, multiply};
use crate::extraction::qr_image::{self, MAX_CODES, SEARCH_SIDE};

/// Codes printed smaller than this (in points: 15 mm) are not searched for
/// in images: VERI*FACTU and TicketBAI ask for 30–40 mm, the EPC payment
/// code for at least 20 mm.
const MIN_CODE_SIDE: f32 = 42.5;
/// Images searched on a page.
pub const MAX_IMAGES: usize = 6;
/// Largest image decoded, in pixels.
pub const MAX_IMAGE_PIXELS: u64 = 16_000_000;
/// Most filled rectangles collected from a page.
pub const MAX_RECTANGLES: usize = 20_000;
/// Longest side of the bitmap a drawn code is painted into, in pixels.
pub const MAX_BITMAP_SIDE: f32 = 2_000.0;
/// A code's own image is about square; banners and page scans are skipped.
const MAX_ASPECT: f32 = 1.34;
/// Smallest side of a searched image, in pixels (a version 1 code's modules).
const MIN_IMAGE_SIDE: i64 = 21;
/// Fewest rectangles of one module size that can be a code.
const MIN_SQUARES: usize = 20;
/// Module sides considered, in points: 0.5 pt is a 10 mm code of 57 modules.
const MODULE_RANGE: std::ops::RangeInclusive<f32> = 0.5..=20.0;
/// Module sides are grouped by this step, in points.
const MODULE_STEP: f32 = 0.05;
/// Pixels per module in the painted bitmap, and modules of margin around it.
const PIXELS_PER_MODULE: f32 = 4.0;
const MARGIN_MODULES: f32 = 6.0;
/// Deepest `q` nesting followed.
const MAX_GRAPHICS_DEPTH: usize = 64;

/// The payloads of the codes on `page`, drawn ones first.
pub fn page_codes(doc: &Document, page: ObjectId) -> Vec<String> {
    let drawing = drawing(doc, page);
    let mut codes = drawn_codes(&drawing.rects);
    for code in image_codes(doc, page, &drawing) {
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    codes.truncate(MAX_CODES);
    codes
}

fn image_codes(doc: &Document, page: ObjectId, drawing: &Drawing) -> Vec<String> {
    let images = doc.get_page_images(page).unwrap_or_default();
    let too_small = too_small(doc, page, drawing);
    images
        .iter()
        .filter(|image| searchable(image.width, image.height) && !too_small.contains(&image.id))
        .take(MAX_IMAGES)
        .filter_map(|image| grey_image(doc, image))
        .flat_map(|grey| qr_image::decode_clean(&grey))
        .collect()
}

/// The page's images that its content stream draws, every time, smaller
/// than a code can be printed (icons drawn at 5–10 mm from a large image);
/// images it does not draw itself (inside a form) are not among them.
fn too_small(doc: &Document, page: ObjectId, drawing: &Drawing) -> HashSet<ObjectId> {
    let Ok(names) = doc
        .get_dictionary(page)
        .and_then(|p| doc.get_dict_in_dict(p, b"Resources"))
        .and_then(|r| doc.get_dict_in_dict(r, b"XObject"))
    else {
        return HashSet::new();
    };
    names
        .iter()
        .filter(|(name, _)| {
            drawing
                .images
                .get(name.as_slice())
                .is_some_and(|&side| side < MIN_CODE_SIDE)
        })
        .filter_map(|(_, object)| object.as_reference().ok())
        .collect()
}

fn searchable(width: i64, height: i64) -> bool {
    let sides = MIN_IMAGE_SIDE..=i64::from(crate::extraction::image::MAX_SIDE);
    sides.contains(&width)
        && sides.contains(&height)
        && (width * height) as u64 <= MAX_IMAGE_PIXELS
        && width.max(height) as f32 <= MAX_ASPECT * width.min(height) as f32
}

fn grey_image(doc: &Document, image: &PdfImage) -> Option<GrayImage> {
    let width = u32::try_from(image.width).ok()?;
    let height = u32::try_from(image.height).ok()?;
    match image.filters.as_deref().unwrap_or_default() {
        [only] if only == "DCTDecode" => jpeg(image.content),
        filters if filters.iter().all(|f| f == "FlateDecode") => raw(doc, image, width, height),
        _ => None,
    }
}

fn jpeg(bytes: &[u8]) -> Option<GrayImage> {
    let luma = qr_image::jpeg_luma(bytes, MAX_IMAGE_PIXELS);
    let image = match luma {
        Some(grey) => DynamicImage::ImageLuma8(grey),
        None => {
            let reader = || ImageReader::with_format(Cursor::new(bytes), image::ImageFormat::Jpeg);
            let (w, h) = reader().into_dimensions().ok()?;
            if u64::from(w) * u64::from(h) > MAX_IMAGE_PIXELS {
                return None;
            }
            reader().decode().ok()?
        }
    };
    Some(qr_image::shrunk_grey(&image, SEARCH_SIDE))
}

/// Raw samples: 1-bit grey or an image mask (0 is dark in both), or 8-bit
/// components of a grey or RGB space.
fn raw(doc: &Document, image: &PdfImage, width: u32, height: u32) -> Option<GrayImage> {
    let stream = doc.get_object(image.id).ok()?.as_stream().ok()?;
    let mask = image
        .origin_dict
        .get(b"ImageMask")
        .and_then(Object::as_bool)
        .unwrap_or(false);
    let components = if mask {
        1
    } else {
        components(doc, image.origin_dict.get(b"ColorSpace").ok()?)?
    };
    let bits = if mask { 1 } else { image.bits_per_component? };
    let (w, h) = (width as usize, height as usize);
    let stride = match bits {
        1 if components == 1 => w.div_ceil(8),
        8 => w * components,
        _ => return None,
    };
    let samples = stream.get_plain_content_with_limit(stride * h).ok()?;
    if samples.len() < stride * h {
        return None;
    }
    Some(GrayImage::from_fn(width, height, |x, y| {
        let (x, y) = (x as usize, y as usize);
        let row = &samples[y * stride..];
        Luma([match (bits, components) {
            (1, _) => ((row[x / 8] >> (7 - x % 8)) & 1) * 255,
            (_, 1) => row[x],
            _ => luma(&row[x * 3..x * 3 + 3]),
        }])
    }))
}

fn luma(rgb: &[u8]) -> u8 {
    let [r, g, b] = [rgb[0], rgb[1], rgb[2]].map(u32::from);
    ((r * 77 + g * 150 + b * 29) >> 8) as u8
}

/// Components of a grey, RGB or ICC-based colour space.
fn components(doc: &Document, space: &Object) -> Option<usize> {
    match doc.dereference(space).ok()?.1 {
        Object::Name(name) => match name.as_slice() {
            b"DeviceGray" | b"CalGray" => Some(1),
            b"DeviceRGB" | b"CalRGB" => Some(3),
            _ => None,
        },
        Object::Array(array) if array.first()?.as_name().ok()? == b"ICCBased" => {
            let profile = doc.dereference(array.get(1)?).ok()?.1.as_stream().ok()?;
            match profile.dict.get(b"N").ok()?.as_i64().ok()? {
                1 => Some(1),
                3 => Some(3),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A rectangle in page space, `[x0, y0, x1, y1]`.
type Rect = [f32; 4];

fn drawn_codes(rects: &[Rect]) -> Vec<String> {
    let Some(module) = module_side(rects) else {
        return Vec::new();
    };
    let squares: Vec<&Rect> = rects.iter().filter(|r| of_module(r, module)).collect();
    // The mean side, so that every module paints the same whole number of pixels.
    let module = squares.iter().map(|r| side(r)).sum::<f32>() / squares.len() as f32;
    let margin = MARGIN_MODULES * module;
    let extent = squares.iter().fold(
        [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
        |[x0, y0, x1, y1], r| [x0.min(r[0]), y0.min(r[1]), x1.max(r[2]), y1.max(r[3])],
    );
    let [x0, y0, x1, y1] = [
        extent[0] - margin,
        extent[1] - margin,
        extent[2] + margin,
        extent[3] + margin,
    ];
    let scale = (PIXELS_PER_MODULE / module).min(MAX_BITMAP_SIDE / (x1 - x0).max(y1 - y0));
    let (w, h) = (
        ((x1 - x0) * scale).ceil() as usize,
        ((y1 - y0) * scale).ceil() as usize,
    );
    let mut bitmap = vec![false; w * h];
    for r in rects {
        let column = |x: f32| (((x - x0) * scale).round().max(0.0) as usize).min(w);
        let row = |y: f32| (((y1 - y) * scale).round().max(0.0) as usize).min(h);
        for y in row(r[3])..row(r[1]) {
            bitmap[y * w + column(r[0])..y * w + column(r[2])].fill(true);
        }
    }
    qr_image::decode_bitmap(w, h, |x, y| bitmap[y * w + x])
}

fn side(r: &Rect) -> f32 {
    (r[2] - r[0]).min(r[3] - r[1])
}

/// The side most rectangles share, when enough do.
fn module_side(rects: &[Rect]) -> Option<f32> {
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for r in rects.iter().filter(|r| MODULE_RANGE.contains(&side(r))) {
        *counts
            .entry((side(r) / MODULE_STEP).round() as u32)
            .or_default() += 1;
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n >= MIN_SQUARES)
        .max_by_key(|&(bin, n)| (n, bin))
        .map(|(bin, _)| bin as f32 * MODULE_STEP)
}

fn of_module(r: &Rect, module: f32) -> bool {
    (side(r) - module).abs() <= MODULE_STEP
}

/// The fill colour of the graphics state is dark.
#[derive(Clone, Copy)]
struct Paint {
    ctm: Matrix,
    dark: bool,
}

/// What the page's own content stream draws.
#[derive(Default)]
struct Drawing {
    /// Every axis-aligned rectangle it fills in a dark colour, in page space.
    rects: Vec<Rect>,
    /// The images it draws by name, each with the shorter side, in points,
    /// of its largest placement.
    images: HashMap<Vec<u8>, f32>,
}

fn drawing(doc: &Document, page: ObjectId) -> Drawing {
    let Ok(content) = doc.get_page_content_with_limit(page, MAX_CONTENT_BYTES) else {
        return Drawing::default();
    };
    let Ok(content) = Content::decode(&content) else {
        return Drawing::default();
    };
    let mut images: HashMap<Vec<u8>, f32> = HashMap::new();
    let mut paint = Paint {
        ctm: IDENTITY,
        dark: true,
    };
    let mut saved = Vec::new();
    let mut path: Vec<Vec<[f32; 2]>> = Vec::new();
    let mut rects = Vec::new();
    for op in &content.operations {
        if rects.len() >= MAX_RECTANGLES {
            break;
        }
        let n: Vec<f32> = op
            .operands
            .iter()
            .filter_map(|o| o.as_float().ok())
            .collect();
        let at = |x: f32, y: f32| transform(&paint.ctm, x, y);
        match (op.operator.as_str(), n.as_slice()) {
            ("q", _) if saved.len() < MAX_GRAPHICS_DEPTH => saved.push(paint),
            ("Q", _) => paint = saved.pop().unwrap_or(paint),
            ("cm", &[a, b, c, d, e, f]) => paint.ctm = multiply(&[a, b, c, d, e, f], &paint.ctm),
            ("g" | "sc" | "scn", &[grey]) => paint.dark = grey < 0.5,
            ("rg" | "sc" | "scn", &[r, g, b]) => paint.dark = 0.3 * r + 0.59 * g + 0.11 * b < 0.5,
            ("k" | "sc" | "scn", &[c, m, y, k]) => {
                paint.dark = (1.0 - k) * (1.0 - (c + m + y) / 3.0) < 0.5
            }
            ("re", &[x, y, w, h]) => {
                path.push(vec![at(x, y), at(x + w, y), at(x + w, y + h), at(x, y + h)])
            }
            ("m", &[x, y]) => path.push(vec![at(x, y)]),
            ("l", &[x, y]) => {
                if let Some(subpath) = path.last_mut() {
                    subpath.push(at(x, y));
                }
            }
            // A curve: the subpath is no rectangle.
            ("c" | "v" | "y", _) => {
                if let Some(subpath) = path.last_mut() {
                    subpath.clear();
                }
            }
            ("f" | "F" | "f*" | "B" | "B*" | "b" | "b*", _) => {
                if paint.dark {
                    rects.extend(path.iter().filter_map(|s| rectangle(s)));
                }
                path.clear();
            }
            ("n" | "S" | "s", _) => path.clear(),
            ("Do", _) => {
                if let Some(Ok(name)) = op.operands.first().map(Object::as_name) {
                    let m = paint.ctm;
                    let side = m[0].hypot(m[1]).min(m[2].hypot(m[3]));
                    let largest = images.entry(name.to_vec()).or_insert(0.0);
                    *largest = largest.max(side);
                }
            }
            _ => {}
        }
    }
    rects.truncate(MAX_RECTANGLES);
    Drawing { rects, images }
}

fn transform(m: &Matrix, x: f32, y: f32) -> [f32; 2] {
    [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]
}

/// The rectangle a closed four-corner subpath outlines, when its sides are
/// horizontal and vertical.
fn rectangle(points: &[[f32; 2]]) -> Option<Rect> {
    let points = match points {
        [first, corners @ .., last] if corners.len() == 3 && first == last => &points[..4],
        _ => points,
    };
    let [a, b, c, d] = points else { return None };
    let near = |p: f32, q: f32| (p - q).abs() < 0.01;
    let horizontal_first =
        near(a[1], b[1]) && near(b[0], c[0]) && near(c[1], d[1]) && near(d[0], a[0]);
    let vertical_first =
        near(a[0], b[0]) && near(b[1], c[1]) && near(c[0], d[0]) && near(d[1], a[1]);
    if !(horizontal_first || vertical_first) {
        return None;
    }
    let xs = [a[0], c[0]];
    let ys = [a[1], c[1]];
    let rect = [
        xs[0].min(xs[1]),
        ys[0].min(ys[1]),
        xs[0].max(xs[1]),
        ys[0].max(ys[1]),
    ];
    (rect.iter().all(|v| v.is_finite()) && rect[2] > rect[0] && rect[3] > rect[1]).then_some(rect)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::ZlibEncoder;
    use lopdf::{Dictionary, Stream, dictionary};
    use qrcode::{Color, EcLevel, QrCode};

    use super::*;
    use crate::extraction::qr_image::tests::{URL, sheet};

    fn modules(url: &str) -> (usize, Vec<Color>) {
        let code = QrCode::with_error_correction_level(url, EcLevel::M).unwrap();
        (code.width(), code.to_colors())
    }

    /// A one-page A4 document drawing `content`, with `resources`.
    fn page(content: Vec<u8>, resources: Dictionary) -> (Document, ObjectId) {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let stream = doc.add_object(Stream::new(dictionary! {}, content));
        let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id,
        "Contents" => stream, "Resources" => resources,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()]});
        doc.objects.insert(
            pages_id,
            Object::Dictionary(
                dictionary! {"Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1},
            ),
        );
        let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
        doc.trailer.set("Root", catalog);
        (doc, page)
    }

    /// The code drawn one run of dark modules a rectangle, as this project's
    /// own PDFs draw it, under a flipping matrix (top-left origin, mm), with
    /// a grey box and a border elsewhere on the page.
    fn drawn(url: &str, as_paths: bool) -> Vec<u8> {
        let (size, colors) = modules(url);
        let mut ops = String::from(
            "0.9 g 20 700 200 40 re f 0 0 1 RG 10 10 m 500 10 l S q 2.8346 0 0 -2.8346 0 842 cm 0 g\n",
        );
        for (row, line) in colors.chunks(size).enumerate() {
            let mut column = 0;
            while column < size {
                let run = line[column..]
                    .iter()
                    .take_while(|c| **c == Color::Dark)
                    .count();
                if run > 0 {
                    let (x, y, w, h) = (
                        20.0 + column as f32 * 0.7,
                        20.0 + row as f32 * 0.7,
                        run as f32 * 0.7,
                        0.7,
                    );
                    if as_paths {
                        ops += &format!(
                            "{x} {y} m {} {y} l {} {} l {x} {} l h\n",
                            x + w,
                            x + w,
                            y + h,
                            y + h
                        );
                    } else {
                        ops += &format!("{x} {y} {w} {h} re\n");
                    }
                }
                column += run.max(1);
            }
        }
        ops += "f Q";
        ops.into_bytes()
    }

    #[test]
    fn a_code_drawn_as_rectangles_or_paths_is_read() {
        for as_paths in [false, true] {
            let (doc, id) = page(drawn(URL, as_paths), dictionary! {});
            assert_eq!(page_codes(&doc, id), [URL], "paths: {as_paths}");
        }
    }

    #[test]
    fn a_light_or_curved_drawing_is_no_code() {
        let light = String::from_utf8(drawn(URL, false))
            .unwrap()
            .replace(" 0 g", " 1 g");
        let (doc, id) = page(light.into_bytes(), dictionary! {});
        assert!(page_codes(&doc, id).is_empty());
        assert_eq!(rectangle(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), None);
        assert_eq!(
            rectangle(&[[0.0, 0.0], [1.0, 0.5], [1.0, 1.0], [0.0, 1.0]]),
            None
        );
        assert_eq!(
            rectangle(&[[0.0, 0.0], [0.0, 2.0], [1.0, 2.0], [1.0, 0.0], [0.0, 0.0]]),
            Some([0.0, 0.0, 1.0, 2.0])
        );
    }

    fn with_image(doc: &mut Document, page_id: ObjectId, image: Stream) {
        let image = doc.add_object(image);
        doc.get_dictionary_mut(page_id).unwrap().set(
            "Resources",
            dictionary! {"XObject" => dictionary! {"Im1" => image}},
        );
    }

    #[test]
    fn codes_in_jpeg_grey_rgb_and_one_bit_images_are_read() {
        let grey = sheet(URL, 300, 300, 5, (35, 35));
        let mut jpeg = Vec::new();
        image::DynamicImage::ImageLuma8(grey.clone())
            .write_to(&mut Cursor::new(&mut jpeg), image::ImageFormat::Jpeg)
            .unwrap();
        let flate = |bytes: &[u8]| {
            let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
            encoder.write_all(bytes).unwrap();
            encoder.finish().unwrap()
        };
        let rgb: Vec<u8> = grey.as_raw().iter().flat_map(|&v| [v, v, v]).collect();
        let bits: Vec<u8> = grey
            .rows()
            .flat_map(|row| {
                let bits: Vec<bool> = row.map(|p| p.0[0] > 128).collect();
                bits.chunks(8)
                    .map(|c| {
                        c.iter()
                            .enumerate()
                            .fold(0u8, |b, (i, &on)| b | (u8::from(on) << (7 - i)))
                    })
                    .collect::<Vec<u8>>()
            })
            .collect();
        let base = || dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => 300, "Height" => 300};
        let mut cases = vec![];
        let mut dict = base();
        dict.extend(&dictionary! {"ColorSpace" => "DeviceGray", "BitsPerComponent" => 8, "Filter" => "DCTDecode"});
        cases.push(("jpeg", Stream::new(dict, jpeg)));
        let mut dict = base();
        dict.extend(&dictionary! {"ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8, "Filter" => "FlateDecode"});
        cases.push(("rgb", Stream::new(dict, flate(&rgb))));
        let mut dict = base();
        dict.extend(&dictionary! {"ColorSpace" => "DeviceGray", "BitsPerComponent" => 8});
        cases.push(("grey", Stream::new(dict, grey.as_raw().clone())));
        let mut dict = base();
        dict.extend(&dictionary! {"ImageMask" => true, "Filter" => "FlateDecode"});
        cases.push(("mask", Stream::new(dict, flate(&bits))));
        for (name, image) in cases {
            let (mut doc, id) = page(
                b"q 100 0 0 100 50 700 cm /Im1 Do Q".to_vec(),
                dictionary! {},
            );
            with_image(&mut doc, id, image);
            assert_eq!(page_codes(&doc, id), [URL], "{name}");
        }
    }

    #[test]
    fn an_image_drawn_as_a_small_icon_is_not_searched() {
        let grey = sheet(URL, 300, 300, 5, (35, 35));
        let image = || {
            let dict = dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => 300,
            "Height" => 300, "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8};
            Stream::new(dict, grey.as_raw().clone())
        };
        // 10 mm wide, then also 35 mm wide elsewhere, then not drawn by the page itself.
        let cases: [(&[u8], &[&str]); 3] = [
            (b"q 28 0 0 28 50 700 cm /Im1 Do Q", &[]),
            (
                b"q 28 0 0 28 50 700 cm /Im1 Do Q q 100 0 0 100 50 500 cm /Im1 Do Q",
                &[URL],
            ),
            (b"", &[URL]),
        ];
        for (content, expected) in cases {
            let (mut doc, id) = page(content.to_vec(), dictionary! {});
            with_image(&mut doc, id, image());
            assert_eq!(
                page_codes(&doc, id),
                expected,
                "{}",
                String::from_utf8_lossy(content)
            );
        }
    }

    #[test]
    fn short_wide_and_truncated_images_are_skipped() {
        assert!(!searchable(300, 100));
        assert!(!searchable(20, 20));
        assert!(!searchable(5_000, 5_000));
        assert!(searchable(300, 280));
        let mut dict = dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => 300, "Height" => 300};
        dict.extend(&dictionary! {"ColorSpace" => "DeviceGray", "BitsPerComponent" => 8});
        let (mut doc, id) = page(b"/Im1 Do".to_vec(), dictionary! {});
        with_image(&mut doc, id, Stream::new(dict, vec![0; 1000]));
        assert!(page_codes(&doc, id).is_empty());
    }
}
