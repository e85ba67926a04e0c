//! Makes the printed figures agree: VAT lines merged by rate, surcharges
//! attached to their VAT line, missing parts computed (VAT from base and
//! rate, base from VAT, IRPF from its rate, a VAT-included ticket split), the
//! total chosen among the printed ones, and OCR-damaged amounts (a dropped
//! decimal mark, a lost sign) repaired when, and only when, the repair makes
//! base × rate ≈ VAT and base + VAT + RE − IRPF (+ suplidos) ≈ total.
//! Every computed or repaired figure leaves a note.

use rust_decimal::Decimal;
use rust_decimal::dec;

use crate::extraction::fields::{Field, VatLine};
use crate::tax::money::{percent_of, round2};
use crate::tax::vat::{VatRate, from_total};

use super::totals::{Figures, Reading, TaxLine};
use super::wording;

/// Rates a printed VAT (or IGIC/IPSI) figure is snapped to when no rate is printed.
pub(super) const VAT_RATES: &[Decimal] = &[
    dec!(21),
    dec!(10),
    dec!(4),
    dec!(0),
    dec!(5),
    dec!(2),
    dec!(7.5),
    dec!(18),
    dec!(8),
    dec!(16),
    dec!(7),
    dec!(3),
    dec!(9.5),
    dec!(15),
    dec!(20),
];
pub(super) const IRPF_RATES: &[Decimal] = &[
    dec!(15),
    dec!(7),
    dec!(19),
    dec!(1),
    dec!(2),
    dec!(24),
    dec!(35),
    dec!(9),
    dec!(18),
    dec!(20),
    dec!(21),
    dec!(7.5),
];
/// VAT rate → its equivalence surcharge rates.
pub(super) const SURCHARGES: &[(Decimal, Decimal)] = &[
    (dec!(21), dec!(5.2)),
    (dec!(21), dec!(1.75)),
    (dec!(10), dec!(1.4)),
    (dec!(7.5), dec!(1)),
    (dec!(5), dec!(0.62)),
    (dec!(5), dec!(0.5)),
    (dec!(4), dec!(0.5)),
    (dec!(2), dec!(0.26)),
    (dec!(0), dec!(0)),
    (dec!(18), dec!(4)),
    (dec!(8), dec!(1)),
    (dec!(16), dec!(4)),
    (dec!(7), dec!(1)),
];
const LINE_TOLERANCE: Decimal = dec!(0.01);
pub(super) const SUM_TOLERANCE: Decimal = dec!(0.02);
/// Confidence factor of a computed or repaired figure.
const DERIVED: f32 = 0.5;

#[derive(Debug, Default, PartialEq)]
pub struct Reconciled {
    pub base: Option<Field<Decimal>>,
    pub vat_amount: Option<Field<Decimal>>,
    pub vat_breakdown: Vec<VatLine>,
    pub irpf_rate: Option<Field<Decimal>>,
    pub irpf_amount: Option<Field<Decimal>>,
    pub total: Option<Field<Decimal>>,
    pub currency: Option<String>,
    pub indirect_tax: Option<String>,
    pub notes: Vec<(String, String)>,
}

fn derived(value: Decimal, from: &[Option<Reading>]) -> Reading {
    let conf = from.iter().flatten().map(|r| r.conf).fold(1.0f32, f32::min);
    Reading {
        value,
        conf: conf * DERIVED,
        plain: false,
        repaired: false,
    }
}

fn same(a: Option<Reading>, b: Option<Reading>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.value == b.value,
        _ => true,
    }
}

fn compatible(a: &TaxLine, b: &TaxLine) -> bool {
    same(a.base, b.base) && same(a.vat, b.vat) && same(a.surcharge, b.surcharge)
}

fn absorb(into: &mut TaxLine, from: TaxLine) {
    into.rate = into.rate.or(from.rate);
    into.base = into.base.or(from.base);
    into.vat = into.vat.or(from.vat);
    into.surcharge_rate = into.surcharge_rate.or(from.surcharge_rate);
    into.surcharge = into.surcharge.or(from.surcharge);
}

/// Lines of the same rate (or repeated) become one.
fn merge(lines: Vec<TaxLine>) -> Vec<TaxLine> {
    let mut out: Vec<TaxLine> = Vec::new();
    for line in lines {
        let target = out
            .iter_mut()
            .find(|o| o.rate.is_some() && o.rate == line.rate && compatible(o, &line));
        match target {
            Some(t) => absorb(t, line),
            None => out.push(line),
        }
    }
    drop_sum_lines(&mut out);
    drop_stray_vats(&mut out);
    infer_rates(&mut out);
    let rated: Vec<usize> = (0..out.len()).filter(|&i| out[i].rate.is_some()).collect();
    let unrated: Vec<usize> = (0..out.len()).filter(|&i| out[i].rate.is_none()).collect();
    if let ([r], [u]) = (rated.as_slice(), unrated.as_slice())
        && compatible(&out[*r], &out[*u])
    {
        let line = out.remove(*u);
        let r = if *u < *r { *r - 1 } else { *r };
        if let Some(t) = out.get_mut(r) {
            absorb(t, line);
        }
    }
    out
}

/// A row of a breakdown table as read: a rate, or a base with its VAT.
fn table_row(line: &TaxLine) -> bool {
    line.rate.is_some() || (line.base.is_some() && line.vat.is_some())
}

