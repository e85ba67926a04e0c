//! XML bytes to text: a byte-order mark wins, then the `encoding` of the XML
//! declaration, else UTF-8 (the XML default). UTF-8, UTF-16, ISO-8859-1,
//! ISO-8859-15 and Windows-1252 are read; Spanish software still writes the
//! Latin ones. A transcoded copy is measured before it is made: Latin text
//! may double in UTF-8, and it must fit the tree's byte limit anyway.

use std::borrow::Cow;

use super::EinvoiceError;
use crate::xml_tree::LIMITS;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The document as text, without its byte-order mark.
pub fn decode(xml: &[u8]) -> Result<Cow<'_, str>, EinvoiceError> {
    decode_within(xml, LIMITS.bytes)
}

/// `decode`, refusing a transcoded copy longer than `max` bytes before
/// making it.
fn decode_within(xml: &[u8], max: usize) -> Result<Cow<'_, str>, EinvoiceError> {
    if let Some(rest) = xml.strip_prefix(UTF8_BOM) {
        return utf8(rest);
    }
    if let Some(rest) = xml.strip_prefix(b"\xFF\xFE") {
        return utf16(rest, u16::from_le_bytes, max);
    }
    if let Some(rest) = xml.strip_prefix(b"\xFE\xFF") {
        return utf16(rest, u16::from_be_bytes, max);
    }
    let declared = declared_encoding(xml).map(|e| e.to_ascii_lowercase());
    let map = match declared.as_deref() {
        None | Some("utf-8" | "utf8" | "us-ascii" | "ascii") => return utf8(xml),
        Some("iso-8859-1" | "iso8859-1" | "iso_8859-1" | "latin1" | "latin-1" | "l1") => char::from,
        Some("iso-8859-15" | "iso8859-15" | "iso_8859-15" | "latin9" | "latin-9") => latin9,
        Some("windows-1252" | "cp1252") => windows1252,
        Some(other) => return Err(EinvoiceError::UnsupportedEncoding(other.to_string())),
    };
    single_byte(xml, map, max).map(Cow::Owned)
}

/// The `encoding` pseudo-attribute of a leading `<?xml …?>` declaration.
fn declared_encoding(xml: &[u8]) -> Option<&str> {
    let rest = xml.strip_prefix(b"<?xml")?;
    let end = rest.windows(2).position(|w| w == b"?>")?;
    let declaration = std::str::from_utf8(rest.get(..end)?).ok()?;
    let after = declaration.split_once("encoding")?.1.trim_start();
    let value = after.strip_prefix('=')?.trim_start();
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = value.get(1..)?;
    value.split(quote).next().map(str::trim)
}

fn utf8(bytes: &[u8]) -> Result<Cow<'_, str>, EinvoiceError> {
    std::str::from_utf8(bytes).map(Cow::Borrowed).map_err(|e| {
        EinvoiceError::Malformed(format!(
            "the document is not valid UTF-8 (byte {}); declare its encoding in the XML declaration",
            e.valid_up_to()
        ))
    })
}

fn utf16(
    bytes: &[u8],
    unit: fn([u8; 2]) -> u16,
    max: usize,
) -> Result<Cow<'static, str>, EinvoiceError> {
    let (pairs, rest) = bytes.as_chunks::<2>();
    if !rest.is_empty() {
        return Err(EinvoiceError::Malformed(
            "the UTF-16 document has an odd number of bytes".to_string(),
        ));
    }
    let chars = || char::decode_utf16(pairs.iter().map(|pair| unit(*pair)));
    let invalid = |_| EinvoiceError::Malformed("the document is not valid UTF-16".to_string());
    let len = chars()
        .try_fold(0, |len, c| c.map(|c| len + c.len_utf8()))
        .map_err(invalid)?;
    fits(len, max)?;
    let mut text = String::with_capacity(len);
    for c in chars() {
        text.push(c.map_err(invalid)?);
    }
    Ok(Cow::Owned(text))
}

fn single_byte(bytes: &[u8], map: fn(u8) -> char, max: usize) -> Result<String, EinvoiceError> {
    fits(bytes.iter().map(|b| map(*b).len_utf8()).sum(), max)?;
    Ok(bytes.iter().map(|b| map(*b)).collect())
}

fn fits(len: usize, max: usize) -> Result<(), EinvoiceError> {
    if len > max {
        return Err(EinvoiceError::TooLarge(format!(
            "the document is larger than {max} bytes once read as UTF-8"
        )));
    }
    Ok(())
}

/// ISO-8859-15 differs from ISO-8859-1 in eight positions, the euro sign among them.
fn latin9(byte: u8) -> char {
    match byte {
        0xA4 => '€',
        0xA6 => 'Š',
        0xA8 => 'š',
        0xB4 => 'Ž',
        0xB8 => 'ž',
        0xBC => 'Œ',
        0xBD => 'œ',
        0xBE => 'Ÿ',
        other => char::from(other),
    }
}

/// Windows-1252 puts printable characters where ISO-8859-1 has C1 controls.
fn windows1252(byte: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž',
        '\u{8F}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}',
        'ž', 'Ÿ',
    ];
    match byte {
        0x80..=0x9F => HIGH[usize::from(byte - 0x80)],
        other => char::from(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_with_and_without_bom() {
        assert_eq!(decode(b"\xEF\xBB\xBF<a>\xC3\xB1</a>").unwrap(), "<a>ñ</a>");
        assert_eq!(decode("<a>ñ</a>".as_bytes()).unwrap(), "<a>ñ</a>");
    }

    #[test]
    fn declared_latin_encodings_are_transcoded() {
        let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>Espa\xF1a \xA4</a>";
        assert!(decode(latin1).unwrap().ends_with("<a>España ¤</a>"));
        let latin9 = b"<?xml version='1.0' encoding='iso-8859-15'?><a>\xA4</a>";
        assert!(decode(latin9).unwrap().ends_with("<a>€</a>"));
        let cp1252 = b"<?xml version=\"1.0\" encoding = \"windows-1252\" ?><a>\x80 \x93x\x94</a>";
        assert!(decode(cp1252).unwrap().ends_with("<a>€ “x”</a>"));
    }

    #[test]
    fn utf16_with_bom() {
        let text = "<a>ñ€</a>";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode(&le).unwrap(), text);
        assert_eq!(decode(&be).unwrap(), text);
        assert!(decode(&le[..le.len() - 1]).is_err());
    }

    #[test]
    fn undeclared_latin1_bytes_and_unknown_encodings_are_errors() {
        assert!(matches!(
            decode(b"<a>Espa\xF1a</a>"),
            Err(EinvoiceError::Malformed(_))
        ));
        assert!(matches!(
            decode(b"<?xml version=\"1.0\" encoding=\"EBCDIC-ES\"?><a/>"),
            Err(EinvoiceError::UnsupportedEncoding(e)) if e == "ebcdic-es"
        ));
    }

    #[test]
    fn a_transcoded_copy_over_the_limit_is_refused_before_it_is_made() {
        let latin1 = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>\xF1\xF1</a>";
        assert!(decode_within(latin1, latin1.len() + 2).is_ok());
        assert!(matches!(
            decode_within(latin1, latin1.len() + 1),
            Err(EinvoiceError::TooLarge(m)) if m.contains(&format!("{} bytes", latin1.len() + 1))
        ));
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("<a>ñ</a>".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert!(decode_within(&utf16, 9).is_ok());
        assert!(matches!(
            decode_within(&utf16, 8),
            Err(EinvoiceError::TooLarge(_))
        ));
    }
}
