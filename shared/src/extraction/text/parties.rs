//! Issuer and recipient: their tax ids and names. Every valid id on the
//! invoice is scored: inside or right after a customer block ("Cliente",
//! "Facturar a", "Destinatario" …) it counts for the recipient; in an issuer
//! block or on the registry footer line ("Inscrita en el Registro Mercantil",
//! "Domicilio social") for the issuer; Textract's VENDOR/RECEIVER groups are
//! a weaker vote; the first id of the document, high on the first page, leans
//! to the issuer, and so does a person's NIF when IRPF is withheld. The
//! caller's own NIF, when printed, settles it (the caller is the recipient and
//! the best other id is the issuer) unless the blocks say otherwise: the own
//! id under an issuer label with another id under a customer label is the
//! caller's own sales invoice.

use crate::extraction::fields::Field;
use crate::extraction::layout::Hint;
use crate::tax::nif::Nif;

use super::doc::{BELOW, BESIDE, Doc, FALLBACK, cells_within, join, mean_conf};
use super::labels::{Hit, Kind, fold, key};
use super::names::company_names;
use super::rows::{Party, Tok, unit};
use super::tax_id::{TaxId, find, uk_vat_after_label};

#[derive(Debug, Default, PartialEq)]
pub struct Parties {
    pub issuer_name: Option<Field<String>>,
    pub issuer_nif: Option<Field<String>>,
    pub recipient_name: Option<Field<String>>,
    pub recipient_nif: Option<Field<String>>,
    pub notes: Vec<(String, String)>,
}

/// The score of an id under a block label (issuer +3, customer −3; ⅔ of
/// that on a row shared by both parties).
const LABELLED: f32 = 2.0;

/// How far from the recipient's id a name may start and still be in its block.
const RECIPIENT_COLUMN: f32 = 0.15;
/// The score from which a company name outranks the name printed near the
/// issuer's id: on the id's rows, the registry line or the page header.
const STRONG_NAME: f32 = 2.0;
/// Where a page's footer starts (page fraction from the top).
const FOOTER_TOP: f32 = 0.75;
/// Where a page's header ends.
const HEADER_BOTTOM: f32 = 0.15;

/// How many rows above an id a block label may be.
const BLOCK_ROWS: usize = 8;
/// A block's column: from a little left of its label to this far right of it.
const BLOCK_LEFT_SLACK: f32 = 0.05;
const BLOCK_WIDTH: f32 = 0.35;
/// Distinct ids considered: an invoice prints two or three.
const MAX_IDS: usize = 32;
/// Rows above an id searched for its holder's name.
const NAME_ROWS: usize = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Issuer,
    Customer,
}

struct Sighting {
    id: TaxId,
    row: usize,
    tok: usize,
    conf: f32,
    score: f32,
}

/// Words in a tax-id label that name its holder ("NIF cliente", "Customer VAT Number").
const CUSTOMER_WORDS: &[&str] = &[
    "cliente",
    "client",
    "customer",
    "kunde",
    "klant",
    "destinatario",
    "comprador",
    "buyer",
];
const ISSUER_WORDS: &[&str] = &[
    "emisor",
    "proveedor",
    "supplier",
    "seller",
    "vendor",
    "lieferant",
];

fn block_context(kind: Kind) -> Option<Context> {
    match kind {
        Kind::CustomerBlock => Some(Context::Customer),
        Kind::IssuerBlock | Kind::Registry => Some(Context::Issuer),
        _ => None,
    }
}