/// With several rows (a breakdown table), an unrated row whose figures are
/// the sums of the other rows' is the table's total row ("Total", often
/// misread on tickets), not another rate. Rows count with their rates
/// illegible too ("4k" for "4%"), as long as base and VAT are read.
fn drop_sum_lines(lines: &mut Vec<TaxLine>) {
    let rows = lines.iter().filter(|l| table_row(l)).count();
    let near = |r: Option<Reading>, total: Decimal| {
        r.is_none_or(|r| (r.value - total).abs() <= Decimal::new(1, 2))
    };
    let sums: Vec<bool> = (0..lines.len())
        .map(|i| {
            let l = &lines[i];
            let others = || {
                lines
                    .iter()
                    .enumerate()
                    .filter(move |(j, o)| *j != i && table_row(o))
                    .map(|(_, o)| o)
            };
            let bases: Decimal = others().filter_map(|o| o.base.map(|r| r.value)).sum();
            let vats: Decimal = others().filter_map(|o| o.vat.map(|r| r.value)).sum();
            let misread = |r: Option<Reading>, total: Decimal| {
                r.is_some_and(|r| one_digit_apart(r.value, total))
            };
            let both = l.base.is_some() && l.vat.is_some();
            let other_rows = rows - usize::from(table_row(l));
            other_rows >= 2
                && l.rate.is_none()
                && (l.base.is_some() || l.vat.is_some())
                && ((near(l.base, bases) && near(l.vat, vats))
                    || (both && near(l.base, bases) && misread(l.vat, vats))
                    || (both && misread(l.base, bases) && near(l.vat, vats)))
        })
        .collect();
    let mut index = 0;
    lines.retain(|_| {
        index += 1;
        !sums[index - 1]
    });
}

/// Whether two amounts differ in one digit only, as OCR misreads one
/// ("19,29" for "12,29").
pub(super) fn one_digit_apart(a: Decimal, b: Decimal) -> bool {
    let (a, b) = (format!("{:.2}", a.abs()), format!("{:.2}", b.abs()));
    a.len() == b.len() && a.chars().zip(b.chars()).filter(|(x, y)| x != y).count() == 1
}

/// The most VAT (with surcharge) can be of its base.
const MAX_TAX_SHARE: Decimal = dec!(0.30);

/// Beside rows with bases, a VAT amount read with neither base nor rate is
/// not another rate's: either more than any tax of those bases could be (a
/// stray number below an "IVA" on a ticket), or the rows' VAT and surcharge
/// together (an "Importe IVA" that lumps the equivalence surcharge in).
fn drop_stray_vats(lines: &mut Vec<TaxLine>) {
    let bases: Decimal = lines.iter().filter_map(|l| l.base.map(|b| b.value)).sum();
    if bases.is_zero() {
        return;
    }
    let value = |r: Option<Reading>| r.map_or(Decimal::ZERO, |r| r.value);
    let rows_tax: Decimal = lines
        .iter()
        .filter(|l| l.base.is_some())
        .map(|l| value(l.vat) + value(l.surcharge))
        .sum();
    lines.retain(|l| {
        let stray = l.rate.is_none() && l.base.is_none();
        let impossible = |v: Reading| v.value.abs() > bases.abs() * MAX_TAX_SHARE;
        let lumped =
            |v: Reading| !rows_tax.is_zero() && (v.value - rows_tax).abs() <= LINE_TOLERANCE;
        !(stray && l.vat.is_some_and(|v| impossible(v) || lumped(v)))
    });
}

/// In a table of several rates, a row whose rate is illegible ("dk" for
/// "4%") but whose base and VAT are read has the rate they imply.
fn infer_rates(lines: &mut [TaxLine]) {
    if lines.len() < 2 {
        return;
    }
    for line in lines.iter_mut().filter(|l| l.rate.is_none()) {
        if let (Some(b), Some(v)) = (line.base, line.vat)
            && !b.value.is_zero()
        {
            line.rate = VAT_RATES
                .iter()
                .copied()
                .filter(|r| !r.is_zero())
                .find(|&r| (round2(percent_of(b.value, r)) - v.value).abs() <= LINE_TOLERANCE);
        }
    }
}

fn line_ok(line: &TaxLine) -> bool {
    let vat_ok = match (line.rate, line.base, line.vat) {
        (Some(r), Some(b), Some(v)) => {
            (round2(percent_of(b.value, r)) - v.value).abs() <= LINE_TOLERANCE
        }
        _ => true,
    };
    let re_ok = match (line.surcharge_rate, line.base, line.surcharge) {
        (Some(r), Some(b), Some(s)) => {
            (round2(percent_of(b.value, r)) - s.value).abs() <= LINE_TOLERANCE
        }
        _ => true,
    };
    vat_ok && re_ok
}

fn attach_surcharges(lines: &mut [TaxLine], surcharges: Vec<TaxLine>) {
    let single = lines.len() == 1;
    for s in surcharges {
        let fits = |l: &TaxLine| {
            let by_rate = matches!((l.rate, s.surcharge_rate), (Some(v), Some(r)) if SURCHARGES.contains(&(v, r)));
            let by_amount = match (l.base, s.surcharge_rate, s.surcharge) {
                (Some(b), Some(r), Some(a)) => {
                    (round2(percent_of(b.value, r)) - a.value).abs() <= LINE_TOLERANCE
                }
                _ => false,
            };
            l.surcharge.is_none() && (by_rate || by_amount || single)
        };
        if let Some(line) = lines.iter_mut().find(|l| fits(l)) {
            line.surcharge_rate = line.surcharge_rate.or(s.surcharge_rate);
            line.surcharge = s.surcharge;
            line.base = line.base.or(s.base);
        }
    }
}

