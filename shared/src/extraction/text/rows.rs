//! Words into rows and cells: words whose vertical centres lie within half a
//! word height share a row; a row is read left to right and split into cells
//! at gaps wider than about two glyphs, so printed columns stay apart.
//! Textract hints become rows of their own, on page 0, carrying their party.

use crate::extraction::layout::{Hint, Word};

use super::labels::key;

/// The party a hint says a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Party {
    Issuer,
    Recipient,
}

/// One word as the parser sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tok {
    pub text: String,
    /// Lower case, without accents, letters, digits and `%` only (see `labels::key`).
    pub key: String,
    pub left: f32,
    pub right: f32,
    pub conf: f32,
    /// Index of the cell within the row.
    pub cell: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub page: u32,
    pub top: f32,
    pub bottom: f32,
    pub toks: Vec<Tok>,
    pub party: Option<Party>,
}

/// Longer words hold nothing an invoice field could be (an IBAN has 34
/// characters); they are noise and are dropped.
const MAX_WORD_CHARS: usize = 100;
/// Words kept on one row, left to right: a printed row holds a few dozen.
const MAX_WORDS_PER_ROW: usize = 400;
/// Gap between words, in glyph widths, that starts a new cell.
const CELL_GAP_GLYPHS: f32 = 1.9;

/// A confidence in 0–1; anything not a number counts as 0.
pub fn unit(c: f32) -> f32 {
    if c.is_finite() {
        c.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn finite(w: &Word) -> bool {
    [w.left, w.top, w.width, w.height]
        .iter()
        .all(|v| v.is_finite())
}

/// Splits a word at inner spaces, after a colon glued to text
/// (`CIF:B12345674`) and at a slash between words (`data/Fecha`), sharing
/// its box out by characters.
fn split_word(w: &Word) -> Vec<Word> {
    let total = w.text.chars().count().max(1) as f32;
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut start = 0usize;
    let mut push = |text: &mut String, from: usize, to: usize| {
        if !text.is_empty() {
            parts.push(Word {
                text: std::mem::take(text),
                left: w.left + w.width * from as f32 / total,
                width: w.width * (to - from) as f32 / total,
                ..w.clone()
            });
        }
    };
    let chars: Vec<char> = w.text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_whitespace() {
            push(&mut current, start, i);
            start = i + 1;
            continue;
        }
        // Bilingual labels ("data/Fecha", "Guztira/Total"): a slash between
        // two words separates them; a slash in a date or number stays.
        // An abbreviation before it counts ("Faktura zk./Factura Nº").
        let slash_between_words = c == '/'
            && i >= 2
            && (chars[i - 2..i].iter().all(|c| c.is_alphabetic())
                || chars[i - 1] == '.' && chars[i - 2].is_alphabetic())
            && chars
                .get(i + 1..i + 3)
                .is_some_and(|n| n.iter().all(|c| c.is_alphabetic()));
        if slash_between_words {
            push(&mut current, start, i);
            start = i + 1;
            continue;
        }
        current.push(c);
        let next_alnum = chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        let glued = (c == ':' && chars.get(i + 1).is_some_and(|n| !n.is_whitespace()))
            || (c == '.' && next_alnum && tax_abbreviation(&current));
        if glued {
            push(&mut current, start, i + 1);
            start = i + 1;
        }
    }
    push(&mut current, start, chars.len());
    parts
}

/// Whether a word so far is a tax id's dotted label ("C.I.F.", "N.I.F."),
/// which tickets print glued to the id ("C.I.F.J98714496").
fn tax_abbreviation(text: &str) -> bool {
    let letters: String = text
        .chars()
        .filter(|c| *c != '.')
        .flat_map(char::to_lowercase)
        .collect();
    text.ends_with('.') && matches!(letters.as_str(), "cif" | "nif" | "nie" | "dni")
}

fn glyph_width(w: &Word) -> f32 {
    w.width / w.text.chars().count().max(1) as f32
}

fn median(mut values: Vec<f32>) -> f32 {
    values.sort_by(f32::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// The rows of a document, in reading order (page, then top).
pub fn rows(words: &[Word]) -> Vec<Row> {
    let words: Vec<Word> = words
        .iter()
        .filter(|w| finite(w))
        .flat_map(split_word)
        .filter(|w| w.text.len() <= 4 * MAX_WORD_CHARS && w.text.chars().count() <= MAX_WORD_CHARS)
        .collect();
    let mut units: Vec<Unit> = source_lines(words);
    units.sort_by(|a, b| a.page.cmp(&b.page).then(a.centre.total_cmp(&b.centre)));
    let mut groups: Vec<Vec<Word>> = Vec::new();
    let mut row_centre = 0.0f32;
    let mut row_height = 0.0f32;
    let mut row_units = 0.0f32;
    for unit in units {
        let joins = groups.last().is_some_and(|g| {
            g.first().is_some_and(|f| f.page == unit.page)
                && (unit.centre - row_centre).abs() <= 0.5 * row_height.max(unit.height)
        });
        if joins && let Some(group) = groups.last_mut() {
            row_centre = (row_centre * row_units + unit.centre) / (row_units + 1.0);
            row_height = row_height.max(unit.height);
            row_units += 1.0;
            group.extend(unit.words);
        } else {
            row_centre = unit.centre;
            row_height = unit.height;
            row_units = 1.0;
            groups.push(unit.words);
        }
    }
    groups.into_iter().map(into_row).collect()
}

/// Words that go into a row together: a line as the source found it, or
/// one word.
struct Unit {
    page: u32,
    centre: f32,
    height: f32,
    words: Vec<Word>,
}

/// A source line whose words lie further apart than this many word heights
/// (their centres, top to bottom) joined two printed rows: its words go alone.
const MAX_LINE_DRIFT: f32 = 1.5;

/// Each source line as one unit (its median centre and height), so a line
/// bent by the paper stays whole; words without a line, one unit each.
fn source_lines(words: Vec<Word>) -> Vec<Unit> {
    let centre = |w: &Word| w.top + w.height / 2.0;
    let mut lines: Vec<Vec<Word>> = Vec::new();
    let mut index: std::collections::HashMap<(u32, u32), usize> = Default::default();
    let mut units = Vec::new();
    for w in words {
        match w.line {
            Some(line) => {
                let i = *index.entry((w.page, line)).or_insert_with(|| {
                    lines.push(Vec::new());
                    lines.len() - 1
                });
                lines[i].push(w);
            }
            None => lines.push(vec![w]),
        }
    }
    for words in lines {
        let height = median(words.iter().map(|w| w.height).collect());
        let (low, high) = words
            .iter()
            .map(centre)
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c), hi.max(c))
            });
        if words.len() > 1 && high - low > MAX_LINE_DRIFT * height {
            units.extend(words.into_iter().map(|w| Unit {
                page: w.page,
                centre: centre(&w),
                height: w.height,
                words: vec![w],
            }));
            continue;
        }
        units.push(Unit {
            page: words[0].page,
            centre: median(words.iter().map(centre).collect()),
            height,
            words,
        });
    }
    units
}

