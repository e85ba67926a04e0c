//! The figures chosen together. `reconcile` reads the totals block as
//! printed; on layouts it does not expect (utility bills with a summary box
//! and a detail page, totals in the wrong column, a "Total a pagar" that adds
//! other charges) its figures can disagree. Then every labelled amount is a
//! candidate (bases, VAT, totals, surcharge, withholding, beside their labels
//! or below them) and the set that adds up is chosen: VAT = base × a rate in
//! force within rounding, base + VAT + surcharge − IRPF = total. Among the
//! sets that add up, labels and position decide (a "Total factura" over an
//! "A pagar", the totals after the base).

use rust_decimal::Decimal;
use rust_decimal::dec;

use crate::extraction::fields::{Field, VatLine};

use super::amount::{Number, amounts};
use super::doc::{BESIDE, Doc};
use super::labels::{Hit, Kind};
use super::reconcile::{
    IRPF_RATES, Reconciled, SUM_TOLERANCE, SURCHARGES, VAT_RATES, one_digit_apart,
};
use crate::extraction::checks::EU_RATES;
use crate::tax::vat::{VatBreakdown, VatRate, from_total};

/// The rates a VAT amount may be of its base: Spain's (VAT, IGIC, IPSI,
/// current and past, as `reconcile` knows them) first, then the other EU
/// states' and the UK's, whose invoices Spanish businesses receive.
fn vat_rates() -> impl Iterator<Item = Decimal> {
    VAT_RATES
        .iter()
        .chain(EU_RATES)
        .copied()
        .filter(|r| !r.is_zero())
}

fn surcharge_rates() -> impl Iterator<Item = Decimal> {
    SURCHARGES.iter().map(|&(_, s)| s).filter(|s| !s.is_zero())
}

/// Candidates per kind: a long document repeats its totals on every page.
const MAX_CANDIDATES: usize = 48;

#[derive(Clone, Copy, Debug)]
struct Candidate {
    value: Decimal,
    row: usize,
    /// How strongly the label says what the amount is.
    weight: f32,
    conf: f32,
}

/// Whether an amount was printed as money: with decimals or a currency sign,
/// not a count of kWh or a reference number.
fn printed_as_money(text: &str, n: &Number) -> bool {
    let printed = text.get(n.start..n.end).unwrap_or("");
    // Two decimals, or up to four on utility and telecom bills.
    let decimals = printed.rfind([',', '.']).is_some_and(|i| {
        (2..=4).contains(
            &printed[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count(),
        )
    });
    let around = text.get(n.end..).unwrap_or("").trim_start();
    decimals || around.starts_with(['€', '$', '£']) || printed.contains(['€', '$', '£'])
}

/// A VAT row often prints its base ("IVA 21 % s/ 34,41 … 7,23 €"): its other
/// amounts are base candidates, a little weaker than a labelled base.
const BASE_IN_VAT_ROW: f32 = 2.0;

fn weight(kind: Kind) -> Option<f32> {
    Some(match kind {
        Kind::Base => 3.0,
        Kind::Vat | Kind::VatTotal => 3.0,
        Kind::Total => 3.0,
        Kind::Payable => 2.0,
        Kind::Surcharge => 3.0,
        Kind::Irpf => 3.0,
        _ => return None,
    })
}

/// Every money amount after each label of `kinds`, beside it or below it.
fn candidates(doc: &Doc, kinds: &[Kind]) -> Vec<Candidate> {
    let mut found = Vec::new();
    let bases = kinds.contains(&Kind::Base);
    for hit in doc.hits.iter().filter(|h| {
        kinds.contains(&h.kind) || (bases && matches!(h.kind, Kind::Vat | Kind::VatTotal))
    }) {
        let Some(mut w) = weight(hit.kind) else {
            continue;
        };
        if bases && hit.kind != Kind::Base {
            w = BASE_IN_VAT_ROW;
        }
        let beside = doc.segment_value(hit);
        let mut values = vec![(beside, w)];
        values.extend(doc.below(hit).into_iter().take(1).map(|v| (v, w * 0.8)));
        for (value, w) in values {
            // "s/32,13": the base a rate applies to ("sobre"), glued to its amount.
            let text = value.text.replace("s/", "s/ ").replace("S/", "S/ ");
            for n in amounts(&text, doc.mark) {
                if printed_as_money(&text, &n) {
                    found.push(Candidate {
                        value: n.value.abs(),
                        row: value.row,
                        weight: w,
                        conf: value.conf,
                    });
                }
            }
        }
        if found.len() >= MAX_CANDIDATES * 4 {
            break;
        }
    }
    found.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.row.cmp(&b.row)));
    found.dedup_by(|a, b| a.value == b.value && a.row == b.row);
    found.truncate(MAX_CANDIDATES);
    found
}

