//! The figures of an invoice as printed, before they are made to agree:
//! bases, VAT lines (from a breakdown table `Base | % IVA | Cuota [| % RE |
//! Cuota RE]` or from labelled rows such as "IVA 21% 210,00"), the
//! equivalence surcharge, IRPF, totals, suplidos, discounts, "IVA incluido",
//! IGIC/IPSI and the currency.

use rust_decimal::Decimal;

use super::amount::{Number, amounts, numbers, percent};
use super::doc::{BELOW, BESIDE, Doc, join, mean_conf};
use super::labels::{Hit, Kind};
use super::reconcile::VAT_RATES;
use super::rows::Tok;

/// One printed amount.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    pub value: Decimal,
    pub conf: f32,
    /// Printed without separators: a dropped decimal mark is possible.
    pub plain: bool,
    /// Printed with inconsistent separators (`1.546.50`), read by position.
    pub repaired: bool,
}

/// One tax rate's figures, as far as printed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaxLine {
    pub rate: Option<Decimal>,
    pub base: Option<Reading>,
    pub vat: Option<Reading>,
    pub surcharge_rate: Option<Decimal>,
    pub surcharge: Option<Reading>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Bases printed without a rate.
    pub bases: Vec<Reading>,
    /// Per-rate lines; from a breakdown table when `from_table`.
    pub lines: Vec<TaxLine>,
    pub from_table: bool,
    /// "Total IVA": the sum of the VAT lines.
    pub vat_totals: Vec<Reading>,
    /// Surcharge lines printed apart from their VAT line.
    pub surcharges: Vec<TaxLine>,
    pub irpf_rate: Option<Decimal>,
    pub irpf: Option<Reading>,
    pub totals: Vec<Reading>,
    pub payables: Vec<Reading>,
    pub suplidos: Vec<Reading>,
    pub discounts: Vec<Reading>,
    /// "Exento", "Inversión del sujeto pasivo", "No sujeto": no VAT charged.
    pub exempt: bool,
    /// "IVA incluido" printed, with its rate when given.
    pub vat_included: Option<Option<Decimal>>,
    pub indirect_tax: Option<String>,
    pub currency: Option<String>,
}

fn reading(n: &Number, conf: f32) -> Reading {
    Reading {
        value: n.value,
        conf,
        plain: n.plain,
        repaired: n.repaired,
    }
}

/// Words after which a number is a legal reference ("art. 20 LIVA"), not money.
const REFERENCE_WORDS: &[&str] = &["art", "articulo", "ley", "rd", "apartado", "disposicion"];

/// Letters OCR puts for digits (`1.546,5O`, `l2,00`): replaced, one for one,
/// in words that are otherwise a number, so byte offsets stay. Returns the
/// text and the byte ranges of the words changed.
fn ocr_digits(text: &str) -> (String, Vec<(usize, usize)>) {
    let misread = |c: char| matches!(c, 'O' | 'o' | 'l' | 'I');
    let mut out = String::with_capacity(text.len());
    let mut changed = Vec::new();
    for (i, w) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let digits = w.chars().filter(char::is_ascii_digit).count();
        let numeric = w.chars().all(|c| {
            c.is_ascii_digit() || misread(c) || matches!(c, '.' | ',' | '-' | '(' | ')' | '€')
        });
        if digits >= 2 && numeric && w.chars().any(misread) {
            changed.push((out.len(), out.len() + w.len()));
            out.extend(w.chars().map(|c| match c {
                'O' | 'o' => '0',
                'l' | 'I' => '1',
                other => other,
            }));
        } else {
            out.push_str(w);
        }
    }
    (out, changed)
}

