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
}