/// The rate of `rates` that `part` is of `base`, within rounding.
fn rate_of(
    part: Decimal,
    base: Decimal,
    mut rates: impl Iterator<Item = Decimal>,
) -> Option<Decimal> {
    let tolerance = dec!(0.011) + base * dec!(0.00005);
    rates.find(|r| (base * r / dec!(100) - part).abs() <= tolerance)
}

fn consistent(r: &Reconciled) -> bool {
    let (Some(base), Some(vat), Some(total)) = (&r.base, &r.vat_amount, &r.total) else {
        return false;
    };
    let surcharge: Decimal = r
        .vat_breakdown
        .iter()
        .filter_map(|l| l.surcharge_amount)
        .sum();
    let irpf = r.irpf_amount.as_ref().map_or(Decimal::ZERO, |f| f.value);
    let lines_ok = r.vat_breakdown.iter().all(|l| {
        (l.base * l.rate / dec!(100) - l.vat_amount).abs()
            <= dec!(0.011) + l.base.abs() * dec!(0.00005)
    });
    lines_ok && (base.value + vat.value + surcharge - irpf - total.value).abs() <= SUM_TOLERANCE
}

struct Choice {
    base: Candidate,
    vat: Candidate,
    rate: Decimal,
    surcharge: Option<(Candidate, Decimal)>,
    irpf: Option<(Candidate, Decimal)>,
    total: Candidate,
    score: f32,
}

fn score(doc_rows: usize, b: &Candidate, v: &Candidate, t: &Candidate) -> f32 {
    let order = if t.row >= b.row && t.row >= v.row {
        0.5
    } else {
        0.0
    };
    let late = t.row as f32 / doc_rows.max(1) as f32;
    b.weight + v.weight + t.weight + order + late * 0.5
}

/// The best set of figures that adds up, if any.
fn choose(doc: &Doc) -> Option<Choice> {
    let bases = candidates(doc, &[Kind::Base]);
    let vats = candidates(doc, &[Kind::Vat, Kind::VatTotal]);
    let totals = candidates(doc, &[Kind::Total, Kind::Payable]);
    let surcharges = candidates(doc, &[Kind::Surcharge]);
    let irpfs = candidates(doc, &[Kind::Irpf]);
    let mut best: Option<Choice> = None;
    let exempt = doc.hits_of(Kind::Exempt).next().is_some();
    for b in bases.iter().filter(|b| !b.value.is_zero()) {
        for v in vats.iter().filter(|v| v.value < b.value) {
            let rate = if v.value.is_zero() {
                exempt.then_some(Decimal::ZERO)
            } else {
                rate_of(v.value, b.value, vat_rates())
            };
            let Some(rate) = rate else { continue };
            let surcharge = surcharges
                .iter()
                .find_map(|s| rate_of(s.value, b.value, surcharge_rates()).map(|r| (*s, r)));
            let irpf = irpfs.iter().find_map(|i| {
                rate_of(i.value, b.value, IRPF_RATES.iter().copied()).map(|r| (*i, r))
            });
            for s in [None, surcharge] {
                for i in [None, irpf] {
                    let sum = b.value + v.value + s.map_or(Decimal::ZERO, |x| x.0.value)
                        - i.map_or(Decimal::ZERO, |x| x.0.value);
                    let adds_up = |t: &&Candidate| {
                        !t.value.is_zero() && (t.value - sum).abs() <= SUM_TOLERANCE
                    };
                    for t in totals.iter().filter(adds_up) {
                        let score = score(doc.rows.len(), b, v, t);
                        if best.as_ref().is_none_or(|c| score > c.score) {
                            best = Some(Choice {
                                base: *b,
                                vat: *v,
                                rate,
                                surcharge: s,
                                irpf: i,
                                total: *t,
                                score,
                            });
                        }
                    }
                }
            }
        }
    }
    best
}

