//! Item lines: the OCR service's own line items when it gives them
//! (Textract's `LineItemGroups`), else the item table read from the rows.
//!
//! The table starts at a heading row of column labels (description,
//! quantity, unit price, amount, VAT rate, discount, code; in es, ca, gl,
//! eu, en, fr, de, nl, it and pt) and runs down to the totals, a page break,
//! a wide gap or another heading. Under it, a figure belongs to the numeric
//! column whose heading it overlaps or lies nearest to; words left of the
//! numeric columns are the description. A row with an amount or a unit
//! price starts a line; a row of words alone continues the line above (or
//! opens the first one). Figures are as printed: nothing is computed.
//!
//! Confidence per line: the mean confidence of its words, times 0.95 when
//! quantity × unit price = amount (or the line has no quantity), else 0.85,
//! and 0.7 when the product disagrees with the amount.

use std::collections::HashSet;
use std::sync::OnceLock;

use rust_decimal::Decimal;

use super::amount::{Mark, Number, numbers};
use super::doc::{BELOW, BESIDE, Doc, mean_conf};
use super::labels::Kind;
use super::rows::{Row, Tok, unit};
use crate::extraction::fields::ItemLine;
use crate::extraction::layout::{Hint, LineHint};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Description,
    Quantity,
    UnitPrice,
    Amount,
    VatRate,
    Discount,
    /// Codes, references, units: neither description nor figure.
    Other,
}

/// Column headings as word keys (see `labels::key`).
const COLUMNS: &[(Column, &[&str])] = &[
    (
        Column::Description,
        &[
            "descripcion",
            "concepto",
            "conceptos",
            "articulo",
            "articulos",
            "detalle",
            "producto",
            "productos",
            "servicio",
            "servicios",
            "denominacion",
            "descripcio",
            "concepte",
            "descricion",
            "deskribapena",
            "kontzeptua",
            "description",
            "item",
            "items",
            "product",
            "service",
            "designation",
            "libelle",
            "produit",
            "prestation",
            "bezeichnung",
            "beschreibung",
            "artikel",
            "leistung",
            "artikelbezeichnung",
            "produkt",
            "omschrijving",
            "descrizione",
            "articolo",
            "descricao",
            "designacao",
        ],
    ),
    (
        Column::Quantity,
        &[
            "cantidad",
            "cant",
            "uds",
            "ud",
            "unidades",
            "unid",
            "quantitat",
            "cantidade",
            "kopurua",
            "qty",
            "quantity",
            "qte",
            "quantite",
            "menge",
            "anzahl",
            "aantal",
            "quantita",
            "qta",
            "quantidade",
            "qtd",
            "units",
            "hours",
            "horas",
        ],
    ),
    (
        Column::UnitPrice,
        &[
            "precio",
            "precio unitario",
            "precio unit",
            "precio ud",
            "precio u",
            "pvp",
            "p unit",
            "pu",
            "preu",
            "preu unitari",
            "prezo",
            "prezo unitario",
            "prezioa",
            "unit price",
            "price",
            "rate",
            "prix",
            "prix unitaire",
            "pu ht",
            "prix unitaire ht",
            "einzelpreis",
            "preis",
            "epreis",
            "stuckpreis",
            "prijs",
            "stukprijs",
            "eenheidsprijs",
            "prezzo",
            "prezzo unitario",
            "preco",
            "preco unitario",
        ],
    ),
    (
        Column::Amount,
        &[
            "importe",
            "importe total",
            "importe neto",
            "total",
            "total linea",
            "subtotal",
            "neto",
            "import",
            "zenbatekoa",
            "amount",
            "line total",
            "net amount",
            "montant",
            "montant ht",
            "total ht",
            "price wo",
            "net",
            "betrag",
            "gesamt",
            "gesamtpreis",
            "nettobetrag",
            "netto",
            "summe",
            "bedrag",
            "totaal",
            "importo",
            "totale",
            "valor",
            "montante",
        ],
    ),
    (
        Column::VatRate,
        &[
            "% iva", "iva %", "iva%", "iva", "tipo iva", "tipo", "% igic", "igic", "vat", "vat %",
            "tax", "tva", "% tva", "mwst", "ust", "mwst %", "ust %", "btw", "% btw", "%",
        ],
    ),
    (
        Column::Discount,
        &[
            "dto",
            "% dto",
            "dte",
            "descuento",
            "desc",
            "discount",
            "remise",
            "rabatt",
            "korting",
            "sconto",
        ],
    ),
    (
        Column::Other,
        &[
            "codigo",
            "cod",
            "ref",
            "referencia",
            "pos",
            "artnr",
            "art nr",
            "code",
            "sku",
            "unidad",
            "um",
            "einheit",
            "unite",
            "lote",
            "fecha",
            "date",
            "datum",
        ],
    ),
];