/// The money amounts of a value text, legal references left out; amounts
/// with a letter read for a digit count as repaired.
fn money_in(text: &str, doc: &Doc) -> Vec<Number> {
    let (text, changed) = ocr_digits(text);
    let text = text.as_str();
    amounts(text, doc.mark)
        .into_iter()
        .map(|n| Number {
            repaired: n.repaired || changed.iter().any(|&(a, b)| n.start < b && a < n.end),
            ..n
        })
        .filter(|n| {
            let before = text.get(..n.start).unwrap_or("");
            let word = before
                .split_whitespace()
                .next_back()
                .map(super::labels::key);
            !word.is_some_and(|w| REFERENCE_WORDS.contains(&w.as_str()))
        })
        .collect()
}

/// Whether a cell holds words, not just figures, currency and "s/".
fn wordy(cell: &str) -> bool {
    cell.split_whitespace().map(super::labels::key).any(|k| {
        k.chars().filter(|c| c.is_alphabetic()).count() >= 3
            && !matches!(k.as_str(), "eur" | "euro" | "euros")
    })
}

/// The amounts beside a label: its cells up to the first cell of words after
/// an amount, so a neighbouring column's figures are not taken.
fn leading_money(text: &str, doc: &Doc) -> Vec<Number> {
    let mut money = Vec::new();
    for cell in text.split(" | ") {
        let found = money_in(cell, doc);
        if !money.is_empty() && (found.is_empty() || wordy(cell)) {
            break;
        }
        money.extend(found);
    }
    money
}

/// What a label says: the rate printed with it and its money amounts, beside
/// it or else below it.
struct Labelled {
    rate: Option<Decimal>,
    money: Vec<Reading>,
    text: String,
}

fn labelled(doc: &Doc, hit: &Hit) -> Labelled {
    let beside = doc.segment_value(hit);
    // "21% IVA" or "21 % IVA": the rate printed just before the label.
    let before_rate = doc.rows.get(hit.row).and_then(|r| {
        let before = r.toks.get(hit.start.saturating_sub(2)..hit.start)?;
        (1..=before.len())
            .rev()
            .find_map(|n| percent(&join(before.get(before.len() - n..)?), doc.mark))
    });
    let rate = percent(&beside.text, doc.mark).or(before_rate);
    let money: Vec<Reading> = leading_money(&beside.text, doc)
        .iter()
        .map(|n| reading(n, beside.conf * BESIDE))
        .collect();
    if !money.is_empty() {
        return Labelled {
            rate,
            money,
            text: beside.text,
        };
    }
    let below = doc
        .below(hit)
        .into_iter()
        .find(|v| !money_in(&v.text, doc).is_empty());
    match below {
        Some(v) => Labelled {
            rate: rate.or_else(|| percent(&v.text, doc.mark)),
            money: money_in(&v.text, doc)
                .iter()
                .map(|n| reading(n, v.conf * BELOW))
                .collect(),
            text: beside.text,
        },
        None => Labelled {
            rate,
            money,
            text: beside.text,
        },
    }
}

const TABLE_KINDS: &[Kind] = &[
    Kind::Base,
    Kind::VatRate,
    Kind::Vat,
    Kind::SurchargeRate,
    Kind::Surcharge,
    Kind::Irpf,
    Kind::Total,
];

/// Rows of a breakdown table read under one header.
const MAX_TABLE_ROWS: usize = 12;
/// The highest number a rate column holds without a `%`.
const MAX_RATE: Decimal = Decimal::from_parts(30, 0, 0, false, 0);

/// A header row: a base column and a VAT column without amounts beside them.
/// Labels with an amount on the same row (a totals box printed to the right
/// of the table) are not columns.
fn table_header(doc: &Doc, row: usize) -> Option<(Vec<Hit>, Option<f32>)> {
    let (hits, beside): (Vec<Hit>, Vec<Hit>) = doc
        .row_hits(row)
        .filter(|h| TABLE_KINDS.contains(&h.kind))
        .partition(|h| amounts(&join(doc.segment(h)), doc.mark).is_empty());
    let box_left = beside
        .iter()
        .filter_map(|h| doc.label_toks(h).first().map(|t| t.left))
        .reduce(f32::min);
    let hits: Vec<Hit> = hits
        .into_iter()
        .filter(|h| {
            let left = doc.label_toks(h).first().map_or(0.0, |t| t.left);
            box_left.is_none_or(|b| left < b)
        })
        .collect();
    let has = |k: Kind| hits.iter().any(|h| h.kind == k);
    (has(Kind::Base) && (has(Kind::Vat) || has(Kind::VatRate))).then_some((hits, box_left))
}