/// The block an id at `(row, tok)` sits in, from the nearest block label at
/// its left on the row or above it in its column.
fn context(doc: &Doc, row: usize, tok: usize) -> Option<Context> {
    let r = doc.rows.get(row)?;
    if let Some(party) = r.party {
        return Some(match party {
            Party::Issuer => Context::Issuer,
            Party::Recipient => Context::Customer,
        });
    }
    let id_label = doc
        .row_hits(row)
        .filter(|h| h.kind == Kind::TaxId && h.end <= tok)
        .last()
        .map(|h| doc.label_text(h));
    if let Some(label) = id_label {
        let label = fold(&label);
        if CUSTOMER_WORDS.iter().any(|w| label.contains(w)) {
            return Some(Context::Customer);
        }
        if ISSUER_WORDS.iter().any(|w| label.contains(w)) {
            return Some(Context::Issuer);
        }
    }
    let same_row = doc
        .row_hits(row)
        .filter(|h| h.end <= tok)
        .filter_map(|h| block_context(h.kind))
        .last();
    if same_row.is_some() {
        return same_row;
    }
    // The registry line, or the footer block it belongs to (several short
    // rows of company details at the bottom of the page).
    let reach = if r.top > FOOTER_TOP { 4 } else { 1 };
    let footer = doc.hits_of(Kind::Registry).any(|h| {
        h.row.abs_diff(row) <= reach
            && doc
                .rows
                .get(h.row)
                .is_some_and(|x| x.page == r.page && (reach == 1 || x.top > FOOTER_TOP))
    });
    if footer {
        return Some(Context::Issuer);
    }
    let left = r.toks.get(tok)?.left;
    (row.saturating_sub(BLOCK_ROWS)..row)
        .rev()
        .find_map(|above| {
            if doc.rows.get(above)?.page != r.page {
                return None;
            }
            doc.row_hits(above)
                .filter(|h| matches!(h.kind, Kind::CustomerBlock | Kind::IssuerBlock))
                .find(|h| {
                    let label_left = doc.label_toks(h).first().map_or(0.0, |t| t.left);
                    left >= label_left - BLOCK_LEFT_SLACK && left <= label_left + BLOCK_WIDTH
                })
                .and_then(|h| block_context(h.kind))
        })
}

fn sightings(doc: &Doc, irpf: bool) -> Vec<Sighting> {
    let mut found = Vec::new();
    let mut first_doc_id = true;
    for (i, row) in doc.rows.iter().enumerate() {
        let labelled = doc.row_hits(i).any(|h| h.kind == Kind::TaxId);
        let ignored = doc.row_hits(i).any(|h| h.kind == Kind::Ignore) && !labelled;
        let words: Vec<&str> = row.toks.iter().map(|t| t.text.as_str()).collect();
        let mut ids = find(&words, labelled && !ignored);
        if ids.is_empty() {
            ids.extend(uk_vat_after_label(&words));
        }
        for (id, tok) in ids {
            let mut score = match context(doc, i, tok) {
                Some(Context::Issuer) => 3.0,
                Some(Context::Customer) => -3.0,
                None => 0.0,
            };
            if row.party.is_some() {
                score *= 2.0 / 3.0;
            } else {
                if first_doc_id {
                    score += 1.0;
                    first_doc_id = false;
                }
                if row.page == 1 && row.top < 0.3 {
                    score += 0.5;
                }
            }
            if id.invalid {
                score -= 0.5;
            }
            let person = Nif::parse(&id.value)
                .is_ok_and(|n| !matches!(n.kind(), crate::tax::nif::NifKind::Entity(_)));
            if irpf && person {
                score += 0.5;
            }
            let conf = row.toks.get(tok).map_or(0.0, |t| t.conf);
            if found.len() >= MAX_IDS {
                return found;
            }
            found.push(Sighting {
                id,
                row: i,
                tok,
                conf,
                score,
            });
        }
    }
    found
}

/// Sightings of one id whose scores add up: an id a long document repeats on
/// every page (a reference in its page header) must not outweigh the
/// registry line that names the issuer once.
const COUNTED_SIGHTINGS: usize = 3;

/// One entry per distinct id: the summed score of its first sightings, the
/// first sighting.
fn by_value(sightings: Vec<Sighting>) -> Vec<Sighting> {
    let mut out: Vec<(Sighting, usize)> = Vec::new();
    for s in sightings {
        match out.iter_mut().find(|(o, _)| o.id.value == s.id.value) {
            Some((o, seen)) => {
                *seen += 1;
                if *seen <= COUNTED_SIGHTINGS {
                    o.score += s.score;
                }
                o.conf = o.conf.max(s.conf);
                if o.row > s.row {
                    o.row = s.row;
                    o.tok = s.tok;
                }
            }
            None => out.push((s, 1)),
        }
    }
    out.into_iter().map(|(s, _)| s).collect()
}