fn snap(value: Decimal, base: Decimal, rates: &[Decimal]) -> Decimal {
    rates
        .iter()
        .copied()
        .find(|&r| (round2(percent_of(base, r)) - value).abs() <= LINE_TOLERANCE)
        .unwrap_or_else(|| round2(value * Decimal::ONE_HUNDRED / base))
}

struct Work {
    lines: Vec<TaxLine>,
    irpf: Option<Reading>,
    irpf_rate: Option<Decimal>,
    suplidos: Decimal,
    notes: Vec<(String, String)>,
}

impl Work {
    fn note(&mut self, code: &str, message: String) {
        self.notes.push((code.to_string(), message));
    }

    fn bases(&self) -> Option<Decimal> {
        let bases: Vec<Decimal> = self
            .lines
            .iter()
            .filter_map(|l| l.base.map(|b| b.value))
            .collect();
        (!bases.is_empty()).then(|| bases.iter().sum())
    }

    fn expected_total(&self) -> Decimal {
        let lines: Decimal = self
            .lines
            .iter()
            .map(|l| {
                l.base.map_or(Decimal::ZERO, |r| r.value)
                    + l.vat.map_or(Decimal::ZERO, |r| r.value)
                    + l.surcharge.map_or(Decimal::ZERO, |r| r.value)
            })
            .sum();
        lines - self.irpf.map_or(Decimal::ZERO, |r| r.value) + self.suplidos
    }

    fn agrees(&self, total: Decimal) -> bool {
        self.lines.iter().all(line_ok) && (self.expected_total() - total).abs() <= SUM_TOLERANCE
    }

    fn complete_lines(&mut self) {
        let mut notes = Vec::new();
        for line in &mut self.lines {
            if let (None, Some(b), Some(v)) = (line.rate, line.base, line.vat)
                && !b.value.is_zero()
            {
                line.rate = Some(snap(v.value, b.value, VAT_RATES));
            }
            match (line.rate, line.base, line.vat) {
                (Some(r), Some(b), None) => {
                    let vat = round2(percent_of(b.value, r));
                    line.vat = Some(derived(vat, &[line.base]));
                    notes.push((
                        "vat_computed",
                        format!(
                            "No se leyó la cuota de IVA al {} %; calculada sobre la base {}: {} (VAT amount computed)",
                            wording::rate(r), wording::amount(b.value), wording::amount(vat)
                        ),
                    ));
                }
                (Some(r), None, Some(v)) if !r.is_zero() => {
                    let base = round2(v.value * Decimal::ONE_HUNDRED / r);
                    line.base = Some(derived(base, &[line.vat]));
                    notes.push((
                        "base_computed",
                        format!(
                            "No se leyó la base del IVA al {} %; calculada a partir de la cuota {}: {} (base computed)",
                            wording::rate(r), wording::amount(v.value), wording::amount(base)
                        ),
                    ));
                }
                _ => {}
            }
        }
        for (code, message) in notes {
            self.note(code, message);
        }
    }

    /// "Base 61.374,05 · IVA 0 % 0,00 · IVA 21 % 217,42": the exempt or 0 %
    /// part has no base of its own printed; it is what the printed total base
    /// leaves once the other rates' bases are known.
    fn fill_untaxed_base(&mut self, explicit: Option<Reading>) {
        let Some(explicit) = explicit else { return };
        let untaxed = |l: &TaxLine| {
            l.base.is_none()
                && (l.rate.is_some_and(|r| r.is_zero()) || l.vat.is_some_and(|v| v.value.is_zero()))
        };
        let missing: Vec<usize> = (0..self.lines.len())
            .filter(|&i| self.lines[i].base.is_none())
            .collect();
        let [only] = missing.as_slice() else { return };
        if !self.lines.get(*only).is_some_and(untaxed) {
            return;
        }
        let others: Decimal = self
            .lines
            .iter()
            .filter_map(|l| l.base.map(|b| b.value))
            .sum();
        let rest = explicit.value - others;
        if rest.is_zero() || rest.is_sign_negative() != explicit.value.is_sign_negative() {
            return;
        }
        if let Some(line) = self.lines.get_mut(*only) {
            line.base = Some(Reading {
                value: rest,
                ..explicit
            });
            line.rate = line.rate.or(Some(Decimal::ZERO));
        }
    }

    /// Bases computed from a VAT amount carry its rounding (a 4 % VAT of
    /// 1.271,66 gives a base anywhere within ±0,13); when the printed total
    /// base differs from their sum by no more than that, it is the exact one,
    /// and the computed base with the widest uncertainty takes the difference.
    fn align_to_printed_base(&mut self, explicit: Option<Reading>, computed: &[usize]) {
        let Some(explicit) = explicit else { return };
        let Some(sum) = self
            .lines
            .iter()
            .map(|l| l.base.map(|b| b.value))
            .sum::<Option<Decimal>>()
        else {
            return;
        };
        let gap = explicit.value - sum;
        let rate_of = |i: &usize| {
            self.lines
                .get(*i)
                .and_then(|l| l.rate)
                .filter(|r| !r.is_zero())
        };
        let half_cent = Decimal::new(5, 3);
        let tolerance: Decimal = computed
            .iter()
            .filter_map(rate_of)
            .map(|r| half_cent * Decimal::ONE_HUNDRED / r + half_cent)
            .sum();
        if gap.is_zero() || gap.abs() > tolerance {
            return;
        }
        let widest = computed
            .iter()
            .filter(|i| rate_of(i).is_some())
            .min_by_key(|i| rate_of(i))
            .copied();
        if let Some(base) = widest
            .and_then(|i| self.lines.get_mut(i))
            .and_then(|l| l.base.as_mut())
        {
            base.value += gap;
        }
    }

