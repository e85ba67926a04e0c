//! What text each character code of a font stands for, decided much as
//! poppler does (PDF 32000-1 §9.10.2), first match winning:
//! 1. the font's `/ToUnicode` CMap;
//! 2. for a simple font, `/Differences` glyph names, then — for a TrueType
//!    font whose program has no Unicode `cmap` subtable, where the codes
//!    select glyphs through its (3,0) or (1,0) subtable whatever `/Encoding`
//!    says — the `post` name of the glyph drawn, then the base encoding or,
//!    without one, a CFF program's built-in encoding, then `StandardEncoding`;
//! 3. for a CID font, the glyph the code selects (`/CIDToGIDMap`) in the
//!    embedded program: its Unicode `cmap` entry or its glyph name.
//!
//! Generators that subset fonts often write no `/ToUnicode` and a `/Encoding`
//! their codes do not follow; the embedded program then still names the
//! glyphs. Programs beyond `MAX_PROGRAM_BYTES` and CMaps beyond
//! `MAX_CMAP_BYTES` (decompressed) are not read.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use lopdf::{Dictionary, Document, Object};
use ttf_parser::{GlyphId, PlatformId, RawFace, Tag, cff, cmap, post};

use super::cmap as to_unicode;
use super::encodings::BaseEncoding;
use super::glyph_names::{glyph_number, to_unicode as name_text};

/// Largest `/ToUnicode` stream read, decompressed.
const MAX_CMAP_BYTES: usize = 4 << 20;
/// Largest embedded font program read, decompressed.
const MAX_PROGRAM_BYTES: usize = 16 << 20;

/// The fonts of a document, each read once however many pages use it. The
/// document does not change while it is read, so a font dictionary's address
/// names it.
#[derive(Default)]
pub struct FontCache(HashMap<*const Dictionary, Rc<FontText>>);

impl FontCache {
    pub fn get(&mut self, doc: &Document, font: &Dictionary) -> Rc<FontText> {
        self.0
            .entry(std::ptr::from_ref(font))
            .or_insert_with(|| Rc::new(FontText::load(doc, font)))
            .clone()
    }
}

/// The text of one font's character codes.
pub struct FontText {
    two_byte: bool,
    known: HashMap<u32, String>,
    cid_program: Option<CidProgram>,
}

impl FontText {
    pub fn load(doc: &Document, font: &Dictionary) -> Self {
        let two_byte = font.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Type0");
        let descendant = two_byte
            .then(|| {
                let fonts = resolve(doc, font.get(b"DescendantFonts").ok()?)?;
                dictionary(doc, fonts.as_array().ok()?.first()?)
            })
            .flatten();
        let program = descendant
            .unwrap_or(font)
            .get(b"FontDescriptor")
            .ok()
            .and_then(|d| dictionary(doc, d))
            .and_then(|d| program_bytes(doc, d));
        let (mut known, cid_program) = match descendant {
            Some(descendant) => (
                HashMap::new(),
                program.map(|bytes| CidProgram::new(doc, descendant, bytes)),
            ),
            None if two_byte => (HashMap::new(), None),
            None => (simple_codes(doc, font, program.as_deref()), None),
        };
        if let Some(cmap) = font
            .get(b"ToUnicode")
            .ok()
            .and_then(|o| resolve(doc, o)?.as_stream().ok())
            .and_then(|s| s.get_plain_content_with_limit(MAX_CMAP_BYTES).ok())
        {
            known.extend(to_unicode::parse(&cmap));
        }
        FontText {
            two_byte,
            known,
            cid_program,
        }
    }

    /// Codes are two bytes (a `Type0` font) rather than one.
    pub fn two_byte(&self) -> bool {
        self.two_byte
    }

    /// The text `code` stands for, if any map knows it.
    pub fn text(&self, code: u32) -> Option<String> {
        if let Some(text) = self.known.get(&code) {
            return Some(text.clone());
        }
        self.cid_program.as_ref()?.text(code)
    }
}