const ADDRESS_STARTS: &[&str] = &[
    "c",
    "calle",
    "avda",
    "avenida",
    "av",
    "plaza",
    "pza",
    "pl",
    "paseo",
    "po",
    "ctra",
    "carretera",
    "camino",
    "travesia",
    "ronda",
    "poligono",
    "pol",
    "polig",
    "pgno",
    "nave",
    "parcela",
    "urb",
    "tel",
    "tlf",
    "telf",
    "telefono",
    "www",
    "http",
    "https",
    "email",
    "cp",
    "apartado",
    "carrer",
    "passeig",
    "avinguda",
    "movil",
    "fax",
];
const TITLES: &[&str] = &[
    "factura",
    "invoice",
    "ticket",
    "presupuesto",
    "abono",
    "proforma",
    "original",
    "copia",
    "pagina",
];

/// Longer lines are sentences, not names.
const MAX_NAME_LEN: usize = 120;

fn looks_like_name(text: &str) -> bool {
    if text.len() > MAX_NAME_LEN * 4 || text.chars().count() > MAX_NAME_LEN {
        return false;
    }
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let digits = text.chars().filter(|c| c.is_ascii_digit()).count();
    let words: Vec<String> = text
        .split_whitespace()
        .map(key)
        .filter(|k| !k.is_empty())
        .collect();
    let first = words.first().map(String::as_str).unwrap_or("");
    // OCR noise ("ia ss oe or") is short fragments; a name has a real word.
    let longest = words
        .iter()
        .map(|w| w.chars().filter(|c| c.is_alphabetic()).count())
        .max()
        .unwrap_or(0);
    letters >= 3
        && longest >= 4
        && digits * 2 <= letters
        && !text.contains('@')
        && !ADDRESS_STARTS.contains(&first)
        && !text.trim_start().starts_with("C/")
        && !words
            .iter()
            .all(|w| TITLES.contains(&w.as_str()) || w.chars().all(|c| c.is_ascii_digit()))
        && !first.chars().all(|c| c.is_ascii_digit())
}

/// Labels printed before a name ("Empresa: ACME SL").
const NAME_LABELS: &[&str] = &[
    "empresa",
    "razon social",
    "nombre",
    "denominacion",
    "denominacion social",
    "nombre o razon social",
    "cliente",
    "emisor",
    "proveedor",
    "titular",
    "destinatario",
];

/// A name without surrounding punctuation, a leading name label or a tax id
/// printed with it ("Academia Sol SL (B12345674)").
fn clean_name(text: &str) -> String {
    let text = match text.split_once(':') {
        Some((label, rest)) if NAME_LABELS.contains(&fold(label.trim()).as_str()) => rest,
        _ => text,
    };
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| find(&[*w], false).is_empty())
        .collect();
    words
        .join(" ")
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | '-' | '|' | ';' | '('))
        .to_string()
}

/// The words of a row in the column starting at `left`.
fn column_text(toks: &[Tok], left: f32) -> (String, f32) {
    let Some(cells) = cells_within(toks, left - 0.02, left + 0.3) else {
        return (String::new(), 0.0);
    };
    let in_column: Vec<Tok> = toks
        .iter()
        .filter(|t| cells.contains(&t.cell))
        .cloned()
        .collect();
    (join(&in_column), mean_conf(&in_column))
}

/// The name of the holder of an id: before its label on the same line, or
/// the top line of the block above it.
fn name_near(doc: &Doc, row: usize, tok: usize) -> Option<Field<String>> {
    let r = doc.rows.get(row)?;
    if r.page == 0 {
        return None;
    }
    let cell = r.toks.get(tok)?.cell;
    let first_label = doc
        .row_hits(row)
        .map(|h| h.start)
        .chain(std::iter::once(tok))
        .filter(|&s| r.toks.get(s).is_some_and(|t| t.cell == cell))
        .min()
        .unwrap_or(tok);
    let before: Vec<Tok> = r
        .toks
        .iter()
        .take(first_label)
        .filter(|t| t.cell == cell)
        .cloned()
        .collect();
    let text = clean_name(&join(&before));
    if looks_like_name(&text) {
        return Some(Field::new(text, mean_conf(&before) * BESIDE));
    }
    let left = r
        .toks
        .iter()
        .find(|t| t.cell == cell)
        .map_or(0.0, |t| t.left);
    let height = (r.bottom - r.top).max(0.001);
    let mut best = None;
    let mut lower_top = r.top;
    let mut in_column = 0;
    // Rows of the other column (a customer box beside the issuer's) do not count.
    for above in (row.saturating_sub(4 * NAME_ROWS)..row).rev() {
        let Some(a) = doc.rows.get(above) else { break };
        if in_column == NAME_ROWS || a.page != r.page || lower_top - a.bottom > 2.5 * height {
            break;
        }
        lower_top = a.top;
        let (text, conf) = column_text(&a.toks, left);
        if text.is_empty() {
            continue;
        }
        in_column += 1;
        let block_label = doc.row_hits(above).any(|h| {
            let at = doc.label_toks(h).first().map_or(0.0, |t| t.left);
            matches!(
                h.kind,
                Kind::CustomerBlock | Kind::IssuerBlock | Kind::InvoiceNumber | Kind::InvoiceDate
            ) && at >= left - 0.02
                && at <= left + 0.3
        });
        if block_label {
            break;
        }
        let text = clean_name(&text);
        if looks_like_name(&text) {
            best = Some(Field::new(text, conf * BELOW));
        }
    }
    best
}