fn into_row(mut words: Vec<Word>) -> Row {
    words.sort_by(|a, b| a.left.total_cmp(&b.left));
    words.truncate(MAX_WORDS_PER_ROW);
    let glyph = median(words.iter().map(glyph_width).collect());
    let page = words.first().map_or(1, |w| w.page);
    let top = words.iter().map(|w| w.top).fold(f32::INFINITY, f32::min);
    let bottom = words
        .iter()
        .map(|w| w.top + w.height)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut toks: Vec<Tok> = Vec::with_capacity(words.len());
    let mut cell = 0;
    for w in words {
        if let Some(prev) = toks.last()
            && w.left - prev.right > CELL_GAP_GLYPHS * glyph
        {
            cell += 1;
        }
        toks.push(Tok {
            key: key(&w.text),
            left: w.left,
            right: w.left + w.width,
            conf: unit(w.confidence),
            cell,
            text: w.text,
        });
    }
    Row {
        page,
        top,
        bottom,
        toks: joined_letters(toks),
        party: None,
    }
}

fn single_letter(t: &Tok) -> bool {
    let mut chars = t.text.chars();
    chars.next().is_some_and(char::is_alphabetic) && chars.next().is_none()
}

/// Letter-spaced words ("T O T A L", "C O N C E P T O") drawn one glyph at a
/// time: a run of three or more single letters becomes words again, split
/// where a gap is clearly wider than the run's narrowest.
fn joined_letters(toks: Vec<Tok>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let run = toks[i..].iter().take_while(|t| single_letter(t)).count();
        if run < 3 {
            out.push(toks[i].clone());
            i += 1;
            continue;
        }
        let letters = &toks[i..i + run];
        let gaps: Vec<f32> = letters.windows(2).map(|w| w[1].left - w[0].right).collect();
        let narrowest = gaps.iter().copied().fold(f32::INFINITY, f32::min).max(0.0);
        let width = letters.iter().map(|t| t.right - t.left).fold(0.0, f32::max);
        let mut word = letters[0].clone();
        for (letter, gap) in letters[1..].iter().zip(&gaps) {
            if *gap > 2.0 * narrowest + 0.5 * width {
                out.push(word);
                word = letter.clone();
            } else {
                word.text.push_str(&letter.text);
                word.right = letter.right;
                word.conf = word.conf.min(letter.conf);
            }
        }
        out.push(word);
        i += run;
    }
    let mut cells: Vec<usize> = out.iter().map(|t| t.cell).collect();
    cells.dedup();
    for t in &mut out {
        t.key = key(&t.text);
        t.cell = cells.iter().position(|&c| c == t.cell).unwrap_or(0);
    }
    out
}

