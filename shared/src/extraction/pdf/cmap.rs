//! `/ToUnicode` CMaps (PDF 32000-1 §9.10.3): the `bfchar` and `bfrange`
//! entries (a range to a start string, or to an array of strings), read with
//! a tolerant tokenizer. lopdf's own parser gives up on whole CMaps that
//! poppler reads (keywords sharing a line, entries mapping to U+0000), and
//! its text then falls back to a wrong encoding.

use std::collections::HashMap;

/// Most entries taken from one CMap: a full CJK font maps about 30,000.
const MAX_ENTRIES: u32 = 1 << 17;
/// Longest source code, in bytes.
const MAX_CODE_BYTES: usize = 4;

/// The text each character code stands for. Entries that give no usable text
/// (empty, or control characters only) are left out, so another map decides.
pub fn parse(data: &[u8]) -> HashMap<u32, String> {
    let mut map = HashMap::new();
    let mut section = Section::None;
    let mut args: Vec<Arg> = Vec::new();
    let mut array: Option<Vec<Vec<u8>>> = None;
    let mut budget = MAX_ENTRIES;
    for token in Tokens::new(data) {
        match token {
            Token::Word(word @ (b"beginbfchar" | b"beginbfrange")) => {
                section = if word == b"beginbfchar" {
                    Section::Char
                } else {
                    Section::Range
                };
                args.clear();
                array = None;
                continue;
            }
            _ if section == Section::None => continue,
            Token::Word(word) if word.starts_with(b"end") => {
                section = Section::None;
                continue;
            }
            Token::Word(_) => args.push(Arg::Other),
            Token::Open => array = Some(Vec::new()),
            Token::Close => args.push(Arg::Array(array.take().unwrap_or_default())),
            Token::Hex(bytes) => match array.as_mut() {
                Some(items) => items.push(bytes),
                None => args.push(Arg::Hex(bytes)),
            },
        }
        let complete = match section {
            Section::Char => args.len() == 2,
            Section::Range => args.len() == 3,
            Section::None => false,
        };
        if complete {
            let added = entries(&args, budget, &mut map);
            budget = budget.saturating_sub(added);
            args.clear();
            if budget == 0 {
                break;
            }
        }
    }
    map
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Char,
    Range,
}

enum Arg {
    Hex(Vec<u8>),
    Array(Vec<Vec<u8>>),
    /// A name or number where a string belongs: the entry is skipped.
    Other,
}

/// Adds the entries of one `bfchar` pair or `bfrange` triple; how many.
fn entries(args: &[Arg], budget: u32, map: &mut HashMap<u32, String>) -> u32 {
    let mut put = |code: u32, units: &[u16]| {
        if let Some(text) = text(units) {
            map.insert(code, text);
        }
    };
    match args {
        [Arg::Hex(code), Arg::Hex(target)] => {
            if let Some(code) = code_value(code) {
                put(code, &utf16(target));
            }
            1
        }
        [Arg::Hex(low), Arg::Hex(high), target] => {
            let (Some(low), Some(high)) = (code_value(low), code_value(high)) else {
                return 0;
            };
            let count = high.saturating_sub(low).saturating_add(1).min(budget);
            match target {
                Arg::Hex(start) => {
                    let mut units = utf16(start);
                    let Some(&last) = units.last() else { return 0 };
                    for offset in 0..count {
                        let Some(unit) =
                            u16::try_from(offset).ok().and_then(|o| last.checked_add(o))
                        else {
                            break;
                        };
                        if let Some(end) = units.last_mut() {
                            *end = unit;
                        }
                        put(low + offset, &units);
                    }
                }
                Arg::Array(targets) => {
                    for (offset, target) in (0..count).zip(targets) {
                        put(low + offset, &utf16(target));
                    }
                }
                Arg::Other => {}
            }
            count
        }
        _ => 0,
    }
}

fn code_value(bytes: &[u8]) -> Option<u32> {
    (!bytes.is_empty() && bytes.len() <= MAX_CODE_BYTES)
        .then(|| bytes.iter().fold(0u32, |v, b| v << 8 | u32::from(*b)))
}

fn utf16(bytes: &[u8]) -> Vec<u16> {
    match bytes {
        [single] => vec![u16::from(*single)],
        _ => bytes
            .chunks_exact(2)
            .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
            .collect(),
    }
}