    /// On a credit invoice (negative base) the withholding is negative too,
    /// whatever sign is printed, so that base + VAT − IRPF = total holds.
    fn sign_irpf_like_base(&mut self) {
        if let (Some(base), Some(irpf)) = (self.bases(), self.irpf.as_mut())
            && base.is_sign_negative()
            && irpf.value.is_sign_positive()
        {
            irpf.value = -irpf.value;
        }
    }

    fn complete_irpf(&mut self) {
        let Some(base) = self.bases() else { return };
        match (self.irpf, self.irpf_rate) {
            (None, Some(rate)) if !rate.is_zero() => {
                let amount = round2(percent_of(base, rate));
                self.irpf = Some(derived(amount, &[]));
                self.note(
                    "irpf_computed",
                    format!(
                        "No se leyó el importe de la retención; calculado al {} % sobre {}: {} (IRPF amount computed)",
                        wording::rate(rate), wording::amount(base), wording::amount(amount)
                    ),
                );
            }
            (Some(amount), None) if !base.is_zero() => {
                self.irpf_rate = Some(snap(amount.value.abs(), base.abs(), IRPF_RATES));
            }
            _ => {}
        }
    }
}

/// Readings that may have lost their decimal mark or sign, and their alternatives.
#[derive(Clone, Copy)]
enum Slot {
    Base(usize),
    Vat(usize),
    Surcharge(usize),
    Irpf,
    Total,
}

fn alternatives(r: Reading, total: bool) -> Vec<Decimal> {
    let mut alts = Vec::new();
    // A decimal mark OCR lost ("16" for ",16" or "2843" for "28,43").
    if r.plain && r.value.abs() >= dec!(10) && r.value.fract().is_zero() {
        alts.push(r.value / Decimal::ONE_HUNDRED);
    }
    if total {
        alts.push(-r.value);
    }
    alts
}

fn slot_name(slot: Slot) -> &'static str {
    match slot {
        Slot::Base(_) => "base",
        Slot::Vat(_) => "IVA",
        Slot::Surcharge(_) => "recargo de equivalencia",
        Slot::Irpf => "IRPF",
        Slot::Total => "total",
    }
}

fn get(work: &Work, total: &Reading, slot: Slot) -> Option<Reading> {
    match slot {
        Slot::Base(i) => work.lines.get(i)?.base,
        Slot::Vat(i) => work.lines.get(i)?.vat,
        Slot::Surcharge(i) => work.lines.get(i)?.surcharge,
        Slot::Irpf => work.irpf,
        Slot::Total => Some(*total),
    }
}

fn set(work: &mut Work, total: &mut Reading, slot: Slot, value: Decimal) {
    let target = match slot {
        Slot::Base(i) => work.lines.get_mut(i).and_then(|l| l.base.as_mut()),
        Slot::Vat(i) => work.lines.get_mut(i).and_then(|l| l.vat.as_mut()),
        Slot::Surcharge(i) => work.lines.get_mut(i).and_then(|l| l.surcharge.as_mut()),
        Slot::Irpf => work.irpf.as_mut(),
        Slot::Total => Some(total),
    };
    if let Some(r) = target {
        r.value = value;
        r.conf *= DERIVED;
        r.plain = false;
    }
}

/// Up to this many readings take part in the repair search.
const MAX_SLOTS: usize = 16;

/// The repair of one or two readings that makes everything agree, if any.
fn repair(work: &Work, total: &Reading) -> Option<Vec<(Slot, Decimal, Decimal)>> {
    let mut slots: Vec<Slot> = Vec::new();
    for i in 0..work.lines.len() {
        slots.extend([Slot::Base(i), Slot::Vat(i), Slot::Surcharge(i)]);
    }
    slots.extend([Slot::Irpf, Slot::Total]);
    let options: Vec<(Slot, Decimal, Decimal)> = slots
        .into_iter()
        .take(MAX_SLOTS)
        .filter_map(|s| get(work, total, s).map(|r| (s, r)))
        .flat_map(|(s, r)| {
            alternatives(r, matches!(s, Slot::Total))
                .into_iter()
                .map(move |alt| (s, r.value, alt))
        })
        .collect();
    let try_set = |chosen: &[(Slot, Decimal, Decimal)]| {
        let mut w = Work {
            lines: work.lines.clone(),
            irpf: work.irpf,
            irpf_rate: work.irpf_rate,
            suplidos: work.suplidos,
            notes: Vec::new(),
        };
        let mut t = *total;
        for &(slot, _, alt) in chosen {
            set(&mut w, &mut t, slot, alt);
        }
        w.agrees(t.value)
    };
    for (i, &a) in options.iter().enumerate() {
        if try_set(&[a]) {
            return Some(vec![a]);
        }
        for &b in options.iter().skip(i + 1) {
            if try_set(&[a, b]) {
                return Some(vec![a, b]);
            }
        }
    }
    None
}

/// A printed total that does not take the withholding off (base + VAT + RE
/// only): the total is then that amount minus the IRPF, with a note.
fn net_of_withholding(work: &mut Work, candidates: &[Reading]) -> Option<Reading> {
    let irpf = work.irpf?;
    let expected = work.expected_total();
    let gross = candidates.iter().find(|t| {
        work.lines.iter().all(line_ok)
            && (expected - t.value).abs() > SUM_TOLERANCE
            && (expected + irpf.value - t.value).abs() <= SUM_TOLERANCE
    })?;
    work.note(
        "total_before_withholding",
        format!(
            "El total impreso {} no descuenta la retención de {}; total: {} (printed total before withholding)",
            wording::amount(gross.value),
            wording::amount(irpf.value),
            wording::amount(expected)
        ),
    );
    Some(Reading {
        value: expected,
        conf: gross.conf * DERIVED,
        ..*gross
    })
}

