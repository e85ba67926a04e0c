//! The document as the field readers see it: rows, the labels on them, the
//! decimal mark, and label → value pairing (the words after a label on its
//! row, up to the next label; else the words below it, in its column).

use std::ops::RangeInclusive;

use super::amount::{Mark, vote};
use super::labels::{Hit, Kind, row_hits};
use super::rows::{Row, Tok};

/// Confidence factors by how a value was found: beside its label, below it,
/// or by a fallback without a label (computed and repaired figures take
/// `reconcile`'s own).
pub const BESIDE: f32 = 0.95;
pub const BELOW: f32 = 0.85;
pub const FALLBACK: f32 = 0.5;

/// Labels read on one row at most: a real row has a handful, and the bound
/// keeps hostile text linear.
const MAX_HITS_PER_ROW: usize = 32;
/// How far below a label its value may be, in rows.
const ROWS_BELOW: usize = 3;
/// Slack around a label's horizontal extent when looking below it (page fraction).
const COLUMN_SLACK: f32 = 0.03;

/// Column headings of item tables, in the languages read.
const ITEM_COLUMNS: &[&str] = &[
    "descripcion",
    "concepto",
    "articulo",
    "cantidad",
    "cant",
    "uds",
    "unidades",
    "precio",
    "description",
    "quantity",
    "qty",
    "price",
    "item",
    "bezeichnung",
    "beschreibung",
    "menge",
    "preis",
    "artikel",
    "designation",
    "quantite",
    "prix",
    "omschrijving",
    "aantal",
    "prijs",
    "descrizione",
    "quantita",
    "prezzo",
    "descricao",
    "quantidade",
    "preco",
    "descripcio",
    "quantitat",
    "preu",
    "deskribapena",
    "kopurua",
    "prezioa",
    "produkt",
    "produit",
];

pub struct Doc {
    pub rows: Vec<Row>,
    pub hits: Vec<Hit>,
    pub mark: Mark,
}

/// A value's words, where they were found and how sure the reading is.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub text: String,
    pub row: usize,
    /// Index of the first word in the row.
    pub first: usize,
    pub conf: f32,
    /// Found below the label rather than beside it.
    pub below: bool,
}

/// Words joined with a space, and with ` | ` between cells, so that a
/// printed column gap never glues two numbers together.
pub fn join(toks: &[Tok]) -> String {
    let mut text = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            let new_cell = toks.get(i - 1).is_some_and(|p| p.cell != t.cell);
            text.push_str(if new_cell { " | " } else { " " });
        }
        text.push_str(&t.text);
    }
    text
}

pub fn mean_conf(toks: &[Tok]) -> f32 {
    if toks.is_empty() {
        return 0.0;
    }
    toks.iter().map(|t| t.conf).sum::<f32>() / toks.len() as f32
}