/// Rows around the recipient's id (its block, a few rows above) in its column.
fn near_recipient(doc: &Doc, row: usize, from: f32, recipient: Option<(usize, usize)>) -> bool {
    let Some((r_row, r_tok)) = recipient else {
        return false;
    };
    let (Some(r), Some(x)) = (doc.rows.get(r_row), doc.rows.get(row)) else {
        return false;
    };
    let left = r.toks.get(r_tok).map_or(0.0, |t| t.left);
    r.page == x.page
        && row + NAME_ROWS >= r_row
        && row <= r_row + 1
        && (from - left).abs() < RECIPIENT_COLUMN
}

/// The issuer's company name found by its legal form, with its score: on
/// the issuer id's rows, the registry line or the page header scores
/// `STRONG_NAME` or more; anywhere else outside the recipient's block, less.
fn legal_name(
    doc: &Doc,
    issuer_row: Option<usize>,
    recipient: Option<(usize, usize)>,
) -> Option<(f32, Field<String>)> {
    let mut best: Option<(f32, Field<String>)> = None;
    for (i, row) in doc.rows.iter().enumerate() {
        let words: Vec<&str> = row.toks.iter().map(|t| t.text.as_str()).collect();
        let Some(name) = company_names(&words).into_iter().next() else {
            continue;
        };
        let first = name.split_whitespace().next().unwrap_or("");
        let at = row
            .toks
            .iter()
            .position(|t| t.text.starts_with(first))
            .unwrap_or(0);
        let from = row.toks.get(at).map_or(0.0, |t| t.left);
        let labelled_customer = doc
            .row_hits(i)
            .any(|h| h.kind == Kind::CustomerBlock && h.start <= at);
        let recipient_row = recipient.is_some_and(|(r_row, _)| r_row == i);
        if recipient_row
            || near_recipient(doc, i, from, recipient)
            || context(doc, i, at) == Some(Context::Customer)
            || labelled_customer
        {
            continue;
        }
        let near_issuer = issuer_row.is_some_and(|r| {
            r.abs_diff(i) <= 3 && doc.rows.get(r).is_some_and(|x| x.page == row.page)
        });
        let registry = doc.row_hits(i).any(|h| h.kind == Kind::Registry);
        let mut score = 0.0;
        if near_issuer {
            score += 3.0;
        }
        if registry {
            score += 2.0;
        }
        if row.page == 1 && row.top < HEADER_BOTTOM {
            score += 2.0;
        } else if row.page == 1 && row.top < 0.25 {
            score += 1.0;
        }
        let factor = if score >= STRONG_NAME {
            BESIDE
        } else {
            FALLBACK
        };
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, Field::new(name, mean_conf(&row.toks) * factor)));
        }
    }
    best
}

/// The name printed with a block label ("Cliente:", "Emisor:"), beside it
/// or just below.
fn block_name(doc: &Doc, kind: Kind) -> Option<Field<String>> {
    // A block label heads its cell ("Proveedor: …"); inside a sentence ("sea
    // cual sea el proveedor de energía") it is a word like any other.
    let heads_block = |h: &&Hit| doc.heads_cell(h) && (doc.ends_cell(h) || doc.asks_value(h));
    doc.hits_of(kind).filter(heads_block).find_map(|hit| {
        let read = |t: &str| {
            let name = clean_name(t.split(" | ").next().unwrap_or(t));
            looks_like_name(&name).then_some(name)
        };
        let (name, value) = doc.value(hit, read)?;
        let factor = if value.below { BELOW } else { BESIDE };
        Some(Field::new(name, value.conf * factor))
    })
}