/// The first amount printed as money beside a label that `keep` accepts,
/// with its row and confidence.
fn money_beside(
    doc: &Doc,
    hit: &Hit,
    keep: impl Fn(&Number) -> bool,
) -> Option<(Decimal, usize, f32)> {
    let value = doc.segment_value(hit);
    let n = amounts(&value.text, doc.mark)
        .into_iter()
        .find(|n| printed_as_money(&value.text, n) && keep(n))?;
    Some((n.value.abs(), value.row, value.conf))
}

/// The non-zero money amounts beside the labels of one kind, in document order.
fn candidates_of(doc: &Doc, kind: Kind, weight: f32) -> Vec<Candidate> {
    doc.hits_of(kind)
        .filter_map(|hit| money_beside(doc, hit, |n| !n.value.is_zero()))
        .map(|(value, row, conf)| Candidate {
            value,
            row,
            weight,
            conf,
        })
        .collect()
}

/// A ticket's total from its payment: cash handed over less the change.
fn paid_less_change(doc: &Doc) -> Option<Field<Decimal>> {
    let first = |kind: Kind| {
        doc.hits_of(kind)
            .find_map(|hit| money_beside(doc, hit, |_| true))
    };
    let (paid, _, paid_conf) = first(Kind::Tendered)?;
    let (change, _, change_conf) = first(Kind::Change)?;
    let total = paid - change;
    (total > Decimal::ZERO).then(|| Field::new(total, paid_conf.min(change_conf) * 0.5))
}

/// A ticket's total from a card payment, which is exact.
fn paid_by_card(doc: &Doc) -> Option<Field<Decimal>> {
    let cards = candidates_of(doc, Kind::CardPaid, 1.0);
    cards.first().map(|c| Field::new(c.value, c.conf * 0.5))
}

/// `reconciled` when its figures add up; else the labelled figures that do.
pub fn agree(doc: &Doc, mut reconciled: Reconciled) -> Reconciled {
    if reconciled.total.is_none()
        && let Some(total) = paid_less_change(doc).or_else(|| paid_by_card(doc))
    {
        reconciled.notes.push((
            "total_from_payment".to_string(),
            format!(
                "No se leyó el total; se calcula como importe entregado menos cambio: {} (total computed from the payment)",
                super::wording::amount(total.value)
            ),
        ));
        reconciled.total = Some(total);
    }
    if consistent(&reconciled) {
        return reconciled;
    }
    let Some(c) = choose(doc) else {
        let reconciled = with_printed_total(doc, reconciled);
        if doc.read_by_ocr() {
            return plausible(misread_split(reconciled));
        }
        return plausible(reconciled);
    };
    let field = |x: &Candidate| Field::new(x.value, x.conf * BESIDE);
    // The repairs and computations noted were of figures no longer used.
    let notes = reconciled
        .notes
        .iter()
        .filter(|(code, _)| {
            code == "total_from_payment" || (code == "vat_exempt" && c.rate.is_zero())
        })
        .cloned()
        .collect();
    Reconciled {
        notes,
        base: Some(field(&c.base)),
        vat_amount: Some(field(&c.vat)),
        vat_breakdown: vec![VatLine {
            rate: c.rate,
            base: c.base.value,
            vat_amount: c.vat.value,
            surcharge_rate: c.surcharge.map(|(_, r)| r),
            surcharge_amount: c.surcharge.map(|(s, _)| s.value),
        }],
        irpf_rate: c.irpf.map(|(i, r)| Field::new(r, i.conf * BESIDE)),
        irpf_amount: c.irpf.map(|(i, _)| field(&i)),
        total: Some(field(&c.total)),
        ..reconciled
    }
}