/// Where a table ends on the right: where a labelled amount beside its
/// header begins (a totals box), else past its last column by half the gap
/// before that column.
fn right_edge(doc: &Doc, header: &[Hit], box_left: Option<f32>) -> f32 {
    if let Some(left) = box_left {
        return left;
    }
    let extent = |h: &Hit| {
        let t = doc.label_toks(h);
        (
            t.first().map_or(0.0, |t| t.left),
            t.last().map_or(0.0, |t| t.right),
        )
    };
    match header {
        [.., prev, last] => {
            let (prev, last) = (extent(prev), extent(last));
            last.1 + ((last.0 - prev.1).max(0.0) / 2.0).max(0.02)
        }
        _ => f32::INFINITY,
    }
}

/// The numbers of a row with the horizontal centre of each.
fn positioned_numbers(toks: &[Tok], doc: &Doc) -> Vec<(Number, f32, f32)> {
    let mut offsets = Vec::with_capacity(toks.len());
    let mut text = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            let new_cell = toks.get(i - 1).is_some_and(|p| p.cell != t.cell);
            text.push_str(if new_cell { " | " } else { " " });
        }
        offsets.push(text.len());
        text.push_str(&t.text);
    }
    let tok_at = |byte: usize| offsets.partition_point(|&o| o <= byte).saturating_sub(1);
    numbers(&text, doc.mark)
        .into_iter()
        .filter_map(|n| {
            let first = toks.get(tok_at(n.start))?;
            let last = toks.get(tok_at(n.end.saturating_sub(1)))?;
            let span = toks.get(tok_at(n.start)..=tok_at(n.end.saturating_sub(1)))?;
            Some((n, (first.left + last.right) / 2.0, mean_conf(span)))
        })
        .collect()
}

/// Column bounds: midway between neighbouring header labels, the last one
/// up to the table's right edge.
fn columns(doc: &Doc, header: &[Hit], edge: f32) -> Vec<(Kind, f32, f32, Option<Decimal>)> {
    let extents: Vec<(f32, f32)> = header
        .iter()
        .map(|h| {
            let t = doc.label_toks(h);
            (
                t.first().map_or(0.0, |t| t.left),
                t.last().map_or(0.0, |t| t.right),
            )
        })
        .collect();
    header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let from = match i.checked_sub(1).and_then(|p| extents.get(p)) {
                Some(prev) => (prev.1 + extents[i].0) / 2.0,
                None => f32::NEG_INFINITY,
            };
            let to = match extents.get(i + 1) {
                Some(next) => (extents[i].1 + next.0) / 2.0,
                None => edge,
            };
            (h.kind, from, to, percent(&join(doc.segment(h)), doc.mark))
        })
        .collect()
}