/// The top line of the first page: the trade name, most of the time.
fn top_line(doc: &Doc) -> Option<Field<String>> {
    doc.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.page == 1)
        .take(6)
        .find_map(|(i, r)| {
            let labelled = doc.row_hits(i).any(|h| h.start == 0);
            let first: Vec<Tok> = r.toks.iter().filter(|t| t.cell == 0).cloned().collect();
            let text = clean_name(&join(&first));
            (!labelled && looks_like_name(&text))
                .then(|| Field::new(text, mean_conf(&first) * FALLBACK))
        })
}

fn hint_name(hints: &[Hint], kind: &str) -> Option<Field<String>> {
    hints
        .iter()
        .filter(|h| h.kind.eq_ignore_ascii_case(kind))
        .find_map(|h| {
            let name = clean_name(&h.value);
            let conf = if h.confidence > 1.0 {
                h.confidence / 100.0
            } else {
                h.confidence
            };
            looks_like_name(&name).then(|| Field::new(name, unit(conf)))
        })
}

fn repair_note(id: &TaxId) -> Option<(String, String)> {
    let from = id.repaired_from.as_ref()?;
    Some((
        "nif_repaired".to_string(),
        format!(
            "NIF leído con corrección OCR: {from} → {} (tax id repaired, check digit verified)",
            id.value
        ),
    ))
}