/// Words that open a totals row under the table.
const TOTALS: &[&str] = &[
    "subtotal",
    "sub total",
    "suma y sigue",
    "suma",
    "base imponible",
    "total",
    "totales",
    "summe",
    "zwischensumme",
    "gesamtbetrag",
    "nettobetrag",
    "netto",
    "brutto",
    "ust",
    "mwst",
    "sous total",
    "total ht",
    "totaal",
    "subtotaal",
    "totale",
    "imponibile",
];

/// Label kinds of the totals block: their row ends the table.
const TOTALS_KINDS: &[Kind] = &[
    Kind::Base,
    Kind::Gross,
    Kind::Total,
    Kind::Payable,
    Kind::VatTotal,
    Kind::Irpf,
    Kind::Suplidos,
];

/// Slack around a heading's extent when placing a figure under it (page fraction).
const SLACK: f32 = 0.03;
/// A vertical gap of this many row heights ends the table.
const MAX_GAP_ROWS: f32 = 3.0;
/// Rows of words this close under the heading (in row heights) finish the
/// heading ("Precio / Bruto").
const HEADING_BLOCK_ROWS: f32 = 1.2;
/// Lines read at most from one document.
const MAX_LINES: usize = 500;
/// Confidence factor of a line whose quantity × unit price is not its amount.
const MISMATCH: f32 = 0.7;

/// The longest of `labels` (keys separated by spaces) that the words from
/// `i` spell, within one cell: its length in words.
pub fn label_len(toks: &[Tok], i: usize, labels: &[&str]) -> Option<usize> {
    let first = toks.get(i)?;
    let spelt = |label: &&str| {
        // Most labels fail on their first word: compared without splitting.
        let rest = label.strip_prefix(first.key.as_str())?;
        if rest.is_empty() {
            return Some(1);
        }
        let mut len = 1;
        for key in rest.strip_prefix(' ')?.split(' ') {
            let t = toks.get(i + len)?;
            if t.key != key || t.cell != first.cell {
                return None;
            }
            len += 1;
        }
        Some(len)
    };
    labels.iter().filter_map(spelt).max()
}

/// The item lines of a document.
pub fn read(d: &Doc, hints: &[LineHint]) -> Vec<ItemLine> {
    let given = from_hints(d, hints);
    if given.is_empty() {
        from_table(d)
    } else {
        given
    }
}

/// One column heading and where it is printed.
#[derive(Clone, Copy, Debug)]
struct Heading {
    column: Column,
    left: f32,
    right: f32,
}

/// The column headings of a row, when it is the heading of an item table:
/// most of its words are column labels, it holds no figure, and it has a
/// description and a figure column, or a quantity and another figure column.
fn headings(row: &Row, mark: Mark) -> Option<Vec<Heading>> {
    let (found, labelled) = column_labels(row);
    let figures = found
        .iter()
        .filter(|h| {
            matches!(
                h.column,
                Column::Quantity | Column::UnitPrice | Column::Amount
            )
        })
        .count();
    let described = found.iter().any(|h| h.column == Column::Description);
    let counted = found.iter().any(|h| h.column == Column::Quantity);
    let shape = (described && figures >= 1) || (counted && figures >= 2);
    (shape && no_figures(row, mark) && labelled * 2 >= row.toks.len()).then_some(found)
}

fn no_figures(row: &Row, mark: Mark) -> bool {
    row.toks
        .iter()
        .all(|t| figure(t, mark).is_none_or(|n| n.percent))
}

/// The first word of every column label: most words start none.
fn column_first_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        COLUMNS
            .iter()
            .flat_map(|(_, labels)| labels.iter())
            .filter_map(|label| label.split(' ').next())
            .collect()
    })
}