/// Reads the rows under a table header; returns the last row read and the
/// table's right edge (what lies beyond it on those rows is not the table's).
fn read_table(
    doc: &Doc,
    header_row: usize,
    (header, box_left): &(Vec<Hit>, Option<f32>),
    figures: &mut Figures,
) -> (usize, f32) {
    let edge = right_edge(doc, header, *box_left);
    let cols = columns(doc, header, edge);
    let Some(page) = doc.rows.get(header_row).map(|r| r.page) else {
        return (header_row, edge);
    };
    let mut last = header_row;
    let mut table: Vec<TaxLine> = Vec::new();
    for (r, row) in doc
        .rows
        .iter()
        .enumerate()
        .skip(header_row + 1)
        .take(MAX_TABLE_ROWS)
    {
        let inside = row.toks.partition_point(|t| t.left < edge);
        if row.page == page && inside == 0 {
            continue;
        }
        let starts_with_label = doc.row_hits(r).any(|h| h.start == 0);
        if row.page != page || starts_with_label {
            break;
        }
        let found = positioned_numbers(row.toks.get(..inside).unwrap_or(&[]), doc);
        if found.is_empty() {
            break;
        }
        let mut line = TaxLine::default();
        for (n, centre, conf) in found {
            let Some(&(kind, _, _, header_rate)) = cols
                .iter()
                .find(|(_, from, to, _)| *from <= centre && centre < *to)
            else {
                continue;
            };
            let r = reading(&n, conf * BELOW);
            let small = n.value.abs() <= MAX_RATE;
            match kind {
                // A rate printed without `%` in an unlabelled column before
                // the base ("IVA 10,00 28,42"): the base column's first
                // number, when a second one follows.
                Kind::Base if !n.percent => {
                    if let Some(first) = line.base.filter(|b| is_rate(b.value))
                        && line.rate.is_none()
                    {
                        line.rate = Some(first.value);
                    }
                    line.base = Some(r);
                }
                Kind::VatRate if n.percent || small => line.rate = Some(n.value.abs()),
                Kind::Vat if n.percent => line.rate = Some(n.value.abs()),
                Kind::Vat => {
                    line.vat = Some(r);
                    line.rate = line.rate.or(header_rate);
                }
                Kind::SurchargeRate if n.percent || small => {
                    line.surcharge_rate = Some(n.value.abs())
                }
                Kind::Surcharge if n.percent => line.surcharge_rate = Some(n.value.abs()),
                Kind::Surcharge => line.surcharge = Some(r),
                Kind::Irpf if n.percent => figures.irpf_rate = Some(n.value.abs()),
                Kind::Irpf => {
                    figures.irpf = Some(Reading {
                        value: r.value.abs(),
                        ..r
                    });
                    figures.irpf_rate = figures.irpf_rate.or(header_rate);
                }
                Kind::Total if !n.percent => figures.totals.push(r),
                _ => {}
            }
        }
        if line.base.is_some() && (line.vat.is_some() || line.rate.is_some()) {
            table.push(line);
        }
        last = r;
    }
    figures.from_table |= !table.is_empty();
    figures.lines.extend(per_rate(table));
    (last, edge)
}

fn is_rate(value: Decimal) -> bool {
    !value.is_zero() && VAT_RATES.contains(&value)
}

fn add(a: Option<Reading>, b: Option<Reading>) -> Option<Reading> {
    let (a, b) = (a?, b?);
    Some(Reading {
        value: a.value + b.value,
        conf: a.conf.min(b.conf),
        plain: false,
        repaired: a.repaired || b.repaired,
    })
}

/// Rows of the same rate (items of a line table) summed into one line.
fn per_rate(rows: Vec<TaxLine>) -> Vec<TaxLine> {
    let mut lines: Vec<TaxLine> = Vec::new();
    for row in rows {
        match lines.iter_mut().find(|l| {
            l.rate.is_some() && l.rate == row.rate && l.surcharge_rate == row.surcharge_rate
        }) {
            Some(line) => {
                line.base = add(line.base, row.base);
                line.vat = add(line.vat, row.vat);
                line.surcharge = add(line.surcharge, row.surcharge);
            }
            None => lines.push(row),
        }
    }
    lines
}

fn has_word(text: &str, words: &[&str]) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|w| words.contains(&super::labels::key(w).as_str()))
}

fn currency(doc: &Doc) -> Option<String> {
    let texts = || doc.rows.iter().flat_map(|r| r.toks.iter());
    let any = |marks: &[&str], keys: &[&str]| {
        texts().any(|t| marks.iter().any(|m| t.text.contains(m)) || keys.contains(&t.key.as_str()))
    };
    if any(&["€"], &["eur", "euros", "euro"]) {
        Some("EUR".into())
    } else if any(&["$"], &["usd"]) {
        Some("USD".into())
    } else if any(&["£"], &["gbp"]) {
        Some("GBP".into())
    } else {
        None
    }
}