/// On a photo, a VAT amount that does not fit its total may be misread by
/// one digit ("8,58" for "8,68"). When splitting the total at exactly one
/// rate in force gives a VAT one digit from the one read, and a base one
/// digit from the one read (if any), the split is what was printed.
fn misread_split(mut reconciled: Reconciled) -> Reconciled {
    let (Some(vat), Some(total)) = (&reconciled.vat_amount, &reconciled.total) else {
        return reconciled;
    };
    if reconciled.vat_breakdown.len() > 1 || vat.value.is_zero() {
        return reconciled;
    }
    let read_base = reconciled.base.as_ref().map(|b| b.value);
    let fits = |split: &VatBreakdown| {
        one_digit_apart(split.vat_amount, vat.value)
            && read_base.is_none_or(|b| b == split.base || one_digit_apart(b, split.base))
    };
    // Spain's rates and the EU's overlap: each rate is tried once.
    let mut rates: Vec<Decimal> = vat_rates().collect();
    rates.sort();
    rates.dedup();
    let splits: Vec<VatBreakdown> = rates
        .into_iter()
        .map(|rate| {
            let rate = VatRate {
                rate,
                surcharge: Decimal::ZERO,
            };
            from_total(total.value, rate, false)
        })
        .filter(fits)
        .collect();
    let Ok([split]) = <[VatBreakdown; 1]>::try_from(splits) else {
        return reconciled;
    };
    let conf = vat.confidence.min(total.confidence) * 0.5;
    reconciled.notes.push((
        "amount_repaired".to_string(),
        format!(
            "Importe corregido para que las cifras cuadren: IVA {} → {} al {} % del total {} (amount repaired)",
            super::wording::amount(vat.value),
            super::wording::amount(split.vat_amount),
            super::wording::rate(split.vat_rate),
            super::wording::amount(total.value)
        ),
    ));
    reconciled.base = Some(Field::new(split.base, conf));
    reconciled.vat_amount = Some(Field::new(split.vat_amount, conf));
    reconciled.vat_breakdown = vec![VatLine {
        rate: split.vat_rate,
        base: split.base,
        vat_amount: split.vat_amount,
        surcharge_rate: None,
        surcharge_amount: None,
    }];
    reconciled
}

/// Figures that cannot belong together (a base larger than the total, VAT
/// larger than its base) are misreadings: none is better than a wrong one.
fn plausible(mut reconciled: Reconciled) -> Reconciled {
    let value = |f: &Option<Field<Decimal>>| f.as_ref().map(|f| f.value.abs());
    let (base, vat, total) = (
        value(&reconciled.base),
        value(&reconciled.vat_amount),
        value(&reconciled.total),
    );
    let base_too_large = matches!((base, total), (Some(b), Some(t)) if b > t * dec!(1.5) + dec!(1));
    let vat_too_large = matches!((vat, base.or(total)), (Some(v), Some(b)) if v > b);
    if base_too_large || vat_too_large {
        reconciled.base = None;
        reconciled.vat_amount = None;
        reconciled.vat_breakdown.clear();
    }
    reconciled
}