fn resolve<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

fn dictionary<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    resolve(doc, object)?.as_dict().ok()
}

/// The embedded program: `/FontFile2` (TrueType) or `/FontFile3` (CFF or
/// OpenType). Type 1 programs (`/FontFile`) are not read.
fn program_bytes(doc: &Document, descriptor: &Dictionary) -> Option<Vec<u8>> {
    [b"FontFile2".as_slice(), b"FontFile3"]
        .iter()
        .find_map(|key| resolve(doc, descriptor.get(key).ok()?)?.as_stream().ok())?
        .get_plain_content_with_limit(MAX_PROGRAM_BYTES)
        .ok()
}

/// The 256 codes of a simple font, from its encoding and program.
fn simple_codes(doc: &Document, font: &Dictionary, program: Option<&[u8]>) -> HashMap<u32, String> {
    let encoding = Encoding::of(doc, font);
    let program = program.map(Program::parse);
    let unicode = OnceCell::new();
    let symbolic = program.as_ref().is_some_and(Program::symbolic_cmap);
    (0..=u8::MAX)
        .filter_map(|code| {
            let text = encoding
                .differences
                .get(&code)
                .and_then(|name| named_glyph_text(name, program.as_ref(), &unicode))
                .or_else(|| {
                    let program = program.as_ref().filter(|_| symbolic)?;
                    name_text(program.glyph_name(program.symbol_glyph(code)?)?)
                })
                .or_else(|| encoding.base?.char(code).map(String::from))
                .or_else(|| {
                    let program = program.as_ref().filter(|_| encoding.base.is_none())?;
                    name_text(program.glyph_name(program.builtin_glyph(code)?)?)
                })
                .or_else(|| {
                    let standard = encoding.base.is_none().then_some(BaseEncoding::Standard);
                    standard?.char(code).map(String::from)
                })?;
            Some((u32::from(code), text))
        })
        .collect()
}

/// A `/Differences` name: an AGL name, else the glyph it numbers or names
/// in the embedded program.
fn named_glyph_text(
    name: &str,
    program: Option<&Program>,
    unicode: &OnceCell<HashMap<u16, char>>,
) -> Option<String> {
    name_text(name).or_else(|| {
        let program = program?;
        let glyph = glyph_number(name)
            .map(GlyphId)
            .or_else(|| program.glyph_by_name(name))?;
        glyph_text(program, unicode, glyph)
    })
}

/// A simple font's `/Encoding`: a base encoding and `/Differences`.
#[derive(Default)]
struct Encoding {
    base: Option<BaseEncoding>,
    differences: HashMap<u8, String>,
}

impl Encoding {
    fn of(doc: &Document, font: &Dictionary) -> Self {
        match font.get(b"Encoding").ok().and_then(|o| resolve(doc, o)) {
            Some(Object::Name(name)) => Encoding {
                base: BaseEncoding::named(name),
                differences: HashMap::new(),
            },
            Some(Object::Dictionary(dict)) => Encoding {
                base: dict
                    .get(b"BaseEncoding")
                    .and_then(Object::as_name)
                    .ok()
                    .and_then(BaseEncoding::named),
                differences: differences(doc, dict),
            },
            _ => Encoding::default(),
        }
    }
}

fn differences(doc: &Document, encoding: &Dictionary) -> HashMap<u8, String> {
    let mut map = HashMap::new();
    let Some(items) = encoding
        .get(b"Differences")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_array().ok())
    else {
        return map;
    };
    let mut code: Option<u8> = None;
    for item in items {
        match resolve(doc, item) {
            Some(Object::Integer(start)) => code = u8::try_from(*start).ok(),
            Some(Object::Name(name)) => {
                if let Some(c) = code {
                    map.insert(c, String::from_utf8_lossy(name).into_owned());
                    code = c.checked_add(1);
                }
            }
            _ => {}
        }
    }
    map
}