pub fn read(doc: &Doc, hints: &[Hint], own_nif: Option<&Nif>, irpf: bool) -> Parties {
    let mut ids = by_value(sightings(doc, irpf));
    ids.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.row.cmp(&b.row)));
    let labelled_customer = ids.iter().any(|s| s.score <= -LABELLED);
    let own = own_nif
        .and_then(|own| ids.iter().position(|s| s.id.value == own.as_str()))
        .filter(|&o| !(labelled_customer && ids[o].score >= LABELLED));
    let (issuer, recipient) = match own {
        Some(o) => (
            ids.iter().position(|s| s.id.value != ids[o].id.value),
            Some(o),
        ),
        None => match ids.len() {
            0 => (None, None),
            1 if ids[0].score < 0.0 => (None, Some(0)),
            1 => (Some(0), None),
            n => (Some(0), Some(n - 1)),
        },
    };
    let field = |i: Option<usize>| {
        i.and_then(|i| ids.get(i)).map(|s| {
            let factor = if s.id.repaired_from.is_some() {
                FALLBACK
            } else {
                BESIDE
            };
            Field::new(s.id.value.clone(), s.conf * factor)
        })
    };
    let mut parties = Parties {
        issuer_nif: field(issuer),
        recipient_nif: field(recipient),
        ..Parties::default()
    };
    for i in [issuer, recipient].into_iter().flatten() {
        if let Some(note) = ids.get(i).and_then(|s| repair_note(&s.id)) {
            parties.notes.push(note);
        }
    }
    let near = |i: Option<usize>| {
        i.and_then(|i| ids.get(i))
            .and_then(|s| name_near(doc, s.row, s.tok))
    };
    let recipient_at = recipient.and_then(|i| ids.get(i)).map(|s| (s.row, s.tok));
    let issuer_at = issuer.and_then(|i| ids.get(i)).map(|s| s.row);
    let company = legal_name(doc, issuer_at, recipient_at);
    let strong = company.clone().filter(|(score, _)| *score >= STRONG_NAME);
    parties.issuer_name = hint_name(hints, "VENDOR_NAME")
        .or_else(|| block_name(doc, Kind::IssuerBlock))
        .or_else(|| strong.map(|(_, name)| name))
        .or_else(|| near(issuer))
        .or_else(|| company.map(|(_, name)| name))
        .or_else(|| top_line(doc));
    parties.recipient_name = hint_name(hints, "RECEIVER_NAME")
        .or_else(|| block_name(doc, Kind::CustomerBlock))
        .or_else(|| near(recipient));
    if parties.recipient_name == parties.issuer_name {
        parties.recipient_name = None;
    }
    parties
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;

    fn parties(text: &str, own: Option<&str>, irpf: bool) -> Parties {
        let doc = Doc::new(rows(&TextDocument::from_plain_text(text).words));
        let own = own.map(|o| Nif::parse(o).unwrap());
        read(&doc, &[], own.as_ref(), irpf)
    }

    fn ids(p: &Parties) -> (Option<&str>, Option<&str>) {
        (
            p.issuer_nif.as_ref().map(|f| f.value.as_str()),
            p.recipient_nif.as_ref().map(|f| f.value.as_str()),
        )
    }

    fn names(p: &Parties) -> (Option<&str>, Option<&str>) {
        (
            p.issuer_name.as_ref().map(|f| f.value.as_str()),
            p.recipient_name.as_ref().map(|f| f.value.as_str()),
        )
    }

    #[test]
    fn two_column_header_with_customer_on_the_right() {
        let p = parties(
            "Reformas Ibéricas Martínez, S.L.            Cliente:\n\
             CIF: B12345674                              Juan Pérez García\n\
             C/ Mayor 1, 28001 Madrid                    NIF: 12345678Z\n\
             \n\
             Factura nº 2026/0147",
            None,
            false,
        );
        assert_eq!(ids(&p), (Some("B12345674"), Some("12345678Z")));
        assert_eq!(
            names(&p),
            (
                Some("Reformas Ibéricas Martínez, S.L."),
                Some("Juan Pérez García")
            )
        );
    }

    #[test]
    fn the_customer_box_beside_the_issuer_does_not_cut_the_issuers_block() {
        let p = parties(
            "Marta Saavedra Ojeda                 FACTURAR A:\n\
             Psicóloga colegiada                  Empresa Demo S.L.\n\
             C/ Ejemplo Profesional, 4            Avda. de Ejemplo, 7\n\
             13003 Ciudad Real                    CIF: B64717838\n\
             CIF/NIF: 12345678Z",
            None,
            true,
        );
        assert_eq!(ids(&p), (Some("12345678Z"), Some("B64717838")));
        assert_eq!(names(&p).0, Some("Marta Saavedra Ojeda"));
    }

    #[test]
    fn customer_box_first_and_issuer_in_the_registry_footer() {
        let p = parties(
            "FACTURA\n\
             Facturar a:\n\
             Talleres Norte SA\n\
             NIF A13585625\n\
             \n\
             Base imponible 100,00\n\
             \n\
             Suministros Levante SL - Inscrita en el Registro Mercantil de Valencia, Tomo 1, Folio 2 - CIF B64717838",
            None,
            false,
        );
        assert_eq!(ids(&p), (Some("B64717838"), Some("A13585625")));
        assert_eq!(
            names(&p),
            (Some("Suministros Levante SL"), Some("Talleres Norte SA"))
        );
    }

    #[test]
    fn own_nif_makes_the_caller_the_recipient() {
        let text = "Juan Pérez García   NIF 12345678Z\nAsesoría López SL   CIF B12345674";
        let p = parties(text, Some("12345678Z"), false);
        assert_eq!(ids(&p), (Some("B12345674"), Some("12345678Z")));
        let p = parties(text, None, false);
        assert_eq!(ids(&p), (Some("12345678Z"), Some("B12345674")));
        assert_eq!(names(&p).0, Some("Juan Pérez García"));
    }

    #[test]
    fn ocr_repairs_next_to_a_label_leave_a_note() {
        let p = parties("Reformas SL\nCIF: 812345674", None, false);
        assert_eq!(ids(&p), (Some("B12345674"), None));
        assert_eq!(p.notes[0].0, "nif_repaired");
        let p = parties(
            "Tel 912345678\nCuenta ES91 2100 0418 4502 0005 1332",
            None,
            false,
        );
        assert_eq!(ids(&p), (None, None));
    }

    #[test]
    fn names_lose_their_labels_and_ids() {
        assert_eq!(
            clean_name("Empresa: Soluciones Web SL"),
            "Soluciones Web SL"
        );
        assert_eq!(clean_name("Academia Sol SL (B12345674)"), "Academia Sol SL");
        assert_eq!(clean_name(" ACME, S.L. -"), "ACME, S.L.");
    }

    #[test]
    fn a_lone_id_in_a_customer_block_is_the_recipient() {
        let p = parties("Ticket 55\nCliente: Ana Ruiz\nDNI 12345678Z", None, false);
        assert_eq!(ids(&p), (None, Some("12345678Z")));
        assert_eq!(names(&p).1, Some("Ana Ruiz"));
    }
}