/// A total that no total label prints as money (a figure read elsewhere,
/// or a misread one) gives way to the last one a "Total" label prints.
fn with_printed_total(doc: &Doc, mut reconciled: Reconciled) -> Reconciled {
    let printed = candidates_of(doc, Kind::Total, 3.0);
    let known = |v: Decimal| printed.iter().any(|c| c.value == v.abs());
    if let (Some(total), Some(last)) = (&reconciled.total, printed.last())
        && !known(total.value)
    {
        reconciled.total = Some(Field::new(last.value, last.conf * BESIDE));
    }
    reconciled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::reconcile::reconcile;
    use crate::extraction::text::rows::rows;
    use crate::extraction::text::totals;

    fn figures(text: &str) -> (Decimal, Decimal, Decimal) {
        figures_read(text, 1.0)
    }

    /// The figures of `text` read with every word at confidence `conf`.
    fn figures_read(text: &str, conf: f32) -> (Decimal, Decimal, Decimal) {
        let mut words = TextDocument::from_plain_text(text).words;
        for w in &mut words {
            w.confidence = conf;
        }
        let doc = Doc::new(rows(&words));
        let r = agree(&doc, reconcile(totals::read(&doc)));
        (
            r.base.map(|f| f.value).unwrap_or_default(),
            r.vat_amount.map(|f| f.value).unwrap_or_default(),
            r.total.map(|f| f.value).unwrap_or_default(),
        )
    }

    #[test]
    fn a_photo_vat_misread_by_one_digit_is_the_split_of_its_total() {
        let ticket = "FACTURA SIMPLIFICADA\n\
                      Total EUR 50,01\n\
                      IVA EUR 8,58";
        assert_eq!(
            figures_read(ticket, 0.8),
            (dec!(41.33), dec!(8.68), dec!(50.01))
        );
        // A PDF's text layer is not misread: its figures stay as printed.
        assert_eq!(
            figures_read(ticket, 1.0),
            (dec!(0), dec!(8.58), dec!(50.01))
        );
        // A VAT no rate's split is one digit from is left as read.
        let far = ticket.replace("8,58", "1,11");
        assert_eq!(figures_read(&far, 0.8), (dec!(0), dec!(1.11), dec!(50.01)));
    }

    #[test]
    fn a_summary_box_and_a_detail_page_agree_on_the_figures_that_add_up() {
        let text = "Total a pagar 64,08 €\n\
                    Consumo total 304 kWh\n\
                    Impuestos 13,66 €\n\
                    \n\
                    Subtotal                          49,67 €\n\
                    Impuesto electricidad  49,67 € x 5,11 %   2,54 €\n\
                    Total base imponible              52,96 €\n\
                    IVA (21%)        52,96 € x 21%    11,12 €\n\
                    Total a pagar                     64,08 €";
        assert_eq!(figures(text), (dec!(52.96), dec!(11.12), dec!(64.08)));
    }

    #[test]
    fn the_base_printed_in_the_vat_row_counts() {
        let text = "Potencia ........ 18,38 €\n\
                    Impuestos ....... 8,86 €\n\
                    IVA normal 21 % s/34,41 ......... 7,23 €\n\
                    TOTAL ........................... 41,64 €\n\
                    Consumo Total 83,895 kWh 240";
        assert_eq!(figures(text), (dec!(34.41), dec!(7.23), dec!(41.64)));
    }

    #[test]
    fn an_exempt_supply_adds_up_with_no_vat() {
        let text = "Net total 2,076.76 €\n\
                    TVA 0% livraisons intracommunautaires 2,076.76 € 0.00 €\n\
                    Tax Total 0.00 €\n\
                    Total 2,076.76 €\n\
                    SARL au capital de 120 000,00 €\n\
                    French VAT exemption according to article 262 ter I";
        assert_eq!(figures(text), (dec!(2076.76), dec!(0), dec!(2076.76)));
    }

    #[test]
    fn a_ticket_without_a_legible_total_is_paid_less_change() {
        let text = "FACTURA SIMPLIFICADA: 4346-019-253219\n\
                    1 SEPIA LIMPIA 7,82\n\
                    ENTREGA EFECTIVO 37,00\n\
                    DEVOLUCIÓN 0,06";
        assert_eq!(figures(text).2, dec!(36.94));
    }

    #[test]
    fn a_card_payment_is_the_total_when_none_is_legible() {
        let text = "FACTURA SIMPLIFICADA: 2308-011-043016\n\
                    1 COPOS AVENA 0,81\n\
                    TARJETA BANCARIA 46,93";
        assert_eq!(figures(text).2, dec!(46.93));
    }

    #[test]
    fn figures_that_cannot_belong_together_are_dropped() {
        let (base, vat, total) = figures(
            "Base imponible 559.366.959,18\nIVA 21% 257.157.543,82\nTotal factura 1.312,70",
        );
        assert_eq!((base, vat, total), (dec!(0), dec!(0), dec!(1312.70)));
    }

    #[test]
    fn a_payable_amount_with_other_charges_loses_to_the_invoice_total() {
        let text = "Base imponible     1.084,87\n\
                    IVA 21%              227,82\n\
                    Total factura      1.312,69\n\
                    Otros servicios      853,05\n\
                    Total a pagar      2.165,74";
        assert_eq!(figures(text), (dec!(1084.87), dec!(227.82), dec!(1312.69)));
    }
}