/// The tables of an embedded program that name its glyphs.
struct Program<'a> {
    cmap: Option<cmap::Table<'a>>,
    post: Option<post::Table<'a>>,
    cff: Option<cff::Table<'a>>,
}

impl<'a> Program<'a> {
    fn parse(data: &'a [u8]) -> Self {
        match RawFace::parse(data, 0) {
            Ok(face) => {
                let table = |tag: &[u8; 4]| face.table(Tag::from_bytes(tag));
                Program {
                    cmap: table(b"cmap").and_then(cmap::Table::parse),
                    post: table(b"post").and_then(post::Table::parse),
                    cff: table(b"CFF ").and_then(cff::Table::parse),
                }
            }
            Err(_) => Program {
                cmap: None,
                post: None,
                cff: cff::Table::parse(data),
            },
        }
    }

    fn glyph_name(&self, glyph: GlyphId) -> Option<&'a str> {
        self.post
            .and_then(|p| p.glyph_name(glyph))
            .or_else(|| self.cff.as_ref()?.glyph_name(glyph))
    }

    fn glyph_by_name(&self, name: &str) -> Option<GlyphId> {
        self.post
            .and_then(|p| p.glyph_index_by_name(name))
            .or_else(|| self.cff.as_ref()?.glyph_index_by_name(name))
    }

    /// A TrueType program whose codes are not Unicode: no Unicode subtable,
    /// only a Windows symbol (3,0) or Macintosh Roman (1,0) one.
    fn symbolic_cmap(&self) -> bool {
        self.cmap.is_some_and(|cmap| {
            !cmap.subtables.into_iter().any(|s| s.is_unicode())
                && cmap.subtables.into_iter().any(|s| symbol_subtable(&s))
        })
    }

    /// The glyph a one-byte code draws through a symbol subtable: (3,0)
    /// maps it at 0xF000 and up (some at the code itself), (1,0) as is.
    fn symbol_glyph(&self, code: u8) -> Option<GlyphId> {
        let code = u32::from(code);
        self.cmap?
            .subtables
            .into_iter()
            .filter(symbol_subtable)
            .flat_map(|s| {
                [code, 0xF000 | code, 0xF100 | code, 0xF200 | code]
                    .into_iter()
                    .filter_map(move |c| s.glyph_index(c))
            })
            .find(|g| g.0 != 0)
    }

    /// The glyph a code draws through a CFF program's built-in encoding.
    fn builtin_glyph(&self, code: u8) -> Option<GlyphId> {
        self.cff.as_ref()?.glyph_index(code).filter(|g| g.0 != 0)
    }

    /// The character each glyph of the Unicode subtable stands for (the
    /// lowest when several share it), over the Basic Multilingual Plane:
    /// at most 65,536 look-ups however the table is built.
    fn unicode_of_glyphs(&self) -> HashMap<u16, char> {
        let mut map = HashMap::new();
        let Some(subtable) = self
            .cmap
            .and_then(|cmap| cmap.subtables.into_iter().find(|s| s.is_unicode()))
        else {
            return map;
        };
        for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
            if let Some(glyph) = subtable.glyph_index(u32::from(c)).filter(|g| g.0 != 0) {
                map.entry(glyph.0).or_insert(c);
            }
        }
        map
    }
}

fn symbol_subtable(subtable: &cmap::Subtable) -> bool {
    matches!(
        (subtable.platform_id, subtable.encoding_id),
        (PlatformId::Windows, 0) | (PlatformId::Macintosh, 0)
    )
}

/// The text of a glyph: its entry in the program's Unicode `cmap` (the map
/// made once, when first needed), else its glyph name.
fn glyph_text(
    program: &Program,
    unicode: &OnceCell<HashMap<u16, char>>,
    glyph: GlyphId,
) -> Option<String> {
    unicode
        .get_or_init(|| program.unicode_of_glyphs())
        .get(&glyph.0)
        .map(|c| c.to_string())
        .or_else(|| name_text(program.glyph_name(glyph)?))
}

