//! Glyph names to Unicode, as the Adobe Glyph List specification reads them:
//! a suffix after `.` is dropped, `_` joins the parts of a ligature, each part
//! is an AGL for New Fonts name, `uniXXXX` (one or more BMP values) or
//! `uXXXX`–`uXXXXXX`. Subset fonts also name glyphs by number (`g42`,
//! `cid42`, `glyph42`): [`glyph_number`] reads those.

use std::collections::HashMap;
use std::sync::LazyLock;

static AGL: LazyLock<HashMap<&'static str, char>> = LazyLock::new(|| {
    glyph_names::GLYPH_NAME_PAIRS
        .iter()
        .map(|&(c, name)| (name, c))
        .collect()
});

/// The text a glyph name stands for, when the name follows the AGL.
pub fn to_unicode(name: &str) -> Option<String> {
    let base = name.split('.').next().unwrap_or_default();
    if base.is_empty() {
        return None;
    }
    let mut text = String::new();
    for part in base.split('_') {
        text.push_str(&component(part)?);
    }
    Some(text)
}

fn component(part: &str) -> Option<String> {
    if let Some(&c) = AGL.get(part) {
        return Some(c.to_string());
    }
    if let Some(hex) = part.strip_prefix("uni")
        && !hex.is_empty()
        && hex.len() % 4 == 0
    {
        return (0..hex.len())
            .step_by(4)
            .map(|i| scalar(&hex[i..i + 4]))
            .collect();
    }
    if let Some(hex) = part.strip_prefix('u')
        && (4..=6).contains(&hex.len())
    {
        return scalar(hex).map(String::from);
    }
    None
}

/// One Unicode scalar in upper-case hex, as the AGL writes it.
fn scalar(hex: &str) -> Option<char> {
    if !hex
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
    {
        return None;
    }
    char::from_u32(u32::from_str_radix(hex, 16).ok()?)
}

/// The glyph number in a name like `g42`, `glyph42`, `cid42` or `index42`.
pub fn glyph_number(name: &str) -> Option<u16> {
    ["glyph", "cid", "index", "g", "G"]
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix))
        .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|digits| digits.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_adobe_glyph_list() {
        let read = |name| to_unicode(name);
        assert_eq!(read("eacute").as_deref(), Some("é"));
        assert_eq!(read("Euro").as_deref(), Some("€"));
        assert_eq!(read("a.sc").as_deref(), Some("a"));
        assert_eq!(read("f_i").as_deref(), Some("fi"));
        assert_eq!(read("uni00F1").as_deref(), Some("ñ"));
        assert_eq!(read("uni00410042").as_deref(), Some("AB"));
        assert_eq!(read("u1F574").as_deref(), Some("🕴"));
        assert_eq!(read("uniD800"), None);
        assert_eq!(read("uni00f1"), None);
        assert_eq!(read(".notdef"), None);
        assert_eq!(read("g42"), None);
    }

    #[test]
    fn numbered_glyph_names_give_their_number() {
        assert_eq!(glyph_number("g42"), Some(42));
        assert_eq!(glyph_number("cid7"), Some(7));
        assert_eq!(glyph_number("glyph300"), Some(300));
        assert_eq!(glyph_number("germandbls"), None);
        assert_eq!(glyph_number("g"), None);
    }
}