/// The last amount a label carries (a rate line prints its base before it).
fn last(money: &[Reading]) -> Option<Reading> {
    money.last().copied()
}

pub fn read(doc: &Doc) -> Figures {
    let mut figures = Figures {
        currency: currency(doc),
        ..Figures::default()
    };
    // Per row, the right edge of the table that covers it.
    let mut in_table: Vec<Option<f32>> = vec![None; doc.rows.len()];
    let mut skip_until = 0usize;
    for row in 0..doc.rows.len() {
        if row < skip_until {
            continue;
        }
        if let Some(header) = table_header(doc, row) {
            let (end, edge) = read_table(doc, row, &header, &mut figures);
            for flag in in_table.iter_mut().take(end + 1).skip(row) {
                *flag = Some(edge);
            }
            skip_until = end + 1;
        }
    }
    for hit in &doc.hits {
        let left = doc.label_toks(hit).first().map_or(0.0, |t| t.left);
        if in_table
            .get(hit.row)
            .copied()
            .flatten()
            .is_some_and(|edge| left < edge)
        {
            continue;
        }
        read_hit(doc, hit, &mut figures);
    }
    figures
}

fn read_hit(doc: &Doc, hit: &Hit, figures: &mut Figures) {
    let label = doc.label_text(hit);
    if matches!(
        hit.kind,
        Kind::Vat | Kind::VatTotal | Kind::VatIncluded | Kind::Base
    ) {
        if has_word(&label, &["igic"]) {
            figures.indirect_tax = Some("IGIC".into());
        } else if has_word(&label, &["ipsi"]) {
            figures.indirect_tax = Some("IPSI".into());
        }
    }
    let kinds_with_values = [
        Kind::Base,
        Kind::Vat,
        Kind::VatTotal,
        Kind::VatRate,
        Kind::VatIncluded,
        Kind::Surcharge,
        Kind::Irpf,
        Kind::Total,
        Kind::Payable,
        Kind::Suplidos,
        Kind::Discount,
        Kind::Exempt,
    ];
    if !kinds_with_values.contains(&hit.kind) {
        return;
    }
    let l = labelled(doc, hit);
    let included = has_word(&l.text, &["incluido", "incl", "inclos", "incluidos"]);
    match hit.kind {
        Kind::Base => match (l.rate, last(&l.money)) {
            (Some(rate), Some(base)) => figures.lines.push(TaxLine {
                rate: Some(rate),
                base: Some(base),
                ..TaxLine::default()
            }),
            (None, Some(base)) => figures.bases.push(base),
            _ => {}
        },
        Kind::Vat | Kind::VatRate if included => figures.vat_included = Some(l.rate),
        Kind::VatIncluded => figures.vat_included = Some(l.rate.or(figures.vat_included.flatten())),
        Kind::Vat | Kind::VatRate => {
            let vat = last(&l.money);
            let base = (l.money.len() >= 2).then(|| l.money[0]);
            if vat.is_some() || l.rate.is_some() {
                figures.lines.push(TaxLine {
                    rate: l.rate,
                    base,
                    vat,
                    ..TaxLine::default()
                });
            }
        }
        Kind::VatTotal => figures.vat_totals.extend(last(&l.money)),
        Kind::Surcharge => {
            if let Some(amount) = last(&l.money) {
                figures.surcharges.push(TaxLine {
                    surcharge_rate: l.rate,
                    surcharge: Some(amount),
                    base: (l.money.len() >= 2).then(|| l.money[0]),
                    ..TaxLine::default()
                });
            }
        }
        Kind::Irpf => {
            figures.irpf_rate = figures.irpf_rate.or(l.rate);
            if let Some(amount) = last(&l.money).filter(|_| figures.irpf.is_none()) {
                figures.irpf = Some(Reading {
                    value: amount.value.abs(),
                    ..amount
                });
            }
        }
        Kind::Exempt => figures.exempt = true,
        Kind::Total => {
            if has_word(&label, &["incluido", "incl", "inclos", "incluidos"]) {
                figures.vat_included = Some(l.rate.or(figures.vat_included.flatten()));
            }
            figures.totals.extend(last(&l.money));
        }
        Kind::Payable => figures.payables.extend(last(&l.money)),
        Kind::Suplidos => figures.suplidos.extend(last(&l.money)),
        Kind::Discount => figures.discounts.extend(last(&l.money).map(|r| Reading {
            value: r.value.abs(),
            ..r
        })),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;
    use rust_decimal::dec;

    fn figures(text: &str) -> Figures {
        read(&Doc::new(rows(&TextDocument::from_plain_text(text).words)))
    }

    fn values(readings: &[Reading]) -> Vec<Decimal> {
        readings.iter().map(|r| r.value).collect()
    }

    #[test]
    fn stacked_totals_block() {
        let f = figures(
            "Base imponible          1.546,50 €\n\
             IVA 21%                   324,77 €\n\
             Retención IRPF 15%       -231,98 €\n\
             Total factura           1.639,29 €",
        );
        assert_eq!(values(&f.bases), [dec!(1546.50)]);
        assert_eq!(f.lines.len(), 1);
        assert_eq!(f.lines[0].rate, Some(dec!(21)));
        assert_eq!(f.lines[0].vat.map(|r| r.value), Some(dec!(324.77)));
        assert_eq!(f.irpf.map(|r| r.value), Some(dec!(231.98)));
        assert_eq!(f.irpf_rate, Some(dec!(15)));
        assert_eq!(values(&f.totals), [dec!(1639.29)]);
        assert_eq!(f.currency.as_deref(), Some("EUR"));
    }

    #[test]
    fn breakdown_table_with_surcharge() {
        let f = figures(
            "Base imponible   % IVA   Cuota IVA   % R.E.   Cuota R.E.\n\
             1.000,00         21%     210,00      5,2%     52,00\n\
             500,00           10%     50,00       1,4%     7,00\n\
             Total factura                                 1.819,00",
        );
        assert!(f.from_table);
        assert_eq!(f.lines.len(), 2);
        let l = &f.lines[1];
        assert_eq!(
            (l.rate, l.base.map(|r| r.value), l.vat.map(|r| r.value)),
            (Some(dec!(10)), Some(dec!(500.00)), Some(dec!(50.00)))
        );
        assert_eq!(
            (l.surcharge_rate, l.surcharge.map(|r| r.value)),
            (Some(dec!(1.4)), Some(dec!(7.00)))
        );
        assert_eq!(values(&f.totals), [dec!(1819.00)]);
    }

    #[test]
    fn horizontal_header_with_values_below() {
        let f = figures(
            "Base imponible   IVA (21%)   IRPF (15%)   TOTAL\n\
             1.000,00         210,00      -150,00      1.060,00",
        );
        assert_eq!(f.lines.len(), 1);
        assert_eq!(f.lines[0].rate, Some(dec!(21)));
        assert_eq!(f.irpf.map(|r| r.value), Some(dec!(150.00)));
        assert_eq!(f.irpf_rate, Some(dec!(15)));
        assert_eq!(values(&f.totals), [dec!(1060.00)]);
    }

    #[test]
    fn tickets_igic_suplidos_and_discounts() {
        let f = figures("TOTAL 12,10 €\nIVA 10% incluido");
        assert_eq!(f.vat_included, Some(Some(dec!(10))));
        assert!(f.lines.is_empty());
        let f = figures("Base imponible 100,00\nIGIC 7% 7,00\nSuplidos 30,00\nDescuento -10,00");
        assert_eq!(f.indirect_tax.as_deref(), Some("IGIC"));
        assert_eq!(values(&f.suplidos), [dec!(30.00)]);
        assert_eq!(values(&f.discounts), [dec!(10.00)]);
    }
}