fn text(units: &[u16]) -> Option<String> {
    let text: String = char::decode_utf16(units.iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    text.chars().any(|c| !c.is_control()).then_some(text)
}

enum Token<'a> {
    Hex(Vec<u8>),
    Open,
    Close,
    /// Anything else: a keyword, number, name, dictionary bracket or string.
    Word(&'a [u8]),
}

struct Tokens<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn new(data: &'a [u8]) -> Self {
        Tokens { data, pos: 0 }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.data.get(self.pos + ahead).copied()
    }

    fn hex(&mut self) -> Token<'a> {
        self.pos += 1;
        let mut digits = Vec::new();
        while let Some(b) = self.peek(0) {
            self.pos += 1;
            match b {
                b'>' => break,
                _ => {
                    if let Some(d) = char::from(b).to_digit(16) {
                        digits.push(d as u8);
                    }
                }
            }
        }
        if digits.len() % 2 == 1 {
            digits.push(0);
        }
        Token::Hex(digits.chunks(2).map(|d| d[0] << 4 | d[1]).collect())
    }

    fn literal_string(&mut self) -> Token<'a> {
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(b) = self.peek(0) {
            self.pos += 1;
            match b {
                b'\\' => self.pos += 1,
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        Token::Word(&self.data[start..self.pos.min(self.data.len())])
    }

    fn word(&mut self) -> Token<'a> {
        let start = self.pos;
        self.pos += 1;
        while let Some(b) = self.peek(0) {
            if b.is_ascii_whitespace() || b"()<>[]{}/%".contains(&b) {
                break;
            }
            self.pos += 1;
        }
        Token::Word(&self.data[start..self.pos])
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            let b = self.peek(0)?;
            if b.is_ascii_whitespace() || b == 0 {
                self.pos += 1;
            } else if b == b'%' {
                while self.peek(0).is_some_and(|b| b != b'\n' && b != b'\r') {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let token = match (self.peek(0)?, self.peek(1)) {
            (b'<', Some(b'<')) | (b'>', Some(b'>')) => {
                self.pos += 2;
                Token::Word(&self.data[self.pos - 2..self.pos])
            }
            (b'<', _) => self.hex(),
            (b'[', _) => {
                self.pos += 1;
                Token::Open
            }
            (b']', _) => {
                self.pos += 1;
                Token::Close
            }
            (b'(', _) => self.literal_string(),
            _ => self.word(),
        };
        Some(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chars_and_both_range_forms_are_read() {
        let cmap = b"/CIDInit /ProcSet findresource begin\n12 dict begin begincmap\n\
            1 begincodespacerange <0000><FFFF> endcodespacerange\n\
            3 beginbfchar <0001> <0000> <0003><0020>\n<0010> <00660069> endbfchar\n\
            2 beginbfrange <0024> <0026> <0041> <0030><0031>[<00E9> <D835DC00>]\nendbfrange\n\
            endcmap";
        let map = parse(cmap);
        let text = |code: u32| map.get(&code).map(String::as_str);
        assert_eq!(text(1), None, "U+0000 is left to another map");
        assert_eq!(text(3), Some(" "));
        assert_eq!(text(0x10), Some("fi"));
        assert_eq!(
            [text(0x24), text(0x25), text(0x26)],
            [Some("A"), Some("B"), Some("C")]
        );
        assert_eq!([text(0x30), text(0x31)], [Some("é"), Some("𝐀")]);
        assert_eq!(map.len(), 7);
    }

    #[test]
    fn hostile_ranges_stay_bounded() {
        let map = parse(b"beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange");
        assert!(
            map.len() <= 0x1_0000,
            "the range stops where its text overflows"
        );
        assert_eq!(map.get(&0).map(String::as_str), Some("A"));
        assert_eq!(
            map.get(&(0xFFFF - 0x41)).map(String::as_str),
            Some("\u{FFFF}")
        );
        assert!(!map.contains_key(&(0x1_0000 - 0x41)));
        assert!(parse(b"beginbfrange <01> <00> [ <41 endbfrange").is_empty());
        assert!(parse(b"beginbfchar (unterminated").is_empty());
    }
}
