//! Positioned text, the one input of the Spanish field parser: words from a PDF
//! text layer, from Tesseract's TSV or from Textract's blocks, or lines of plain
//! text. Coordinates are fractions of the page (0–1, origin top-left), so every
//! source looks the same to the parser.

use serde::{Deserialize, Serialize};

/// One word (or a run of text that the source did not split) on a page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Word {
    pub text: String,
    /// 1-based page number.
    pub page: u32,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
    /// 0–1; 1.0 for a PDF text layer and given text.
    pub confidence: f32,
    /// The line the source found the word on, numbered across the document,
    /// when it finds lines (Tesseract): a ticket's line bent by the paper
    /// stays one line although its words drift up or down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// A field an OCR service already typed (Textract's normalised expense
/// fields), given to the parser as a hint; the parser re-derives every value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hint {
    /// Textract's `Type` text, e.g. `VENDOR_NAME`, `TOTAL`, `TAX`.
    pub kind: String,
    /// The printed label, when there is one ("Total factura").
    pub label: Option<String>,
    /// The printed value, as printed ("1.639,29 €").
    pub value: String,
    /// Group kinds such as `VENDOR` or `RECEIVER` (Textract's GroupProperties).
    pub groups: Vec<String>,
    pub confidence: f32,
}

/// One item line an OCR service already split into typed fields (a Textract
/// `LineItemGroups` entry), with where it lies on the page in the words'
/// frame; the line reader takes these before reading the table itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineHint {
    /// The line's fields by type (`ITEM`, `QUANTITY`, `UNIT_PRICE`, `PRICE`,
    /// `EXPENSE_ROW`, …), each value as printed; a label is its column heading.
    pub fields: Vec<Hint>,
    /// 1-based page number.
    pub page: u32,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
}

/// The text of one document with positions, plus any hints.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextDocument {
    pub words: Vec<Word>,
    pub hints: Vec<Hint>,
    /// Item lines given by the OCR service, in its order.
    #[serde(default)]
    pub line_hints: Vec<LineHint>,
}

impl TextDocument {
    /// Plain text as a document: one row per line, words placed by their
    /// character column, so columns of a text layout stay columns.
    pub fn from_plain_text(text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let rows = lines.len().max(1) as f32;
        let cols = lines
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(1)
            .max(1) as f32;
        let mut words = Vec::new();
        for (row, line) in lines.iter().enumerate() {
            let mut start = None;
            let chars: Vec<char> = line.chars().collect();
            for i in 0..=chars.len() {
                let blank = i == chars.len() || chars[i].is_whitespace();
                match (start, blank) {
                    (None, false) => start = Some(i),
                    (Some(s), true) => {
                        words.push(Word {
                            text: chars[s..i].iter().collect(),
                            page: 1,
                            left: s as f32 / cols,
                            top: row as f32 / rows,
                            width: (i - s) as f32 / cols,
                            height: 0.8 / rows,
                            confidence: 1.0,
                            line: None,
                        });
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        TextDocument {
            words,
            ..TextDocument::default()
        }
    }

    /// The words as lines of text, in reading order: a word starts a new
    /// line when it sits lower than half its height below the line's first
    /// word; pages are separated by a blank line.
    pub fn plain_text(&self) -> String {
        let mut words: Vec<&Word> = self.words.iter().collect();
        words.sort_by(|a, b| {
            (a.page, a.top)
                .partial_cmp(&(b.page, b.top))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let mut lines: Vec<(u32, f32, Vec<&Word>)> = Vec::new();
        for w in words {
            match lines.last_mut() {
                Some((page, top, line)) if *page == w.page && w.top - *top <= w.height / 2.0 => {
                    line.push(w)
                }
                _ => lines.push((w.page, w.top, vec![w])),
            }
        }
        let mut out = String::new();
        let mut page = None;
        for (p, _, mut line) in lines {
            if page.is_some_and(|page| page != p) {
                out.push('\n');
            }
            page = Some(p);
            line.sort_by(|a, b| {
                a.left
                    .partial_cmp(&b.left)
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let texts: Vec<&str> = line.iter().map(|w| w.text.as_str()).collect();
            out.push_str(&texts.join(" "));
            out.push('\n');
        }
        out
    }

    /// The number of letters and digits: a text layer with too few cannot hold an invoice.
    pub fn useful_chars(&self) -> usize {
        self.words
            .iter()
            .flat_map(|w| w.text.chars())
            .filter(|c| c.is_alphanumeric())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_rows_and_columns() {
        let doc = TextDocument::from_plain_text("Factura 7\n\nBase   100,00");
        let texts: Vec<_> = doc.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(texts, ["Factura", "7", "Base", "100,00"]);
        assert_eq!(doc.words[0].top, doc.words[1].top);
        assert!(doc.words[3].top > doc.words[0].top);
        assert!(doc.words[3].left > doc.words[2].left + doc.words[2].width);
        assert_eq!(doc.useful_chars(), 17);
    }

    #[test]
    fn plain_text_reads_lines_in_order() {
        let mut doc = TextDocument::from_plain_text("Factura 7\nBase   100,00");
        doc.words.reverse();
        doc.words[0].top += 0.01;
        let mut next_page = doc.words[1].clone();
        next_page.page = 2;
        next_page.text = "Total".into();
        doc.words.push(next_page);
        assert_eq!(doc.plain_text(), "Factura 7\nBase 100,00\n\nTotal\n");
    }
}