fn pick_total(work: &mut Work, figures: &Figures) -> Option<Reading> {
    let strong = figures.totals.iter().copied();
    let candidates: Vec<Reading> = strong.chain(figures.payables.iter().copied()).collect();
    if let Some(agreeing) = candidates.iter().find(|t| work.agrees(t.value)) {
        return Some(*agreeing);
    }
    let fallback = figures
        .totals
        .iter()
        .max_by(|a, b| a.value.abs().cmp(&b.value.abs()))
        .or_else(|| {
            figures
                .payables
                .iter()
                .max_by(|a, b| a.value.abs().cmp(&b.value.abs()))
        })
        .copied()?;
    if work.lines.is_empty() {
        return Some(fallback);
    }
    if let Some(net) = net_of_withholding(work, &candidates) {
        return Some(net);
    }
    let mut total = fallback;
    if let Some(changes) = repair(work, &fallback) {
        for (slot, from, to) in changes {
            set(work, &mut total, slot, to);
            work.note(
                "amount_repaired",
                format!(
                    "Importe corregido para que las cifras cuadren: {} {} → {} (amount repaired)",
                    slot_name(slot),
                    wording::amount(from),
                    wording::amount(to)
                ),
            );
        }
    }
    Some(total)
}

/// A VAT-included ticket: split the total at the printed rate.
fn back_calculate(work: &mut Work, figures: &Figures, printed_rate: Option<Decimal>) {
    let has_vat = work
        .lines
        .iter()
        .any(|l| l.vat.is_some() || l.base.is_some());
    let Some(included) = figures.vat_included else {
        return;
    };
    let total = figures.totals.first().or(figures.payables.first()).copied();
    let (false, Some(rate), Some(total)) = (has_vat, included.or(printed_rate), total) else {
        return;
    };
    let split = from_total(
        total.value,
        VatRate {
            rate,
            surcharge: Decimal::ZERO,
        },
        false,
    );
    work.lines = vec![TaxLine {
        rate: Some(rate),
        base: Some(derived(split.base, &[Some(total)])),
        vat: Some(derived(split.vat_amount, &[Some(total)])),
        ..TaxLine::default()
    }];
    work.note(
        "vat_back_calculated",
        format!(
            "Ticket con IVA incluido: base {} e IVA {} al {} % calculados a partir del total {} (VAT back-calculated)",
            wording::amount(split.base),
            wording::amount(split.vat_amount),
            wording::rate(rate),
            wording::amount(total.value)
        ),
    );
}

fn sum_field(values: impl Iterator<Item = Reading>) -> Option<Field<Decimal>> {
    let readings: Vec<Reading> = values.collect();
    if readings.is_empty() {
        return None;
    }
    let conf = readings.iter().map(|r| r.conf).fold(1.0f32, f32::min);
    Some(Field::new(readings.iter().map(|r| r.value).sum(), conf))
}

/// Readings of each kind considered: far more than any invoice prints.
const MAX_READINGS: usize = 48;

fn bounded(mut figures: Figures) -> Figures {
    for list in [
        &mut figures.bases,
        &mut figures.vat_totals,
        &mut figures.totals,
        &mut figures.payables,
        &mut figures.suplidos,
        &mut figures.discounts,
    ] {
        list.truncate(MAX_READINGS);
    }
    figures.lines.truncate(MAX_READINGS);
    figures.surcharges.truncate(MAX_READINGS);
    figures
}

/// The printed lines merged by rate, surcharges attached, and the rate
/// printed first (a ticket's "IVA 10% incluido" has no amounts).
fn printed_lines(figures: &Figures) -> (Vec<TaxLine>, Option<Decimal>) {
    let merged = merge(figures.lines.clone());
    let printed_rate = merged.iter().find_map(|l| l.rate);
    let mut lines: Vec<TaxLine> = merged
        .into_iter()
        .filter(|l| l.base.is_some() || l.vat.is_some())
        .collect();
    attach_surcharges(&mut lines, figures.surcharges.clone());
    (lines, printed_rate)
}

/// The one line printed without its base takes the base printed apart.
fn fill_base(lines: &mut Vec<TaxLine>, base: Option<Reading>, vat_total: Option<Reading>) {
    let Some(base) = base else { return };
    if lines.is_empty() {
        if vat_total.is_some() {
            lines.push(TaxLine {
                base: Some(base),
                vat: vat_total,
                ..TaxLine::default()
            });
        }
        return;
    }
    let others: Decimal = lines.iter().filter_map(|l| l.base.map(|b| b.value)).sum();
    let mut open = lines.iter_mut().filter(|l| l.base.is_none());
    if let (Some(line), None) = (open.next(), open.next()) {
        line.base = Some(Reading {
            value: base.value - others,
            ..base
        });
    }
}

/// An exempt, not-subject or reverse-charge invoice: one 0 % line on the
/// printed base, or on the total when no base is printed.
fn exempt_line(figures: &Figures, base: Option<Reading>) -> Option<TaxLine> {
    let only_total = figures.irpf.is_none() && figures.suplidos.is_empty();
    let base = base.or_else(|| figures.totals.first().filter(|_| only_total).copied())?;
    figures.exempt.then(|| TaxLine {
        rate: Some(Decimal::ZERO),
        base: Some(base),
        vat: Some(Reading {
            value: Decimal::ZERO,
            ..base
        }),
        ..TaxLine::default()
    })
}