impl Doc {
    pub fn new(rows: Vec<Row>) -> Doc {
        let mark = vote(
            rows.iter()
                .flat_map(|r| r.toks.iter().map(|t| t.text.as_str())),
        );
        let mut hits: Vec<Hit> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            hits.extend(
                merge_repeats(row, row_hits(row, i))
                    .into_iter()
                    .take(MAX_HITS_PER_ROW),
            );
        }
        Doc { rows, hits, mark }
    }

    /// Whether the words come from OCR (a PDF's text layer reads with
    /// confidence 1).
    pub fn read_by_ocr(&self) -> bool {
        self.rows.iter().flat_map(|r| &r.toks).any(|t| t.conf < 1.0)
    }

    pub fn hits_of(&self, kind: Kind) -> impl Iterator<Item = &Hit> {
        self.hits.iter().filter(move |h| h.kind == kind)
    }

    pub fn row_hits(&self, row: usize) -> impl Iterator<Item = &Hit> {
        let start = self.hits.partition_point(|h| h.row < row);
        self.hits[start..].iter().take_while(move |h| h.row == row)
    }

    pub fn label_toks(&self, hit: &Hit) -> &[Tok] {
        self.rows
            .get(hit.row)
            .and_then(|r| r.toks.get(hit.start..hit.end))
            .unwrap_or(&[])
    }

    pub fn label_text(&self, hit: &Hit) -> String {
        join(self.label_toks(hit))
    }

    /// The words after a label on its row, up to the next label.
    pub fn segment(&self, hit: &Hit) -> &[Tok] {
        let Some(row) = self.rows.get(hit.row) else {
            return &[];
        };
        // The word "Factura" inside a label's words ("Total importe factura") ends nothing.
        let next = self
            .row_hits(hit.row)
            .filter(|h| h.kind != Kind::InvoiceTitle)
            .map(|h| h.start)
            .find(|&s| s >= hit.end)
            .unwrap_or(row.toks.len());
        row.toks.get(hit.end..next).unwrap_or(&[])
    }

    pub fn segment_value(&self, hit: &Hit) -> Value {
        let toks = self.segment(hit);
        Value {
            text: join(toks),
            row: hit.row,
            first: hit.end,
            conf: mean_conf(toks),
            below: false,
        }
    }

    /// Whether a label's first word starts its cell (not the "nº 5" of an
    /// address, not a word inside a sentence).
    pub fn heads_cell(&self, hit: &Hit) -> bool {
        let Some(row) = self.rows.get(hit.row) else {
            return false;
        };
        let cell_of = |i: usize| row.toks.get(i).map(|t| t.cell);
        hit.start == 0 || cell_of(hit.start - 1) != cell_of(hit.start)
    }

    /// Whether a label's last word ends its cell.
    pub fn ends_cell(&self, hit: &Hit) -> bool {
        let Some(row) = self.rows.get(hit.row) else {
            return false;
        };
        let cell_of = |i: usize| row.toks.get(i).map(|t| t.cell);
        hit.end >= row.toks.len() || cell_of(hit.end) != cell_of(hit.end - 1)
    }

    /// Whether a label is a word of a sentence ("… con ticket de compra y
    /// embalaje original"): three or more words follow it in its cell, none
    /// with a digit, and it asks for no value. What lies below is not its value.
    fn in_sentence(&self, hit: &Hit) -> bool {
        let Some(first) = self.label_toks(hit).first().map(|t| t.cell) else {
            return false;
        };
        let words = self
            .segment(hit)
            .iter()
            .take_while(|t| t.cell == first)
            .take_while(|t| t.text.chars().all(char::is_alphabetic))
            .count();
        words >= 3 && !self.asks_value(hit)
    }

    /// Whether a label ends in a colon, asking for its value ("Fecha:").
    pub fn asks_value(&self, hit: &Hit) -> bool {
        self.label_toks(hit)
            .last()
            .is_some_and(|t| t.text.ends_with(':'))
    }

    /// The horizontal extent of a label.
    fn extent(&self, hit: &Hit) -> (f32, f32) {
        let toks = self.label_toks(hit);
        let left = toks.first().map_or(0.0, |t| t.left);
        let right = toks.last().map_or(0.0, |t| t.right);
        (left, right)
    }

    /// The column headings of an item table ("Descripción | Cant. | Precio |
    /// IVA | Importe"): several cells, most of them not labels. What lies
    /// under such a heading is an item's figure, not the label's value.
    fn items_heading(&self, row: usize) -> bool {
        let Some(r) = self.rows.get(row) else {
            return false;
        };
        let cells = r.toks.last().map_or(0, |t| t.cell + 1);
        let labelled: std::collections::BTreeSet<usize> = self
            .row_hits(row)
            .flat_map(|h| self.label_toks(h).iter().map(|t| t.cell))
            .collect();
        let item_columns = r
            .toks
            .iter()
            .filter(|t| ITEM_COLUMNS.contains(&t.key.as_str()))
            .count();
        cells >= 3 && (labelled.len() * 2 < cells || item_columns >= 2)
    }

    /// The words under a label, in the rows below it: the cells that overlap
    /// its extent, skipping rows whose overlapping words are labels.
    pub fn below(&self, hit: &Hit) -> Vec<Value> {
        let Some(row) = self.rows.get(hit.row) else {
            return Vec::new();
        };
        // "Fecha de emisión:" asks for its value even on a row of other cells.
        if self.items_heading(hit.row) && !self.asks_value(hit) {
            return Vec::new();
        }
        let (left, right) = self.extent(hit);
        let height = (row.bottom - row.top).max(0.001);
        let mut values = Vec::new();
        let mut last_bottom = row.bottom;
        for (r, below) in self
            .rows
            .iter()
            .enumerate()
            .skip(hit.row + 1)
            .take(ROWS_BELOW)
        {
            if below.page != row.page || below.top - last_bottom > 3.0 * height {
                break;
            }
            last_bottom = below.bottom;
            let Some(cells) = cells_within(&below.toks, left - COLUMN_SLACK, right + COLUMN_SLACK)
            else {
                continue;
            };
            let Some(first) = below.toks.iter().position(|t| cells.contains(&t.cell)) else {
                continue;
            };
            let toks: Vec<Tok> = below
                .toks
                .iter()
                .filter(|t| cells.contains(&t.cell))
                .cloned()
                .collect();
            let labelled = self
                .row_hits(r)
                .any(|h| h.start <= first && first < h.end.max(h.start + 1));
            if labelled {
                break;
            }
            values.push(Value {
                text: join(&toks),
                row: r,
                first,
                conf: mean_conf(&toks),
                below: true,
            });
        }
        values
    }

    /// The first value of a label that `read` accepts: beside it, else below.
    pub fn value<T>(&self, hit: &Hit, read: impl Fn(&str) -> Option<T>) -> Option<(T, Value)> {
        let beside = self.segment_value(hit);
        if let Some(v) = read(&beside.text) {
            return Some((v, beside));
        }
        if self.in_sentence(hit) {
            return None;
        }
        self.below(hit)
            .into_iter()
            .find_map(|value| read(&value.text).map(|v| (v, value)))
    }
}

