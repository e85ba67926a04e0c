//! The base encodings of simple fonts (PDF 32000-1 Annex D): which character
//! each one-byte code of `StandardEncoding`, `WinAnsiEncoding` and
//! `MacRomanEncoding` stands for.

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BaseEncoding {
    Standard,
    WinAnsi,
    MacRoman,
}

/// WinAnsi's codes 0x80–0x9F (Windows-1252); NUL marks an unused code.
const WIN_ANSI_HIGH: &str = "€\0‚ƒ„…†‡ˆ‰Š‹Œ\0Ž\0\0‘’“”•–—˜™š›œ\0žŸ";
/// MacRoman's codes 0x80–0xFF; NUL marks the Apple logo, a private-use glyph.
const MAC_ROMAN_HIGH: &str = "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø\
    ¿¡¬√ƒ≈∆«»…\u{A0}ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\0ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ";
/// StandardEncoding's used codes in its upper half.
const STANDARD_HIGH: [(u8, char); 54] = [
    (0xA1, '¡'),
    (0xA2, '¢'),
    (0xA3, '£'),
    (0xA4, '⁄'),
    (0xA5, '¥'),
    (0xA6, 'ƒ'),
    (0xA7, '§'),
    (0xA8, '¤'),
    (0xA9, '\''),
    (0xAA, '“'),
    (0xAB, '«'),
    (0xAC, '‹'),
    (0xAD, '›'),
    (0xAE, 'ﬁ'),
    (0xAF, 'ﬂ'),
    (0xB1, '–'),
    (0xB2, '†'),
    (0xB3, '‡'),
    (0xB4, '·'),
    (0xB6, '¶'),
    (0xB7, '•'),
    (0xB8, '‚'),
    (0xB9, '„'),
    (0xBA, '”'),
    (0xBB, '»'),
    (0xBC, '…'),
    (0xBD, '‰'),
    (0xBF, '¿'),
    (0xC1, '`'),
    (0xC2, '´'),
    (0xC3, 'ˆ'),
    (0xC4, '˜'),
    (0xC5, '¯'),
    (0xC6, '˘'),
    (0xC7, '˙'),
    (0xC8, '¨'),
    (0xCA, '˚'),
    (0xCB, '¸'),
    (0xCD, '˝'),
    (0xCE, '˛'),
    (0xCF, 'ˇ'),
    (0xD0, '—'),
    (0xE1, 'Æ'),
    (0xE3, 'ª'),
    (0xE8, 'Ł'),
    (0xE9, 'Ø'),
    (0xEA, 'Œ'),
    (0xEB, 'º'),
    (0xF1, 'æ'),
    (0xF5, 'ı'),
    (0xF8, 'ł'),
    (0xF9, 'ø'),
    (0xFA, 'œ'),
    (0xFB, 'ß'),
];

impl BaseEncoding {
    /// The encoding a PDF name (`/WinAnsiEncoding`…) stands for.
    pub fn named(name: &[u8]) -> Option<Self> {
        match name {
            b"StandardEncoding" => Some(Self::Standard),
            b"WinAnsiEncoding" => Some(Self::WinAnsi),
            b"MacRomanEncoding" => Some(Self::MacRoman),
            _ => None,
        }
    }

    /// The character `code` stands for, if the encoding uses it.
    pub fn char(self, code: u8) -> Option<char> {
        let c = match (self, code) {
            (_, 0..=0x1F) | (_, 0x7F) => None,
            (Self::Standard, 0x27) => Some('’'),
            (Self::Standard, 0x60) => Some('‘'),
            (_, 0x20..=0x7E) => Some(char::from(code)),
            (Self::WinAnsi, 0x80..=0x9F) => WIN_ANSI_HIGH.chars().nth(usize::from(code - 0x80)),
            (Self::WinAnsi, _) => Some(char::from(code)),
            (Self::MacRoman, _) => MAC_ROMAN_HIGH.chars().nth(usize::from(code - 0x80)),
            (Self::Standard, _) => STANDARD_HIGH
                .iter()
                .find(|(c, _)| *c == code)
                .map(|(_, ch)| *ch),
        };
        c.filter(|c| *c != '\0')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_base_encodings_differ_where_annex_d_says() {
        use BaseEncoding::*;
        assert_eq!(MAC_ROMAN_HIGH.chars().count(), 128);
        assert_eq!(WIN_ANSI_HIGH.chars().count(), 32);
        assert_eq!(WinAnsi.char(b'A'), Some('A'));
        assert_eq!(WinAnsi.char(0x80), Some('€'));
        assert_eq!(WinAnsi.char(0x81), None);
        assert_eq!(WinAnsi.char(0xF1), Some('ñ'));
        assert_eq!(MacRoman.char(0x96), Some('ñ'));
        assert_eq!(MacRoman.char(0xDB), Some('€'));
        assert_eq!(MacRoman.char(0xF0), None);
        assert_eq!(Standard.char(0x27), Some('’'));
        assert_eq!(Standard.char(0xE1), Some('Æ'));
        assert_eq!(Standard.char(0xF1), Some('æ'));
        assert_eq!(Standard.char(0xE2), None);
        assert_eq!(WinAnsi.char(0x0A), None);
        assert_eq!(BaseEncoding::named(b"WinAnsiEncoding"), Some(WinAnsi));
    }
}