/// The hint's party, from its type (`VENDOR_…`, `RECEIVER_…`) or its groups.
fn hint_party(hint: &Hint) -> Option<Party> {
    let names = std::iter::once(hint.kind.as_str()).chain(hint.groups.iter().map(String::as_str));
    names.map(str::to_ascii_uppercase).find_map(|n| {
        if n.starts_with("VENDOR") {
            Some(Party::Issuer)
        } else if n.starts_with("RECEIVER") {
            Some(Party::Recipient)
        } else {
            None
        }
    })
}

/// The Spanish label a hint type stands for, when the hint prints none.
fn canonical_label(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "SUBTOTAL" => "Base imponible",
        "TAX" => "IVA",
        "TOTAL" => "Total",
        "AMOUNT_DUE" => "Total a pagar",
        "INVOICE_RECEIPT_ID" => "Nº factura",
        "INVOICE_RECEIPT_DATE" => "Fecha factura",
        "DISCOUNT" => "Descuento",
        "TAX_PAYER_ID" | "VENDOR_VAT_NUMBER" | "RECEIVER_VAT_NUMBER" => "NIF",
        _ => return None,
    })
}

/// Hints as rows `label value` on page 0, far apart from each other. A hint
/// whose printed label is not one the parser knows gets the label of its
/// type; one of type `OTHER` counts only by its label ("Retención IRPF").
pub fn hint_rows(hints: &[Hint], known_label: impl Fn(&str) -> bool) -> Vec<Row> {
    hints
        .iter()
        .enumerate()
        .filter_map(|(i, hint)| {
            let kind = hint.kind.to_ascii_uppercase();
            let label = hint
                .label
                .as_deref()
                .filter(|l| known_label(l))
                .or_else(|| canonical_label(&kind))?;
            let conf = if hint.confidence > 1.0 {
                hint.confidence / 100.0
            } else {
                hint.confidence
            };
            let top = i as f32 * 10.0;
            let text = format!("{label} {}", hint.value);
            let toks = text
                .split_whitespace()
                .enumerate()
                .map(|(k, t)| Tok {
                    text: t.to_string(),
                    key: key(t),
                    left: k as f32 * 0.01,
                    right: k as f32 * 0.01 + 0.005,
                    conf: unit(conf),
                    cell: 0,
                })
                .collect();
            Some(Row {
                page: 0,
                top,
                bottom: top + 0.01,
                toks,
                party: hint_party(hint),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_slash_between_words_separates_them() {
        let w = Word {
            text: "data/Fecha 22/01/2022 S/A".to_string(),
            page: 1,
            left: 0.1,
            top: 0.1,
            width: 0.25,
            height: 0.01,
            confidence: 1.0,
            line: None,
        };
        let texts: Vec<String> = split_word(&w).into_iter().map(|w| w.text).collect();
        assert_eq!(texts, ["data", "Fecha", "22/01/2022", "S/A"]);
    }

    #[test]
    fn a_tax_label_glued_to_its_id_is_split_from_it() {
        for (text, parts) in [
            ("C.I.F.J98714496", vec!["C.I.F.", "J98714496"]),
            ("NIF.B64717838", vec!["NIF.", "B64717838"]),
            ("CIF:B64717838", vec!["CIF:", "B64717838"]),
            ("Sr.García", vec!["Sr.García"]),
            ("zk./Factura", vec!["zk.", "Factura"]),
            ("1.250,00", vec!["1.250,00"]),
        ] {
            let w = Word {
                text: text.into(),
                page: 1,
                left: 0.1,
                top: 0.1,
                width: 0.2,
                height: 0.01,
                confidence: 1.0,
                line: None,
            };
            let texts: Vec<String> = split_word(&w).into_iter().map(|w| w.text).collect();
            assert_eq!(texts, parts, "{text}");
        }
    }

    #[test]
    fn letter_spaced_words_are_joined() {
        let word = |text: &str, left: f32| Word {
            text: text.to_string(),
            page: 1,
            left,
            top: 0.5,
            width: 0.008,
            height: 0.01,
            confidence: 1.0,
            line: None,
        };
        let mut words: Vec<Word> = "TOTAL"
            .chars()
            .enumerate()
            .map(|(i, c)| word(&c.to_string(), 0.5 + i as f32 * 0.012))
            .collect();
        words.extend(
            "FACTURA"
                .chars()
                .enumerate()
                .map(|(i, c)| word(&c.to_string(), 0.6 + i as f32 * 0.012)),
        );
        words.push(word("2.238,98", 0.8));
        let row = &rows(&words)[0];
        let texts: Vec<&str> = row.toks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["TOTAL", "FACTURA", "2.238,98"]);
        assert_eq!(row.toks[0].key, "total");
        let cells: Vec<usize> = row.toks.iter().map(|t| t.cell).collect();
        assert!(cells.windows(2).all(|w| w[1] <= w[0] + 1), "{cells:?}");
    }

    #[test]
    fn a_line_bent_by_the_paper_stays_one_row() {
        let word = |text: &str, left: f32, top: f32, line: Option<u32>| Word {
            text: text.to_string(),
            page: 1,
            left,
            top,
            width: 0.1,
            height: 0.03,
            confidence: 0.9,
            line,
        };
        let bent = [
            word("Total", 0.05, 0.827, Some(7)),
            word("EUR", 0.55, 0.808, Some(7)),
            word("50.01", 0.8, 0.806, Some(7)),
        ];
        let one: Vec<Vec<String>> = rows(&bent)
            .into_iter()
            .map(|r| r.toks.into_iter().map(|t| t.text).collect())
            .collect();
        assert_eq!(one, [["Total", "EUR", "50.01"]]);
        let unlined: Vec<Word> = bent
            .iter()
            .cloned()
            .map(|w| Word { line: None, ..w })
            .collect();
        assert_eq!(rows(&unlined).len(), 2, "by position alone, two rows");
        let joined_two_rows = [
            word("Servido", 0.05, 0.90, Some(8)),
            word("41.33", 0.3, 0.80, Some(8)),
        ];
        assert_eq!(
            rows(&joined_two_rows).len(),
            2,
            "a source line spanning two printed rows is not trusted"
        );
    }

    use super::*;
    use crate::extraction::layout::TextDocument;

    fn texts(row: &Row) -> Vec<(usize, &str)> {
        row.toks.iter().map(|t| (t.cell, t.text.as_str())).collect()
    }

    #[test]
    fn plain_text_columns_become_cells() {
        let doc = TextDocument::from_plain_text(
            "ACME SL              Cliente:\nBase imponible   1.546,50 €\nCIF:B12345674",
        );
        let rows = rows(&doc.words);
        assert_eq!(rows.len(), 3);
        assert_eq!(texts(&rows[0]), [(0, "ACME"), (0, "SL"), (1, "Cliente:")]);
        assert_eq!(
            texts(&rows[1]),
            [(0, "Base"), (0, "imponible"), (1, "1.546,50"), (1, "€")]
        );
        assert_eq!(texts(&rows[2]), [(0, "CIF:"), (0, "B12345674")]);
    }

    #[test]
    fn words_cluster_by_vertical_centre_and_sort_by_left() {
        let word = |text: &str, left: f32, top: f32| Word {
            text: text.into(),
            page: 1,
            left,
            top,
            width: 0.05,
            height: 0.01,
            confidence: 0.9,
            line: None,
        };
        let rows = rows(&[
            word("100,00", 0.8, 0.302),
            word("Base", 0.1, 0.3),
            word("Total", 0.1, 0.33),
            word("bad", f32::NAN, 0.3),
            word(&"9".repeat(101), 0.5, 0.3),
        ]);
        assert_eq!(rows.len(), 2);
        assert_eq!(texts(&rows[0]), [(0, "Base"), (1, "100,00")]);
        assert_eq!(texts(&rows[1]), [(0, "Total")]);
    }

    #[test]
    fn hints_become_rows_with_their_party() {
        let hint = |kind: &str, label: Option<&str>, value: &str, groups: &[&str]| Hint {
            kind: kind.into(),
            label: label.map(Into::into),
            value: value.into(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            confidence: 97.0,
        };
        let rows = hint_rows(
            &[
                hint("TAX_PAYER_ID", Some("NIF:"), "12345678Z", &["RECEIVER"]),
                hint("TOTAL", Some("Amount"), "121,00", &[]),
                hint("VENDOR_PHONE", None, "911", &[]),
                hint("OTHER", Some("NIF:"), "B12345674", &[]),
                hint("OTHER", Some("Forma de pago"), "Transferencia", &[]),
            ],
            |l| l.starts_with("NIF"),
        );
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].party, Some(Party::Recipient));
        assert_eq!(texts(&rows[1]), [(0, "Total"), (0, "121,00")]);
        assert!((rows[1].toks[0].conf - 0.97).abs() < 1e-6);
    }
}