/// The program of a CID font, read code by code as text is drawn.
struct CidProgram {
    bytes: Vec<u8>,
    /// `/CIDToGIDMap` as a stream of big-endian glyph ids; `None` is Identity.
    cid_to_gid: Option<Vec<u8>>,
    unicode: OnceCell<HashMap<u16, char>>,
    cache: RefCell<HashMap<u32, Option<String>>>,
}

impl CidProgram {
    fn new(doc: &Document, descendant: &Dictionary, bytes: Vec<u8>) -> Self {
        let cid_to_gid = descendant
            .get(b"CIDToGIDMap")
            .ok()
            .and_then(|o| resolve(doc, o)?.as_stream().ok())
            .and_then(|s| s.get_plain_content_with_limit(MAX_CMAP_BYTES).ok());
        CidProgram {
            bytes,
            cid_to_gid,
            unicode: OnceCell::new(),
            cache: RefCell::new(HashMap::new()),
        }
    }

    fn text(&self, cid: u32) -> Option<String> {
        if let Some(known) = self.cache.borrow().get(&cid) {
            return known.clone();
        }
        let text = self
            .glyph(cid)
            .and_then(|glyph| glyph_text(&Program::parse(&self.bytes), &self.unicode, glyph));
        self.cache.borrow_mut().insert(cid, text.clone());
        text
    }

    fn glyph(&self, cid: u32) -> Option<GlyphId> {
        let cid = u16::try_from(cid).ok()?;
        match &self.cid_to_gid {
            None => Some(GlyphId(cid)),
            Some(map) => {
                let at = usize::from(cid) * 2;
                let pair = map.get(at..at + 2)?;
                Some(GlyphId(u16::from_be_bytes([pair[0], pair[1]])))
            }
        }
        .filter(|g| g.0 != 0)
    }
}

#[cfg(test)]
mod tests {
    use lopdf::{Stream, dictionary};

    use super::*;

    /// A TrueType program with just a `cmap` (one format 0 subtable on
    /// `platform`, mapping `codes` to glyphs) and a version 2 `post` table
    /// naming glyphs 1… `names` (glyph 0 is `.notdef`).
    fn truetype(platform: (u16, u16), codes: &[(u8, u16)], names: &[&str]) -> Vec<u8> {
        let be16 = |v: u16| v.to_be_bytes();
        let mut cmap = Vec::new();
        for v in [0, 1, platform.0, platform.1] {
            cmap.extend(be16(v));
        }
        cmap.extend(12u32.to_be_bytes());
        for v in [0, 262, 0] {
            cmap.extend(be16(v));
        }
        let mut glyphs = [0u8; 256];
        for &(code, glyph) in codes {
            glyphs[usize::from(code)] = u8::try_from(glyph).unwrap();
        }
        cmap.extend(glyphs);
        let mut post = 0x0002_0000u32.to_be_bytes().to_vec();
        post.extend([0; 28]);
        let count = u16::try_from(names.len() + 1).unwrap();
        post.extend(be16(count));
        post.extend(be16(0));
        for i in 0..names.len() {
            post.extend(be16(258 + u16::try_from(i).unwrap()));
        }
        for name in names {
            post.push(u8::try_from(name.len()).unwrap());
            post.extend(name.as_bytes());
        }
        let mut font = 0x0001_0000u32.to_be_bytes().to_vec();
        for v in [2, 32, 1, 0] {
            font.extend(be16(v));
        }
        let mut offset = 12 + 2 * 16;
        let mut tables: Vec<u8> = Vec::new();
        for (tag, table) in [(b"cmap", &cmap), (b"post", &post)] {
            font.extend(tag);
            font.extend(0u32.to_be_bytes());
            font.extend(u32::try_from(offset).unwrap().to_be_bytes());
            font.extend(u32::try_from(table.len()).unwrap().to_be_bytes());
            offset += table.len();
            tables.extend(table);
        }
        font.extend(tables);
        font
    }