/// The column labels of a row and how many words they take.
fn column_labels(row: &Row) -> (Vec<Heading>, usize) {
    let mut found: Vec<Heading> = Vec::new();
    let mut labelled = 0;
    let mut i = 0;
    while i < row.toks.len() {
        if !column_first_words().contains(row.toks[i].key.as_str()) {
            i += 1;
            continue;
        }
        let best = COLUMNS
            .iter()
            .filter_map(|(column, labels)| label_len(&row.toks, i, labels).map(|n| (n, *column)))
            .max_by_key(|(n, _)| *n);
        match best {
            Some((n, column)) => {
                found.push(Heading {
                    column,
                    left: row.toks[i].left,
                    right: row.toks[i + n - 1].right,
                });
                labelled += n;
                i += n;
            }
            None => i += 1,
        }
    }
    (found, labelled)
}

/// A heading printed on two lines ("Precio" above "Bruto"): the labels of
/// the row just above the heading row join it where they overlap none of its own.
fn with_line_above(d: &Doc, at: usize, mut heads: Vec<Heading>) -> Vec<Heading> {
    let (Some(above), Some(row)) = (
        at.checked_sub(1).and_then(|i| d.rows.get(i)),
        d.rows.get(at),
    ) else {
        return heads;
    };
    let height = (row.bottom - row.top).max(0.001);
    if above.page != row.page || row.top - above.bottom > height || !no_figures(above, d.mark) {
        return heads;
    }
    for extra in column_labels(above).0 {
        if heads
            .iter()
            .all(|h| extra.right < h.left || extra.left > h.right)
        {
            heads.push(extra);
        }
    }
    heads.sort_by(|a, b| a.left.total_cmp(&b.left));
    heads
}