fn note_suplidos(work: &mut Work, total: Option<Reading>) {
    let explained = total.is_some_and(|t| work.agrees(t.value));
    let code = if explained {
        "suplidos_outside_base"
    } else {
        "suplidos"
    };
    let message = format!(
        "La factura incluye suplidos por {} fuera de la base imponible, sumados al total (disbursements outside the taxable base)",
        wording::amount(work.suplidos)
    );
    work.note(code, message);
}

pub fn reconcile(figures: Figures) -> Reconciled {
    let figures = bounded(figures);
    let (mut lines, printed_rate) = printed_lines(&figures);
    let explicit_base = explicit_base(&lines, &figures.bases);
    fill_base(
        &mut lines,
        explicit_base,
        figures.vat_totals.first().copied(),
    );
    let mut notes = Vec::new();
    if lines.is_empty()
        && let Some(line) = exempt_line(&figures, explicit_base)
    {
        lines.push(line);
        notes.push((
            "vat_exempt".to_string(),
            "Operación exenta, no sujeta o con inversión del sujeto pasivo: sin cuota de IVA (VAT exempt or reverse charge)".to_string(),
        ));
    }
    let mut work = Work {
        lines,
        irpf: figures.irpf,
        irpf_rate: figures.irpf_rate,
        suplidos: figures.suplidos.iter().map(|r| r.value.abs()).sum(),
        notes,
    };
    back_calculate(&mut work, &figures, printed_rate);
    let computed: Vec<usize> = (0..work.lines.len())
        .filter(|&i| {
            work.lines[i].base.is_none()
                && work.lines[i].vat.is_some()
                && work.lines[i].rate.is_some_and(|r| !r.is_zero())
        })
        .collect();
    work.complete_lines();
    work.fill_untaxed_base(explicit_base);
    work.align_to_printed_base(explicit_base, &computed);
    work.complete_irpf();
    work.sign_irpf_like_base();
    let total = pick_total(&mut work, &figures);
    if let (Some(t), Some(discount)) = (total, figures.discounts.first()) {
        apply_discount(&mut work, t.value, discount.value);
    }
    if !figures.suplidos.is_empty() {
        note_suplidos(&mut work, total);
    }
    note_separator_repairs(&mut work, total);
    result(work, total, explicit_base, &figures)
}

fn result(
    work: Work,
    total: Option<Reading>,
    explicit_base: Option<Reading>,
    figures: &Figures,
) -> Reconciled {
    let lines = &work.lines;
    let base = sum_field(lines.iter().filter_map(|l| l.base))
        .or_else(|| explicit_base.map(|b| Field::new(b.value, b.conf)));
    let vat_amount = sum_field(lines.iter().filter_map(|l| l.vat)).or_else(|| {
        figures
            .vat_totals
            .first()
            .map(|r| Field::new(r.value, r.conf))
    });
    let vat_breakdown = lines
        .iter()
        .filter_map(|l| {
            Some(VatLine {
                rate: l.rate?,
                base: l.base?.value,
                vat_amount: l.vat?.value,
                surcharge_rate: l.surcharge.and(l.surcharge_rate),
                surcharge_amount: l.surcharge.map(|s| s.value),
            })
        })
        .collect();
    let irpf_amount = work.irpf.map(|r| Field::new(r.value, r.conf));
    let irpf_rate = work
        .irpf_rate
        .filter(|_| irpf_amount.is_some())
        .map(|r| Field::new(r, irpf_amount.as_ref().map_or(0.0, |a| a.confidence)));
    Reconciled {
        base,
        vat_amount,
        vat_breakdown,
        irpf_rate,
        irpf_amount,
        total: total.map(|t| Field::new(t.value, t.conf)),
        currency: figures.currency.clone(),
        indirect_tax: figures.indirect_tax.clone(),
        notes: work.notes,
    }
}

/// Amounts printed with inconsistent separators (`1.546.50`) and read by
/// position are worth a word.
fn note_separator_repairs(work: &mut Work, total: Option<Reading>) {
    let used = work
        .lines
        .iter()
        .flat_map(|l| {
            [
                ("base", l.base),
                ("IVA", l.vat),
                ("recargo de equivalencia", l.surcharge),
            ]
        })
        .chain([("IRPF", work.irpf), ("total", total)]);
    let repaired: Vec<(&str, Decimal)> = used
        .filter_map(|(name, r)| r.filter(|r| r.repaired).map(|r| (name, r.value)))
        .collect();
    for (name, value) in repaired {
        work.note(
            "amount_repaired",
            format!(
                "Importe con separadores incoherentes leído por posición: {name} {} (amount repaired)",
                wording::amount(value)
            ),
        );
    }
}

/// The base printed without a rate: the one that sums the lines' bases, or
/// that gives the VAT of the one line without a base; else the first.
fn explicit_base(lines: &[TaxLine], bases: &[Reading]) -> Option<Reading> {
    let line_bases: Decimal = lines.iter().filter_map(|l| l.base.map(|b| b.value)).sum();
    let fits_line = |b: &Reading| {
        let mut open = lines.iter().filter(|l| l.base.is_none());
        match (open.next(), open.next()) {
            (Some(line), None) => line_ok(&TaxLine {
                base: Some(Reading {
                    value: b.value - line_bases,
                    ..*b
                }),
                ..line.clone()
            }),
            _ => false,
        }
    };
    bases
        .iter()
        .find(|b| b.value == line_bases)
        .or_else(|| bases.iter().find(|b| fits_line(b)))
        .or(bases.first())
        .copied()
}