    fn with_program(doc: &mut Document, mut font: Dictionary, program: Vec<u8>) -> Dictionary {
        let file = doc.add_object(Stream::new(dictionary! {}, program));
        let descriptor =
            doc.add_object(dictionary! {"Type" => "FontDescriptor", "FontFile2" => file});
        font.set("FontDescriptor", descriptor);
        font
    }

    fn texts(font: &FontText, codes: std::ops::RangeInclusive<u32>) -> Vec<Option<String>> {
        codes.map(|c| font.text(c)).collect()
    }

    #[test]
    fn a_subset_truetype_font_reads_through_its_program_not_its_winansi_encoding() {
        let mut doc = Document::with_version("1.7");
        let program = truetype(
            (1, 0),
            &[(3, 1), (4, 2), (5, 3), (6, 4)],
            &["P", "e", "r", "eacute"],
        );
        let font = dictionary! {"Type" => "Font", "Subtype" => "TrueType",
        "BaseFont" => "ABCDEF+Verdana", "Encoding" => "WinAnsiEncoding"};
        let font = with_program(&mut doc, font, program);
        let text = FontText::load(&doc, &font);
        assert!(!text.two_byte());
        let read: Vec<_> = texts(&text, 3..=6).into_iter().flatten().collect();
        assert_eq!(read.concat(), "Peré");
        assert_eq!(
            text.text(0x41),
            Some("A".into()),
            "unmapped codes keep WinAnsi"
        );
    }

    #[test]
    fn differences_name_glyphs_by_the_glyph_list_or_by_number() {
        let mut doc = Document::with_version("1.7");
        let program = truetype((3, 1), &[(b'x', 1)], &["x"]);
        let encoding = dictionary! {"Type" => "Encoding", "BaseEncoding" => "WinAnsiEncoding",
        "Differences" => vec![65.into(), "eacute".into(), "uni20AC".into(), "g1".into(),
            "f_f".into(), "cid99".into()]};
        let font = dictionary! {"Type" => "Font", "Subtype" => "TrueType",
        "BaseFont" => "ABCDEF+Arial", "Encoding" => encoding};
        let font = with_program(&mut doc, font, program);
        let text = FontText::load(&doc, &font);
        assert_eq!(
            texts(&text, 65..=69),
            [
                Some("é".into()),
                Some("€".into()),
                Some("x".into()),
                Some("ff".into()),
                Some("E".into())
            ]
        );
    }

    #[test]
    fn a_cid_font_without_unicode_map_reads_its_glyphs_unicode_cmap() {
        let mut doc = Document::with_version("1.7");
        let program = truetype((0, 3), &[(b'N', 1), (0xBA, 2)], &["N", "ordmasculine"]);
        let file = doc.add_object(Stream::new(dictionary! {}, program));
        let descriptor =
            doc.add_object(dictionary! {"Type" => "FontDescriptor", "FontFile2" => file});
        let font = dictionary! {"Type" => "Font", "Subtype" => "Type0", "BaseFont" => "ABCDEF+Arial",
        "Encoding" => "Identity-H", "DescendantFonts" => vec![Object::Dictionary(dictionary! {
            "Type" => "Font", "Subtype" => "CIDFontType2", "FontDescriptor" => descriptor})]};
        let text = FontText::load(&doc, &font);
        assert!(text.two_byte());
        assert_eq!(
            texts(&text, 0..=3),
            [None, Some("N".into()), Some("º".into()), None]
        );
    }

    #[test]
    fn to_unicode_wins_over_every_other_map() {
        let mut doc = Document::with_version("1.7");
        let cmap = doc.add_object(Stream::new(
            dictionary! {},
            b"begincmap 1 beginbfrange <41> <42> <0078> endbfrange endcmap".to_vec(),
        ));
        let font = dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding", "ToUnicode" => cmap};
        let text = FontText::load(&doc, &font);
        assert_eq!(
            texts(&text, 0x41..=0x43),
            [Some("x".into()), Some("y".into()), Some("C".into())]
        );
    }
}