/// A word's figure, when it is one rather than text: a number with at most
/// a currency sign or a `%` about it. Unit prices with three to six decimals
/// (`0,8403 €`), which totals never print, are read here too.
fn figure(tok: &Tok, mark: Mark) -> Option<Number> {
    let letters: String = tok
        .text
        .chars()
        .filter(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    if !matches!(letters.as_str(), "" | "eur" | "e") {
        return None;
    }
    numbers(&tok.text, mark)
        .into_iter()
        .next()
        .or_else(|| precise(&tok.text, mark))
}

fn precise(text: &str, mark: Mark) -> Option<Number> {
    let digits: String = text
        .chars()
        .filter(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-'))
        .collect();
    let (whole, decimals) = match mark {
        Mark::Comma => digits.rsplit_once(',')?,
        Mark::Dot => digits.rsplit_once('.')?,
    };
    if !(3..=6).contains(&decimals.len()) || !decimals.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: String = whole
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    let value: Decimal = format!("{whole}.{decimals}").parse().ok()?;
    Some(Number {
        value,
        percent: false,
        plain: false,
        repaired: false,
        start: 0,
        end: text.len(),
    })
}

/// The figure column a word lies under: the one it overlaps most, else the
/// nearest within the slack; None for a word in the description area.
fn figure_column(tok: &Tok, headings: &[Heading]) -> Option<usize> {
    let overlap = |h: &Heading| tok.right.min(h.right) - tok.left.max(h.left);
    let distance = |h: &Heading| (h.left - tok.right).max(tok.left - h.right).max(0.0);
    headings
        .iter()
        .enumerate()
        .filter(|(_, h)| h.column != Column::Description)
        .filter(|(_, h)| distance(h) <= SLACK)
        .max_by(|(_, a), (_, b)| {
            overlap(a)
                .total_cmp(&overlap(b))
                .then(distance(b).total_cmp(&distance(a)))
        })
        .map(|(i, _)| i)
}

/// The description area: from the last heading left of the description
/// heading (a position or code column) to the first heading right of it.
fn description_area(headings: &[Heading]) -> (f32, f32) {
    let label = headings
        .iter()
        .find(|h| h.column == Column::Description)
        .map_or(0.0, |h| h.left);
    let start = headings
        .iter()
        .filter(|h| h.column != Column::Description && h.right <= label)
        .map(|h| h.right)
        .fold(0.0, f32::max);
    let end = headings
        .iter()
        .filter(|h| h.column != Column::Description && h.left > label)
        .map(|h| h.left - SLACK)
        .fold(f32::INFINITY, f32::min);
    (start, end)
}

/// A row under the headings, read into its parts.
struct Cells {
    description: Vec<Tok>,
    /// Per heading, the figures under it.
    figures: Vec<Vec<Tok>>,
}

/// Figures go under their heading (one left of the description, such as a
/// position number, included); words in the description area are the
/// description; anything else (units, codes) is left out.
fn cells(row: &Row, headings: &[Heading], mark: Mark) -> Cells {
    let mut cells = Cells {
        description: Vec::new(),
        figures: vec![Vec::new(); headings.len()],
    };
    let (start, end) = description_area(headings);
    for tok in &row.toks {
        let under = figure_column(tok, headings);
        let in_description = tok.left >= start && tok.left < end;
        let overlaps = |c: usize| tok.right > headings[c].left && tok.left < headings[c].right;
        match under {
            Some(c) if figure(tok, mark).is_some() && (!in_description || overlaps(c)) => {
                cells.figures[c].push(tok.clone())
            }
            _ if in_description && !tok.key.is_empty() => cells.description.push(tok.clone()),
            _ => {}
        }
    }
    cells
}

/// The numbers under one column of a row.
fn column_numbers(cells: &Cells, headings: &[Heading], column: Column, mark: Mark) -> Vec<Number> {
    headings
        .iter()
        .zip(&cells.figures)
        .filter(|(h, _)| h.column == column)
        .flat_map(|(_, toks)| {
            let text: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
            let found = numbers(&text.join(" "), mark);
            if found.is_empty() {
                toks.iter().filter_map(|t| precise(&t.text, mark)).collect()
            } else {
                found
            }
        })
        .collect()
}

fn first_money(found: &[Number]) -> Option<Decimal> {
    found.iter().find(|n| n.is_money()).map(|n| n.value)
}

fn last_money(found: &[Number]) -> Option<Decimal> {
    found.iter().rev().find(|n| n.is_money()).map(|n| n.value)
}

/// A VAT rate: a percentage, or a bare number a rate could be.
fn rate(found: &[Number]) -> Option<Decimal> {
    found
        .iter()
        .find(|n| n.percent)
        .or_else(|| {
            found
                .first()
                .filter(|n| n.value >= Decimal::ZERO && n.value <= Decimal::from(30))
        })
        .map(|n| n.value.abs())
}

/// The line's confidence from its words' and whether its figures agree.
fn line_confidence(words: f32, line: &ItemLine, discounted: bool) -> f32 {
    let factor = match (line.quantity, line.unit_price, line.amount) {
        (Some(q), Some(p), Some(a)) => {
            let product = q * p;
            let close = (product - a).abs() <= Decimal::new(1, 2)
                || (product.round_dp(2) - a).abs() <= Decimal::new(1, 2);
            if close {
                BESIDE
            } else if discounted {
                BELOW
            } else {
                MISMATCH
            }
        }
        (None, _, Some(_)) => BESIDE,
        _ => BELOW,
    };
    unit(words) * factor
}

fn words_text(toks: &[Tok]) -> String {
    toks.iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a row closes the item table: a figure, and a totals label
/// (ours or the parser's) opening one of its cells.
fn closes_table(d: &Doc, r: usize, row: &Row) -> bool {
    let opens_cell = |i: usize| i == 0 || row.toks[i].cell != row.toks[i - 1].cell;
    let labelled = (0..row.toks.len())
        .any(|i| opens_cell(i) && label_len(&row.toks, i, TOTALS).is_some())
        || d.row_hits(r).any(|h| {
            TOTALS_KINDS.contains(&h.kind) && h.start < row.toks.len() && opens_cell(h.start)
        });
    labelled && row.toks.iter().any(|t| figure(t, d.mark).is_some())
}

fn from_table(d: &Doc) -> Vec<ItemLine> {
    let mut lines = Vec::new();
    let mut r = 0;
    while r < d.rows.len() && lines.len() < MAX_LINES {
        let Some(heads) = d.rows.get(r).and_then(|row| headings(row, d.mark)) else {
            r += 1;
            continue;
        };
        r = read_table(d, r, &with_line_above(d, r, heads), &mut lines);
    }
    lines.truncate(MAX_LINES);
    lines
}

/// Reads the lines under the heading row `at`; returns the row after the table.
fn read_table(d: &Doc, at: usize, heads: &[Heading], lines: &mut Vec<ItemLine>) -> usize {
    let Some(heading_row) = d.rows.get(at) else {
        return at + 1;
    };
    let height = (heading_row.bottom - heading_row.top).max(0.001);
    let mut last_bottom = heading_row.bottom;
    let mut pending: Vec<Tok> = Vec::new();
    let mut current: Option<(ItemLine, Vec<Tok>, bool)> = None;
    let mut r = at + 1;
    while let Some(row) = d.rows.get(r) {
        let gap = row.top - last_bottom;
        let row_height = (row.bottom - row.top).max(0.001).min(height);
        if row.page != heading_row.page
            || gap > MAX_GAP_ROWS * row_height
            || closes_table(d, r, row)
            || headings(row, d.mark).is_some()
        {
            break;
        }
        last_bottom = row.bottom;
        r += 1;
        let cells = cells(row, heads, d.mark);
        let amount = last_money(&column_numbers(&cells, heads, Column::Amount, d.mark));
        let unit_price = first_money(&column_numbers(&cells, heads, Column::UnitPrice, d.mark));
        if amount.is_none() && unit_price.is_none() {
            let heading_block =
                current.is_none() && pending.is_empty() && gap <= HEADING_BLOCK_ROWS * row_height;
            match current.as_mut() {
                _ if heading_block => {}
                Some((line, words, _)) => {
                    extend_description(&mut line.description, &cells.description);
                    words.extend(cells.description);
                }
                None => pending.extend(cells.description),
            }
            continue;
        }
        if let Some(done) = current.take() {
            lines.push(finish(done));
        }
        let mut description_words = std::mem::take(&mut pending);
        description_words.extend(cells.description.iter().cloned());
        let mut words = description_words.clone();
        words.extend(cells.figures.iter().flatten().cloned());
        let line = ItemLine {
            description: words_text(&description_words),
            quantity: column_numbers(&cells, heads, Column::Quantity, d.mark)
                .iter()
                .find(|n| !n.percent)
                .map(|n| n.value),
            unit_price,
            amount,
            vat_rate: rate(&column_numbers(&cells, heads, Column::VatRate, d.mark)),
            confidence: 0.0,
        };
        let discounted = !column_numbers(&cells, heads, Column::Discount, d.mark).is_empty();
        current = Some((line, words, discounted));
    }
    if let Some(done) = current {
        lines.push(finish(done));
    }
    r
}

fn extend_description(description: &mut String, more: &[Tok]) {
    if more.is_empty() {
        return;
    }
    if !description.is_empty() {
        description.push(' ');
    }
    description.push_str(&words_text(more));
}

fn finish((mut line, words, discounted): (ItemLine, Vec<Tok>, bool)) -> ItemLine {
    line.confidence = line_confidence(mean_conf(&words), &line, discounted);
    line
}

fn hint_conf(hint: &Hint) -> f32 {
    unit(if hint.confidence > 1.0 {
        hint.confidence / 100.0
    } else {
        hint.confidence
    })
}

/// Lines from the OCR service's line items, in page order. A line without
/// a printed VAT rate takes one from a percentage printed on its row.
fn from_hints(d: &Doc, hints: &[LineHint]) -> Vec<ItemLine> {
    let mut ordered: Vec<&LineHint> = hints.iter().collect();
    ordered.sort_by(|a, b| a.page.cmp(&b.page).then(a.top.total_cmp(&b.top)));
    ordered
        .into_iter()
        .filter_map(|hint| from_hint(d, hint))
        .take(MAX_LINES)
        .collect()
}

fn from_hint(d: &Doc, hint: &LineHint) -> Option<ItemLine> {
    let of = |kind: &str| {
        hint.fields
            .iter()
            .find(|f| f.kind.eq_ignore_ascii_case(kind))
    };
    let figures = |kind: &str| of(kind).map_or_else(Vec::new, |f| numbers(&f.value, d.mark));
    let row_text = of("EXPENSE_ROW").map(|f| f.value.as_str());
    let description = of("ITEM")
        .map(|f| f.value.trim().to_string())
        .or_else(|| row_text.map(text_before_figures))
        .filter(|t| !t.is_empty())?;
    let vat_rate = hint
        .fields
        .iter()
        .filter(|f| {
            f.label.as_deref().is_some_and(|l| {
                let l = l.to_lowercase();
                ["iva", "vat", "tax", "tva", "mwst", "btw", "%"]
                    .iter()
                    .any(|k| l.contains(k))
            })
        })
        .find_map(|f| rate(&numbers(&f.value, d.mark)))
        .or_else(|| printed_rate(d, hint));
    let mut line = ItemLine {
        description,
        quantity: figures("QUANTITY")
            .iter()
            .find(|n| !n.percent)
            .map(|n| n.value),
        unit_price: first_money(&figures("UNIT_PRICE")),
        amount: last_money(&figures("PRICE")),
        vat_rate,
        confidence: 0.0,
    };
    if line.amount.is_none() && line.unit_price.is_none() {
        return None;
    }
    let confs: Vec<f32> = hint.fields.iter().map(hint_conf).collect();
    let mean = confs.iter().sum::<f32>() / confs.len().max(1) as f32;
    line.confidence = line_confidence(mean, &line, false);
    Some(line)
}

/// The words of a printed row before its first figure.
fn text_before_figures(row: &str) -> String {
    row.split_whitespace()
        .take_while(|w| !w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A percentage printed on the page rows the line's box spans.
fn printed_rate(d: &Doc, hint: &LineHint) -> Option<Decimal> {
    let (top, bottom) = (hint.top, hint.top + hint.height);
    d.rows
        .iter()
        .filter(|row| row.page == hint.page)
        .filter(|row| {
            let centre = (row.top + row.bottom) / 2.0;
            centre >= top && centre <= bottom
        })
        .flat_map(|row| row.toks.iter())
        .filter(|t| t.left >= hint.left && t.right <= hint.left + hint.width + SLACK)
        .flat_map(|t| numbers(&t.text, d.mark))
        .find(|n| n.percent)
        .map(|n| n.value.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;
    use rust_decimal::dec;

    fn doc(text: &str) -> Doc {
        Doc::new(rows(&TextDocument::from_plain_text(text).words))
    }

    fn lines(text: &str) -> Vec<ItemLine> {
        read(&doc(text), &[])
    }

    fn figures(
        l: &ItemLine,
    ) -> (
        Option<Decimal>,
        Option<Decimal>,
        Option<Decimal>,
        Option<Decimal>,
    ) {
        (l.quantity, l.unit_price, l.amount, l.vat_rate)
    }

    const SPANISH: &str = "\
REFORMAS IBÉRICAS MARTÍNEZ, S.L.          Factura 2026/0147
Descripción                       Cant.    Precio      % IVA     Importe
Azulejos porcelánicos 60x60         35      9,90 €      21 %     346,50 €
Mano de obra alicatado baño         24     50,00 €      21 %   1.200,00 €
  (incluye retirada de escombros
  y limpieza final)
Base imponible                                                 1.546,50 €
IVA 21 %                                                         324,77 €
Total                                                          1.871,27 €";

    #[test]
    fn a_spanish_table_gives_its_lines_down_to_the_totals() {
        let found = lines(SPANISH);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].description, "Azulejos porcelánicos 60x60");
        assert_eq!(
            figures(&found[0]),
            (
                Some(dec!(35)),
                Some(dec!(9.90)),
                Some(dec!(346.50)),
                Some(dec!(21))
            )
        );
        assert_eq!(
            found[1].description,
            "Mano de obra alicatado baño (incluye retirada de escombros y limpieza final)"
        );
        assert_eq!(found[1].amount, Some(dec!(1200)));
        assert!(found.iter().all(|l| l.confidence > 0.9), "{found:?}");
    }

    #[test]
    fn english_and_german_headings_and_dot_decimals() {
        let english = "\
Item                         Qty   Unit price      Amount
Web hosting (annual)           1      120.00       120.00
Domain renewal                 2       12.50        25.00
Subtotal                                           145.00
VAT 21%                                             30.45";
        let found = lines(english);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[1].description, "Domain renewal");
        assert_eq!(
            figures(&found[1]),
            (Some(dec!(2)), Some(dec!(12.50)), Some(dec!(25.00)), None)
        );
        let german = "\
Pos.  Bezeichnung                 Menge    Einzelpreis    MwSt.     Betrag
1     Dedicated Server AX41          1         39,00 €    19 %    39,00 €
2     Zusätzliche IPv4-Adresse       3        1,7000 €    19 %     5,10 €
Zwischensumme                                                     44,10 €";
        let found = lines(german);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].description, "Dedicated Server AX41");
        assert_eq!(found[1].description, "Zusätzliche IPv4-Adresse");
        assert_eq!(
            figures(&found[1]),
            (
                Some(dec!(3)),
                Some(dec!(1.70)),
                Some(dec!(5.10)),
                Some(dec!(19))
            )
        );
    }

    #[test]
    fn a_heading_on_two_lines_places_the_figures_under_its_upper_labels() {
        let text = "\
FACTURA F24-02846
                                       Precio
Ref.     Uds. Descripción              Bruto     Dto.      Total
NVR-55      1 CONGELADOR VERTICAL     182,55    0,00%     182,55
NVR-56      3 FRIGORÍFICO DOBLE       145,65    5,00%     415,10
                                   TOTAL PRODUCTOS        597,65 €";
        let found = lines(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].description, "CONGELADOR VERTICAL");
        assert_eq!(
            figures(&found[1]),
            (Some(dec!(3)), Some(dec!(145.65)), Some(dec!(415.10)), None)
        );
    }

    #[test]
    fn quantity_times_price_against_amount_sets_the_confidence() {
        let text = "\
Concepto                 Unidades     Precio     Importe
Consultoría                    10      50,00      400,00
Desarrollo                     10      50,00      500,00
Total                                             900,00";
        let found = lines(text);
        assert_eq!(found.len(), 2);
        assert!(found[0].confidence < found[1].confidence, "{found:?}");
        assert!((found[1].confidence - 0.95).abs() < 1e-4);
    }

    #[test]
    fn a_concept_and_amount_table_and_no_table_at_all() {
        let rent = "\
Concepto                                   Importe
Alquiler local comercial mes de agosto    1.000,00
Base imponible                            1.000,00";
        let found = lines(rent);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].description,
            "Alquiler local comercial mes de agosto"
        );
        assert_eq!(figures(&found[0]), (None, None, Some(dec!(1000)), None));
        assert!(lines("Base imponible 100,00\nIVA 21 % 21,00\nTotal 121,00").is_empty());
        assert!(lines("Base imponible   IVA   Total\n100,00   21,00   121,00").is_empty());
    }

    fn field(kind: &str, label: Option<&str>, value: &str) -> Hint {
        Hint {
            kind: kind.into(),
            label: label.map(Into::into),
            value: value.into(),
            groups: Vec::new(),
            confidence: 0.96,
        }
    }

    #[test]
    fn given_line_items_come_first_in_page_order_with_the_rate_of_their_row() {
        let d = doc("\
Descripción          Cant.   Precio   IVA   Importe
Otra cosa               1     5,00    21%     5,00
Azulejos               35     9,90    10%   346,50");
        let hint = |top: f32, item: &str, price: &str| LineHint {
            fields: vec![
                field("ITEM", Some("Descripción"), item),
                field("QUANTITY", Some("Cant."), "35"),
                field("UNIT_PRICE", Some("Precio"), "9,90"),
                field("PRICE", Some("Importe"), price),
                field("EXPENSE_ROW", None, "row"),
            ],
            page: 1,
            left: 0.0,
            top,
            width: 1.0,
            height: 0.3,
        };
        let given = [
            hint(0.6, "Azulejos", "346,50"),
            hint(0.3, "Otra cosa", "5,00"),
        ];
        let found = read(&d, &given);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].description, "Otra cosa");
        assert_eq!(found[1].description, "Azulejos");
        assert_eq!(
            figures(&found[1]),
            (
                Some(dec!(35)),
                Some(dec!(9.90)),
                Some(dec!(346.50)),
                Some(dec!(10))
            )
        );
        let row_only = LineHint {
            fields: vec![
                field("EXPENSE_ROW", None, "Café con leche 2 1,40 2,80"),
                field("PRICE", None, "2,80"),
            ],
            ..hint(0.9, "", "")
        };
        let found = read(&d, &[row_only]);
        assert_eq!(found[0].description, "Café con leche");
        assert_eq!(found[0].amount, Some(dec!(2.80)));
    }
}