/// The cells of a row with a word overlapping `from..to` (cells are
/// contiguous, so a range).
pub fn cells_within(toks: &[Tok], from: f32, to: f32) -> Option<RangeInclusive<usize>> {
    let mut overlapping = toks
        .iter()
        .filter(|t| t.right >= from && t.left <= to)
        .map(|t| t.cell);
    let first = overlapping.next()?;
    let last = overlapping.next_back().unwrap_or(first);
    Some(first..=last)
}

/// "Impuestos (21 % IVA) 21,00" reads as two VAT labels; the second one,
/// right after the first's words and in the same cell, continues it.
fn merge_repeats(row: &Row, hits: Vec<Hit>) -> Vec<Hit> {
    let cell = |i: usize| row.toks.get(i).map(|t| t.cell);
    let mut merged: Vec<Hit> = Vec::new();
    for hit in hits {
        match merged.last_mut() {
            Some(prev)
                if prev.kind == hit.kind
                    && hit.start <= prev.end + 2
                    && cell(prev.end.saturating_sub(1)) == cell(hit.start) =>
            {
                prev.end = hit.end
            }
            _ => merged.push(hit),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;

    fn doc(text: &str) -> Doc {
        Doc::new(rows(&TextDocument::from_plain_text(text).words))
    }

    #[test]
    fn value_beside_then_below() {
        let d = doc("Base imponible: 1.546,50 €   IVA 21%  324,77\nFecha factura\n05/08/2026");
        let base = d.hits_of(Kind::Base).next().unwrap();
        assert_eq!(d.segment_value(base).text, "1.546,50 €");
        let vat = d.hits_of(Kind::Vat).next().unwrap();
        assert_eq!(d.segment_value(vat).text, "21% | 324,77");
        let date = d.hits_of(Kind::InvoiceDate).next().unwrap();
        let (text, value) = d
            .value(date, |t| (!t.is_empty()).then(|| t.to_string()))
            .unwrap();
        assert_eq!(text, "05/08/2026");
        assert!(value.below);
    }

    #[test]
    fn below_stays_in_the_column() {
        let d = doc("Nº factura      Fecha\n2026/0147       05/08/2026");
        let number = d.hits_of(Kind::InvoiceNumber).next().unwrap();
        let below = d.below(number);
        assert_eq!(below[0].text, "2026/0147");
        let date = d.hits_of(Kind::InvoiceDate).next().unwrap();
        assert_eq!(d.below(date)[0].text, "05/08/2026");
    }
}