/// A printed base before a discount: the discount taken off when that makes
/// the figures agree.
fn apply_discount(work: &mut Work, total: Decimal, discount: Decimal) {
    if work.agrees(total) || work.lines.len() != 1 {
        return;
    }
    let Some(base) = work.lines.first().and_then(|l| l.base) else {
        return;
    };
    let mut trial = work.lines.clone();
    if let Some(line) = trial.first_mut() {
        line.base = Some(Reading {
            value: base.value - discount,
            ..base
        });
    }
    let before = std::mem::replace(&mut work.lines, trial);
    if work.agrees(total) {
        work.note(
            "discount_applied",
            format!(
                "La base impresa {} es anterior al descuento de {}; base tras el descuento: {} (discount applied)",
                wording::amount(base.value),
                wording::amount(discount),
                wording::amount(base.value - discount)
            ),
        );
    } else {
        work.lines = before;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(value: Decimal) -> Reading {
        Reading {
            value,
            conf: 1.0,
            plain: false,
            repaired: false,
        }
    }

    fn plain(value: Decimal) -> Reading {
        Reading {
            value,
            conf: 1.0,
            plain: true,
            repaired: false,
        }
    }

    fn line(rate: Decimal, base: Option<Reading>, vat: Option<Reading>) -> TaxLine {
        TaxLine {
            rate: Some(rate),
            base,
            vat,
            ..TaxLine::default()
        }
    }

    fn codes(rec: &Reconciled) -> Vec<&str> {
        rec.notes.iter().map(|(c, _)| c.as_str()).collect()
    }

    #[test]
    fn a_ticket_table_with_a_misread_rate_and_total_row() {
        let unrated = |b: Decimal, v: Decimal| TaxLine {
            base: Some(r(b)),
            vat: Some(r(v)),
            ..TaxLine::default()
        };
        let lines = merge(vec![
            unrated(dec!(20.19), dec!(0.81)),
            line(dec!(10), Some(r(dec!(19.24))), Some(r(dec!(1.92)))),
            line(dec!(21), Some(r(dec!(3.94))), Some(r(dec!(0.83)))),
            unrated(dec!(43.37), dec!(3.56)),
        ]);
        let rates: Vec<Option<Decimal>> = lines.iter().map(|l| l.rate).collect();
        assert_eq!(rates, [Some(dec!(4)), Some(dec!(10)), Some(dec!(21))]);
    }

    #[test]
    fn a_ticket_table_with_no_legible_rate_a_total_row_and_a_stray_number() {
        let unrated = |b: Option<Decimal>, v: Decimal| TaxLine {
            base: b.map(r),
            vat: Some(r(v)),
            ..TaxLine::default()
        };
        let lines = merge(vec![
            unrated(Some(dec!(20.19)), dec!(0.81)),
            unrated(Some(dec!(19.24)), dec!(1.92)),
            unrated(Some(dec!(3.94)), dec!(0.83)),
            unrated(Some(dec!(43.37)), dec!(3.56)),
            unrated(None, dec!(130)),
        ]);
        let rates: Vec<Option<Decimal>> = lines.iter().map(|l| l.rate).collect();
        assert_eq!(rates, [Some(dec!(4)), Some(dec!(10)), Some(dec!(21))]);
    }

    #[test]
    fn a_vat_total_that_lumps_the_surcharge_in_is_not_another_line() {
        let lines = merge(vec![
            TaxLine {
                rate: Some(dec!(21)),
                base: Some(r(dec!(31.19))),
                vat: Some(r(dec!(6.55))),
                surcharge_rate: Some(dec!(5.2)),
                surcharge: Some(r(dec!(1.62))),
            },
            TaxLine {
                vat: Some(r(dec!(8.17))),
                ..TaxLine::default()
            },
        ]);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].vat.unwrap().value, dec!(6.55));
    }

    #[test]
    fn a_total_row_with_one_misread_digit_is_still_the_total_row() {
        let lines = merge(vec![
            line(dec!(4), Some(r(dec!(1.78))), Some(r(dec!(0.07)))),
            line(dec!(10), Some(r(dec!(10.51))), Some(r(dec!(1.05)))),
            TaxLine {
                base: Some(r(dec!(19.29))),
                vat: Some(r(dec!(1.12))),
                ..TaxLine::default()
            },
        ]);
        assert_eq!(lines.len(), 2);
        assert!(one_digit_apart(dec!(12.29), dec!(19.29)));
        assert!(!one_digit_apart(dec!(12.29), dec!(21.29)));
        assert!(!one_digit_apart(dec!(12.29), dec!(112.29)));
    }

    #[test]
    fn consistent_figures_pass_unchanged() {
        let rec = reconcile(Figures {
            bases: vec![r(dec!(1546.50))],
            lines: vec![line(dec!(21), None, Some(r(dec!(324.77))))],
            irpf: Some(r(dec!(231.98))),
            irpf_rate: Some(dec!(15)),
            totals: vec![r(dec!(1639.29))],
            ..Figures::default()
        });
        assert_eq!(rec.base.as_ref().unwrap().value, dec!(1546.50));
        assert_eq!(rec.vat_amount.as_ref().unwrap().value, dec!(324.77));
        assert_eq!(rec.total.as_ref().unwrap().value, dec!(1639.29));
        assert_eq!(rec.irpf_rate.as_ref().unwrap().value, dec!(15));
        assert_eq!(rec.vat_breakdown.len(), 1);
        assert!(rec.notes.is_empty());
    }

    #[test]
    fn a_dropped_decimal_mark_is_repaired_with_a_note() {
        let rec = reconcile(Figures {
            bases: vec![plain(dec!(154650))],
            lines: vec![line(dec!(21), None, Some(r(dec!(324.77))))],
            irpf: Some(plain(dec!(23198))),
            irpf_rate: Some(dec!(15)),
            totals: vec![r(dec!(1639.29))],
            ..Figures::default()
        });
        assert_eq!(rec.base.as_ref().unwrap().value, dec!(1546.50));
        assert_eq!(rec.irpf_amount.as_ref().unwrap().value, dec!(231.98));
        assert_eq!(codes(&rec), ["amount_repaired", "amount_repaired"]);
    }

    #[test]
    fn the_total_that_agrees_wins_and_payable_is_a_fallback() {
        let rec = reconcile(Figures {
            lines: vec![line(dec!(21), Some(r(dec!(1000))), Some(r(dec!(210))))],
            irpf: Some(r(dec!(150))),
            totals: vec![r(dec!(1210))],
            payables: vec![r(dec!(1060))],
            ..Figures::default()
        });
        assert_eq!(rec.total.as_ref().unwrap().value, dec!(1060));
        assert_eq!(rec.irpf_rate.as_ref().unwrap().value, dec!(15));
    }

    #[test]
    fn missing_parts_are_computed_with_notes() {
        let rec = reconcile(Figures {
            lines: vec![line(dec!(21), Some(r(dec!(100))), None)],
            irpf_rate: Some(dec!(7)),
            totals: vec![r(dec!(114))],
            ..Figures::default()
        });
        assert_eq!(rec.vat_amount.as_ref().unwrap().value, dec!(21.00));
        assert_eq!(rec.irpf_amount.as_ref().unwrap().value, dec!(7.00));
        assert_eq!(codes(&rec), ["vat_computed", "irpf_computed"]);
    }

    #[test]
    fn tickets_split_the_vat_included_total() {
        let rec = reconcile(Figures {
            totals: vec![r(dec!(12.10))],
            vat_included: Some(Some(dec!(10))),
            ..Figures::default()
        });
        assert_eq!(rec.base.as_ref().unwrap().value, dec!(11.00));
        assert_eq!(rec.vat_amount.as_ref().unwrap().value, dec!(1.10));
        assert_eq!(codes(&rec), ["vat_back_calculated"]);
    }

    #[test]
    fn surcharges_attach_to_their_rate() {
        let rec = reconcile(Figures {
            lines: vec![
                line(dec!(21), Some(r(dec!(1000))), Some(r(dec!(210)))),
                line(dec!(10), Some(r(dec!(500))), Some(r(dec!(50)))),
            ],
            surcharges: vec![
                TaxLine {
                    surcharge_rate: Some(dec!(1.4)),
                    surcharge: Some(r(dec!(7))),
                    ..TaxLine::default()
                },
                TaxLine {
                    surcharge_rate: Some(dec!(5.2)),
                    surcharge: Some(r(dec!(52))),
                    ..TaxLine::default()
                },
            ],
            totals: vec![r(dec!(1819))],
            ..Figures::default()
        });
        assert_eq!(rec.vat_breakdown[0].surcharge_amount, Some(dec!(52)));
        assert_eq!(rec.vat_breakdown[1].surcharge_rate, Some(dec!(1.4)));
        assert_eq!(rec.total.as_ref().unwrap().value, dec!(1819));
        assert!(rec.notes.is_empty());
    }

    #[test]
    fn suplidos_and_discounts_explain_the_total() {
        let rec = reconcile(Figures {
            lines: vec![line(dec!(21), Some(r(dec!(100))), Some(r(dec!(21))))],
            suplidos: vec![r(dec!(30))],
            totals: vec![r(dec!(151))],
            ..Figures::default()
        });
        assert_eq!(codes(&rec), ["suplidos_outside_base"]);
        let rec = reconcile(Figures {
            bases: vec![r(dec!(110))],
            lines: vec![line(dec!(21), None, Some(r(dec!(21))))],
            discounts: vec![r(dec!(10))],
            totals: vec![r(dec!(121))],
            ..Figures::default()
        });
        assert_eq!(rec.base.as_ref().unwrap().value, dec!(100));
        assert_eq!(codes(&rec), ["discount_applied"]);
    }

    #[test]
    fn credit_notes_withhold_with_the_base_sign() {
        let rec = reconcile(Figures {
            lines: vec![line(dec!(21), Some(r(dec!(-1000))), Some(r(dec!(-210))))],
            irpf: Some(r(dec!(150))),
            totals: vec![r(dec!(-1210)), r(dec!(-1060))],
            ..Figures::default()
        });
        assert_eq!(rec.total.as_ref().unwrap().value, dec!(-1060));
        assert_eq!(rec.irpf_rate.as_ref().unwrap().value, dec!(15));
    }

    #[test]
    fn a_total_before_withholding_becomes_the_net_total_with_a_note() {
        let rec = reconcile(Figures {
            lines: vec![line(dec!(21), Some(r(dec!(1000))), Some(r(dec!(210))))],
            irpf: Some(r(dec!(150))),
            irpf_rate: Some(dec!(15)),
            totals: vec![r(dec!(1210))],
            ..Figures::default()
        });
        assert_eq!(rec.total.as_ref().unwrap().value, dec!(1060));
        assert_eq!(codes(&rec), ["total_before_withholding"]);
    }
}
